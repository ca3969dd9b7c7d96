// The ledger's verbs for orders (DESIGN §4a): reserve, release, consume. Only inventory writes levels; the
// order side calls these in its own transaction, each idempotent by a key naming its cause. Reserving locks
// the candidate levels (`FOR UPDATE`, one stable order) before it reads what they can cover, so two orders
// can never take the last unit twice.
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Tx } from '../../db/client.ts';
import { inList } from '../../db/rows.ts';
import { inventoryLevels } from './inventory.tables.ts';
import type { DeferredLedger } from './ledger.deferred.ts';
import { applyMovements, type MovementInput } from './ledger.ts';

export interface ReserveInput {
  variantId: string;
  /** Our locations in order of preference: the first that can cover `quantity` is taken. */
  candidates: string[];
  quantity: number;
  /** The order, for the ledger. */
  reference: string;
  /** Unique per cause (an allocation): a replay reserves nothing more. */
  key: string;
  userId?: string | null;
}

export interface ReserveResult {
  /** The location reserved at; null when none could cover the quantity. */
  locationId: string | null;
  /** What each candidate could cover when it was looked at (on_hand − reserved), for the decision's record. */
  available: Record<string, number>;
}

/** Locks the candidates' levels and reserves `quantity` at the first that can cover it. */
export async function reserveFirstAvailable(tx: Tx, accountId: string, input: ReserveInput): Promise<ReserveResult> {
  const available: Record<string, number> = {};
  if (input.candidates.length === 0 || input.quantity <= 0) return { locationId: null, available };
  const locked = await tx
    .select({
      locationId: inventoryLevels.locationId,
      onHand: inventoryLevels.onHand,
      reserved: inventoryLevels.reserved,
    })
    .from(inventoryLevels)
    .where(
      and(
        eq(inventoryLevels.accountId, accountId),
        eq(inventoryLevels.variantId, input.variantId),
        inArray(inventoryLevels.locationId, input.candidates),
      ),
    )
    .orderBy(inventoryLevels.variantId, inventoryLevels.locationId)
    .for('update');
  const byLocation = new Map(locked.map((l) => [l.locationId, l.onHand - l.reserved]));
  for (const c of input.candidates) available[c] = byLocation.get(c) ?? 0;
  const chosen = input.candidates.find((c) => (byLocation.get(c) ?? 0) >= input.quantity) ?? null;
  if (!chosen) return { locationId: null, available };
  await applyMovements(tx, accountId, [
    {
      variantId: input.variantId,
      locationId: chosen,
      reservedDelta: input.quantity,
      reason: 'order',
      source: 'order',
      reference: input.reference,
      idempotencyKey: `reserve:${input.key}`,
      userId: input.userId ?? null,
    },
  ]);
  return { locationId: chosen, available };
}

export interface LevelChangeInput {
  variantId: string;
  locationId: string;
  quantity: number;
  reference: string;
  key: string;
  userId?: string | null;
}

/** Gives reserved units back (a cancelled order, a re-routed line). */
export async function releaseReservation(tx: Tx, accountId: string, input: LevelChangeInput) {
  if (input.quantity <= 0) return;
  await applyMovements(tx, accountId, [
    {
      variantId: input.variantId,
      locationId: input.locationId,
      reservedDelta: -input.quantity,
      reason: 'order',
      source: 'order',
      reference: input.reference,
      idempotencyKey: `release:${input.key}`,
      userId: input.userId ?? null,
    },
  ]);
}

/**
 * The units leave the store (shipped, picked up, a completed POS sale): on_hand drops, and `reserved` of them
 * held by the order drop with it.
 */
export async function consumeStock(tx: Tx, accountId: string, input: LevelChangeInput & { reserved: number }) {
  if (input.quantity <= 0) return;
  await applyMovements(tx, accountId, [consumption(input)]);
}

/** The movement `consumeStock` writes, for a caller that keeps it with others (a batch's `DeferredLedger`). */
export const consumption = (input: LevelChangeInput & { reserved: number }): MovementInput => ({
  variantId: input.variantId,
  locationId: input.locationId,
  delta: -input.quantity,
  reservedDelta: -input.reserved,
  reason: 'order',
  source: 'order',
  reference: input.reference,
  idempotencyKey: `consume:${input.key}`,
  userId: input.userId ?? null,
});

