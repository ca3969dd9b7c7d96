// Dynamic buffers: stock held back from one channel for a SKU at a location (DESIGN §3). A buffer lowers
// what the channel is offered there, so every change re-pushes that SKU to that channel.
import type { Buffer, BufferDeleted, BufferList, BufferSkuSuggestion, BuffersSearch } from '@switchyard/contracts';
import { and, asc, count, desc, eq, ilike, notExists, or, type SQL, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Db, Tx } from '../../db/client.ts';
import { DomainError, fromDatabaseError } from '../../lib/errors.ts';
import type { Services } from '../../services.ts';
import type { Actor } from '../../trpc/context.ts';
import { findChannel } from '../channels/channels.service.ts';
import { markDirty } from '../inventory/ledger.ts';
import { schedulePush } from '../inventory/schedule.ts';
import { locationByStoreId } from '../locations/locations.read.ts';
import { products, variants } from '../products/products.tables.ts';
import { buffers } from './buffers.tables.ts';

type BufferRow = typeof buffers.$inferSelect;
type Who = Pick<Actor, 'accountId'>;

/** What create takes once the contract (BufferInput) has parsed it. */
export interface BufferValues {
  sku: string;
  location_external_id: string;
  channel_id: string;
  qty: number;
}

const NOT_FOUND = 'Buffer not found';
export const DUPLICATE_BUFFER = 'A buffer for this SKU, location and channel already exists.';

const toBuffer = (row: BufferRow): Buffer => ({
  id: row.id,
  sku: row.sku,
  location_external_id: row.locationExternalId,
  channel_id: row.channelId,
  qty: row.qty,
});

const sortColumns = {
  sku: buffers.sku,
  location_external_id: buffers.locationExternalId,
  qty: buffers.qty,
  id: buffers.id,
  channel_id: buffers.channelId,
} as const;

/** `%` and `_` in what the merchant typed are matched as themselves. */
const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);
const contains = (text: string) => `%${escapeLike(text)}%`;

export async function listBuffers(db: Db, actor: Who, search: BuffersSearch): Promise<BufferList> {
  const conditions: SQL[] = [eq(buffers.accountId, actor.accountId)];
  if (search.sku) conditions.push(eq(buffers.sku, search.sku));
  if (search.channel_id) conditions.push(eq(buffers.channelId, search.channel_id));
  if (search.search) {
    const pattern = contains(search.search);
    const either = or(ilike(buffers.sku, pattern), ilike(buffers.locationExternalId, pattern));
    if (either) conditions.push(either);
  }
  const where = and(...conditions);
  const direction = search.sort === 'asc' ? asc : desc;
  // The id breaks ties, so a page never repeats or skips a row of equal keys.
  const order =
    search.sort_by === 'id' ? [direction(buffers.id)] : [direction(sortColumns[search.sort_by]), direction(buffers.id)];
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(buffers)
      .where(where)
      .orderBy(...order)
      .limit(search.limit)
      .offset(search.offset),
    db.select({ n: count() }).from(buffers).where(where),
  ]);
  return { results: rows.map(toBuffer), total: total?.n ?? 0 };
}

async function findBuffer(db: Db, actor: Who, id: number, lock = false): Promise<BufferRow> {
  const query = db
    .select()
    .from(buffers)
    .where(and(eq(buffers.accountId, actor.accountId), eq(buffers.id, id)));
  const [row] = lock ? await query.for('update') : await query;
  if (!row) throw new DomainError('NOT_FOUND', NOT_FOUND);
  return row;
}

export async function getBuffer(db: Db, actor: Who, id: number): Promise<Buffer> {
  return toBuffer(await findBuffer(db, actor, id));
}

async function optionalVariantId(db: Db, actor: Who, sku: string): Promise<string | undefined> {
  const [variant] = await db
    .select({ id: variants.id })
    .from(variants)
    .where(and(eq(variants.accountId, actor.accountId), eq(variants.sku, sku)));
  return variant?.id;
}

