// One order at one store (issue 15): the lines allocated there, picked by scanning each unit's barcode or
// SKU (a wrong item says so), packed, or rejected with a reason (flagged for routing again). Allocation
// statuses move through the orders module's verbs (orders.fulfil.ts); the store's working state (units
// scanned, packed) is this module's own table.
import {
  FULFILLMENT_MESSAGES,
  type FulfillmentLine,
  type FulfillmentOrder,
  RejectInput,
  type ScanInput,
  type ScanResult,
} from '@switchyard/contracts';
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.ts';
import { DomainError } from '../../lib/errors.ts';
import type { Services } from '../../services.ts';
import type { Actor } from '../../trpc/context.ts';
import { channels } from '../channels/channels.tables.ts';
import { type LocationRow, locationById } from '../locations/locations.read.ts';
import { locations } from '../locations/locations.tables.ts';
import { lockAllocations, lockOrder, markPicked, unpick } from '../orders/orders.fulfil.ts';
import { actorName } from '../orders/orders.service.ts';
import { orderAllocations, orderLines, orders } from '../orders/orders.tables.ts';
import { variants } from '../products/products.tables.ts';
import { rejectAllocation as rejectAndReroute } from '../routing/routing.reroute.ts';
import { resolveStore, toStore } from './fulfillment.queue.ts';
import { fulfillmentSteps } from './fulfillment.tables.ts';
import { storedAfterScan, storeUnits } from './fulfillment.units.ts';

type OrderRow = typeof orders.$inferSelect;

/**
 * The store an order is worked at: the one asked for; else its pickup store; else where its open units are;
 * else the default store.
 */
export async function storeOfOrder(
  db: Db | Tx,
  actor: Actor,
  order: Pick<OrderRow, 'id' | 'pickupLocationId'>,
  storeId?: string,
): Promise<LocationRow | null> {
  if (storeId) return resolveStore(db, actor, storeId);
  const [row] = await db
    .select({ location: locations })
    .from(orderAllocations)
    .innerJoin(locations, eq(locations.id, orderAllocations.locationId))
    .where(eq(orderAllocations.orderId, order.id))
    .orderBy(
      sql`(${orderAllocations.locationId} = ${order.pickupLocationId ?? ''}) desc`,
      sql`${orderAllocations.status} in (1, 2) desc`,
    )
    .limit(1);
  if (row) return row.location;
  if (order.pickupLocationId) {
    const pickup = await locationById(db, actor.accountId, order.pickupLocationId);
    if (pickup) return pickup;
  }
  return resolveStore(db, actor, undefined);
}

async function loadOrderRow(db: Db | Tx, actor: Actor, id: string): Promise<OrderRow> {
  const [row] = await db
    .select()
    .from(orders)
    .where(and(eq(orders.id, id), eq(orders.accountId, actor.accountId)));
  if (!row) throw new DomainError('NOT_FOUND', FULFILLMENT_MESSAGES.notFound);
  return row;
}

async function linesAt(db: Db | Tx, orderId: string, locationId: string) {
  return db
    .select({
      a: orderAllocations,
      sku: orderLines.sku,
      title: orderLines.title,
      barcode: variants.barcode,
      alu: variants.alu,
      scanned: fulfillmentSteps.scanned,
      packedAt: fulfillmentSteps.packedAt,
    })
    .from(orderAllocations)
    .innerJoin(orderLines, eq(orderLines.id, orderAllocations.lineId))
    .leftJoin(variants, eq(variants.id, orderAllocations.variantId))
    .leftJoin(fulfillmentSteps, eq(fulfillmentSteps.allocationId, orderAllocations.id))
    .where(and(eq(orderAllocations.orderId, orderId), eq(orderAllocations.locationId, locationId)))
    .orderBy(orderLines.position, orderAllocations.createdAt);
}

const isPickup = (o: Pick<OrderRow, 'fulfillmentType'>) => o.fulfillmentType !== 'ship';

