// Each store's queue (issue 15): the orders with work at one location, by scope (toShip, pickup, shipped,
// cancelled, flagged), with counts per scope and every SPEC §2 search param. A store is a location, named by
// its store_id; the default is the stored shipping location's store (SPEC §3), else the first that ships.
import {
  FULFILLMENT_DONE_COUNT_CAP,
  FULFILLMENT_LIST_COUNT_CAP,
  FULFILLMENT_MESSAGES,
  type FulfillmentCounts,
  type FulfillmentList,
  FulfillmentListInput,
  type FulfillmentScope,
  type FulfillmentStore,
  type FulfillmentStores,
  SHIPPING_LOCATION_SETTING,
} from '@switchyard/contracts';
import { and, eq, type SQL, sql } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.ts';
import { DomainError } from '../../lib/errors.ts';
import type { Actor } from '../../trpc/context.ts';
import { accountSettings } from '../accounts/accounts.tables.ts';
import { channels } from '../channels/channels.tables.ts';
import { accountLocations, type LocationRow, locationByStoreId } from '../locations/locations.read.ts';
import { orderAllocations, orderLines, orders } from '../orders/orders.tables.ts';
import { fulfillmentSteps } from './fulfillment.tables.ts';
import { storeUnits } from './fulfillment.units.ts';

export const toStore = (l: LocationRow): FulfillmentStore => ({
  id: l.id,
  storeId: l.storeId,
  name: l.name,
  enabled: l.enabled,
  ships: l.ships,
  pickup: l.pickup,
});

/** The account's stores for the selector, and which one the queue opens on. */
export async function listStores(db: Db | Tx, actor: Actor): Promise<FulfillmentStores> {
  const [rows, [stored]] = await Promise.all([
    accountLocations(db, actor.accountId, ['priority', 'name']),
    db
      .select({ value: accountSettings.value })
      .from(accountSettings)
      .where(and(eq(accountSettings.accountId, actor.accountId), eq(accountSettings.key, SHIPPING_LOCATION_SETTING))),
  ]);
  const storedId = (stored?.value as { store_id?: unknown } | undefined)?.store_id;
  const fromSetting = rows.find((l) => l.storeId === storedId);
  const fallback = rows.find((l) => l.enabled && l.ships) ?? rows.find((l) => l.enabled) ?? rows[0];
  return { stores: rows.map(toStore), defaultStoreId: (fromSetting ?? fallback)?.storeId ?? null };
}

/** The location a store_id names (404 when none does); without one, the default store (null: no locations). */
export async function resolveStore(
  db: Db | Tx,
  actor: Actor,
  storeId: string | undefined,
): Promise<LocationRow | null> {
  if (storeId) {
    const row = await locationByStoreId(db, actor.accountId, storeId);
    if (!row) throw new DomainError('NOT_FOUND', FULFILLMENT_MESSAGES.storeNotFound(storeId));
    return row;
  }
  const { defaultStoreId } = await listStores(db, actor);
  if (!defaultStoreId) return null;
  return (await locationByStoreId(db, actor.accountId, defaultStoreId)) ?? null;
}

/** An allocation of the order at the store, optionally in some statuses. */
const atStore = (locationId: string, statuses?: number[]) =>
  sql`exists (select 1 from ${orderAllocations} a where a.order_id = ${orders.id} and a.location_id = ${locationId}${
    statuses
      ? sql` and a.status in (${sql.join(
          statuses.map((s) => sql`${s}`),
          sql`, `,
        )})`
      : sql``
  })`;

const PICKUP_TYPES = sql`${orders.fulfillmentType} in ('pickup', 'curbside_pickup')`;

/**
 * What each scope holds at a store. Work (toShip, pickup) is an order with units still allocated or picked
 * here and nothing flagged; shipped is done here (fulfilled, nothing left); flagged needs routing again.
 */
export function scopeCondition(scope: FulfillmentScope | '', locationId: string): SQL {
  switch (scope) {
    case 'toShip':
      return sql`${orders.fulfillmentType} = 'ship' and ${orders.status} in (0, 1, 2) and not ${orders.flagged} and ${atStore(locationId, [1, 2])}`;
    case 'pickup':
      return sql`${PICKUP_TYPES} and ${orders.status} in (0, 1, 2, 4) and not ${orders.flagged} and ${atStore(locationId, [1, 2])}`;
    case 'shipped':
      return sql`${orders.status} not in (7, 8) and ${atStore(locationId, [3])} and not ${atStore(locationId, [1, 2])}`;
    case 'cancelled':
      return sql`${orders.status} in (7, 8) and ${atStore(locationId)}`;
    case 'flagged':
      return sql`${orders.flagged} and ${orders.status} not in (3, 5, 7, 8) and (${atStore(locationId)} or ${orders.pickupLocationId} = ${locationId})`;
    default:
      return sql`(${atStore(locationId)} or ${orders.pickupLocationId} = ${locationId})`;
  }
}

