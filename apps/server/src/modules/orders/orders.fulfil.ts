// The order's verbs for the fulfillment flow (issue 15): the store picks, rejects, hands a pickup over. Orders
// own their rows; fulfillment calls these in its own transaction. Units leave the store only here and in the
// channel's own fulfilment (ingest.ts), each through the ledger's consumeStock, keyed by the allocation, and
// the line's fulfilled quantity moves with them, so a channel's later report of the same fulfilment finds
// nothing new to consume (docs/decisions/0008).
import { type OrderStatus, orderStatusLabel } from '@switchyard/contracts';
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Tx } from '../../db/client.ts';
import { consumeStock } from '../inventory/reservations.ts';
import { recordOrderMetrics } from '../metrics/metrics.record.ts';
import { orderAllocations, orderLines, orders } from './orders.tables.ts';
import { writeTimeline } from './orders.timeline.ts';

export interface By {
  actor: string;
  userId?: string | null;
}

/** The order row, locked for the change (null: not in this account). */
export async function lockOrder(tx: Tx, accountId: string, orderId: string) {
  const [row] = await tx
    .select()
    .from(orders)
    .where(and(eq(orders.id, orderId), eq(orders.accountId, accountId)))
    .for('update');
  return row ?? null;
}

/** The order's allocations at one location (or all of them), locked. */
export async function lockAllocations(tx: Tx, orderId: string, locationId?: string | null) {
  return tx
    .select()
    .from(orderAllocations)
    .where(
      and(eq(orderAllocations.orderId, orderId), locationId ? eq(orderAllocations.locationId, locationId) : undefined),
    )
    .orderBy(orderAllocations.createdAt, orderAllocations.id)
    .for('update');
}

/** Allocated (1) → picked (2): every unit of these allocations is in hand. */
export async function markPicked(tx: Tx, allocationIds: string[]) {
  if (allocationIds.length === 0) return;
  await tx
    .update(orderAllocations)
    .set({ status: 2, updatedAt: new Date() })
    .where(and(inArray(orderAllocations.id, allocationIds), eq(orderAllocations.status, 1)));
}

/** Picked (2) → allocated (1): the units go back on the shelf (before a picked line is rejected). */
export async function unpick(tx: Tx, allocationId: string) {
  await tx
    .update(orderAllocations)
    .set({ status: 1, updatedAt: new Date() })
    .where(and(eq(orderAllocations.id, allocationId), eq(orderAllocations.status, 2)));
}

/** Moves the order's status with a timeline entry (the fulfillment verbs' own transitions). */
export async function moveOrderStatus(
  tx: Tx,
  accountId: string,
  orderId: string,
  from: number,
  to: OrderStatus,
  message: string,
  by: By,
) {
  await tx.update(orders).set({ status: to, updatedAt: new Date() }).where(eq(orders.id, orderId));
  await writeTimeline(tx, accountId, orderId, [
    {
      kind: 'status',
      message: message || `Status changed from ${orderStatusLabel(from)} to ${orderStatusLabel(to)}.`,
      actor: by.actor,
      userId: by.userId ?? null,
      fromStatus: from,
      toStatus: to,
    },
  ]);
  // The dashboard follows (issue 17): a shipped or picked-up order's fulfillment time.
  await recordOrderMetrics(tx, accountId, orderId);
}

/**
 * The units of these allocations leave the store (handed to the customer, shipped): on hand and reserved
 * drop once (keyed by the allocation), the allocation is fulfilled (3), the line's fulfilled quantity grows.
 * Returns the variants whose levels moved.
 */
export async function consumeAllocations(
  tx: Tx,
  accountId: string,
  allocations: (typeof orderAllocations.$inferSelect)[],
  by: By,
): Promise<string[]> {
  const moved: string[] = [];
  for (const a of allocations) {
    if (a.status !== 1 && a.status !== 2) continue;
    if (a.variantId && a.locationId) {
      await consumeStock(tx, accountId, {
        variantId: a.variantId,
        locationId: a.locationId,
        quantity: a.quantity,
        reserved: a.reserved,
        reference: a.orderId,
        key: `${a.id}:fulfil`,
        userId: by.userId ?? null,
      });
      moved.push(a.variantId);
    }
    await tx
      .update(orderAllocations)
      .set({ status: 3, reserved: 0, updatedAt: new Date() })
      .where(eq(orderAllocations.id, a.id));
    await tx
      .update(orderLines)
      .set({ fulfilledQty: sql`least(${orderLines.quantity}, ${orderLines.fulfilledQty} + ${a.quantity})` })
      .where(eq(orderLines.id, a.lineId));
  }
  return moved;
}

/** Units of an open allocation still to leave the store: what it holds reserved (all of it without stock). */
export const unitsLeft = (
  a: Pick<typeof orderAllocations.$inferSelect, 'status' | 'quantity' | 'reserved' | 'variantId' | 'locationId'>,
) => (a.status !== 1 && a.status !== 2 ? 0 : a.variantId && a.locationId ? a.reserved : a.quantity);

/**
 * `quantity` units of an open allocation leave the store (a shipment of part of a line, or of the rest): on hand
 * and reserved drop by that many, once per `key` (the cause: the shipment); the allocation keeps the rest
 * reserved and is fulfilled (3) when none is left; the line's fulfilled quantity grows by the units. Returns
 * the units that left (0 when the allocation had none left).
 */
export async function consumeUnits(
  tx: Tx,
  accountId: string,
  a: typeof orderAllocations.$inferSelect,
  quantity: number,
  key: string,
  by: By,
): Promise<number> {
  const left = unitsLeft(a);
  // A line without stock of ours (no variant) keeps no count of what is left: it ships whole.
  const units = a.variantId && a.locationId ? Math.min(quantity, left) : left;
  if (units <= 0) return 0;
  if (a.variantId && a.locationId) {
    await consumeStock(tx, accountId, {
      variantId: a.variantId,
      locationId: a.locationId,
      quantity: units,
      reserved: units,
      reference: a.orderId,
      key,
      userId: by.userId ?? null,
    });
  }
  const rest = left - units;
  await tx
    .update(orderAllocations)
    .set({
      status: rest === 0 ? 3 : a.status,
      reserved: a.variantId && a.locationId ? rest : a.reserved,
      updatedAt: new Date(),
    })
    .where(eq(orderAllocations.id, a.id));
  await tx
    .update(orderLines)
    .set({ fulfilledQty: sql`least(${orderLines.quantity}, ${orderLines.fulfilledQty} + ${units})` })
    .where(eq(orderLines.id, a.lineId));
  return units;
}

/** Whether every line's open units (ordered − cancelled − refunded) have left: the order is fulfilled, not partly. */
export async function allUnitsFulfilled(tx: Tx, orderId: string): Promise<boolean> {
  const [open] = await tx
    .select({ left: sql<number>`count(*)::int` })
    .from(orderLines)
    .where(
      and(
        eq(orderLines.orderId, orderId),
        sql`${orderLines.fulfilledQty} < ${orderLines.quantity} - ${orderLines.cancelledQty} - ${orderLines.refundedQty}`,
      ),
    );
  return (open?.left ?? 0) === 0;
}