/** The order as the store works it. */
export async function getFulfillmentOrder(
  db: Db | Tx,
  actor: Actor,
  id: string,
  storeId?: string,
): Promise<FulfillmentOrder> {
  const row = await loadOrderRow(db, actor, id);
  const location = await storeOfOrder(db, actor, row, storeId);
  const [rows, [channel]] = await Promise.all([
    location ? linesAt(db, id, location.id) : Promise.resolve([]),
    row.channelId
      ? db.select({ name: channels.name, type: channels.type }).from(channels).where(eq(channels.id, row.channelId))
      : Promise.resolve([]),
  ]);
  const lines: FulfillmentLine[] = rows.map((r) => {
    const units = storeUnits(r.a, r.scanned);
    return {
      allocationId: r.a.id,
      lineId: r.a.lineId,
      sku: r.sku,
      barcode: r.barcode ?? null,
      title: r.title,
      quantity: r.a.quantity,
      toShip: units.toShip,
      scanned: units.scanned,
      status: r.a.status,
      reason: r.a.reason,
    };
  });
  const open = rows.filter((r) => r.a.status === 1 || r.a.status === 2);
  const packed = open.length > 0 && open.every((r) => r.packedAt);
  const step: FulfillmentOrder['step'] = open.some((r) => r.a.status === 1)
    ? 'pick'
    : open.length > 0 && !packed
      ? 'pack'
      : open.length > 0
        ? 'ship'
        : 'done';
  const pickup = isPickup(row);
  return {
    id: row.id,
    number: row.number,
    channel:
      row.channelId && channel
        ? { id: row.channelId, name: channel.name, type: channel.type as 'shopify' | 'bigcommerce' | 'square' }
        : null,
    status: row.status,
    fulfillmentType: row.fulfillmentType,
    customerName: row.customerName,
    customerEmail: row.customerEmail,
    customerPhone: row.customerPhone,
    note: row.note,
    flagged: row.flagged,
    store: location ? toStore(location) : null,
    lines,
    step,
    packed,
    canReadyForPickup: pickup && [0, 1, 2].includes(row.status) && !row.flagged && open.length > 0,
    canPickUp: pickup && [0, 1, 2, 4].includes(row.status) && !row.flagged && open.length > 0,
  };
}

const norm = (s: string | null | undefined) => (s ?? '').trim().toLowerCase();

/**
 * A scan: the code (a barcode, SKU or ALU) confirms one unit of the first line at this store it names that
 * still has units to pick; the line is picked (2) when every unit still to ship is confirmed. A code of no line
 * here is a wrong item, said plainly; nothing changes.
 */
export async function scan(services: Services, actor: Actor, input: ScanInput): Promise<ScanResult> {
  const code = input.code.trim();
  const outcome = await services.db.transaction(async (tx) => {
    const order = await lockOrder(tx, actor.accountId, input.id);
    if (!order) throw new DomainError('NOT_FOUND', FULFILLMENT_MESSAGES.notFound);
    const location = await storeOfOrder(tx, actor, order, input.store_id);
    if (!location) throw new DomainError('INVALID_STATE', FULFILLMENT_MESSAGES.noStore);
    await lockAllocations(tx, order.id, location.id);
    const rows = await linesAt(tx, order.id, location.id);
    const matching = rows.filter((r) => [r.sku, r.barcode, r.alu].some((v) => v && norm(v) === norm(code)));
    if (matching.length === 0) return { ok: false, message: FULFILLMENT_MESSAGES.wrongItem(code), allocationId: null };
    const label = matching[0]?.sku ?? matching[0]?.title ?? code;
    // Counted against the units still to ship: after part of the line shipped, the rest (fulfillment.units.ts).
    const target = matching
      .map((r) => ({ ...r, units: storeUnits(r.a, r.scanned) }))
      .find((r) => r.a.status === 1 && r.units.scanned < r.units.toShip);
    if (!target) {
      const rejected = matching.every((r) => r.a.status === 5);
      return {
        ok: false,
        message: rejected ? `${label} was rejected on this order.` : FULFILLMENT_MESSAGES.alreadyScanned(label),
        allocationId: null,
      };
    }
    const scanned = target.units.scanned + 1;
    const stored = storedAfterScan(target.units);
    await tx
      .insert(fulfillmentSteps)
      .values({ allocationId: target.a.id, accountId: actor.accountId, orderId: order.id, scanned: stored })
      .onConflictDoUpdate({ target: fulfillmentSteps.allocationId, set: { scanned: stored, updatedAt: new Date() } });
    if (scanned >= target.units.toShip) await markPicked(tx, [target.a.id]);
    return {
      ok: true,
      message: FULFILLMENT_MESSAGES.scanned(label, scanned, target.units.toShip),
      allocationId: target.a.id,
    };
  });
  return { ...outcome, order: await getFulfillmentOrder(services.db, actor, input.id, input.store_id) };
}