/** The variant a buffer's SKU names, or VALIDATION. */
async function variantIdOf(db: Db, actor: Who, sku: string): Promise<string> {
  const id = await optionalVariantId(db, actor, sku);
  if (!id) throw new DomainError('VALIDATION', `No product in your catalog has the SKU “${sku}”.`);
  return id;
}

async function assertLocation(db: Db, actor: Who, storeId: string): Promise<void> {
  const location = await locationByStoreId(db, actor.accountId, storeId);
  if (!location) throw new DomainError('VALIDATION', `None of your locations has the store id “${storeId}”.`);
}

/** Checks the channel (NOT_FOUND when not the caller's), the location and the SKU; answers the variant id. */
async function checkTarget(db: Db, actor: Who, target: Omit<BufferValues, 'qty'>): Promise<string> {
  await findChannel(db, actor, target.channel_id);
  await assertLocation(db, actor, target.location_external_id);
  return variantIdOf(db, actor, target.sku);
}

async function assertNoTwin(db: Db, actor: Who, target: Omit<BufferValues, 'qty'>, except?: number) {
  const [twin] = await db
    .select({ id: buffers.id })
    .from(buffers)
    .where(
      and(
        eq(buffers.accountId, actor.accountId),
        eq(buffers.channelId, target.channel_id),
        eq(buffers.sku, target.sku),
        eq(buffers.locationExternalId, target.location_external_id),
      ),
    );
  if (twin && twin.id !== except) throw new DomainError('CONFLICT', DUPLICATE_BUFFER);
}

/**
 * Runs a change and its dirty marks in one transaction, then queues the pushes. Two concurrent creates of
 * the same buffer both pass the twin check; the unique key refuses the second with the same message.
 */
async function changeAndPush<T>(
  services: Services,
  work: (tx: Tx) => Promise<{ result: T; channelIds: string[] }>,
): Promise<T> {
  let outcome: { result: T; channelIds: string[] };
  try {
    outcome = await services.db.transaction(work);
  } catch (err) {
    if (err instanceof DomainError) throw err;
    throw fromDatabaseError(err, DUPLICATE_BUFFER) ?? err;
  }
  await schedulePush(services, outcome.channelIds);
  return outcome.result;
}

export function createBuffer(services: Services, actor: Who, input: BufferValues): Promise<Buffer> {
  return changeAndPush(services, async (tx) => {
    const variantId = await checkTarget(tx, actor, input);
    await assertNoTwin(tx, actor, input);
    const [row] = await tx
      .insert(buffers)
      .values({
        accountId: actor.accountId,
        sku: input.sku,
        locationExternalId: input.location_external_id,
        channelId: input.channel_id,
        qty: input.qty,
      })
      .returning();
    if (!row) throw new Error('insert returned no row');
    const channelIds = await markDirty(tx, actor.accountId, [variantId], { channelIds: [row.channelId] });
    return { result: toBuffer(row), channelIds };
  });
}

