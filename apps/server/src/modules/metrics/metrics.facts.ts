// What one order (or return) contributes to the dashboard's rollups, computed from its rows in SQL: the same
// query serves the change of one order (metrics.record.ts) and the rebuild of an account (metrics.rebuild.ts),
// so the two cannot disagree. METRICS in packages/contracts/src/metrics.ts says what each figure counts.
import { type SQL, sql } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.ts';
import { inList } from '../../db/rows.ts';
import type { SkuPart } from './metrics.tables.ts';

export interface Fact {
  sourceId: string;
  source: 'order' | 'return';
  accountId: string;
  day: string;
  channelId: string;
  locationId: string;
  orders: number;
  units: number;
  sales: number;
  skus: SkuPart[];
  fulfilledDay: string | null;
  fulfilledSeconds: number | null;
  returns: number;
  returnUnits: number;
  returnTotal: number;
}

/** The account's metrics lock (a transaction advisory lock): shared by order changes, exclusive for a rebuild. */
export const accountLockKey = (accountId: string) => sql`hashtextextended(${`metrics:${accountId}`}, 0)`;

/** `db.execute` answers `{ rows }` on both drivers (PGlite and node-postgres). */
export function rowsOf<T>(result: unknown): T[] {
  return ((result as { rows?: T[] }).rows ?? result) as T[];
}

/**
 * The facts of the orders `where` selects (a condition on `o`, the orders table), as rows of the columns of
 * metric_facts (snake_case): a SELECT to read, or to insert from in the rebuild.
 */
export function orderFactsSelect(where: SQL): SQL {
  return sql`
    select 'order' as source, o.id as source_id, o.account_id,
      (o.placed_at at time zone a.timezone)::date as day,
      coalesce(o.channel_id, '') as channel_id,
      coalesce(o.pickup_location_id, (
        select al.location_id from order_allocations al
        where al.order_id = o.id and al.location_id is not null
        order by al.created_at, al.id limit 1
      ), '') as location_id,
      case when o.status <> 7 then 1 else 0 end as orders,
      case when o.status <> 7 then coalesce(li.units, 0) else 0 end as units,
      case when o.status <> 7 and o.currency = a.currency then o.total else 0 end::bigint as sales,
      case when o.status <> 7 then coalesce(li.skus, '[]'::jsonb) else '[]'::jsonb end as skus,
      (f.at at time zone a.timezone)::date as fulfilled_day,
      case when f.at is null then null else greatest(0, floor(extract(epoch from (f.at - o.placed_at))))::bigint end
        as fulfilled_seconds,
      0 as returns, 0 as return_units, 0::bigint as return_total
    from orders o
    join accounts a on a.id = o.account_id
    left join lateral (
      select sum(x.u)::int as units,
        jsonb_agg(jsonb_build_array(x.sku, x.u, case when o.currency = a.currency then x.s else 0 end) order by x.sku)
          filter (where x.sku is not null) as skus
      from (
        select l.sku, sum(greatest(l.quantity - l.cancelled_qty, 0))::int as u,
          greatest(0, sum(greatest(l.quantity - l.cancelled_qty, 0)::bigint * l.unit_price - l.discount))::bigint as s
        from order_lines l where l.order_id = o.id group by l.sku
      ) x
    ) li on true
    left join lateral (
      select min(e.created_at) as at from order_events e
      where e.order_id = o.id and e.kind = 'status' and e.to_status in (3, 5)
    ) f on true
    where ${where}`;
}

interface FactRow {
  source: 'order' | 'return';
  source_id: string;
  account_id: string;
  day: string | Date;
  channel_id: string;
  location_id: string;
  orders: number | string;
  units: number | string;
  sales: number | string;
  skus: SkuPart[] | string;
  fulfilled_day: string | Date | null;
  fulfilled_seconds: number | string | null;
  returns: number | string;
  return_units: number | string;
  return_total: number | string;
}

/** A date column as YYYY-MM-DD whichever way the driver hands it over. */
export function dayString(value: string | Date): string {
  if (typeof value === 'string') return value.slice(0, 10);
  const y = value.getFullYear();
  const m = String(value.getMonth() + 1).padStart(2, '0');
  const d = String(value.getDate()).padStart(2, '0');
  return `${y}-${m}-${d}`;
}

export function toFact(r: FactRow): Fact {
  const skus = typeof r.skus === 'string' ? (JSON.parse(r.skus) as SkuPart[]) : r.skus;
  return {
    source: r.source,
    sourceId: r.source_id,
    accountId: r.account_id,
    day: dayString(r.day),
    channelId: r.channel_id,
    locationId: r.location_id,
    orders: Number(r.orders),
    units: Number(r.units),
    sales: Number(r.sales),
    skus: skus.map(([sku, u, s]) => [sku, Number(u), Number(s)]),
    fulfilledDay: r.fulfilled_day === null ? null : dayString(r.fulfilled_day),
    fulfilledSeconds: r.fulfilled_seconds === null ? null : Number(r.fulfilled_seconds),
    returns: Number(r.returns),
    returnUnits: Number(r.return_units),
    returnTotal: Number(r.return_total),
  };
}

export async function readOrderFacts(tx: Tx | Db, accountId: string, orderIds: string[]): Promise<Fact[]> {
  if (orderIds.length === 0) return [];
  return readFacts(tx, orderFactsSelect(sql`o.account_id = ${accountId} and ${inList(sql`o.id`, orderIds)}`));
}

/** Facts of a facts SELECT, with their days as text (node-postgres would make a date a local Date). */
export async function readFacts(tx: Tx | Db, select: SQL): Promise<Fact[]> {
  const rows = rowsOf<FactRow>(
    await tx.execute(sql`
      select source, source_id, account_id, day::text as day, channel_id, location_id, orders, units, sales, skus,
        fulfilled_day::text as fulfilled_day, fulfilled_seconds, returns, return_units, return_total
      from (${select}) f`),
  );
  return rows.map(toFact);
}
