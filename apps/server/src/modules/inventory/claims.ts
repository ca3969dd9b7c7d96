// A sale moves stock once (docs/decisions/0008-a-sale-moves-stock-once.md). A channel that takes an order
// lowers its own stock and reports it; the order's import reserves (or consumes) the same units. The two
// meet here, in whichever order they arrive:
//   order first  → an `expected` claim; the channel's report of the change is absorbed, not counted;
//   report first → the report was counted (on_hand moved) and left a `counted` row; the order reverses it.
// The same holds for a channel putting units back (a cancel with restock): claims carry a signed quantity.
// This file is the orders' side; the stock pass's side (reports meeting expected claims) is claims.pass.ts.
import { and, asc, eq, gt, inArray, lt, ne, sql } from 'drizzle-orm';
import type { Tx } from '../../db/client.ts';
import { insertRows } from '../../db/insert-rows.ts';
import { lockLevelRows } from './channel-levels.ts';
import { channelStock, channelStockClaims, inventoryMovements } from './inventory.tables.ts';
import type { DeferredLedger } from './ledger.deferred.ts';
import { applyMovements, asJson } from './ledger.ts';

/** An expected claim no report met within this long is dropped (the report folded into one we took as ours). */
export const EXPECTED_CLAIM_TTL_MS = 15 * 60_000;
/** Counted channel changes an order may still turn out to have caused. */
export const COUNTED_CLAIM_TTL_MS = 7 * 24 * 60 * 60_000;
/** Providers stamp whole seconds: a time stands for its whole second. */
export const SECOND = 1000;

export interface ChannelMovementClaim {
  channelId: string;
  variantId: string;
  /** The channel's location where it moved its own stock, and the channel's id of the item there. */
  externalLocationId: string;
  inventoryItemId: string;
  /** Our location that channel location maps to (where a counted report moved on_hand). */
  locationId: string;
  /** Signed: −q the channel lowered its stock for the order, +q it put them back (a cancel with restock). */
  qty: number;
  /** The provider's time of the channel's movement (the order's placed or cancelled time). */
  at: Date;
  /** Unique per cause (an order line and what happened to it): a second call with it changes nothing. */
  key: string;
  /** The order, for the ledger and the claim. */
  reference: string;
  userId?: string | null;
  /**
   * An order taken in at connect (the first pull): our stock was read from the channel after it took the order,
   * so a movement not met by a counted report is in that first read already, and is reversed.
   */
  historical?: boolean;
  /** The ledger reason of a reversal: `order` (default), `return` for a channel's restock of a return. */
  reason?: 'order' | 'return';
}

export interface ClaimResult {
  /** Units of counted channel reports this claim reversed on on_hand (signed as the reversal). */
  reversed: number;
  /** Units left expected (a report yet to come will be absorbed). */
  expected: number;
  /** false: the key was claimed before; nothing done. */
  applied: boolean;
}

/** A channel level a caller locked for several claims (`lockChannelLevels`): its row and open counted reports. */
export interface LockedChannelLevel {
  channelQtyAt: Date | null;
  /** Open counted reports of the level, oldest first, locked; kept current by each claim made against it. */
  counted: { id: number; remaining: number; at: Date }[];
}

/** Key of a locked channel level: `variantId|externalLocationId`. */
export const channelLevelKey = (l: { variantId: string; externalLocationId: string }) =>
  `${l.variantId}|${l.externalLocationId}`;

/**
 * For a caller making many claims in one transaction (a batch of orders): the channel's level rows of all of them,
 * made where missing and locked in one stable order (by variant, then channel location, as the stock pass takes
 * them), with their open counted reports locked too. Two statements, however many levels (two more where some
 * are new); pass each level to `claimChannelMovement` as `locked`.
 */
