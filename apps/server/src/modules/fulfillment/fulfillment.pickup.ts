// Pickup and curbside (issue 15): v2 `POST orders/{id}/fulfillments/ready-for-pickup` and `…/picked-up`. The
// order moves (4 ready for pickup, 5 picked up) with its allocations at the pickup store (picked, then
// fulfilled: the units leave on hand once, consumeStock keyed by the allocation), the customer is e-mailed
// through the outbox in the same transaction, and the channel is told by a retried job where it has the
// concept (Square's pickup fulfillment PROPOSED → RESERVED → PREPARED → COMPLETED; Shopify's pickup
// fulfillment order prepared for pickup, then fulfilled; BigCommerce's order status 8 Awaiting Pickup, then 10
// Completed). Each verb a second time changes nothing.
import { CHANNEL_LABELS, FULFILLMENT_MESSAGES, type FulfillmentOrder, orderStatusLabel } from '@switchyard/contracts';
import { and, eq } from 'drizzle-orm';
import type { Tx } from '../../db/client.ts';
import { DomainError } from '../../lib/errors.ts';
import type { Services } from '../../services.ts';
import type { Actor } from '../../trpc/context.ts';
import { accounts } from '../accounts/accounts.tables.ts';
import { connectorFor } from '../channels/channels.service.ts';
import { channels } from '../channels/channels.tables.ts';
import { schedulePush } from '../inventory/schedule.ts';
import type { LocationRow } from '../locations/locations.read.ts';
import { dispatchMail, queueMail } from '../mail/mail.service.ts';
import {
  consumeAllocations,
  lockAllocations,
  lockOrder,
  markPicked,
  moveOrderStatus,
} from '../orders/orders.fulfil.ts';
import { actorName } from '../orders/orders.service.ts';
import { orderLines, orders } from '../orders/orders.tables.ts';
import { affectedChannels, recordWriteBack } from '../orders/orders.timeline.ts';
import { finishSync, recordSyncProgress, startSync } from '../syncs/syncs.records.ts';
import { getFulfillmentOrder, storeOfOrder } from './fulfillment.service.ts';
import { getPickupEmails } from './fulfillment.settings.ts';
import { fulfillmentSteps } from './fulfillment.tables.ts';

export const PICKUP_AT_CHANNEL_JOB = 'fulfillment.pickup-at-channel';
export type PickupStage = 'ready' | 'picked_up';

type OrderRow = typeof orders.$inferSelect;

const addressOf = (l: LocationRow) =>
  [l.address.address1, l.address.city, l.address.province, l.address.zip].filter(Boolean).join(', ');

/** The customer's e-mail, written to the outbox in the verb's transaction (none without an address). */
async function queuePickupMail(tx: Tx, order: OrderRow, location: LocationRow, stage: PickupStage) {
  if (!order.customerEmail) return null;
  const [[account], lines, texts] = await Promise.all([
    tx.select({ name: accounts.business }).from(accounts).where(eq(accounts.id, order.accountId)),
    tx
      .select({ quantity: orderLines.quantity, title: orderLines.title })
      .from(orderLines)
      .where(eq(orderLines.orderId, order.id))
      .orderBy(orderLines.position),
    getPickupEmails(tx, order.accountId),
  ]);
  const address = addressOf(location);
  return queueMail(
    tx,
    order.customerEmail,
    {
      template: stage === 'ready' ? 'pickup_ready' : 'picked_up',
      firstname: order.customerName?.split(' ')[0] || 'there',
      customerName: order.customerName,
      shopName: account?.name ?? 'the shop',
      orderNumber: order.number,
      storeName: location.name,
      storeAddress: address,
      curbside: order.fulfillmentType === 'curbside_pickup',
      link: `https://www.google.com/maps/search/?api=1&query=${encodeURIComponent(address || location.name)}`,
      items: lines.map((l) => `${l.quantity} × ${l.title}`),
      text: texts[stage],
    },
    order.accountId,
  );
}

interface VerbResult {
  mailId: string | null;
  moved: string[];
  changed: boolean;
  channelId: string | null;
}

