// The merchant's locations (stores and warehouses): their POS store id, whether they sell (enabled), ship
// or serve pickup, and their routing priority. Channels' locations map to ours by store_id.
import type {
  Location,
  LocationAddress,
  LocationInput,
  LocationList,
  LocationPatch,
  LocationsQuery,
} from '@switchyard/contracts';
import { and, asc, count, desc, eq, ilike, ne, or, type SQL, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db } from '../../db/client.ts';
import { DomainError, fromDatabaseError } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { Services } from '../../services.ts';
import type { Actor } from '../../trpc/context.ts';
import { recordAudit } from '../audit/audit.service.ts';
import { assertWithinPlan } from '../billing/plan-limits.ts';
import { moveBuffersToStore } from '../buffers/buffers.service.ts';
import { listSquareStores } from '../channels/channels.service.ts';
import { inventoryLevels } from '../inventory/inventory.tables.ts';
import { markDirty } from '../inventory/ledger.ts';
import { schedulePush } from '../inventory/schedule.ts';
import type { LocationRow } from './locations.read.ts';
import { locations } from './locations.tables.ts';

export type { LocationRow };
export type ParsedLocationInput = z.output<typeof LocationInput>;
export type ParsedLocationPatch = z.output<typeof LocationPatch>;

const NOT_FOUND = 'Location not found';

export function toLocation(row: LocationRow): Location {
  return {
    id: row.id,
    name: row.name,
    store_id: row.storeId,
    enabled: row.enabled,
    ships: row.ships,
    pickup: row.pickup,
    priority: row.priority,
    address: row.address,
    latitude: row.latitude ?? null,
    longitude: row.longitude ?? null,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
}

const own = (accountId: string, id: string) => and(eq(locations.accountId, accountId), eq(locations.id, id));

const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

const SORT_COLUMNS = {
  store_id: locations.storeId,
  name: locations.name,
  priority: locations.priority,
  id: locations.id,
} as const;

/** One page of the account's locations; `search` matches the name, the store id or the city. */
export async function listLocations(
  db: Db,
  actor: Pick<Actor, 'accountId'>,
  query: LocationsQuery,
): Promise<LocationList> {
  const conditions: SQL[] = [eq(locations.accountId, actor.accountId)];
  if (query.search) {
    const pattern = likePattern(query.search);
    const match = or(
      ilike(locations.name, pattern),
      ilike(locations.storeId, pattern),
      ilike(sql`${locations.address} ->> 'city'`, pattern),
    );
    if (match) conditions.push(match);
  }
  const where = and(...conditions);
  const direction = query.order === 'desc' ? desc : asc;
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(locations)
      .where(where)
      .orderBy(direction(SORT_COLUMNS[query.sort]), direction(locations.id))
      .limit(query.limit)
      .offset(query.offset),
    db.select({ n: count() }).from(locations).where(where),
  ]);
  return { results: rows.map(toLocation), total: total?.n ?? 0 };
}

export async function getLocation(db: Db, actor: Pick<Actor, 'accountId'>, id: string): Promise<Location> {
  const [row] = await db.select().from(locations).where(own(actor.accountId, id));
  if (!row) throw new DomainError('NOT_FOUND', NOT_FOUND);
  return toLocation(row);
}

const duplicateStore = (storeId: string) =>
  new DomainError('CONFLICT', `Another location already has store id “${storeId}”. Each location needs its own store.`);

/**
 * With a Square point of sale connected, a location is one of its stores: the id must be one Square lists.
 * Without one any id is taken (a warehouse, or a store whose POS is connected later).
 */
async function assertPosStore(services: Services, actor: Actor, storeId: string): Promise<void> {
  const { stores } = await listSquareStores(services, actor);
  if (stores.length === 0) return;
  if (stores.some((store) => store.id === storeId)) return;
  const names = stores.map((store) => `${store.name} (${store.id})`).join(', ');
  throw new DomainError('VALIDATION', `store_id: “${storeId}” is not one of your Square stores: ${names}.`);
}

async function assertStoreFree(db: Db, accountId: string, storeId: string, exceptId?: string): Promise<void> {
  const [taken] = await db
    .select({ id: locations.id })
    .from(locations)
    .where(
      and(
        eq(locations.accountId, accountId),
        eq(locations.storeId, storeId),
        exceptId ? ne(locations.id, exceptId) : undefined,
      ),
    );
  if (taken) throw duplicateStore(storeId);
}

/** The unique (account, store_id) index can still refuse a row another request added meanwhile. */
function conflictOr(err: unknown, storeId: string | undefined): unknown {
  const mapped = fromDatabaseError(err);
  if (mapped?.code === 'CONFLICT' && storeId) return duplicateStore(storeId);
  return mapped ?? err;
}

const cleanAddress = (address: LocationAddress): LocationAddress =>
  Object.fromEntries(Object.entries(address).map(([k, v]) => [k, v === '' || v === undefined ? null : v]));

export async function createLocation(services: Services, actor: Actor, input: ParsedLocationInput): Promise<Location> {
  await assertPosStore(services, actor, input.store_id);
  try {
    return await services.db.transaction(async (tx) => {
      await assertWithinPlan(tx, actor.accountId, 'locations');
      await assertStoreFree(tx, actor.accountId, input.store_id);
      const [row] = await tx
        .insert(locations)
        .values({
          id: newId('loc'),
          accountId: actor.accountId,
          name: input.name,
          storeId: input.store_id,
          enabled: input.enabled,
          ships: input.ships,
          pickup: input.pickup,
          priority: input.priority,
          address: cleanAddress(input.address),
          latitude: input.latitude ?? null,
          longitude: input.longitude ?? null,
        })
        .returning();
      if (!row) throw new Error('insert returned no row');
      await audit(tx, actor, 'location.create', { locationId: row.id, storeId: row.storeId });
      return toLocation(row);
    });
  } catch (err) {
    throw conflictOr(err, input.store_id);
  }
}