/** Packed: every line still open here is picked; the parcel is ready for its label (or the counter). */
export async function pack(
  services: Services,
  actor: Actor,
  input: { id: string; store_id?: string },
): Promise<FulfillmentOrder> {
  const who = await actorName(services.db, actor);
  await services.db.transaction(async (tx) => {
    const order = await lockOrder(tx, actor.accountId, input.id);
    if (!order) throw new DomainError('NOT_FOUND', FULFILLMENT_MESSAGES.notFound);
    const location = await storeOfOrder(tx, actor, order, input.store_id);
    if (!location) throw new DomainError('INVALID_STATE', FULFILLMENT_MESSAGES.noStore);
    const open = (await lockAllocations(tx, order.id, location.id)).filter((a) => a.status === 1 || a.status === 2);
    if (open.length === 0) throw new DomainError('INVALID_STATE', FULFILLMENT_MESSAGES.notPickable);
    if (open.some((a) => a.status !== 2)) throw new DomainError('INVALID_STATE', FULFILLMENT_MESSAGES.notPicked);
    const now = new Date();
    await tx
      .insert(fulfillmentSteps)
      .values(
        open.map((a) => ({
          allocationId: a.id,
          accountId: actor.accountId,
          orderId: order.id,
          packedAt: now,
          packedBy: who,
        })),
      )
      .onConflictDoUpdate({
        target: fulfillmentSteps.allocationId,
        set: { packedAt: now, packedBy: who, updatedAt: now },
      });
  });
  return getFulfillmentOrder(services.db, actor, input.id, input.store_id);
}

/**
 * The store cannot fill a line: routing's reject (issue 14) releases its units there and routes the line again
 * by the merchant's rules without this store, in one transaction; what no other store can take stays rejected (5)
 * and flags the order. A picked line goes back on the shelf first.
 */
export async function reject(services: Services, actor: Actor, raw: RejectInput): Promise<FulfillmentOrder> {
  const parsed = RejectInput.safeParse(raw);
  if (!parsed.success) throw new DomainError('VALIDATION', parsed.error.issues[0]?.message ?? 'Invalid input');
  const input = parsed.data;
  // The store the answer is shown at is looked up first: an unknown one is refused before the line is touched.
  if (input.store_id) await resolveStore(services.db, actor, input.store_id);
  const locationId = await services.db.transaction(async (tx) => {
    const order = await lockOrder(tx, actor.accountId, input.id);
    if (!order) throw new DomainError('NOT_FOUND', FULFILLMENT_MESSAGES.notFound);
    const allocation = (await lockAllocations(tx, order.id)).find((a) => a.id === input.allocation_id);
    if (!allocation) throw new DomainError('NOT_FOUND', FULFILLMENT_MESSAGES.allocationNotFound);
    if (allocation.status !== 1 && allocation.status !== 2)
      throw new DomainError('INVALID_STATE', FULFILLMENT_MESSAGES.notRejectable);
    await unpick(tx, allocation.id);
    await tx.delete(fulfillmentSteps).where(eq(fulfillmentSteps.allocationId, allocation.id));
    return allocation.locationId;
  });
  await rejectAndReroute(services, actor, {
    allocationId: input.allocation_id,
    status: 5,
    reason: input.reason,
    ...(locationId ? { locationId } : {}),
  });
  return getFulfillmentOrder(services.db, actor, input.id, input.store_id);
}

/** The allocations of these orders at a store still to pick (status 1 or 2), for the picking list. */
export async function openAllocationsAt(db: Db, accountId: string, locationId: string, orderIds: string[]) {
  if (orderIds.length === 0) return [];
  return db
    .select({ orderId: orderAllocations.orderId, quantity: orderAllocations.quantity, lineId: orderAllocations.lineId })
    .from(orderAllocations)
    .where(
      and(
        eq(orderAllocations.accountId, accountId),
        eq(orderAllocations.locationId, locationId),
        inArray(orderAllocations.orderId, orderIds),
        inArray(orderAllocations.status, [1, 2]),
      ),
    );
}
