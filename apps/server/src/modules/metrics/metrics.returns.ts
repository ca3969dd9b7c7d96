// Returns in the rollups: a return counts on the day it was made at the channel (else when it reached us), at
// its channel and its first item's return store, unless it was skipped or failed (SKIPPED, ERROR).
import { type SQL, sql } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.ts';
import { accountLockKey, readFacts, rowsOf } from './metrics.facts.ts';
import { replaceFacts } from './metrics.record.ts';

export function returnFactsSelect(where: SQL): SQL {
  return sql`
    select 'return' as source, r.id as source_id, r.account_id,
      (coalesce(r.provider_created_at, r.created_at) at time zone a.timezone)::date as day,
      coalesce(r.channel_id, '') as channel_id,
      coalesce((
        select ri.location_id from return_items ri
        where ri.return_id = r.id and ri.location_id is not null order by ri.position limit 1
      ), '') as location_id,
      0 as orders, 0 as units, 0::bigint as sales, '[]'::jsonb as skus,
      null::date as fulfilled_day, null::bigint as fulfilled_seconds,
      case when r.status in ('SKIPPED', 'ERROR') then 0 else 1 end as returns,
      case when r.status in ('SKIPPED', 'ERROR') then 0
        else coalesce((select sum(ri.qty) from return_items ri where ri.return_id = r.id), 0) end::int as return_units,
      case when r.status in ('SKIPPED', 'ERROR') or r.currency <> a.currency then 0 else r.total end::bigint
        as return_total
    from returns r
    join accounts a on a.id = r.account_id
    where ${where}`;
}

/** Whether the returns tables exist yet (the returns module's migration). */
export async function returnsInstalled(db: Tx | Db): Promise<boolean> {
  const [row] = rowsOf<{ ok: boolean }>(await db.execute(sql`select to_regclass('return_items') is not null as ok`));
  return !!row?.ok;
}

/**
 * The returns module calls this in the transaction of every change of a return (created, its items or status
 * changed): the dashboard's returns follow it.
 */
export async function recordReturnMetrics(tx: Tx | Db, accountId: string, returnIds: string | string[]) {
  const ids = [...new Set(Array.isArray(returnIds) ? returnIds : [returnIds])];
  if (ids.length === 0) return;
  await tx.execute(sql`select pg_advisory_xact_lock_shared(${accountLockKey(accountId)})`);
  const list = sql.join(
    ids.map((id) => sql`${id}`),
    sql`, `,
  );
  const next = await readFacts(tx, returnFactsSelect(sql`r.account_id = ${accountId} and r.id in (${list})`));
  await replaceFacts(tx, accountId, 'return', ids, next);
}
