// The stock ledger (DESIGN §3–4): every change of a level is a movement written in the same transaction,
// and every change marks the (channel, variant) pairs whose available quantity it may move as dirty.
// Callers pass the transaction of the change's cause, then call `schedulePush` after it commits.

import type { MovementReason } from '@switchyard/contracts';
import { and, eq, inArray, ne, or, sql } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.ts';
import { insertRowsSql } from '../../db/insert-rows.ts';
import { inList, rowsOf } from '../../db/rows.ts';
import { DomainError } from '../../lib/errors.ts';
import { channels } from '../channels/channels.tables.ts';
import { listings, variants } from '../products/products.tables.ts';
import { inventoryDirty, inventoryLevels, inventoryMovements } from './inventory.tables.ts';

export interface MovementInput {
  variantId: string;
  locationId: string;
  /** Change on_hand by this many units… */
  delta?: number;
  /** …or set on_hand to this (a count); the movement records the difference. */
  setTo?: number;
  /** Change reserved by this many units (orders, later issues). */
  reservedDelta?: number;
  reason: MovementReason;
  /** manual, square, shopify, bigcommerce, import, reconcile, … */
  source: string;
  reference?: string | null;
  /** The same key twice in one account is applied once (a redelivered webhook, a retried job). */
  idempotencyKey?: string | null;
  userId?: string | null;
}

export interface AppliedMovement {
  variantId: string;
  locationId: string;
  delta: number;
  reservedDelta: number;
  onHand: number;
  reserved: number;
  /** false: the idempotency key was seen before, or the change was zero; nothing was written. */
  applied: boolean;
}

/**
 * Applies movements to their levels, each level locked (`FOR UPDATE`) for the read-modify-write, in a
 * stable order so two transactions cannot deadlock. Zero changes write nothing. Marks dirty pairs.
 * Movements of distinct levels go in bulk statements (500 levels a round trip), so seeding thousands of
 * levels at catalog import is a handful of statements; several movements of one level in one call are
 * applied one after another, in the order given.
 */
export async function applyMovements(
  tx: Tx,
  accountId: string,
  movements: MovementInput[],
): Promise<AppliedMovement[]> {
  for (const m of movements) {
    if (m.delta === undefined && m.setTo === undefined && !m.reservedDelta) {
      throw new DomainError('VALIDATION', 'A movement needs a change or a count.');
    }
  }
  const distinct = new Set(movements.map((m) => `${m.variantId}|${m.locationId}`)).size === movements.length;
  // Sorted stably: several movements of one level keep the order they were given in.
  const ordered = [...movements].sort(byLevel);
  const results: AppliedMovement[] = [];
  const touched = new Set<string>();
  const chunks: MovementInput[][] = [];
  if (!distinct) chunks.push(ordered);
  else for (let i = 0; i < ordered.length; i += BULK_LEVELS) chunks.push(ordered.slice(i, i + BULK_LEVELS));
  for (const chunk of chunks) {
    for (const r of await (distinct ? applyChunk(tx, accountId, chunk) : applyOneByOne(tx, accountId, chunk))) {
      results.push(r);
      if (r.applied) touched.add(r.variantId);
    }
  }
  await markTouched(tx, accountId, touched);
  return results;
}

/**
 * Movements of which several move one level (a stock pass's reports of one SKU): applied one after another, as
 * one at a time would, but in three statements: the levels locked, the keys among them seen before read (under
 * those locks, so no other transaction can write them meanwhile), then what changed written with the levels'
 * new numbers. A key seen before, or twice here, is applied once; a zero change writes nothing.
 */