/** Reserved units per level, for the invariant check (reserved = Σ open allocations). */
export async function reservedByLevel(tx: Pick<Tx, 'execute'>, accountId: string) {
  return tx.execute<{ variant_id: string; location_id: string; on_hand: number; reserved: number }>(
    sql`select variant_id, location_id, on_hand, reserved from ${inventoryLevels} where account_id = ${accountId}`,
  );
}

/**
 * Locks the levels of these variants at these locations (`FOR UPDATE`, by variant then location: the order every
 * reserve and stock pass takes) and answers what each can cover now (on_hand − reserved; a missing level is 0).
 * Routing (issue 14) reads its candidates' stock here, then reserves in the same transaction.
 */
export async function lockAvailable(
  tx: Tx,
  accountId: string,
  variantIds: string[],
  locationIds: string[],
): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (variantIds.length === 0 || locationIds.length === 0) return out;
  const rows = await tx
    .select({
      variantId: inventoryLevels.variantId,
      locationId: inventoryLevels.locationId,
      onHand: inventoryLevels.onHand,
      reserved: inventoryLevels.reserved,
    })
    .from(inventoryLevels)
    .where(
      and(
        eq(inventoryLevels.accountId, accountId),
        inList(inventoryLevels.variantId, [...new Set(variantIds)]),
        inList(inventoryLevels.locationId, [...new Set(locationIds)]),
      ),
    )
    .orderBy(inventoryLevels.variantId, inventoryLevels.locationId)
    .for('update');
  for (const r of rows) out.set(`${r.variantId}|${r.locationId}`, r.onHand - r.reserved);
  return out;
}

/**
 * What each level of these variants can cover now (on_hand − reserved), read without locking: for what-ifs that
 * reserve nothing (routing's dry runs and replays). Keyed `${variantId}|${locationId}`.
 */
export async function readAvailable(
  db: Pick<Tx, 'select'>,
  accountId: string,
  variantIds: string[],
): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  const ids = [...new Set(variantIds)];
  for (let i = 0; i < ids.length; i += 5000) {
    const rows = await db
      .select({
        variantId: inventoryLevels.variantId,
        locationId: inventoryLevels.locationId,
        onHand: inventoryLevels.onHand,
        reserved: inventoryLevels.reserved,
      })
      .from(inventoryLevels)
      .where(and(eq(inventoryLevels.accountId, accountId), inList(inventoryLevels.variantId, ids.slice(i, i + 5000))));
    for (const r of rows) out.set(`${r.variantId}|${r.locationId}`, r.onHand - r.reserved);
  }
  return out;
}

export interface ReserveAtInput {
  variantId: string;
  locationId: string;
  quantity: number;
  /** Unique per cause (an allocation): a replay reserves nothing more. */
  key: string;
}

/**
 * Reserves each quantity at its location in one ledger call, for a caller that locked these levels and read
 * what they can cover under that lock (`lockAvailable`) in this transaction. Checks again, under the same locks,
 * that none goes over (on_hand − reserved); answers false, reserving nothing, if one would.
 */
export async function reserveAt(
  tx: Tx,
  accountId: string,
  items: ReserveAtInput[],
  reference: string,
  userId: string | null = null,
  /** What `lockAvailable` answered for these levels in this transaction (saves reading them again). */
  locked?: Map<string, number>,
  /** A batch's kept ledger (its keys fresh): the reservations are kept there, written with the batch's. */
  deferred?: DeferredLedger,
): Promise<boolean> {
  const todo = items.filter((i) => i.quantity > 0);
  if (todo.length === 0) return true;
  const available =
    (deferred ? await deferred.available() : locked) ??
    (await lockAvailable(
      tx,
      accountId,
      todo.map((i) => i.variantId),
      todo.map((i) => i.locationId),
    ));
  const need = new Map<string, number>();
  for (const i of todo)
    need.set(`${i.variantId}|${i.locationId}`, (need.get(`${i.variantId}|${i.locationId}`) ?? 0) + i.quantity);
  for (const [level, q] of need) if ((available.get(level) ?? 0) < q) return false;
  const movements = todo.map((i) => ({
    variantId: i.variantId,
    locationId: i.locationId,
    reservedDelta: i.quantity,
    reason: 'order' as const,
    source: 'order',
    reference,
    idempotencyKey: `reserve:${i.key}`,
    userId,
  }));
  if (deferred) for (const m of movements) deferred.move(m);
  else await applyMovements(tx, accountId, movements);
  return true;
}