export async function lockChannelLevels(
  tx: Tx,
  accountId: string,
  channelId: string,
  levels: { variantId: string; externalLocationId: string; locationId: string; inventoryItemId: string }[],
): Promise<Map<string, LockedChannelLevel>> {
  const out = new Map<string, LockedChannelLevel>();
  const unique = [...new Map(levels.map((l) => [channelLevelKey(l), l])).values()];
  for (let i = 0; i < unique.length; i += 2000) {
    const slice = unique.slice(i, i + 2000);
    const chunk = asJson(slice.map((l) => [l.variantId, l.externalLocationId]));
    const inChunk = (variant: unknown, external: unknown) =>
      sql`(${variant}, ${external}) in (select v ->> 0, v ->> 1 from jsonb_array_elements(${chunk}) as v)`;
    const rows = await lockLevelRows(tx, accountId, channelId, slice, (named) =>
      tx
        .select({
          variantId: channelStock.variantId,
          externalLocationId: channelStock.externalLocationId,
          channelQtyAt: channelStock.channelQtyAt,
        })
        .from(channelStock)
        .where(and(eq(channelStock.channelId, channelId), named))
        .orderBy(channelStock.variantId, channelStock.externalLocationId)
        .for('update'),
    );
    for (const r of rows) out.set(channelLevelKey(r), { channelQtyAt: r.channelQtyAt, counted: [] });
    const counted = await tx
      .select({
        id: channelStockClaims.id,
        variantId: channelStockClaims.variantId,
        externalLocationId: channelStockClaims.externalLocationId,
        remaining: channelStockClaims.remaining,
        at: channelStockClaims.at,
      })
      .from(channelStockClaims)
      .where(
        and(
          eq(channelStockClaims.channelId, channelId),
          inChunk(channelStockClaims.variantId, channelStockClaims.externalLocationId),
          eq(channelStockClaims.kind, 'counted'),
          ne(channelStockClaims.remaining, 0),
          sql`${channelStockClaims.createdAt} > now() - make_interval(secs => ${COUNTED_CLAIM_TTL_MS / 1000})`,
        ),
      )
      .orderBy(asc(channelStockClaims.at), asc(channelStockClaims.id))
      .for('update');
    for (const c of counted) out.get(channelLevelKey(c))?.counted.push({ id: c.id, remaining: c.remaining, at: c.at });
  }
  return out;
}

/**
 * Called by the order side, in the transaction that reserves or consumes for the order. Locks the channel's
 * level row, takes counted reports of the same direction made at or after the movement's time, reverses them
 * on on_hand (reason `order`), and leaves the rest expected. For an order of the first pull (`historical`),
 * when the channel reported its level since the movement, nothing counted is left to take, and our stock there
 * was first read from this channel (its import seeded the level after it took the order), the movement is in
 * our on_hand already: reversed too. `locked`: the level as `lockChannelLevels` locked it in this transaction
 * (the row is then neither made nor read again here).
 */
