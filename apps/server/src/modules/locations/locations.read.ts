// The locations module's reads for other modules: they call these rather than select from `locations`
// themselves. Every read is scoped to the account, and each takes the caller's transaction when it has one.
// Rows are whole; a caller picks the fields it needs.
import { and, asc, count, eq, inArray } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.ts';
import { locations } from './locations.tables.ts';

export type LocationRow = typeof locations.$inferSelect;

const ORDER_COLUMNS = {
  priority: locations.priority,
  name: locations.name,
  storeId: locations.storeId,
  id: locations.id,
} as const;

export type LocationOrder = keyof typeof ORDER_COLUMNS;

/**
 * The account's locations, ascending by `orderBy` (e.g. `['priority', 'name', 'id']` for routing's order,
 * `['storeId']` for files); without it, in no particular order.
 */
export async function accountLocations(
  db: Db | Tx,
  accountId: string,
  orderBy: LocationOrder[] = [],
): Promise<LocationRow[]> {
  return db
    .select()
    .from(locations)
    .where(eq(locations.accountId, accountId))
    .orderBy(...orderBy.map((c) => asc(ORDER_COLUMNS[c])));
}

/** The account's location with this id; undefined when there is none (or it is another account's). */
export async function locationById(db: Db | Tx, accountId: string, id: string): Promise<LocationRow | undefined> {
  const [row] = await db
    .select()
    .from(locations)
    .where(and(eq(locations.accountId, accountId), eq(locations.id, id)));
  return row;
}

/** The account's locations among these ids (another account's are left out), in no particular order. */
export async function locationsByIds(db: Db | Tx, accountId: string, ids: readonly string[]): Promise<LocationRow[]> {
  if (ids.length === 0) return [];
  return db
    .select()
    .from(locations)
    .where(and(eq(locations.accountId, accountId), inArray(locations.id, [...new Set(ids)])));
}

/** The account's location with this store id (unique in the account); undefined when none has it. */
export async function locationByStoreId(
  db: Db | Tx,
  accountId: string,
  storeId: string,
): Promise<LocationRow | undefined> {
  const [row] = await db
    .select()
    .from(locations)
    .where(and(eq(locations.accountId, accountId), eq(locations.storeId, storeId)));
  return row;
}

/** How many locations the account has, enabled or not. */
export async function countLocations(db: Db | Tx, accountId: string): Promise<number> {
  const [row] = await db.select({ n: count() }).from(locations).where(eq(locations.accountId, accountId));
  return row?.n ?? 0;
}
