// A known order taken in again (ingest.ts): its fields and line quantities follow the channel; a cancel at the
// channel releases, a fulfilment at the channel consumes, and the channel's restock on a cancel is claimed.
import { CHANNEL_LABELS, type OrderStatus } from '@switchyard/contracts';
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { ProviderOrder, ProviderOrderLine } from '../../connectors/types.ts';
import type { Tx } from '../../db/client.ts';
import type { Services } from '../../services.ts';
import { consumeStock, releaseReservation } from '../inventory/reservations.ts';
import { schedulePush } from '../inventory/schedule.ts';
import { refundedSince } from '../returns/returns.refunded.ts';
import {
  headerOf,
  type IngestChannel,
  type IngestContext,
  locationResolver,
  type OrderRow,
  ourLocations,
  soloContext,
} from './ingest.context.ts';
import { claimLine } from './ingest.lines.ts';
import { orderAllocations, orderLines, orders } from './orders.tables.ts';
import { affectedChannels } from './orders.timeline.ts';

/**
 * Whether a report of a known order at its provider time changes nothing: the same report again (a redelivery, or
 * a second topic of one change) that cancels nothing new and has nothing fulfilled at all.
 */
export const sameReport = (existing: Pick<OrderRow, 'status'>, order: ProviderOrder) =>
  !(order.cancelled && existing.status !== 7) && order.lines.every((l) => !l.fulfilledQuantity);

export async function updateOrder(
  ctx: IngestContext & { variantOf: Map<string, { id: string }> },
  existing: OrderRow,
  order: ProviderOrder,
  sameTime: boolean,
): Promise<boolean> {
  const { tx, channel } = ctx;
  const wasCancelled = existing.status === 7;
  const cancelNow = order.cancelled && !wasCancelled;
  if (sameTime && sameReport(existing, order)) return false;
  const header = headerOf(order);
  const lines = await tx.select().from(orderLines).where(eq(orderLines.orderId, existing.id));
  const byExternal = new Map(lines.map((l) => [l.externalId, l]));
  // Same provider time and nothing that moves stock: a duplicate report.
  if (sameTime && !cancelNow && !newlyFulfilled(order, byExternal)) return false;
  await tx
    .update(orders)
    .set({
      ...header,
      // Our status is ours once the order is here: only a cancel or a fulfilment at the channel moves it.
      status: existing.status,
      cancelledAt: existing.cancelledAt ?? header.cancelledAt,
      cancelReason: existing.cancelReason ?? header.cancelReason,
      updatedAt: new Date(),
    })
    .where(eq(orders.id, existing.id));
  for (const line of order.lines) {
    const ours = byExternal.get(line.externalId);
    if (!ours) continue;
    await tx
      .update(orderLines)
      .set({
        fulfilledQty: Math.max(ours.fulfilledQty, line.fulfilledQuantity ?? 0),
        cancelledQty: Math.max(ours.cancelledQty, line.cancelledQuantity ?? 0),
        refundedQty: Math.max(ours.refundedQty, line.refundedQuantity ?? 0),
      })
      .where(eq(orderLines.id, ours.id));
  }
  // The channel moved its own stock for a line only now (Square: when an order placed unpaid is paid).
  if (!order.cancelled && !wasCancelled) {
    for (const line of order.lines) {
      const ours = byExternal.get(line.externalId);
      if (!ours?.variantId || ours.channelClaimed || !line.stockLocationExternalId) continue;
      await tx
        .update(orderLines)
        .set({ stockLocationExternalId: line.stockLocationExternalId })
        .where(eq(orderLines.id, ours.id));
      const open = ours.quantity - ours.cancelledQty - ours.refundedQty;
      await claimLine(ctx, { id: ours.id, variantId: ours.variantId }, line, -open, order.updatedAt, 'taken');
    }
  }
  if (cancelNow) {
    for (const v of await cancelInTx(tx, channel.accountId, existing, {
      actor: channel.name,
      reason: order.cancelReason ?? null,
    }))
      ctx.variantsTouched.add(v);
    await tx
      .update(orders)
      .set({ status: 7, cancelledAt: header.cancelledAt ?? new Date(), cancelReason: order.cancelReason ?? null })
      .where(eq(orders.id, existing.id));
    ctx.timeline.push({
      kind: 'status',
      message: `Cancelled at ${CHANNEL_LABELS[channel.type]}; reserved units released.`,
      actor: channel.name,
      fromStatus: existing.status,
      toStatus: 7,
    });
    // What the channel puts back: the line's units still open before the cancel. The cancel's own refund, when
    // taken in first (returns), already counts among the refunded units: it is no earlier refund (returns.refunded.ts).
    const cancelledAt = order.cancelledAt ?? order.updatedAt;
    const cancelRefund =
      order.restockedOnCancel === false
        ? null
        : await refundedSince(tx, channel.accountId, existing.id, new Date(cancelledAt));
    for (const line of order.lines) {
      const ours = byExternal.get(line.externalId);
      if (!ours?.variantId || !ours.channelClaimed || !cancelRefund) continue;
      const refundedBefore = Math.max(0, ours.refundedQty - (cancelRefund.get(ours.id) ?? 0));
      await claimLine(
        ctx,
        { id: ours.id, variantId: ours.variantId },
        line,
        ours.quantity - ours.cancelledQty - refundedBefore,
        cancelledAt,
        'restock',
      );
    }
    return true;
  }
  if (!wasCancelled && newlyFulfilled(order, byExternal)) {
    await fulfilFromChannel(ctx, existing, order, byExternal);
  }
  return true;
}