const listOf = (csv: string | undefined) => (csv ? csv.split(',').filter(Boolean) : []);
const anyOf = (values: string[]) =>
  sql`(${sql.join(
    values.map((v) => sql`${v}`),
    sql`, `,
  )})`;

/** The filter's SKUs and order ids (ours, the channel's, or the order number), beside the scope. */
function extraFilters(input: ReturnType<typeof FulfillmentListInput.parse>): SQL[] {
  const where: SQL[] = [];
  const skus = listOf(input.filter.skus);
  if (skus.length > 0) {
    where.push(sql`exists (select 1 from ${orderLines} l where l.order_id = ${orders.id} and l.sku in ${anyOf(skus)})`);
  }
  const ids = listOf(input.filter.order_ids);
  if (ids.length > 0) {
    const numbers = ids.map((i) => (i.startsWith('#') ? i : `#${i}`));
    where.push(
      sql`(${orders.id} in ${anyOf(ids)} or ${orders.externalId} in ${anyOf(ids)} or ${orders.number} in ${anyOf([...ids, ...numbers])})`,
    );
  }
  return where;
}

const SORTS: Record<string, SQL> = {
  id: sql`${orders.id}`,
  created_at: sql`${orders.createdAt}`,
  placed_at: sql`${orders.placedAt}`,
  number: sql`${orders.number}`,
  external_id: sql`${orders.externalId}`,
  total: sql`${orders.total}`,
};

export async function listQueue(db: Db, actor: Actor, raw: unknown): Promise<FulfillmentList> {
  const input = FulfillmentListInput.parse(raw ?? {});
  const location = await resolveStore(db, actor, input.filter.store_id);
  if (!location)
    return { results: [], total: 0, totalCapped: false, limit: input.limit, offset: input.offset, store: null };
  const where = and(
    eq(orders.accountId, actor.accountId),
    scopeCondition(input.filter.scope, location.id),
    ...extraFilters(input),
  );
  const column = SORTS[input.sort] ?? SORTS.id;
  // Counted up to FULFILLMENT_LIST_COUNT_CAP orders past the page: the done tabs of a busy store hold years.
  const countUpTo = input.offset + input.limit + FULFILLMENT_LIST_COUNT_CAP;
  const dir = input.order === 'asc' ? sql`asc` : sql`desc`;
  const [rows, [count]] = await Promise.all([
    db
      .select({ row: orders, channelName: channels.name, channelType: channels.type })
      .from(orders)
      .leftJoin(channels, eq(channels.id, orders.channelId))
      .where(where)
      .orderBy(sql`${column} ${dir}`, sql`${orders.id} ${dir}`)
      .limit(input.limit)
      .offset(input.offset),
    db.select({ total: sql<number>`count(*)::int` }).from(
      db
        .select({ one: sql`1` })
        .from(orders)
        .where(where)
        .limit(countUpTo + 1)
        .as('counted'),
    ),
  ]);
  const ids = rows.map((r) => r.row.id);
  const work = ids.length
    ? await db
        .select({
          orderId: orderAllocations.orderId,
          quantity: orderAllocations.quantity,
          reserved: orderAllocations.reserved,
          variantId: orderAllocations.variantId,
          status: orderAllocations.status,
          sku: orderLines.sku,
          scanned: fulfillmentSteps.scanned,
          packedAt: fulfillmentSteps.packedAt,
        })
        .from(orderAllocations)
        .innerJoin(orderLines, eq(orderLines.id, orderAllocations.lineId))
        .leftJoin(fulfillmentSteps, eq(fulfillmentSteps.allocationId, orderAllocations.id))
        .where(
          and(
            eq(orderAllocations.accountId, actor.accountId),
            eq(orderAllocations.locationId, location.id),
            sql`${orderAllocations.orderId} in ${anyOf(ids)}`,
          ),
        )
    : [];
  return {
    results: rows.map(({ row, channelName, channelType }) => {
      // An open allocation counts the units still to leave (after part of a line shipped, what it holds reserved),
      // and of them the ones scanned (fulfillment.units.ts); a done one counts all its units.
      const mine = work
        .filter((w) => w.orderId === row.id && w.status !== 5)
        .map((w) => {
          const units = storeUnits({ ...w, locationId: location.id }, w.scanned);
          const open = w.status === 1 || w.status === 2;
          return { ...w, quantity: open ? units.toShip : w.quantity, picked: units.scanned };
        });
      const open = mine.filter((w) => w.status === 1 || w.status === 2);
      return {
        id: row.id,
        number: row.number,
        externalId: row.externalId,
        channel:
          row.channelId && channelName && channelType
            ? { id: row.channelId, name: channelName, type: channelType as 'shopify' | 'bigcommerce' | 'square' }
            : null,
        status: row.status,
        fulfillmentType: row.fulfillmentType,
        customerName: row.customerName,
        flagged: row.flagged,
        units: mine.reduce((s, w) => s + w.quantity, 0),
        pickedUnits: mine.reduce((s, w) => s + w.picked, 0),
        skus: [...new Set(mine.map((w) => w.sku).filter((s): s is string => !!s))],
        packed: open.length > 0 && open.every((w) => w.packedAt),
        placedAt: row.placedAt,
        createdAt: row.createdAt,
      };
    }),
    total: Math.min(count?.total ?? 0, countUpTo),
    totalCapped: (count?.total ?? 0) > countUpTo,
    limit: input.limit,
    offset: input.offset,
    store: toStore(location),
  };
}