async function applyOneByOne(tx: Tx, accountId: string, movements: MovementInput[]): Promise<AppliedMovement[]> {
  const locked = await lockLevelsOf(tx, accountId, movements);
  const levels = new Map(locked.map((l) => [`${l.variantId}|${l.locationId}`, { ...l }]));
  const keys = [...new Set(movements.flatMap((m) => (m.idempotencyKey ? [m.idempotencyKey] : [])))];
  const seen = new Set<string | null>();
  for (let i = 0; i < keys.length; i += 1000) {
    const found = await tx
      .select({ key: inventoryMovements.idempotencyKey })
      .from(inventoryMovements)
      .where(
        and(
          eq(inventoryMovements.accountId, accountId),
          inArray(inventoryMovements.idempotencyKey, keys.slice(i, i + 1000)),
        ),
      );
    for (const f of found) seen.add(f.key);
  }
  const results: AppliedMovement[] = [];
  const rows: (typeof inventoryMovements.$inferInsert)[] = [];
  for (const m of movements) {
    const level = levels.get(`${m.variantId}|${m.locationId}`);
    if (!level || level.accountId !== accountId) throw new DomainError('NOT_FOUND', 'Stock level not found.');
    const delta = m.setTo !== undefined ? m.setTo - level.onHand : (m.delta ?? 0);
    const reservedDelta = m.reservedDelta ?? 0;
    if (level.reserved + reservedDelta < 0) throw new DomainError('VALIDATION', 'Reserved stock cannot go below zero.');
    const applied = (delta !== 0 || reservedDelta !== 0) && !seen.has(m.idempotencyKey ?? null);
    if (applied) {
      if (m.idempotencyKey) seen.add(m.idempotencyKey);
      level.onHand += delta;
      level.reserved += reservedDelta;
      rows.push(movementRow(accountId, m, delta, reservedDelta, level.onHand));
    }
    results.push({
      variantId: m.variantId,
      locationId: m.locationId,
      delta: applied ? delta : 0,
      reservedDelta: applied ? reservedDelta : 0,
      onHand: level.onHand,
      reserved: level.reserved,
      applied,
    });
  }
  const moved = new Set(rows.map((r) => `${r.variantId}|${r.locationId}`));
  if (
    (await writeInSequence(
      tx,
      rows,
      [...levels.values()].filter((l) => moved.has(`${l.variantId}|${l.locationId}`)),
    )) !== rows.length
  )
    throw new Error('ledger: a movement key was written by another transaction meanwhile; nothing is written');
  return results;
}

const movementRow = (
  accountId: string,
  m: MovementInput,
  delta: number,
  reservedDelta: number,
  onHandAfter: number,
): typeof inventoryMovements.$inferInsert => ({
  accountId,
  variantId: m.variantId,
  locationId: m.locationId,
  delta,
  reservedDelta,
  onHandAfter,
  reason: m.reason,
  source: m.source,
  reference: m.reference ?? null,
  idempotencyKey: m.idempotencyKey ?? null,
  userId: m.userId ?? null,
});

/**
 * Movement rows worked out one after another against levels the caller holds locked, and those levels' new
 * numbers, in one statement; answers how many rows were written (a row whose key was seen before is not).
 */
async function writeInSequence(
  tx: Tx,
  rows: (typeof inventoryMovements.$inferInsert)[],
  levels: { variantId: string; locationId: string; onHand: number; reserved: number }[],
): Promise<number> {
  if (rows.length === 0) return 0;
  const after = sql.join(
    levels.map((l) => sql`(${l.variantId}::text, ${l.locationId}::text, ${l.onHand}::int, ${l.reserved}::int)`),
    sql`, `,
  );
  const insert = insertRowsSql(inventoryMovements, rows, {
    onConflictDoNothing: true,
    returning: { id: inventoryMovements.id },
  });
  const [written] = rowsOf<{ n: number }>(
    await tx.execute(sql`
      with written as (${insert}),
      levels as (
        update ${inventoryLevels} set on_hand = v.on_hand, reserved = v.reserved, updated_at = now()
        from (values ${after}) as v(variant_id, location_id, on_hand, reserved)
        where ${inventoryLevels.variantId} = v.variant_id and ${inventoryLevels.locationId} = v.location_id
        returning 1
      )
      select count(*)::int as n from written`),
  );
  return Number(written?.n);
}

