// A sale moves stock once (docs/decisions/0008-a-sale-moves-stock-once.md). A channel that takes an order
// lowers its own stock and reports it; the order's import reserves (or consumes) the same units. The two
// meet here, in whichever order they arrive:
//   order first  → an `expected` claim; the channel's report of the change is absorbed, not counted;
//   report first → the report was counted (on_hand moved) and left a `counted` row; the order reverses it.
// The same holds for a channel putting units back (a cancel with restock): claims carry a signed quantity.
import { and, asc, eq, gt, inArray, lt, ne, sql } from 'drizzle-orm';
import type { Tx } from '../../db/client.ts';
import { channelStock, channelStockClaims, inventoryMovements } from './inventory.tables.ts';
import { applyMovements } from './ledger.ts';

/** An expected claim no report met within this long is dropped (the report folded into one we took as ours). */
export const EXPECTED_CLAIM_TTL_MS = 15 * 60_000;
/** Counted channel changes an order may still turn out to have caused. */
export const COUNTED_CLAIM_TTL_MS = 7 * 24 * 60 * 60_000;
/** Providers stamp whole seconds: a time stands for its whole second. */
const SECOND = 1000;

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
}

export interface ClaimResult {
  /** Units of counted channel reports this claim reversed on on_hand (signed as the reversal). */
  reversed: number;
  /** Units left expected (a report yet to come will be absorbed). */
  expected: number;
  /** false: the key was claimed before; nothing done. */
  applied: boolean;
}

/**
 * Called by the order side, in the transaction that reserves or consumes for the order. Locks the channel's
 * level row, takes counted reports of the same direction made at or after the movement's time, reverses them
 * on on_hand (reason `order`), and leaves the rest expected. For an order of the first pull (`historical`),
 * when the channel reported its level since the movement, nothing counted is left to take, and our stock there
 * was first read from this channel (its import seeded the level after it took the order), the movement is in
 * our on_hand already: reversed too.
 */