export function updateBuffer(
  services: Services,
  actor: Who,
  id: number,
  patch: Partial<BufferValues>,
): Promise<Buffer> {
  return changeAndPush(services, async (tx) => {
    const before = await findBuffer(tx, actor, id, true);
    const target = {
      sku: patch.sku ?? before.sku,
      location_external_id: patch.location_external_id ?? before.locationExternalId,
      channel_id: patch.channel_id ?? before.channelId,
    };
    const moved =
      target.sku !== before.sku ||
      target.location_external_id !== before.locationExternalId ||
      target.channel_id !== before.channelId;
    // Only what changed is checked: a buffer keeps working for a SKU that has since left the catalog.
    if (target.channel_id !== before.channelId) await findChannel(tx, actor, target.channel_id);
    if (target.location_external_id !== before.locationExternalId) {
      await assertLocation(tx, actor, target.location_external_id);
    }
    const variantId =
      target.sku !== before.sku
        ? await variantIdOf(tx, actor, target.sku)
        : await optionalVariantId(tx, actor, target.sku);
    if (moved) await assertNoTwin(tx, actor, target, id);
    const [row] = await tx
      .update(buffers)
      .set({
        sku: target.sku,
        locationExternalId: target.location_external_id,
        channelId: target.channel_id,
        qty: patch.qty ?? before.qty,
        updatedAt: new Date(),
      })
      .where(and(eq(buffers.accountId, actor.accountId), eq(buffers.id, id)))
      .returning();
    if (!row) throw new DomainError('NOT_FOUND', NOT_FOUND);
    const marked = new Set<string>();
    if (variantId) {
      for (const c of await markDirty(tx, actor.accountId, [variantId], { channelIds: [row.channelId] })) marked.add(c);
    }
    // The buffer left its old SKU or channel: that pair is offered its full quantity again.
    if (target.sku !== before.sku || target.channel_id !== before.channelId) {
      const oldVariant = await optionalVariantId(tx, actor, before.sku);
      if (oldVariant) {
        for (const c of await markDirty(tx, actor.accountId, [oldVariant], { channelIds: [before.channelId] })) {
          marked.add(c);
        }
      }
    }
    return { result: toBuffer(row), channelIds: [...marked] };
  });
}

export function deleteBuffer(services: Services, actor: Who, id: number): Promise<BufferDeleted> {
  return changeAndPush(services, async (tx) => {
    const [row] = await tx
      .delete(buffers)
      .where(and(eq(buffers.accountId, actor.accountId), eq(buffers.id, id)))
      .returning();
    if (!row) throw new DomainError('NOT_FOUND', NOT_FOUND);
    const variantId = await optionalVariantId(tx, actor, row.sku);
    const channelIds = variantId
      ? await markDirty(tx, actor.accountId, [variantId], { channelIds: [row.channelId] })
      : [];
    return { result: { id: row.id }, channelIds };
  });
}

/** Catalog SKUs containing `search` (case-insensitive), those starting with it first, for the buffer form. */
export async function suggestSkus(
  db: Db,
  actor: Who,
  input: { search: string; limit: number },
): Promise<BufferSkuSuggestion[]> {
  const conditions: SQL[] = [eq(variants.accountId, actor.accountId)];
  if (input.search) conditions.push(ilike(variants.sku, contains(input.search)));
  const order = input.search
    ? [sql`case when ${variants.sku} ilike ${`${escapeLike(input.search)}%`} then 0 else 1 end`, asc(variants.sku)]
    : [asc(variants.sku)];
  const rows = await db
    .select({ sku: variants.sku, product: products.title, variant: variants.title })
    .from(variants)
    .innerJoin(products, eq(products.id, variants.productId))
    .where(and(...conditions))
    .orderBy(...order)
    .limit(input.limit);
  return rows.map((r) => ({ sku: r.sku, title: r.variant ? `${r.product} – ${r.variant}` : r.product }));
}

/**
 * A location's store id changed: its buffers follow it, in the caller's transaction (the locations service's
 * update, which also marks the location's variants dirty). A buffer already kept under the new store id (left
 * from a deleted location) wins over the one that would collide with it. Answers how many moved.
 */
export async function moveBuffersToStore(
  tx: Db,
  accountId: string,
  fromStoreId: string,
  toStoreId: string,
): Promise<number> {
  if (fromStoreId === toStoreId) return 0;
  const twin = alias(buffers, 'twin');
  const moved = await tx
    .update(buffers)
    .set({ locationExternalId: toStoreId, updatedAt: new Date() })
    .where(
      and(
        eq(buffers.accountId, accountId),
        eq(buffers.locationExternalId, fromStoreId),
        notExists(
          tx
            .select({ id: twin.id })
            .from(twin)
            .where(
              and(
                eq(twin.accountId, accountId),
                eq(twin.channelId, buffers.channelId),
                eq(twin.sku, buffers.sku),
                eq(twin.locationExternalId, toStoreId),
              ),
            ),
        ),
      ),
    )
    .returning({ id: buffers.id });
  return moved.length;
}
