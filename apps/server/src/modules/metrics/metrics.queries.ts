// The dashboard's reads (issue 17), each one query: the account's clock; the days, channels and locations from
// metric_daily; the top SKUs from the SKU rollups; stock and sync health from the inventory and sync tables.
// Whatever the number of orders, a year by day reads a few thousand rollup rows. metrics.service.ts runs them
// side by side on the pool and assembles the figures.
import { type MetricBreakdown, type StockHealth, type SyncHealth, TOP_SKU_COUNT } from '@switchyard/contracts';
import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { DomainError } from '../../lib/errors.ts';
import { lowStockThresholdSql } from '../settings/settings.stock.ts';
import type { Window } from './metrics.dates.ts';
import { rowsOf } from './metrics.facts.ts';
import { piecesOf } from './metrics.pieces.ts';

export interface DayRow {
  day: string;
  orders: number;
  units: number;
  sales: number;
  fulfilled: number;
  fulfilledSeconds: number;
  returns: number;
  returnUnits: number;
  returnTotal: number;
}

const n = (v: unknown) => Number(v ?? 0);

export async function accountClock(db: Db, accountId: string) {
  const [row] = rowsOf<{ timezone: string; currency: string; today: string }>(
    await db.execute(sql`
      select timezone, currency, (now() at time zone timezone)::date::text as today
      from accounts where id = ${accountId}`),
  );
  if (!row) throw new DomainError('NOT_FOUND', 'This account was not found.');
  return row;
}

type Named = { id: string | null; name: string | null; type: string | null };

function breakdownOf(by: 'channel' | 'location', rows: (Named & Record<string, unknown>)[]): MetricBreakdown[] {
  return rows
    .map((r) => {
      const id = r.id ? String(r.id) : null;
      const fallback =
        by === 'channel' ? (id ? 'Removed channel' : 'No channel') : id ? 'Removed location' : 'Not allocated';
      return {
        id: id && r.name ? id : null,
        name: r.name ? String(r.name) : fallback,
        type: (r.type ?? null) as MetricBreakdown['type'],
        sales: n(r.sales),
        orders: n(r.orders),
        units: n(r.units),
      };
    })
    .filter((r) => r.orders !== 0 || r.sales !== 0 || r.units !== 0)
    .sort((a, b) => b.sales - a.sales || b.orders - a.orders || a.name.localeCompare(b.name));
}

/**
 * The days of [previousFrom, to] and the window's [from, to] sales by channel and by location, in one pass over
 * metric_daily (grouping sets: by day; by channel and by location, summing the window's days only).
 */
export async function dailyFigures(db: Db, accountId: string, w: Window) {
  const inWindow = sql`filter (where m.day >= ${w.from}::date)`;
  const rows = rowsOf<Record<string, unknown>>(
    await db.execute(sql`
      with g as (
        select grouping(m.day, m.channel_id, m.location_id) as g, m.day::text as day, m.channel_id, m.location_id,
          sum(m.orders) as orders, sum(m.units) as units, sum(m.sales) as sales, sum(m.fulfilled) as fulfilled,
          sum(m.fulfilled_seconds) as fulfilled_seconds, sum(m.returns) as returns,
          sum(m.return_units) as return_units, sum(m.return_total) as return_total,
          sum(m.orders) ${inWindow} as w_orders, sum(m.units) ${inWindow} as w_units,
          sum(m.sales) ${inWindow} as w_sales
        from metric_daily m
        where m.account_id = ${accountId} and m.day between ${w.previousFrom}::date and ${w.to}::date
        group by grouping sets ((m.day), (m.channel_id), (m.location_id))
      )
      select g.*, coalesce(c.name, l.name) as name, c.type
      from g
      left join channels c on g.g = 5 and c.id = g.channel_id and c.account_id = ${accountId}
      left join locations l on g.g = 6 and l.id = g.location_id and l.account_id = ${accountId}`),
  );
  const days: DayRow[] = [];
  const channels: (Named & Record<string, unknown>)[] = [];
  const locations: (Named & Record<string, unknown>)[] = [];
  for (const r of rows) {
    const g = n(r.g);
    if (g === 3) {
      days.push({
        day: String(r.day),
        orders: n(r.orders),
        units: n(r.units),
        sales: n(r.sales),
        fulfilled: n(r.fulfilled),
        fulfilledSeconds: n(r.fulfilled_seconds),
        returns: n(r.returns),
        returnUnits: n(r.return_units),
        returnTotal: n(r.return_total),
      });
      continue;
    }
    const named = {
      name: (r.name as string | null) ?? null,
      type: (r.type as string | null) ?? null,
      orders: r.w_orders,
      units: r.w_units,
      sales: r.w_sales,
    };
    if (g === 5) channels.push({ id: (r.channel_id as string) || null, ...named });
    else locations.push({ id: (r.location_id as string) || null, ...named });
  }
  return { days, byChannel: breakdownOf('channel', channels), byLocation: breakdownOf('location', locations) };
}

