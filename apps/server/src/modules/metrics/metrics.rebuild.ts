// Rebuilding an account's rollups from its orders (and returns): for data imported before the rollups existed,
// after a change of the account's time zone (its days move), or to repair. Rows go in in key order, so a day's
// (or month's) rows sit on neighbouring pages as they do when orders add them day by day. One transaction per account, with
// the account's metrics lock held (exclusively; every order change takes it shared), so an order changing
// meanwhile waits and then applies its difference to the rebuilt figures. Run by the `metrics.rebuild` job (queued for every account by the migration's first start) or by
// `npm run metrics:rebuild -w @switchyard/server [accountId]`.
import { eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { accounts } from '../accounts/accounts.tables.ts';
import { accountLockKey, orderFactsSelect, rowsOf } from './metrics.facts.ts';
import { returnFactsSelect, returnsInstalled } from './metrics.returns.ts';

export async function rebuildAccountMetrics(db: Db, accountId: string): Promise<{ facts: number }> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${accountLockKey(accountId)})`);
    await tx.execute(sql`delete from metric_daily where account_id = ${accountId}`);
    await tx.execute(sql`delete from metric_sku_daily where account_id = ${accountId}`);
    await tx.execute(sql`delete from metric_sku_monthly where account_id = ${accountId}`);
    await tx.execute(sql`delete from metric_sku_yearly where account_id = ${accountId}`);
    await tx.execute(sql`delete from metric_facts where account_id = ${accountId}`);
    const columns = sql.raw(
      'source, source_id, account_id, day, channel_id, location_id, orders, units, sales, skus, fulfilled_day, fulfilled_seconds, returns, return_units, return_total',
    );
    await tx.execute(sql`insert into metric_facts (${columns}) ${orderFactsSelect(sql`o.account_id = ${accountId}`)}`);
    if (await returnsInstalled(tx)) {
      await tx.execute(
        sql`insert into metric_facts (${columns}) ${returnFactsSelect(sql`r.account_id = ${accountId}`)}`,
      );
    }
    await tx.execute(sql`
      insert into metric_daily (account_id, day, channel_id, location_id, orders, units, sales, fulfilled,
        fulfilled_seconds, returns, return_units, return_total)
      select account_id, day, channel_id, location_id, sum(orders), sum(units), sum(sales), sum(fulfilled),
        sum(fulfilled_seconds), sum(returns), sum(return_units), sum(return_total)
      from (
        select account_id, day, channel_id, location_id, orders, units, sales, 0 as fulfilled,
          0::bigint as fulfilled_seconds, returns, return_units, return_total
        from metric_facts where account_id = ${accountId}
        union all
        select account_id, fulfilled_day, channel_id, location_id, 0, 0, 0, 1, fulfilled_seconds, 0, 0, 0
        from metric_facts where account_id = ${accountId} and fulfilled_day is not null
      ) c
      group by account_id, day, channel_id, location_id
      order by 1, 2, 3, 4`);
    await tx.execute(sql`
      insert into metric_sku_daily (account_id, day, sku, units, sales)
      select f.account_id, f.day, e->>0, sum((e->>1)::int), sum((e->>2)::bigint)
      from metric_facts f, jsonb_array_elements(f.skus) e
      where f.account_id = ${accountId}
      group by f.account_id, f.day, e->>0
      order by 1, 2, 3`);
    await tx.execute(sql`
      insert into metric_sku_monthly (account_id, month, sku, units, sales)
      select account_id, date_trunc('month', day)::date, sku, sum(units), sum(sales)
      from metric_sku_daily where account_id = ${accountId}
      group by account_id, date_trunc('month', day)::date, sku
      order by 1, 2, 3`);
    await tx.execute(sql`
      insert into metric_sku_yearly (account_id, year, sku, units, sales)
      select account_id, date_trunc('year', month)::date, sku, sum(units), sum(sales)
      from metric_sku_monthly where account_id = ${accountId}
      group by account_id, date_trunc('year', month)::date, sku
      order by 1, 2, 3`);
    const [count] = await tx
      .select({ n: sql<number>`count(*)::int` })
      .from(sql`metric_facts`)
      .where(sql`account_id = ${accountId}`);
    return { facts: count?.n ?? 0 };
  });
}

/** Every account's rollups, one account at a time. */
export async function rebuildAllMetrics(db: Db, log: (line: string) => void = () => {}) {
  const all = await db.select({ id: accounts.id }).from(accounts).orderBy(accounts.id);
  for (const { id } of all) {
    const { facts } = await rebuildAccountMetrics(db, id);
    log(`metrics: account ${id} rebuilt from ${facts} orders and returns`);
  }
  return all.length;
}

/**
 * Whether some of the account's orders (or returns) are not in its rollups: imported before the rollups existed.
 * An anti-join over the account's orders, for the start-up backfill only.
 */
export async function needsRebuild(db: Db, accountId: string): Promise<boolean> {
  const returns = (await returnsInstalled(db))
    ? sql`or exists (
        select 1 from returns r where r.account_id = ${accountId}
          and not exists (select 1 from metric_facts f where f.source = 'return' and f.source_id = r.id))`
    : sql``;
  const [row] = rowsOf<{ needed: boolean }>(
    await db.execute(sql`
      select exists (
        select 1 from orders o where o.account_id = ${accountId}
          and not exists (select 1 from metric_facts f where f.source = 'order' and f.source_id = o.id)
      ) ${returns} as needed`),
  );
  return !!row?.needed;
}

/** The start-up backfill: every account with orders or returns missing from its rollups is rebuilt. */
export async function backfillMetrics(db: Db, log: (line: string) => void = () => {}) {
  const all = await db.select({ id: accounts.id }).from(accounts).orderBy(accounts.id);
  let rebuilt = 0;
  for (const { id } of all) {
    if (!(await needsRebuild(db, id))) continue;
    const { facts } = await rebuildAccountMetrics(db, id);
    rebuilt += 1;
    log(`metrics: account ${id} rebuilt from ${facts} orders and returns`);
  }
  return rebuilt;
}

export const accountExists = async (db: Db, accountId: string) =>
  (await db.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, accountId))).length > 0;
