// Buying a label, once. The choice is committed first (rated → buying), then the carrier is asked for each
// parcel (each parcel's carrier shipment can be bought only once: a second buy is refused, and a lost answer
// is found again by reading the carrier's shipment), then one transaction records the labels, moves the units
// out of the store (the ledger's consume, keyed by the allocation), moves the order's status and queues the
// write-back. A process that dies between the carrier's answer and that commit leaves `buying`, which the
// recovery job (and the next attempt) finishes from what the carrier has: one label, stock moved once.
import {
  SHIPMENT_MESSAGES,
  type Shipment,
  ShipmentBuyInput,
  serviceName,
  TRACKING_LABELS,
  type TrackingStatus,
} from '@switchyard/contracts';
import { and, eq, lt } from 'drizzle-orm';
import { CarrierError, type EasyPostClient, type EpShipment } from '../../carriers/easypost.ts';
import { DomainError } from '../../lib/errors.ts';
import type { Services } from '../../services.ts';
import type { Actor } from '../../trpc/context.ts';
import { channels } from '../channels/channels.tables.ts';
import { schedulePush } from '../inventory/schedule.ts';
import {
  allUnitsFulfilled,
  consumeUnits,
  lockAllocations,
  lockOrder,
  moveOrderStatus,
} from '../orders/orders.fulfil.ts';
import { actorName } from '../orders/orders.service.ts';
import { orders } from '../orders/orders.tables.ts';
import { affectedChannels, recordWriteBack, writeTimeline } from '../orders/orders.timeline.ts';
import { carrierClient, ensureTrackingWebhook } from './shipments.carrier.ts';
import { getShipment } from './shipments.service.ts';
import { shipmentItems, shipmentPackages, shipments } from './shipments.tables.ts';

export const SHIPMENT_WRITE_BACK_JOB = 'shipments.write-back';
/** A purchase still `buying` after this long is finished (or undone) by recovery. */
export const BUYING_STALE_MS = 30_000;