async function markTouched(tx: Tx, accountId: string, touched: Set<string>) {
  if (touched.size === 0) return;
  const deferred = dirtyAtEnd.get(tx);
  if (deferred?.accountId === accountId) for (const v of touched) deferred.variants.add(v);
  else await markDirty(tx, accountId, [...touched]);
}

/**
 * Writes movements that were worked out one after another under locks the caller holds on every level they touch
 * (a batch of orders, `DeferredLedger`): several may move one level, and are applied in the order given, as
 * `applyMovements` would one at a time, but all of them and their levels' new numbers go in one statement after one
 * read of the levels. Each needs a fresh idempotency key (made in this transaction): a key seen before is a bug,
 * and throws, rolling the transaction back. Only changes (`delta`, `reservedDelta`), not counts.
 */
export async function applyMovementsInSequence(tx: Tx, accountId: string, all: MovementInput[]) {
  const movements = all.filter((m) => (m.delta ?? 0) !== 0 || (m.reservedDelta ?? 0) !== 0);
  if (movements.length === 0) return;
  for (const m of movements)
    if (m.setTo !== undefined || !m.idempotencyKey)
      throw new Error('ledger: a movement in sequence needs a change and a fresh key');
  const locked = await lockLevelsOf(tx, accountId, movements);
  const levels = new Map(locked.map((l) => [`${l.variantId}|${l.locationId}`, { ...l }]));
  const rows = movements.map((m) => {
    const level = levels.get(`${m.variantId}|${m.locationId}`);
    if (!level || level.accountId !== accountId) throw new DomainError('NOT_FOUND', 'Stock level not found.');
    level.onHand += m.delta ?? 0;
    level.reserved += m.reservedDelta ?? 0;
    if (level.reserved < 0) throw new DomainError('VALIDATION', 'Reserved stock cannot go below zero.');
    return movementRow(accountId, m, m.delta ?? 0, m.reservedDelta ?? 0, level.onHand);
  });
  const moved = new Set(movements.map((m) => `${m.variantId}|${m.locationId}`));
  const written = await writeInSequence(
    tx,
    rows,
    [...levels.values()].filter((l) => moved.has(`${l.variantId}|${l.locationId}`)),
  );
  if (written !== rows.length)
    throw new Error('ledger: a movement key made in this transaction was used before; nothing is written');
  await markTouched(tx, accountId, new Set(movements.map((m) => m.variantId)));
}

/** Transactions whose changed variants are marked dirty once, at the end of their work (withDirtyMarkedOnce). */
const dirtyAtEnd = new WeakMap<Tx, { accountId: string; variants: Set<string> }>();

/**
 * Runs `fn`, whose movements in `tx` mark their variants dirty once at its end, in one statement, rather than
 * one statement per movement (a batch of orders reserves dozens of times). Still in the same transaction, so
 * the marks commit with the movements; marked later, never earlier, than each movement, so no push can take a
 * mark as handled before the change it stands for.
 */
export async function withDirtyMarkedOnce<T>(
  tx: Tx,
  accountId: string,
  fn: () => Promise<T>,
  /** Collects the channels marked (the ones to push once the transaction commits). */
  options: { marked?: Set<string> } = {},
): Promise<T> {
  const variants = new Set<string>();
  dirtyAtEnd.set(tx, { accountId, variants });
  let out: T;
  try {
    out = await fn();
  } finally {
    dirtyAtEnd.delete(tx);
  }
  if (variants.size > 0)
    for (const channelId of await markDirty(tx, accountId, [...variants])) options.marked?.add(channelId);
  return out;
}

const BULK_LEVELS = 500;

const byLevel = (a: MovementInput, b: MovementInput) =>
  a.variantId === b.variantId
    ? a.locationId < b.locationId
      ? -1
      : a.locationId > b.locationId
        ? 1
        : 0
    : a.variantId < b.variantId
      ? -1
      : 1;

/**
 * The levels of some movements, locked: the variants × locations they name (a superset of their levels), in one
 * stable order. Nearly always every level exists (an order reserves where there is stock): then that is the one
 * statement; a level seen for the first time is made first, and all are locked again.
 */