const SKU_ROLLUPS = {
  day: sql`metric_sku_daily where day`,
  month: sql`metric_sku_monthly where month`,
  year: sql`metric_sku_yearly where year`,
};

/**
 * The window's best sellers by sales, summed from the fewest rollup rows (metrics.pieces.ts): the last 12 months
 * are a month and a year of SKU rows, the last 30 days a few days and a month or two.
 */
export async function topSkus(db: Db, accountId: string, from: string, to: string, today: string = to) {
  const parts = piecesOf(from, to, today).map(
    (p) => sql`
      select sku, ${p.sign}::int * units as units, ${p.sign}::bigint * sales as sales
      from ${SKU_ROLLUPS[p.level]} between ${p.from}::date and ${p.to}::date and account_id = ${accountId}`,
  );
  const rows = rowsOf<Record<string, unknown>>(
    await db.execute(sql`
      select sku, sum(units) as units, sum(sales) as sales
      from (${sql.join(parts, sql` union all `)}) p
      group by sku
      having sum(units) > 0 or sum(sales) > 0
      order by sum(sales) desc, sum(units) desc, sku
      limit ${TOP_SKU_COUNT}`),
  );
  return rows.map((r) => ({ sku: String(r.sku), units: n(r.units), sales: n(r.sales) }));
}

/**
 * Out of stock: available to sell (on hand − reserved, over every location) at 0 or below; low: 1 to the
 * merchant's low-stock threshold (settings.stock.ts), read in the same query.
 */
export async function stockHealth(db: Db, accountId: string): Promise<Omit<StockHealth, 'sellThrough'>> {
  const [row] = rowsOf<Record<string, unknown>>(
    await db.execute(sql`
      with t as (select ${lowStockThresholdSql(accountId)} as threshold)
      select count(s.id) as skus,
        count(s.id) filter (where s.available <= 0) as out_of_stock,
        count(s.id) filter (where s.available > 0 and s.available <= t.threshold) as low_stock,
        coalesce(sum(s.on_hand), 0) as on_hand, t.threshold
      from t left join (
        select v.id, coalesce(sum(l.on_hand - l.reserved), 0) as available, coalesce(sum(greatest(l.on_hand, 0)), 0) as on_hand
        from variants v left join inventory_levels l on l.variant_id = v.id
        where v.account_id = ${accountId}
        group by v.id
      ) s on true
      group by t.threshold`),
  );
  return {
    skus: n(row?.skus),
    outOfStock: n(row?.out_of_stock),
    lowStock: n(row?.low_stock),
    lowStockThreshold: n(row?.threshold),
    onHand: n(row?.on_hand),
  };
}

/** Push lag: how long the oldest stock change not yet pushed has waited; failures of runs started today. */
export async function syncHealth(db: Db, accountId: string, today: string, timezone: string): Promise<SyncHealth> {
  const [[dirty], [push], [failures]] = await Promise.all([
    db
      .execute(sql`
        select count(*) as pending, floor(extract(epoch from (now() - min(marked_at)))) as lag
        from inventory_dirty where account_id = ${accountId}`)
      .then(rowsOf<Record<string, unknown>>),
    db
      .execute(sql`
        select finished_at from syncs
        where account_id = ${accountId} and type = 'inventory_push' and status in ('succeeded', 'partial')
        order by id desc limit 1`)
      .then(rowsOf<Record<string, unknown>>),
    db
      .execute(sql`
        select coalesce(sum(failed), 0) as items, count(*) filter (where status in ('failed', 'partial')) as runs
        from syncs
        where account_id = ${accountId} and created_at >= (${today}::date)::timestamp at time zone ${timezone}`)
      .then(rowsOf<Record<string, unknown>>),
  ]);
  const lastPushAt = push?.finished_at ? new Date(push.finished_at as string) : null;
  return {
    pushLagSeconds: Math.max(0, n(dirty?.lag)),
    pendingChanges: n(dirty?.pending),
    lastPushAt,
    failedItemsToday: n(failures?.items),
    failedRunsToday: n(failures?.runs),
  };
}