const newlyFulfilled = (order: ProviderOrder, byExternal: Map<string, { fulfilledQty: number }>) =>
  order.lines.some((l) => (l.fulfilledQuantity ?? 0) > (byExternal.get(l.externalId)?.fulfilledQty ?? 0));

/** Units the channel reports fulfilled since: consumed from the line's open allocations, in order. */
async function fulfilFromChannel(
  ctx: IngestContext,
  existing: OrderRow,
  order: ProviderOrder,
  byExternal: Map<string, typeof orderLines.$inferSelect>,
) {
  const { tx, channel } = ctx;
  let all = true;
  for (const line of order.lines) {
    const ours = byExternal.get(line.externalId);
    if (!ours) continue;
    let units = (line.fulfilledQuantity ?? 0) - ours.fulfilledQty;
    const open = ours.quantity - ours.cancelledQty - ours.refundedQty;
    if ((line.fulfilledQuantity ?? 0) < open) all = false;
    if (units <= 0) continue;
    const allocations = await tx
      .select()
      .from(orderAllocations)
      .where(and(eq(orderAllocations.lineId, ours.id), inArray(orderAllocations.status, [1, 2])))
      .orderBy(orderAllocations.createdAt)
      .for('update');
    for (const a of allocations) {
      if (units <= 0 || !a.locationId || !a.variantId) continue;
      const take = Math.min(units, a.reserved);
      if (take <= 0) continue;
      units -= take;
      await consumeStock(tx, channel.accountId, {
        variantId: a.variantId,
        locationId: a.locationId,
        quantity: take,
        reserved: take,
        reference: existing.id,
        key: `${a.id}:${ours.fulfilledQty + take}`,
      });
      ctx.variantsTouched.add(a.variantId);
      await tx
        .update(orderAllocations)
        .set({ reserved: a.reserved - take, status: a.reserved - take === 0 ? 3 : a.status, updatedAt: new Date() })
        .where(eq(orderAllocations.id, a.id));
    }
  }
  const to: OrderStatus = all ? 3 : 2;
  if (to !== existing.status) {
    await tx.update(orders).set({ status: to }).where(eq(orders.id, existing.id));
    ctx.timeline.push({
      kind: 'status',
      message: `${all ? 'Fulfilled' : 'Partly fulfilled'} at ${CHANNEL_LABELS[channel.type]}.`,
      actor: channel.name,
      fromStatus: existing.status,
      toStatus: to,
    });
  }
}

/**
 * Releases every unit the order holds (its allocations' reservations), in the caller's transaction. The caller
 * sets the status and writes the timeline.
 */
export async function cancelInTx(
  tx: Tx,
  accountId: string,
  order: Pick<OrderRow, 'id'>,
  by: { actor: string; reason: string | null; userId?: string | null },
): Promise<string[]> {
  const held = await tx
    .select()
    .from(orderAllocations)
    .where(and(eq(orderAllocations.orderId, order.id), sql`${orderAllocations.reserved} > 0`))
    .for('update');
  const variantIds: string[] = [];
  for (const a of held) {
    if (!a.variantId || !a.locationId) continue;
    await releaseReservation(tx, accountId, {
      variantId: a.variantId,
      locationId: a.locationId,
      quantity: a.reserved,
      reference: order.id,
      key: `${a.id}:cancel`,
      userId: by.userId ?? null,
    });
    variantIds.push(a.variantId);
  }
  await tx
    .update(orderAllocations)
    .set({ reserved: 0, updatedAt: new Date() })
    .where(and(eq(orderAllocations.orderId, order.id), sql`${orderAllocations.reserved} > 0`));
  return variantIds;
}

/**
 * After a cancel made here was written back: the channel put the units it had taken back on its own stock, and
 * its report of that is met, not counted (each line once; the channel's cancel webhook may have done it first).
 */
export async function claimCancelRestock(services: Services, channel: IngestChannel, orderId: string, at: string) {
  const touched = new Set<string>();
  await services.db.transaction(async (tx) => {
    const lines = await tx
      .select()
      .from(orderLines)
      .where(and(eq(orderLines.orderId, orderId), eq(orderLines.accountId, channel.accountId)));
    const ours = await ourLocations(tx, channel.accountId);
    const provided = lines.map((l) => ({
      externalId: l.externalId,
      sku: l.sku,
      variantExternalId: null,
      title: l.title,
      quantity: l.quantity,
      price: l.unitPrice,
      stockLocationExternalId: l.stockLocationExternalId,
    }));
    const ctx = await soloContext(
      tx,
      channel,
      orderId,
      ours,
      locationResolver(channel.settings, ours),
      provided,
      touched,
    );
    // The cancel's own refund at the channel may have been taken in first (as in updateOrder).
    const cancelRefund = await refundedSince(tx, channel.accountId, orderId, new Date(at));
    for (const [i, line] of lines.entries()) {
      if (!line.variantId || !line.channelClaimed) continue;
      const open = line.quantity - line.cancelledQty - Math.max(0, line.refundedQty - (cancelRefund.get(line.id) ?? 0));
      await claimLine(
        ctx,
        { id: line.id, variantId: line.variantId },
        provided[i] as ProviderOrderLine,
        open,
        at,
        'restock',
      );
    }
  });
  if (touched.size > 0)
    await schedulePush(services, await affectedChannels(services.db, channel.accountId, [...touched]));
}