export async function claimChannelMovement(
  tx: Tx,
  accountId: string,
  claim: ChannelMovementClaim,
): Promise<ClaimResult> {
  const none: ClaimResult = { reversed: 0, expected: 0, applied: false };
  if (claim.qty === 0) return none;
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
  const [row] = await tx
    .select({ channelQtyAt: channelStock.channelQtyAt, pushedAt: channelStock.pushedAt })
    .from(channelStock)
    .where(
      and(
        eq(channelStock.channelId, claim.channelId),
        eq(channelStock.variantId, claim.variantId),
        eq(channelStock.externalLocationId, claim.externalLocationId),
      ),
    )
    .for('update');
  const sign = Math.sign(claim.qty);
  let want = Math.abs(claim.qty);
  const counted = await tx
    .select({ id: channelStockClaims.id, remaining: channelStockClaims.remaining })
    .from(channelStockClaims)
    .where(
      and(
        eq(channelStockClaims.channelId, claim.channelId),
        eq(channelStockClaims.variantId, claim.variantId),
        eq(channelStockClaims.externalLocationId, claim.externalLocationId),
        eq(channelStockClaims.kind, 'counted'),
        sign < 0 ? lt(channelStockClaims.remaining, 0) : gt(channelStockClaims.remaining, 0),
        sql`${channelStockClaims.at} > ${new Date(claim.at.getTime() - SECOND)}`,
        sql`${channelStockClaims.createdAt} > now() - make_interval(secs => ${COUNTED_CLAIM_TTL_MS / 1000})`,
      ),
    )
    .orderBy(asc(channelStockClaims.at), asc(channelStockClaims.id))
    .for('update');
  // The claim itself (its key makes a replay a no-op); written first so a replay stops here.
  const [inserted] = await tx
    .insert(channelStockClaims)
    .values({
      accountId,
      channelId: claim.channelId,
      variantId: claim.variantId,
      externalLocationId: claim.externalLocationId,
      locationId: claim.locationId,
      kind: 'expected',
      qty: claim.qty,
      remaining: 0,
      at: claim.at,
      key: claim.key,
      reference: claim.reference,
    })
    .onConflictDoNothing()
    .returning({ id: channelStockClaims.id });
  if (!inserted) return none;
  let reversed = 0;
  for (const c of counted) {
    if (want === 0) break;
    const take = Math.min(want, Math.abs(c.remaining));
    want -= take;
    reversed += take;
    await tx
      .update(channelStockClaims)
      .set({ remaining: c.remaining - sign * take })
      .where(eq(channelStockClaims.id, c.id));
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
  if (reversed > 0) {
    await applyMovements(tx, accountId, [
      {
        variantId: claim.variantId,
        locationId: claim.locationId,
        delta: -sign * reversed,
        reason: 'order',
        source: 'order',
        reference: claim.reference,
        idempotencyKey: `claim:${claim.key}`,
        userId: claim.userId ?? null,
      },
    ]);
  }
  if (want > 0) {
    await tx
      .update(channelStockClaims)
      .set({ remaining: sign * want })
      .where(eq(channelStockClaims.id, inserted.id));
  }
  return { reversed: -sign * reversed, expected: sign * want, applied: true };
}

export interface OpenClaim {
  id: number;
  kind: 'expected' | 'counted';
  remaining: number;
  at: Date;
  createdAt: Date;
}

/** The open expected claims of these channel levels (`variantId|externalLocationId`), oldest first, locked. */
export async function lockExpectedClaims(
  tx: Tx,
  channelId: string,
  levels: { variantId: string; externalLocationId: string }[],
): Promise<Map<string, OpenClaim[]>> {
  const out = new Map<string, OpenClaim[]>();
  if (levels.length === 0) return out;
  const variantIds = [...new Set(levels.map((l) => l.variantId))];
  for (let i = 0; i < variantIds.length; i += 2000) {
    const rows = await tx
      .select({
        id: channelStockClaims.id,
        variantId: channelStockClaims.variantId,
        externalLocationId: channelStockClaims.externalLocationId,
        kind: channelStockClaims.kind,
        remaining: channelStockClaims.remaining,
        at: channelStockClaims.at,
        createdAt: channelStockClaims.createdAt,
      })
      .from(channelStockClaims)
      .where(
        and(
          eq(channelStockClaims.channelId, channelId),
          inArray(channelStockClaims.variantId, variantIds.slice(i, i + 2000)),
          eq(channelStockClaims.kind, 'expected'),
          ne(channelStockClaims.remaining, 0),
          sql`${channelStockClaims.createdAt} > now() - make_interval(secs => ${EXPECTED_CLAIM_TTL_MS / 1000})`,
        ),
      )
      .orderBy(asc(channelStockClaims.at), asc(channelStockClaims.id))
      .for('update');
    for (const r of rows) {
      const key = `${r.variantId}|${r.externalLocationId}`;
      out.set(key, [...(out.get(key) ?? []), r]);
    }
  }
  return out;
}

/**
 * Pure: a report moved the channel by `delta` (what it says less what we believed it held) at provider time
 * `at`. Expected claims of the same direction whose movement the report can include (made by its second) absorb
 * it, oldest first. With `settle` (a report against our current belief, not one from before our last push),
 * a claim the report surely includes (made a second or more before it) is settled whatever it absorbed: the
 * channel's number has the order in it now. Mutates `claims`; answers what is left to count and the changed rows.
 */
export function absorbIntoClaims(
  claims: OpenClaim[],
  delta: number,
  at: Date,
  settle: boolean,
): { delta: number; changed: OpenClaim[] } {
  const changed: OpenClaim[] = [];
  let left = delta;
  for (const c of claims) {
    if (c.remaining === 0) continue;
    const includable = c.at.getTime() < at.getTime() + SECOND;
    if (!includable) continue;
    if (left !== 0 && Math.sign(left) === Math.sign(c.remaining)) {
      const take = Math.min(Math.abs(left), Math.abs(c.remaining));
      left -= Math.sign(left) * take;
      c.remaining -= Math.sign(c.remaining) * take;
      changed.push(c);
    }
    if (settle && c.remaining !== 0 && c.at.getTime() + SECOND <= at.getTime()) {
      c.remaining = 0;
      if (!changed.includes(c)) changed.push(c);
    }
  }
  return { delta: left, changed };
}

/** Writes back the claims a pass changed, and records the channel changes it counted for orders to meet. */
export async function writeClaims(
  tx: Tx,
  accountId: string,
  channelId: string,
  changed: OpenClaim[],
  counted: { variantId: string; externalLocationId: string; locationId: string; qty: number; at: Date; key: string }[],
) {
  for (const c of new Set(changed)) {
    await tx.update(channelStockClaims).set({ remaining: c.remaining }).where(eq(channelStockClaims.id, c.id));
  }
  for (let i = 0; i < counted.length; i += 1000) {
    await tx
      .insert(channelStockClaims)
      .values(
        counted.slice(i, i + 1000).map((c) => ({
          accountId,
          channelId,
          variantId: c.variantId,
          externalLocationId: c.externalLocationId,
          locationId: c.locationId,
          kind: 'counted' as const,
          qty: c.qty,
          remaining: c.qty,
          at: c.at,
          key: `counted:${c.key}`,
        })),
      )
      .onConflictDoNothing();
  }
}

/** Housekeeping (the minute sweep): claims that are met, or too old to be met, are deleted. */
export async function pruneClaims(tx: Pick<Tx, 'delete'>): Promise<void> {
  await tx.delete(channelStockClaims).where(
    sql`(${channelStockClaims.remaining} = 0 and ${channelStockClaims.createdAt} < now() - interval '1 day')
        or ${channelStockClaims.createdAt} < now() - make_interval(secs => ${COUNTED_CLAIM_TTL_MS / 1000})`,
  );
}