export async function claimChannelMovement(
  tx: Tx,
  accountId: string,
  claim: ChannelMovementClaim,
  locked?: LockedChannelLevel,
  /** With `locked`, for a claim whose key is new in this transaction (a line made in it): its writes are kept
   * there and written with the batch's (ledger.deferred.ts). */
  deferred?: DeferredLedger,
): Promise<ClaimResult> {
  const none: ClaimResult = { reversed: 0, expected: 0, applied: false };
  if (claim.qty === 0) return none;
  const sign = Math.sign(claim.qty);
  const from = claim.at.getTime() - SECOND;
  let row: { channelQtyAt: Date | null } | undefined;
  let counted: { id: number; remaining: number; at?: Date }[];
  if (locked) {
    row = locked;
    counted = locked.counted.filter((c) => Math.sign(c.remaining) === sign && c.at.getTime() > from);
  } else {
    // The level row of the channel, made if it is the first we hear of it, and locked like the stock passes do.
    await tx
      .insert(channelStock)
      .values({
        accountId,
        channelId: claim.channelId,
        variantId: claim.variantId,
        externalLocationId: claim.externalLocationId,
        locationId: claim.locationId,
        inventoryItemId: claim.inventoryItemId,
      })
      .onConflictDoNothing();
    [row] = await tx
      .select({ channelQtyAt: channelStock.channelQtyAt })
      .from(channelStock)
      .where(
        and(
          eq(channelStock.channelId, claim.channelId),
          eq(channelStock.variantId, claim.variantId),
          eq(channelStock.externalLocationId, claim.externalLocationId),
        ),
      )
      .for('update');
    counted = await tx
      .select({ id: channelStockClaims.id, remaining: channelStockClaims.remaining })
      .from(channelStockClaims)
      .where(
        and(
          eq(channelStockClaims.channelId, claim.channelId),
          eq(channelStockClaims.variantId, claim.variantId),
          eq(channelStockClaims.externalLocationId, claim.externalLocationId),
          eq(channelStockClaims.kind, 'counted'),
          sign < 0 ? lt(channelStockClaims.remaining, 0) : gt(channelStockClaims.remaining, 0),
          sql`${channelStockClaims.at} > ${new Date(from)}`,
          sql`${channelStockClaims.createdAt} > now() - make_interval(secs => ${COUNTED_CLAIM_TTL_MS / 1000})`,
        ),
      )
      .orderBy(asc(channelStockClaims.at), asc(channelStockClaims.id))
      .for('update');
  }
  // What the claim takes of each counted report, worked out first: the claim row is then written once, with what
  // is left expected, and nothing is taken when its key was claimed before (a replay stops at the insert).
  let want = Math.abs(claim.qty);
  let reversed = 0;
  const takes: { c: (typeof counted)[number]; take: number }[] = [];
  for (const c of counted) {
    if (want === 0) break;
    const take = Math.min(want, Math.abs(c.remaining));
    want -= take;
    reversed += take;
    takes.push({ c, take });
  }
  // An order of the first pull, with the channel's level read since and nothing counted left to take: the
  // channel's number we started from already has the movement in it. (Not for later orders: a report since may
  // hold their movement and its undoing both, e.g. a sale and its cancel, which are met by their own claims.)
  const seenSince = row?.channelQtyAt && row.channelQtyAt.getTime() >= claim.at.getTime() + SECOND;
  // …and only where that channel's import seeded the level: stock first read from another channel (the POS
  // counts what is on the shelf) never had this channel's movement taken out.
  const seededHere =
    want > 0 && seenSince && claim.historical
      ? (
          await tx
            .select({ id: inventoryMovements.id })
            .from(inventoryMovements)
            .where(
              and(
                eq(inventoryMovements.accountId, accountId),
                eq(
                  inventoryMovements.idempotencyKey,
                  `import:${claim.channelId}:${claim.variantId}:${claim.locationId}`,
                ),
              ),
            )
            .limit(1)
        ).length > 0
      : false;
  if (want > 0 && seededHere) {
    reversed += want;
    want = 0;
  }
  const expectedRow: NewExpectedClaim = {
    channelId: claim.channelId,
    variantId: claim.variantId,
    externalLocationId: claim.externalLocationId,
    locationId: claim.locationId,
    qty: claim.qty,
    remaining: sign * want,
    at: claim.at,
    key: claim.key,
    reference: claim.reference,
  };
  const reversal = {
    variantId: claim.variantId,
    locationId: claim.locationId,
    delta: -sign * reversed,
    reason: claim.reason ?? 'order',
    source: claim.reason ?? 'order',
    reference: claim.reference,
    idempotencyKey: `claim:${claim.key}`,
    userId: claim.userId ?? null,
  } as const;
  if (locked && deferred) {
    deferred.claim(expectedRow);
    for (const { c, take } of takes) {
      c.remaining -= sign * take;
      deferred.setRemaining(c.id, c.remaining);
    }
    if (reversed > 0) deferred.move(reversal);
    return { reversed: -sign * reversed, expected: sign * want, applied: true };
  }
  // The claim itself (its key makes a replay a no-op), with what is left expected of it.
  const [inserted] = await tx
    .insert(channelStockClaims)
    .values({ ...expectedRow, accountId, kind: 'expected' })
    .onConflictDoNothing()
    .returning({ id: channelStockClaims.id });
  if (!inserted) return none;
  for (const { c, take } of takes) c.remaining -= sign * take;
  await setRemaining(
    tx,
    takes.map(({ c }) => c),
  );
  if (reversed > 0) await applyMovements(tx, accountId, [reversal]);
  return { reversed: -sign * reversed, expected: sign * want, applied: true };
}

/** An expected claim not written yet (`DeferredLedger`), its key fresh in this transaction. */
export interface NewExpectedClaim {
  channelId: string;
  variantId: string;
  externalLocationId: string;
  locationId: string;
  qty: number;
  remaining: number;
  at: Date;
  key: string;
  reference: string;
}

/** Expected claims in one statement; a key claimed before is a bug here (their keys are fresh), and throws. */
export async function insertExpectedClaims(tx: Tx, accountId: string, claims: NewExpectedClaim[]) {
  for (let i = 0; i < claims.length; i += 1000) {
    const chunk = claims.slice(i, i + 1000);
    const inserted = await insertRows(
      tx,
      channelStockClaims,
      chunk.map((c) => ({ ...c, accountId, kind: 'expected' as const })),
      { onConflictDoNothing: true, returning: { id: channelStockClaims.id } },
    );
    if (inserted.length !== chunk.length)
      throw new Error('claims: a claim key made in this transaction was used before');
  }
}

