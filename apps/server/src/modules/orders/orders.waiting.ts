// Orders waiting too long (issue 17): open orders older than each account's threshold, for the notifications
// job. One grouped read per pass over the (account, placed_at) index.
import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { orders } from './orders.tables.ts';

/** Still to be fulfilled: pending, open, partially fulfilled. */
export const WAITING_STATUSES = [0, 1, 2] as const;

export interface WaitingOrders {
  accountId: string;
  count: number;
  oldestPlacedAt: Date;
  newestPlacedAt: Date;
}

const rowsOf = <T>(result: unknown): T[] => ((result as { rows?: T[] }).rows ?? result) as T[];

/**
 * Per account, the orders still to be fulfilled that were placed before its cutoff (`cutoffs`, else
 * `defaultCutoff`). Accounts with none are left out.
 */
export async function findWaitingOrders(
  db: Db,
  cutoffs: { accountId: string; cutoff: Date }[],
  defaultCutoff: Date,
): Promise<WaitingOrders[]> {
  const list = JSON.stringify(cutoffs.map((c) => ({ a: c.accountId, t: c.cutoff.toISOString() })));
  const result = await db.execute(sql`
    select o.account_id, count(*)::int as n, min(o.placed_at) as oldest, max(o.placed_at) as newest
    from ${orders} o
    left join jsonb_to_recordset(${list}::jsonb) as c(a text, t timestamptz) on c.a = o.account_id
    where o.status in (${sql.join(
      WAITING_STATUSES.map((s) => sql`${s}`),
      sql`, `,
    )})
      and o.placed_at < coalesce(c.t, ${defaultCutoff.toISOString()}::timestamptz)
    group by o.account_id`);
  return rowsOf<{ account_id: string; n: number; oldest: Date | string; newest: Date | string }>(result).map((r) => ({
    accountId: r.account_id,
    count: r.n,
    oldestPlacedAt: new Date(r.oldest),
    newestPlacedAt: new Date(r.newest),
  }));
}