/**
 * v2 `GET fulfillment/count`: how many orders each scope holds at the store, over the same SKU/order filters.
 * The work scopes (to ship, pickup, flagged) are counted exactly, from the open statuses' index; the done ones
 * (shipped, cancelled) and `all` (every order of the store, the empty scope) up to FULFILLMENT_DONE_COUNT_CAP,
 * listed in `capped` when there are more.
 */
export async function countQueue(db: Db, actor: Actor, raw: unknown): Promise<FulfillmentCounts> {
  const input = FulfillmentListInput.parse(raw ?? {});
  const location = await resolveStore(db, actor, input.filter.store_id);
  const zero = { toShip: 0, pickup: 0, shipped: 0, cancelled: 0, flagged: 0, all: 0 };
  if (!location) return { store: null, counts: zero, capped: [] };
  const extra = extraFilters(input);
  const statusIn = (statuses: number[]) =>
    sql`${orders.status} in (${sql.join(
      statuses.map((s) => sql`${s}`),
      sql`, `,
    )})`;
  const count = async (scope: FulfillmentScope | '', statuses: number[] | null, cap?: number) => {
    const where = and(
      eq(orders.accountId, actor.accountId),
      ...(statuses ? [statusIn(statuses)] : []),
      scopeCondition(scope, location.id),
      ...extra,
    );
    const inner = db.select({ one: sql`1` }).from(orders).where(where);
    const [row] = await db
      .select({ n: sql<number>`count(*)::int` })
      .from((cap ? inner.limit(cap + 1) : inner).as('counted'));
    return row?.n ?? 0;
  };
  const [toShip, pickup, flagged, shipped, cancelled, all] = await Promise.all([
    count('toShip', [0, 1, 2]),
    count('pickup', [0, 1, 2, 4]),
    count('flagged', [0, 1, 2, 4, 6, 9]),
    count('shipped', [1, 2, 3, 4, 5, 6, 9], FULFILLMENT_DONE_COUNT_CAP),
    count('cancelled', [7, 8], FULFILLMENT_DONE_COUNT_CAP),
    count('', null, FULFILLMENT_DONE_COUNT_CAP),
  ]);
  const cap = (n: number) => Math.min(n, FULFILLMENT_DONE_COUNT_CAP);
  return {
    store: toStore(location),
    counts: { toShip, pickup, flagged, shipped: cap(shipped), cancelled: cap(cancelled), all: cap(all) },
    capped: [
      ...(shipped > FULFILLMENT_DONE_COUNT_CAP ? (['shipped'] as const) : []),
      ...(cancelled > FULFILLMENT_DONE_COUNT_CAP ? (['cancelled'] as const) : []),
      ...(all > FULFILLMENT_DONE_COUNT_CAP ? (['all'] as const) : []),
    ],
  };
}