/**
 * A catalog import just gave our level its first stock (reason `import`, in this transaction) from this channel
 * level's number. Expected claims of these keys, still open and made a second or more before that number was read,
 * are in it: each is reversed whole (+q for an order's −q, reason `order`, the claim's reference) and met. Nothing
 * of them was counted before, our level never having moved (an absorbed report is not counted either). The orders
 * that came in after their channel location was mapped and before its stock was (ADR 0008). Answers the keys met.
 */
export async function claimsInSeed(
  tx: Tx,
  accountId: string,
  level: { channelId: string; variantId: string; externalLocationId: string; locationId: string },
  keys: string[],
): Promise<{ key: string; reversed: number }[]> {
  if (keys.length === 0) return [];
  const [seeded] = await tx
    .select({ id: inventoryMovements.id })
    .from(inventoryMovements)
    .where(
      and(
        eq(inventoryMovements.accountId, accountId),
        eq(inventoryMovements.idempotencyKey, `import:${level.channelId}:${level.variantId}:${level.locationId}`),
      ),
    )
    .limit(1);
  const [row] = await tx
    .select({ channelQtyAt: channelStock.channelQtyAt })
    .from(channelStock)
    .where(
      and(
        eq(channelStock.channelId, level.channelId),
        eq(channelStock.variantId, level.variantId),
        eq(channelStock.externalLocationId, level.externalLocationId),
      ),
    )
    .for('update');
  if (!seeded || !row?.channelQtyAt) return [];
  const readBy = new Date(row.channelQtyAt.getTime() - SECOND);
  const open = await tx
    .select()
    .from(channelStockClaims)
    .where(
      and(
        eq(channelStockClaims.channelId, level.channelId),
        eq(channelStockClaims.variantId, level.variantId),
        eq(channelStockClaims.externalLocationId, level.externalLocationId),
        eq(channelStockClaims.locationId, level.locationId),
        eq(channelStockClaims.kind, 'expected'),
        inArray(channelStockClaims.key, keys),
        ne(channelStockClaims.remaining, 0),
        sql`${channelStockClaims.at} <= ${readBy}`,
      ),
    )
    .orderBy(asc(channelStockClaims.id))
    .for('update');
  const out: { key: string; reversed: number }[] = [];
  for (const c of open) {
    await tx.update(channelStockClaims).set({ remaining: 0 }).where(eq(channelStockClaims.id, c.id));
    const [applied] = await applyMovements(tx, accountId, [
      {
        variantId: level.variantId,
        locationId: level.locationId,
        delta: -c.qty,
        reason: 'order',
        source: 'order',
        reference: c.reference,
        idempotencyKey: `claim:${c.key}:seed`,
      },
    ]);
    if (applied?.applied) out.push({ key: c.key, reversed: -c.qty });
  }
  return out;
}

/** What is left of each claim, written in one statement (a stock pass changes one per order it meets). */
export async function setRemaining(tx: Tx, claims: { id: number; remaining: number }[]) {
  if (claims.length === 0) return;
  if (claims.length === 1) {
    const [c] = claims as [{ id: number; remaining: number }];
    await tx.update(channelStockClaims).set({ remaining: c.remaining }).where(eq(channelStockClaims.id, c.id));
    return;
  }
  const rows = sql.join(
    claims.map((c) => sql`(${c.id}::bigint, ${c.remaining}::int)`),
    sql`, `,
  );
  await tx.execute(sql`
    update ${channelStockClaims} set remaining = v.remaining
    from (values ${rows}) as v(id, remaining)
    where ${channelStockClaims.id} = v.id`);
}

/** Housekeeping (the minute sweep): claims that are met, or too old to be met, are deleted. */
export async function pruneClaims(tx: Pick<Tx, 'delete'>): Promise<void> {
  await tx.delete(channelStockClaims).where(
    sql`(${channelStockClaims.remaining} = 0 and ${channelStockClaims.createdAt} < now() - interval '1 day')
        or ${channelStockClaims.createdAt} < now() - make_interval(secs => ${COUNTED_CLAIM_TTL_MS / 1000})`,
  );
}