export interface BuyHooks {
  /** Tests: runs after the carrier answered and before our commit (throw to simulate a crash there). */
  afterCarrier?: () => Promise<void> | void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** POST orders/{id}/shipments/buy: buys the chosen rate for every parcel, once, however often it is asked. */
export async function buyShipment(
  services: Services,
  actor: Actor,
  orderId: string,
  raw: unknown,
  options: { client?: EasyPostClient; hooks?: BuyHooks } = {},
): Promise<Shipment> {
  const input = ShipmentBuyInput.parse(raw ?? {});
  const client = options.client ?? carrierClient(services);
  const db = services.db;
  const who = await actorName(db, actor);
  for (let waited = 0; ; waited += 250) {
    const state = await db.transaction(async (tx) => {
      const [row] = await tx
        .select()
        .from(shipments)
        .where(
          and(
            eq(shipments.id, input.shipment_id),
            eq(shipments.accountId, actor.accountId),
            eq(shipments.orderId, orderId),
          ),
        )
        .for('update');
      if (!row) throw new DomainError('NOT_FOUND', SHIPMENT_MESSAGES.notFound);
      if (row.status === 'purchased') return 'done' as const;
      if (row.status === 'voided') throw new DomainError('INVALID_STATE', SHIPMENT_MESSAGES.voided);
      if (row.status === 'buying')
        return row.buyingAt && Date.now() - row.buyingAt.getTime() > BUYING_STALE_MS
          ? ('stale' as const)
          : ('busy' as const);
      const [order] = await tx.select({ status: orders.status }).from(orders).where(eq(orders.id, orderId));
      if (order?.status === 7) throw new DomainError('INVALID_STATE', SHIPMENT_MESSAGES.cancelled);
      const rate = row.rates.find((r) => r.key === input.rate);
      if (!rate) throw new DomainError('VALIDATION', SHIPMENT_MESSAGES.unknownRate);
      await tx
        .update(shipments)
        .set({
          status: 'buying',
          rateKey: rate.key,
          carrier: rate.carrier,
          service: rate.service,
          amount: rate.amount,
          currency: rate.currency,
          buyingAt: new Date(),
          error: null,
          updatedAt: new Date(),
        })
        .where(eq(shipments.id, row.id));
      return 'mine' as const;
    });
    if (state === 'done') return getShipment(db, actor.accountId, input.shipment_id);
    if (state === 'stale') {
      try {
        await finishBuying(services, client, input.shipment_id, { actor: who, userId: actor.userId }, 'recover');
      } catch (err) {
        if (err instanceof CarrierError) throw new DomainError('UPSTREAM_FAILED', SHIPMENT_MESSAGES.busy);
        throw err;
      }
      continue;
    }
    if (state === 'busy') {
      // A double click or a retry while the first request is with the carrier: wait for its outcome.
      if (waited >= 20_000) throw new DomainError('CONFLICT', SHIPMENT_MESSAGES.busy);
      await sleep(250);
      continue;
    }
    await ensureTrackingWebhook(services, client);
    await finishBuying(services, client, input.shipment_id, { actor: who, userId: actor.userId }, 'buy', options.hooks);
    return getShipment(db, actor.accountId, input.shipment_id);
  }
}

type PackageRow = typeof shipmentPackages.$inferSelect;

async function recordLabel(services: Services, pkg: PackageRow, bought: EpShipment) {
  if (!bought.postage_label || !bought.tracking_code) return false;
  await services.db
    .update(shipmentPackages)
    .set({
      trackingCode: bought.tracking_code,
      trackerId: bought.tracker?.id ?? null,
      trackingUrl: bought.tracker?.public_url ?? null,
      trackingStatus: (bought.tracker?.status as TrackingStatus | undefined) ?? 'pre_transit',
      labelUrl: bought.postage_label.label_pdf_url ?? bought.postage_label.label_url,
      updatedAt: new Date(),
    })
    .where(eq(shipmentPackages.id, pkg.id));
  return true;
}

/**
 * Gets every parcel's label (`buy`: buying what is not bought; `recover`: only reading what the carrier has),
 * then commits. A refusal puts the shipment back to rated with the carrier's reason; in recovery, a parcel the
 * carrier never bought does the same (nothing was charged; the merchant buys again).
 */
export async function finishBuying(
  services: Services,
  client: EasyPostClient,
  shipmentId: string,
  by: { actor: string; userId?: string | null },
  mode: 'buy' | 'recover',
  hooks?: BuyHooks,
) {
  const [row] = await services.db.select().from(shipments).where(eq(shipments.id, shipmentId));
  if (row?.status !== 'buying' || !row.rateKey) return;
  const packages = await services.db
    .select()
    .from(shipmentPackages)
    .where(eq(shipmentPackages.shipmentId, shipmentId))
    .orderBy(shipmentPackages.position);
  const undo = async (reason: string) => {
    await services.db
      .update(shipments)
      .set({ status: 'rated', error: reason, buyingAt: null, updatedAt: new Date() })
      .where(and(eq(shipments.id, shipmentId), eq(shipments.status, 'buying')));
  };
  for (const pkg of packages) {
    if (pkg.trackingCode) continue;
    const rateId = pkg.rateIds[row.rateKey];
    if (!pkg.carrierShipmentId || !rateId) {
      await undo(SHIPMENT_MESSAGES.unknownRate);
      throw new DomainError('VALIDATION', SHIPMENT_MESSAGES.unknownRate);
    }
    // What the carrier has first, when an earlier attempt may have bought it.
    if (mode === 'recover') {
      const seen = await client.getShipment(pkg.carrierShipmentId);
      if (await recordLabel(services, pkg, seen)) continue;
      await undo('The purchase was interrupted before the carrier bought the label; nothing was charged. Buy again.');
      return;
    }
    try {
      await recordLabel(services, pkg, await client.buy(pkg.carrierShipmentId, rateId));
    } catch (err) {
      if (!(err instanceof CarrierError)) throw err;
      // Bought by an attempt whose answer was lost (a timeout, a 5xx after the fact): read it back.
      if (err.code === 'SHIPMENT.POSTAGE.EXISTS' || err.transient) {
        const seen = await client.getShipment(pkg.carrierShipmentId).catch(() => null);
        if (seen && (await recordLabel(services, pkg, seen))) continue;
      }
      const reason = err.transient
        ? 'The carrier did not answer; nothing was bought. Try again.'
        : SHIPMENT_MESSAGES.carrier(err.message);
      await undo(reason);
      throw new DomainError('UPSTREAM_FAILED', reason);
    }
  }
  await hooks?.afterCarrier?.();
  await completePurchase(services, shipmentId, by);
}

/**
 * The one commit of a purchase: labels recorded, the allocations' units consumed once (on hand and reserved
 * drop), allocations fulfilled, the order fulfilled or partly fulfilled, the timeline, the write-back queued.
 */
export async function completePurchase(
  services: Services,
  shipmentId: string,
  by: { actor: string; userId?: string | null },
) {
  const result = await services.db.transaction(async (tx) => {
    const [head] = await tx
      .select({ orderId: shipments.orderId, accountId: shipments.accountId })
      .from(shipments)
      .where(eq(shipments.id, shipmentId));
    if (!head) return null;
    // Order first, then the shipment: the same lock order as every other change of the order.
    const order = await lockOrder(tx, head.accountId, head.orderId);
    const [row] = await tx.select().from(shipments).where(eq(shipments.id, shipmentId)).for('update');
    if (!order || !row || row.status !== 'buying') return null;
    const packages = await tx
      .select()
      .from(shipmentPackages)
      .where(eq(shipmentPackages.shipmentId, shipmentId))
      .orderBy(shipmentPackages.position);
    if (packages.some((p) => !p.trackingCode)) return null;
    const items = await tx
      .select()
      .from(shipmentItems)
      .where(and(eq(shipmentItems.shipmentId, shipmentId), eq(shipmentItems.active, 1)));
    // The orders module's verb: the units this shipment carries leave the store once (on hand and reserved drop,
    // keyed by the allocation and this shipment); an allocation with units left keeps them reserved for the next
    // shipment, one with none is fulfilled; the lines' fulfilled quantity grows by the units.
    const allocations = await lockAllocations(tx, order.id);
    const moved: string[] = [];
    for (const item of items) {
      const a = allocations.find((x) => x.id === item.allocationId);
      if (!a) continue;
      const units = await consumeUnits(tx, row.accountId, a, item.quantity, `${a.id}:${shipmentId}`, by);
      if (units > 0 && a.variantId) moved.push(a.variantId);
    }
    // Settled: the items hold no units any more, so the rest of their lines can go in another shipment.
    await tx.update(shipmentItems).set({ active: 0 }).where(eq(shipmentItems.shipmentId, shipmentId));
    const first = packages[0];
    const [channel] = order.channelId
      ? await tx
          .select({ features: channels.features, name: channels.name })
          .from(channels)
          .where(eq(channels.id, order.channelId))
      : [];
    const writeBack = !!channel && channel.features?.fulfillments !== false;
    await tx
      .update(shipments)
      .set({
        status: 'purchased',
        trackingCode: first?.trackingCode ?? null,
        trackingUrl: first?.trackingUrl ?? null,
        trackingStatus: first?.trackingStatus ?? 'pre_transit',
        purchasedAt: new Date(),
        writeBackStatus: writeBack ? 'pending' : null,
        writeBackMessage: writeBack ? `Queued for ${channel?.name}.` : null,
        error: null,
        updatedAt: new Date(),
      })
      .where(eq(shipments.id, shipmentId));
    const codes = packages.map((p) => p.trackingCode).join(', ');
    const label = serviceName(row.carrier, row.service);
    await writeTimeline(tx, row.accountId, order.id, [
      {
        kind: 'shipment',
        message: `Label bought: ${label}, ${packages.length} ${packages.length === 1 ? 'parcel' : 'parcels'}, tracking ${codes} (${TRACKING_LABELS.pre_transit}).`,
        actor: by.actor,
        userId: by.userId ?? null,
      },
    ]);
    // Fulfilled once every line's open units are out; partly fulfilled before.
    const to = (await allUnitsFulfilled(tx, order.id)) ? 3 : 2;
    if ([1, 2, 6].includes(order.status) && order.status !== to)
      await moveOrderStatus(
        tx,
        row.accountId,
        order.id,
        order.status,
        to,
        to === 3 ? 'Shipped in full.' : 'Partly shipped.',
        by,
      );
    if (writeBack)
      await recordWriteBack(
        tx,
        row.accountId,
        order.id,
        `shipment:${shipmentId}`,
        `Shipment queued for ${channel?.name}.`,
        'pending',
      );
    return { accountId: row.accountId, moved, writeBack };
  });
  if (!result) return;
  await schedulePush(services, await affectedChannels(services.db, result.accountId, result.moved));
  if (result.writeBack) {
    await services.queue?.send(
      SHIPMENT_WRITE_BACK_JOB,
      { shipmentId, accountId: result.accountId },
      { singletonKey: `shipment:${shipmentId}` },
    );
    // The merchant waits to see the channel take it: this process's idle workers fetch now, not at their next poll.
    services.queue?.notify(SHIPMENT_WRITE_BACK_JOB);
  }
}

/** The recovery job: purchases left `buying` (a crash, a lost request) are finished or undone from the carrier. */
export async function recoverPurchases(services: Services, olderThanMs = BUYING_STALE_MS, client?: EasyPostClient) {
  const stale = await services.db
    .select({ id: shipments.id })
    .from(shipments)
    .where(and(eq(shipments.status, 'buying'), lt(shipments.buyingAt, new Date(Date.now() - olderThanMs))))
    .limit(100);
  const carrier = client ?? (stale.length ? carrierClient(services) : null);
  let finished = 0;
  for (const s of stale) {
    try {
      await finishBuying(services, carrier as EasyPostClient, s.id, { actor: 'Switchyard' }, 'recover');
      finished += 1;
    } catch (err) {
      services.logger.warn({ shipmentId: s.id, err: (err as Error).message }, 'shipment recovery failed');
    }
  }
  return finished;
}