async function lockLevelsOf(tx: Tx, accountId: string, movements: Pick<MovementInput, 'variantId' | 'locationId'>[]) {
  const lock = () =>
    tx
      .select({
        variantId: inventoryLevels.variantId,
        locationId: inventoryLevels.locationId,
        onHand: inventoryLevels.onHand,
        reserved: inventoryLevels.reserved,
        accountId: inventoryLevels.accountId,
      })
      .from(inventoryLevels)
      .where(
        and(
          inArray(inventoryLevels.variantId, [...new Set(movements.map((m) => m.variantId))]),
          inArray(inventoryLevels.locationId, [...new Set(movements.map((m) => m.locationId))]),
        ),
      )
      .orderBy(inventoryLevels.variantId, inventoryLevels.locationId)
      .for('update');
  const locked = await lock();
  const found = new Set(locked.map((l) => `${l.variantId}|${l.locationId}`));
  const missing = new Map<string, { accountId: string; variantId: string; locationId: string }>();
  for (const m of movements)
    if (!found.has(`${m.variantId}|${m.locationId}`))
      missing.set(`${m.variantId}|${m.locationId}`, { accountId, variantId: m.variantId, locationId: m.locationId });
  if (missing.size === 0) return locked;
  await tx
    .insert(inventoryLevels)
    .values([...missing.values()])
    .onConflictDoNothing();
  return lock();
}

/** One round of movements of distinct levels: lock all (creating those missing), write movements, update. */
async function applyChunk(tx: Tx, accountId: string, chunk: MovementInput[]): Promise<AppliedMovement[]> {
  const locked = await lockLevelsOf(tx, accountId, chunk);
  const levels = new Map(locked.map((l) => [`${l.variantId}|${l.locationId}`, l]));

  const results: AppliedMovement[] = [];
  const changes: { m: MovementInput; delta: number; reservedDelta: number; onHand: number; reserved: number }[] = [];
  for (const m of chunk) {
    const level = levels.get(`${m.variantId}|${m.locationId}`);
    if (!level || level.accountId !== accountId) throw new DomainError('NOT_FOUND', 'Stock level not found.');
    const delta = m.setTo !== undefined ? m.setTo - level.onHand : (m.delta ?? 0);
    const reservedDelta = m.reservedDelta ?? 0;
    if (level.reserved + reservedDelta < 0) throw new DomainError('VALIDATION', 'Reserved stock cannot go below zero.');
    const unchanged = {
      variantId: m.variantId,
      locationId: m.locationId,
      delta: 0,
      reservedDelta: 0,
      onHand: level.onHand,
      reserved: level.reserved,
      applied: false,
    };
    if (delta === 0 && reservedDelta === 0) {
      results.push(unchanged);
      continue;
    }
    changes.push({ m, delta, reservedDelta, onHand: level.onHand + delta, reserved: level.reserved + reservedDelta });
    results.push(unchanged); // replaced below once written
  }
  if (changes.length === 0) return results;

  // A movement whose idempotency key was used before is not written (and its level not changed): the movements
  // and the levels of those written go in one statement (one round trip, whatever the chunk's size).
  const insert = insertRowsSql(
    inventoryMovements,
    changes.map(({ m, delta, reservedDelta, onHand }) => movementRow(accountId, m, delta, reservedDelta, onHand)),
    {
      onConflictDoNothing: true,
      returning: { variant_id: inventoryMovements.variantId, location_id: inventoryMovements.locationId },
    },
  );
  const after = sql.join(
    changes.map(
      ({ m, onHand, reserved }) => sql`(${m.variantId}::text, ${m.locationId}::text, ${onHand}::int, ${reserved}::int)`,
    ),
    sql`, `,
  );
  const written = rowsOf<{ variant_id: string; location_id: string }>(
    await tx.execute(sql`
      with written as (${insert}),
      levels as (
        update ${inventoryLevels} set on_hand = v.on_hand, reserved = v.reserved, updated_at = now()
        from (values ${after}) as v(variant_id, location_id, on_hand, reserved)
        join written w on w.variant_id = v.variant_id and w.location_id = v.location_id
        where ${inventoryLevels.variantId} = v.variant_id and ${inventoryLevels.locationId} = v.location_id
        returning 1
      )
      select variant_id, location_id from written`),
  );
  const done = new Set(written.map((w) => `${w.variant_id}|${w.location_id}`));
  const applied = changes.filter(({ m }) => done.has(`${m.variantId}|${m.locationId}`));
  const byKey = new Map(applied.map((c) => [`${c.m.variantId}|${c.m.locationId}`, c]));
  return results.map((r) => {
    const c = byKey.get(`${r.variantId}|${r.locationId}`);
    return c
      ? { ...r, delta: c.delta, reservedDelta: c.reservedDelta, onHand: c.onHand, reserved: c.reserved, applied: true }
      : r;
  });
}

