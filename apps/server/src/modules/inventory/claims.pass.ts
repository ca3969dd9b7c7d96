// The stock pass's side of a sale moving stock once (claims.ts, docs/decisions/0008-a-sale-moves-stock-once.md): a
// channel's report of its own change meets the expected claims orders left (absorbed, not counted), and what it
// counted is recorded for orders still to come.
import { and, asc, eq, ne, sql } from 'drizzle-orm';
import type { Tx } from '../../db/client.ts';
import { inList } from '../../db/rows.ts';
import { EXPECTED_CLAIM_TTL_MS, SECOND, setRemaining } from './claims.ts';
import { channelStockClaims } from './inventory.tables.ts';

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
          inList(channelStockClaims.variantId, variantIds.slice(i, i + 2000)),
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
  await setRemaining(tx, [...new Set(changed)]);
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
