// The ledger's verbs for orders (DESIGN §4a): reserve, release, consume. Only inventory writes levels; the
// order side calls these in its own transaction, each idempotent by a key naming its cause. Reserving locks
// the candidate levels (`FOR UPDATE`, one stable order) before it reads what they can cover, so two orders
// can never take the last unit twice.
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Tx } from '../../db/client.ts';
import { inventoryLevels } from './inventory.tables.ts';
import { applyMovements } from './ledger.ts';

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
  await applyMovements(tx, accountId, [
    {
      variantId: input.variantId,
      locationId: input.locationId,
      delta: -input.quantity,
      reservedDelta: -input.reserved,
      reason: 'order',
      source: 'order',
      reference: input.reference,
      idempotencyKey: `consume:${input.key}`,
      userId: input.userId ?? null,
    },
  ]);
}

/** Reserved units per level, for the invariant check (reserved = Σ open allocations). */
export async function reservedByLevel(tx: Pick<Tx, 'execute'>, accountId: string) {
  return tx.execute<{ variant_id: string; location_id: string; on_hand: number; reserved: number }>(
    sql`select variant_id, location_id, on_hand, reserved from ${inventoryLevels} where account_id = ${accountId}`,
  );
}