/**
 * Before variants are deleted: the stock they hold is written off (reason `removed`, the SKU in the
 * reference), so the ledger, which outlives them, accounts for every unit. Call in the deleting transaction.
 */
export async function writeOffVariants(tx: Tx, accountId: string, variantIds: string[], userId?: string | null) {
  for (let i = 0; i < variantIds.length; i += 5000) {
    const held = await tx
      .select({
        variantId: inventoryLevels.variantId,
        locationId: inventoryLevels.locationId,
        reserved: inventoryLevels.reserved,
        sku: variants.sku,
      })
      .from(inventoryLevels)
      .innerJoin(variants, eq(variants.id, inventoryLevels.variantId))
      .where(
        and(
          eq(inventoryLevels.accountId, accountId),
          inArray(inventoryLevels.variantId, variantIds.slice(i, i + 5000)),
          or(ne(inventoryLevels.onHand, 0), ne(inventoryLevels.reserved, 0)),
        ),
      );
    if (held.length === 0) continue;
    await applyMovements(
      tx,
      accountId,
      held.map((h) => ({
        variantId: h.variantId,
        locationId: h.locationId,
        setTo: 0,
        reservedDelta: -h.reserved,
        reason: 'removed' as const,
        source: 'manual',
        reference: `SKU ${h.sku} deleted`,
        userId: userId ?? null,
      })),
    );
  }
}

/**
 * Marks (channel, variant) dirty for every live channel with inventory sync on that lists the variants
 * (or only `channelIds`). Answers the channels marked, for `schedulePush`.
 */
export async function markDirty(
  tx: Tx | Db,
  accountId: string,
  variantIds: string[],
  options: { channelIds?: string[] } = {},
): Promise<string[]> {
  if (variantIds.length === 0) return [];
  const marked: string[] = [];
  for (let i = 0; i < variantIds.length; i += 5000) {
    const chunk = variantIds.slice(i, i + 5000);
    const rows = await tx.execute<{ channel_id: string }>(sql`
      insert into ${inventoryDirty} (account_id, channel_id, variant_id, marked_at)
      select ${listings.accountId}, ${listings.channelId}, ${listings.variantId}, clock_timestamp()
      from ${listings} join ${channels} on ${channels.id} = ${listings.channelId}
      where ${listings.accountId} = ${accountId}
        and ${inList(listings.variantId, chunk)}
        and ${listings.inventoryItemId} is not null
        and ${channels.status} in ('connected', 'error')
        and (${channels.features} ->> 'inventory')::boolean
        ${options.channelIds ? sql`and ${inList(listings.channelId, options.channelIds)}` : sql``}
      on conflict (channel_id, variant_id) do update set marked_at = excluded.marked_at
      returning channel_id`);
    for (const r of rowsOf<{ channel_id: string }>(rows)) if (!marked.includes(r.channel_id)) marked.push(r.channel_id);
  }
  return marked;
}

/** JSON text for one jsonb parameter: a whole batch in one bind value instead of thousands of them. */
export const asJson = (value: unknown) => sql`${JSON.stringify(value)}::jsonb`;

export { rowsOf };
