// The order's allocation rows, for routing (issue 14): routing decides and reserves, orders keeps the rows.
import { and, count, desc, eq } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.ts';
import { locations } from '../locations/locations.tables.ts';
import { orderAllocations, orderLines, orders } from './orders.tables.ts';

export type AllocationRecord = typeof orderAllocations.$inferSelect;

export interface NewAllocation {
  id: string;
  lineId: string;
  variantId: string | null;
  locationId: string | null;
  quantity: number;
  status: number;
  reserved: number;
  reason: string | null;
}

export async function insertAllocations(tx: Tx, accountId: string, orderId: string, rows: NewAllocation[]) {
  if (rows.length === 0) return;
  await tx.insert(orderAllocations).values(rows.map((r) => ({ ...r, accountId, orderId })));
}

export async function updateAllocation(
  tx: Tx,
  id: string,
  patch: Partial<Pick<AllocationRecord, 'locationId' | 'quantity' | 'status' | 'reserved' | 'reason'>>,
) {
  await tx
    .update(orderAllocations)
    .set({ ...patch, updatedAt: new Date() })
    .where(eq(orderAllocations.id, id));
}

/** One allocation of the account with its line and order, the allocation row locked (`FOR UPDATE`). */
export async function lockAllocation(tx: Tx, accountId: string, id: string) {
  const [row] = await tx
    .select({ allocation: orderAllocations, line: orderLines, order: orders })
    .from(orderAllocations)
    .innerJoin(orderLines, eq(orderLines.id, orderAllocations.lineId))
    .innerJoin(orders, eq(orders.id, orderAllocations.orderId))
    .where(and(eq(orderAllocations.accountId, accountId), eq(orderAllocations.id, id)))
    .for('update', { of: orderAllocations });
  return row ?? null;
}

export interface AllocationListFilter {
  orderId?: string;
  lineId?: string;
  locationId?: string;
  status?: number;
  id?: string;
  limit?: number;
  offset?: number;
}

/** Allocations of the account with their order's number, line and location (newest first). */
export async function allocationRows(db: Db | Tx, accountId: string, f: AllocationListFilter) {
  const where = and(
    eq(orderAllocations.accountId, accountId),
    f.id ? eq(orderAllocations.id, f.id) : undefined,
    f.orderId ? eq(orderAllocations.orderId, f.orderId) : undefined,
    f.lineId ? eq(orderAllocations.lineId, f.lineId) : undefined,
    f.locationId ? eq(orderAllocations.locationId, f.locationId) : undefined,
    f.status !== undefined ? eq(orderAllocations.status, f.status) : undefined,
  );
  const base = db
    .select({
      id: orderAllocations.id,
      orderId: orderAllocations.orderId,
      orderNumber: orders.number,
      lineId: orderAllocations.lineId,
      sku: orderLines.sku,
      title: orderLines.title,
      locationId: orderAllocations.locationId,
      locationName: locations.name,
      storeId: locations.storeId,
      quantity: orderAllocations.quantity,
      status: orderAllocations.status,
      reason: orderAllocations.reason,
      createdAt: orderAllocations.createdAt,
      updatedAt: orderAllocations.updatedAt,
    })
    .from(orderAllocations)
    .innerJoin(orders, eq(orders.id, orderAllocations.orderId))
    .innerJoin(orderLines, eq(orderLines.id, orderAllocations.lineId))
    .leftJoin(locations, eq(locations.id, orderAllocations.locationId))
    .where(where)
    .orderBy(desc(orderAllocations.createdAt), desc(orderAllocations.id))
    .limit(f.limit ?? 200)
    .offset(f.offset ?? 0);
  const [rows, [total]] = await Promise.all([base, db.select({ n: count() }).from(orderAllocations).where(where)]);
  return { rows, total: total?.n ?? 0 };
}