/**
 * Changes a location. Switching `enabled` or the store id changes what every channel may sell from it (a
 * disabled location pushes 0), so each variant stocked there is marked dirty and the channels re-pushed.
 */
export async function updateLocation(
  services: Services,
  actor: Actor,
  id: string,
  patch: ParsedLocationPatch,
): Promise<Location> {
  const current = await getLocation(services.db, actor, id);
  const storeChanges = patch.store_id !== undefined && patch.store_id !== current.store_id;
  if (storeChanges) await assertPosStore(services, actor, patch.store_id as string);
  let channelIds: string[] = [];
  let updated: Location;
  try {
    updated = await services.db.transaction(async (tx) => {
      const [before] = await tx.select().from(locations).where(own(actor.accountId, id)).for('update');
      if (!before) throw new DomainError('NOT_FOUND', NOT_FOUND);
      if (storeChanges) await assertStoreFree(tx, actor.accountId, patch.store_id as string, id);
      const [row] = await tx
        .update(locations)
        .set({
          ...(patch.name !== undefined ? { name: patch.name } : {}),
          ...(patch.store_id !== undefined ? { storeId: patch.store_id } : {}),
          ...(patch.enabled !== undefined ? { enabled: patch.enabled } : {}),
          ...(patch.ships !== undefined ? { ships: patch.ships } : {}),
          ...(patch.pickup !== undefined ? { pickup: patch.pickup } : {}),
          ...(patch.priority !== undefined ? { priority: patch.priority } : {}),
          ...(patch.address !== undefined ? { address: cleanAddress(patch.address) } : {}),
          ...(patch.latitude !== undefined ? { latitude: patch.latitude } : {}),
          ...(patch.longitude !== undefined ? { longitude: patch.longitude } : {}),
          updatedAt: new Date(),
        })
        .where(own(actor.accountId, id))
        .returning();
      if (!row) throw new DomainError('NOT_FOUND', NOT_FOUND);
      // Dynamic buffers name the store id: they follow the location to its new one.
      if (row.storeId !== before.storeId) await moveBuffersToStore(tx, actor.accountId, before.storeId, row.storeId);
      if (row.enabled !== before.enabled || row.storeId !== before.storeId) {
        channelIds = await markDirty(tx, actor.accountId, await variantsStockedAt(tx, actor.accountId, id));
      }
      await audit(tx, actor, 'location.update', {
        locationId: id,
        fields: Object.keys(patch).filter((k) => patch[k as keyof ParsedLocationPatch] !== undefined),
      });
      return toLocation(row);
    });
  } catch (err) {
    throw conflictOr(err, patch.store_id);
  }
  await schedulePush(services, channelIds);
  return updated;
}

async function variantsStockedAt(db: Db, accountId: string, locationId: string): Promise<string[]> {
  const rows = await db
    .select({ variantId: inventoryLevels.variantId })
    .from(inventoryLevels)
    .where(and(eq(inventoryLevels.accountId, accountId), eq(inventoryLevels.locationId, locationId)));
  return rows.map((r) => r.variantId);
}

/**
 * Deletes a location that holds no stock; its zero levels go with it. One that still holds units (on hand
 * or reserved) is refused: they must be moved or counted out first, so no stock disappears unrecorded.
 */
export async function deleteLocation(db: Db, actor: Actor, id: string): Promise<{ id: string }> {
  return db.transaction(async (tx) => {
    const [row] = await tx.select().from(locations).where(own(actor.accountId, id)).for('update');
    if (!row) throw new DomainError('NOT_FOUND', NOT_FOUND);
    const [held] = await tx
      .select({
        variants: count(),
        onHand: sql<number>`coalesce(sum(${inventoryLevels.onHand}), 0)::int`,
        reserved: sql<number>`coalesce(sum(${inventoryLevels.reserved}), 0)::int`,
      })
      .from(inventoryLevels)
      .where(
        and(
          eq(inventoryLevels.accountId, actor.accountId),
          eq(inventoryLevels.locationId, id),
          or(ne(inventoryLevels.onHand, 0), ne(inventoryLevels.reserved, 0)),
        ),
      );
    if (held && held.variants > 0) {
      const parts = [`${held.onHand} on hand`, ...(held.reserved ? [`${held.reserved} reserved`] : [])].join(', ');
      throw new DomainError(
        'INVALID_STATE',
        `${row.name} still holds stock of ${held.variants} ${held.variants === 1 ? 'variant' : 'variants'} (${parts}). Move or count it to zero before deleting the location, or disable the location instead.`,
      );
    }
    await tx
      .delete(inventoryLevels)
      .where(and(eq(inventoryLevels.accountId, actor.accountId), eq(inventoryLevels.locationId, id)));
    await tx.delete(locations).where(own(actor.accountId, id));
    await audit(tx, actor, 'location.delete', { locationId: id, storeId: row.storeId, name: row.name });
    return { id };
  });
}

const audit = (db: Db, actor: Actor, action: string, detail: Record<string, unknown>) =>
  recordAudit(db, { accountId: actor.accountId, actorUserId: actor.userId, action, detail });
