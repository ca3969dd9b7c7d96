// The order side of a return (issue 16): which order and lines a return names, and what it does to them: the
// lines' refunded quantities, units still reserved for a line given back rather than restocked (they never left
// the store), the status Refunded once every unit is refunded, and the timeline. Only this module writes orders.
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.ts';
import { releaseReservation } from '../inventory/reservations.ts';
import { orderAllocations, orderLines, orders } from './orders.tables.ts';
import { recomputeFlags, writeTimeline } from './orders.timeline.ts';

export interface OrderForReturn {
  id: string;
  channelId: string | null;
  externalId: string;
  number: string;
  status: number;
  currency: string;
  shippingTotal: number;
  total: number;
  customerName: string | null;
  lines: {
    id: string;
    externalId: string;
    sku: string | null;
    variantId: string | null;
    title: string;
    quantity: number;
    unitPrice: number;
    discount: number;
    tax: number;
    fulfilledQty: number;
    cancelledQty: number;
    refundedQty: number;
    stockLocationExternalId: string | null;
    /** Our location its units were allocated at (the first), where a return of it goes back by default. */
    allocatedAt: string | null;
  }[];
}

async function withLines(db: Db | Tx, row: typeof orders.$inferSelect | undefined): Promise<OrderForReturn | null> {
  if (!row) return null;
  const lines = await db.select().from(orderLines).where(eq(orderLines.orderId, row.id)).orderBy(orderLines.position);
  const allocated = lines.length
    ? await db
        .select({ lineId: orderAllocations.lineId, locationId: orderAllocations.locationId })
        .from(orderAllocations)
        .where(
          and(
            inArray(
              orderAllocations.lineId,
              lines.map((l) => l.id),
            ),
            sql`${orderAllocations.locationId} is not null`,
          ),
        )
        .orderBy(asc(orderAllocations.createdAt))
    : [];
  return {
    id: row.id,
    channelId: row.channelId,
    externalId: row.externalId,
    number: row.number,
    status: row.status,
    currency: row.currency,
    shippingTotal: row.shippingTotal,
    total: row.total,
    customerName: row.customerName,
    lines: lines.map((l) => ({
      id: l.id,
      externalId: l.externalId,
      sku: l.sku,
      variantId: l.variantId,
      title: l.title,
      quantity: l.quantity,
      unitPrice: l.unitPrice,
      discount: l.discount,
      tax: l.tax,
      fulfilledQty: l.fulfilledQty,
      cancelledQty: l.cancelledQty,
      refundedQty: l.refundedQty,
      stockLocationExternalId: l.stockLocationExternalId,
      allocatedAt: allocated.find((a) => a.lineId === l.id)?.locationId ?? null,
    })),
  };
}

/** The channel's order a return names (by the channel's id of it), with its lines; null when not imported. */
export async function findOrderForReturn(
  db: Db | Tx,
  accountId: string,
  channelId: string,
  orderExternalId: string,
): Promise<OrderForReturn | null> {
  const [row] = await db
    .select()
    .from(orders)
    .where(
      and(eq(orders.accountId, accountId), eq(orders.channelId, channelId), eq(orders.externalId, orderExternalId)),
    );
  return withLines(db, row);
}

/** An order of the account by our id, with its lines (locked when `lock`); null when not found. */
export async function orderForReturn(
  db: Db | Tx,
  accountId: string,
  orderId: string,
  lock = false,
): Promise<OrderForReturn | null> {
  const query = db
    .select()
    .from(orders)
    .where(and(eq(orders.accountId, accountId), eq(orders.id, orderId)));
  const [row] = lock ? await query.for('update') : await query;
  return withLines(db, row);
}

/**
 * Units of a returned line still reserved for it (never shipped) are given back to the store rather than
 * restocked: its open allocations' reservations drop by up to `qty`, newest first. Answers how many were
 * released, and the locations, so the caller restocks only the rest. Idempotent by `key`.
 */
export async function releaseReturnedUnits(
  tx: Tx,
  accountId: string,
  input: { lineId: string; qty: number; key: string; reference: string },
): Promise<{ released: number; at: { locationId: string; variantId: string; qty: number }[] }> {
  const open = await tx
    .select()
    .from(orderAllocations)
    .where(
      and(
        eq(orderAllocations.accountId, accountId),
        eq(orderAllocations.lineId, input.lineId),
        sql`${orderAllocations.reserved} > 0`,
      ),
    )
    .orderBy(sql`${orderAllocations.createdAt} desc`)
    .for('update');
  let left = input.qty;
  const at: { locationId: string; variantId: string; qty: number }[] = [];
  for (const a of open) {
    if (left <= 0 || !a.locationId || !a.variantId) continue;
    const take = Math.min(left, a.reserved);
    left -= take;
    await releaseReservation(tx, accountId, {
      variantId: a.variantId,
      locationId: a.locationId,
      quantity: take,
      reference: input.reference,
      key: `${input.key}:${a.id}`,
    });
    // The units are no longer to be fulfilled: the allocation covers what is left of it.
    if (a.quantity - take <= 0) await tx.delete(orderAllocations).where(eq(orderAllocations.id, a.id));
    else
      await tx
        .update(orderAllocations)
        .set({ quantity: a.quantity - take, reserved: a.reserved - take, updatedAt: new Date() })
        .where(eq(orderAllocations.id, a.id));
    at.push({ locationId: a.locationId, variantId: a.variantId, qty: take });
  }
  return { released: input.qty - left, at };
}

/**
 * A processed return's effect on its order, in the return's transaction: each line's refunded quantity rises to
 * `refunded` (the units of all its processed returns; never lowered, so a channel's own report of the same
 * refund is not added to it), the order is Refunded once every unit is, and the timeline says what came back.
 */
export async function recordReturnOnOrder(
  tx: Tx,
  accountId: string,
  orderId: string,
  input: { refunded: { lineId: string; qty: number }[]; message: string; actor: string; userId?: string | null },
) {
  for (const r of input.refunded) {
    await tx
      .update(orderLines)
      .set({ refundedQty: sql`greatest(${orderLines.refundedQty}, ${r.qty})` })
      .where(and(eq(orderLines.id, r.lineId), eq(orderLines.orderId, orderId)));
  }
  const [row] = await tx
    .select({ status: orders.status })
    .from(orders)
    .where(and(eq(orders.id, orderId), eq(orders.accountId, accountId)))
    .for('update');
  if (!row) return;
  const [left] = await tx
    .select({
      units: sql<number>`coalesce(sum(greatest(${orderLines.quantity} - ${orderLines.cancelledQty} - ${orderLines.refundedQty}, 0)), 0)::int`,
    })
    .from(orderLines)
    .where(eq(orderLines.orderId, orderId));
  const allRefunded = (left?.units ?? 0) === 0 && row.status !== 7 && row.status !== 8;
  if (allRefunded) {
    await tx.update(orders).set({ status: 8, updatedAt: new Date() }).where(eq(orders.id, orderId));
  } else {
    await tx.update(orders).set({ updatedAt: new Date() }).where(eq(orders.id, orderId));
  }
  await writeTimeline(tx, accountId, orderId, [
    {
      kind: 'returned',
      message: input.message,
      actor: input.actor,
      userId: input.userId ?? null,
      ...(allRefunded ? { fromStatus: row.status, toStatus: 8 } : {}),
    },
  ]);
  await recomputeFlags(tx, orderId);
}