async function pickupVerb(services: Services, actor: Actor, id: string, stage: PickupStage): Promise<FulfillmentOrder> {
  const who = await actorName(services.db, actor);
  const by = { actor: who, userId: actor.userId };
  const key = `pickup:${stage}:${id}`;
  const result = await services.db.transaction(async (tx): Promise<VerbResult> => {
    const order = await lockOrder(tx, actor.accountId, id);
    if (!order) throw new DomainError('NOT_FOUND', FULFILLMENT_MESSAGES.notFound);
    if (order.fulfillmentType === 'ship')
      throw new DomainError(
        'INVALID_STATE',
        stage === 'ready' ? FULFILLMENT_MESSAGES.notPickup : FULFILLMENT_MESSAGES.notPickupPickedUp,
      );
    const done = stage === 'ready' ? [4, 5] : [5];
    if (done.includes(order.status)) return { mailId: null, moved: [], changed: false, channelId: null };
    const from = stage === 'ready' ? [0, 1, 2] : [0, 1, 2, 4];
    if (!from.includes(order.status))
      throw new DomainError(
        'INVALID_STATE',
        (stage === 'ready' ? FULFILLMENT_MESSAGES.readyFrom : FULFILLMENT_MESSAGES.pickedUpFrom)(
          orderStatusLabel(order.status),
        ),
      );
    if (order.flagged)
      throw new DomainError('INVALID_STATE', 'This order is flagged: route its flagged lines before the pickup.');
    const location = await storeOfOrder(tx, actor, order);
    if (!location) throw new DomainError('INVALID_STATE', FULFILLMENT_MESSAGES.noStore);
    const open = (await lockAllocations(tx, order.id, location.id)).filter((a) => a.status === 1 || a.status === 2);
    if (open.length === 0) throw new DomainError('INVALID_STATE', FULFILLMENT_MESSAGES.notAtStore);
    let moved: string[] = [];
    if (stage === 'ready') {
      await markPicked(
        tx,
        open.map((a) => a.id),
      );
      await moveOrderStatus(
        tx,
        actor.accountId,
        order.id,
        order.status,
        4,
        `Ready for pickup at ${location.name}.`,
        by,
      );
    } else {
      moved = await consumeAllocations(tx, actor.accountId, open, by);
      await tx
        .delete(fulfillmentSteps)
        .where(and(eq(fulfillmentSteps.accountId, actor.accountId), eq(fulfillmentSteps.orderId, order.id)));
      await moveOrderStatus(
        tx,
        actor.accountId,
        order.id,
        order.status,
        5,
        `Picked up at ${location.name}${order.fulfillmentType === 'curbside_pickup' ? ' (curbside)' : ''}.`,
        by,
      );
    }
    const mailId = await queuePickupMail(tx, order, location, stage);
    if (order.channelId) {
      await recordWriteBack(
        tx,
        actor.accountId,
        order.id,
        key,
        stage === 'ready' ? 'Ready for pickup queued for the channel.' : 'Pickup queued for the channel.',
        'pending',
      );
    }
    return { mailId, moved, changed: true, channelId: order.channelId };
  });
  if (result.changed) {
    if (result.mailId) await dispatchMail(services, [result.mailId]);
    if (result.moved.length > 0)
      await schedulePush(services, await affectedChannels(services.db, actor.accountId, result.moved));
    if (result.channelId)
      await services.queue?.send(
        PICKUP_AT_CHANNEL_JOB,
        { orderId: id, accountId: actor.accountId, stage },
        { singletonKey: key },
      );
  }
  return getFulfillmentOrder(services.db, actor, id);
}

/** The order's units are picked and waiting at the store; the customer is told to come. */
export const readyForPickup = (services: Services, actor: Actor, id: string) =>
  pickupVerb(services, actor, id, 'ready');

/** The customer took the order: its units leave the store's stock once. */
export const pickedUp = (services: Services, actor: Actor, id: string) => pickupVerb(services, actor, id, 'picked_up');

/**
 * The job: tells the channel, recorded as a sync run (a fulfillment write-back with the order as its item, shown
 * on /syncs/). A channel without pickup states is told nothing and the timeline says so; a failure is retried,
 * and its last one tells the merchant to update the channel by hand.
 */
export async function pickupAtChannel(
  services: Services,
  input: { orderId: string; accountId: string; stage: PickupStage },
  meta: { retryCount: number; final: boolean },
) {
  const db = services.db;
  const [order] = await db
    .select()
    .from(orders)
    .where(and(eq(orders.id, input.orderId), eq(orders.accountId, input.accountId)));
  if (!order?.channelId) return;
  const key = `pickup:${input.stage}:${order.id}`;
  const what = input.stage === 'ready' ? 'ready for pickup' : 'picked up';
  const [row] = await db.select().from(channels).where(eq(channels.id, order.channelId));
  const syncId = await startSync(db, {
    accountId: order.accountId,
    channelId: order.channelId,
    type: 'fulfillment_write_back',
    trigger: meta.retryCount > 0 ? 'retry' : 'change',
    total: 1,
    options: { orderId: order.id, pickup: input.stage },
  });
  const item = `Order ${order.number}`;
  const fail = async (message: string, reason: string) => {
    await recordWriteBack(db, order.accountId, order.id, key, message, 'failed');
    await recordSyncProgress(db, syncId, order.accountId, { succeeded: 0, failures: [{ label: item, error: reason }] });
    await finishSync(db, syncId, { error: reason });
  };
  try {
    if (!row) throw new DomainError('NOT_FOUND', 'The channel of this order was removed.');
    const connector = connectorFor(services, row);
    if (!connector.updatePickup) {
      const message = `${row.name} has no pickup states to update.`;
      await recordWriteBack(db, order.accountId, order.id, key, message, 'ok');
      await recordSyncProgress(db, syncId, order.accountId, { succeeded: 1 });
      await finishSync(db, syncId, { message });
      return;
    }
    const result = await connector.updatePickup({
      orderExternalId: order.externalId,
      locationExternalId: order.channelLocationId,
      state: input.stage,
    });
    if ('unsupported' in result) {
      await fail(result.unsupported, result.unsupported);
      return;
    }
    await recordWriteBack(db, order.accountId, order.id, key, `Marked ${what} at ${row.name}.`, 'ok');
    await recordSyncProgress(db, syncId, order.accountId, { succeeded: 1 });
    await finishSync(db, syncId, { message: `${item} marked ${what} at ${CHANNEL_LABELS[row.type]}.` });
  } catch (err) {
    const reason = err instanceof Error ? err.message.slice(0, 300) : 'failed';
    await fail(
      meta.final
        ? `Marking ${what} at the channel failed: ${reason}. Update it there.`
        : `Marking ${what} at the channel failed: ${reason}. Retrying.`,
      reason,
    );
    if (!(err instanceof DomainError) || !meta.final) throw err;
  }
}
