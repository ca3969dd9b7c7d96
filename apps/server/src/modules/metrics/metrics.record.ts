// Keeping the rollups as orders change: in the transaction of the change, the order's contribution is read
// again (metrics.facts.ts) and only the difference from what it contributed before is applied. Calling it twice
// changes nothing; calling it after any change of an order (created, total, lines, cancelled, fulfilled,
// allocated) keeps the dashboard right. Rows are upserted in key order, so two orders of the same day lock
// alike and cannot deadlock.
import { and, eq, inArray, type SQL, sql } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.ts';
import { insertRowsSql } from '../../db/insert-rows.ts';
import { accountLockKey, type Fact, readOrderFacts } from './metrics.facts.ts';
import { metricDaily, metricFacts, metricSkuDaily, metricSkuMonthly, metricSkuYearly } from './metrics.tables.ts';

interface DailyDelta {
  day: string;
  channelId: string;
  locationId: string;
  orders: number;
  units: number;
  sales: number;
  fulfilled: number;
  fulfilledSeconds: number;
  returns: number;
  returnUnits: number;
  returnTotal: number;
}

interface SkuDelta {
  /** The day, or the first day of the month or year for the monthly and yearly rollups. */
  day: string;
  sku: string;
  units: number;
  sales: number;
  level: 'day' | 'month' | 'year';
}

const emptyDaily = (day: string, channelId: string, locationId: string): DailyDelta => ({
  day,
  channelId,
  locationId,
  orders: 0,
  units: 0,
  sales: 0,
  fulfilled: 0,
  fulfilledSeconds: 0,
  returns: 0,
  returnUnits: 0,
  returnTotal: 0,
});

/** Adds `sign` × a fact's contribution to the running deltas. */
export function addFact(daily: Map<string, DailyDelta>, skus: Map<string, SkuDelta>, fact: Fact, sign: 1 | -1) {
  const at = (day: string) => {
    const key = `${day}|${fact.channelId}|${fact.locationId}`;
    let row = daily.get(key);
    if (!row) {
      row = emptyDaily(day, fact.channelId, fact.locationId);
      daily.set(key, row);
    }
    return row;
  };
  const row = at(fact.day);
  row.orders += sign * fact.orders;
  row.units += sign * fact.units;
  row.sales += sign * fact.sales;
  row.returns += sign * fact.returns;
  row.returnUnits += sign * fact.returnUnits;
  row.returnTotal += sign * fact.returnTotal;
  if (fact.fulfilledDay !== null && fact.fulfilledSeconds !== null) {
    const shipped = at(fact.fulfilledDay);
    shipped.fulfilled += sign;
    shipped.fulfilledSeconds += sign * fact.fulfilledSeconds;
  }
  const month = `${fact.day.slice(0, 7)}-01`;
  const year = `${fact.day.slice(0, 4)}-01-01`;
  for (const [sku, units, sales] of fact.skus) {
    for (const [key, day, level] of [
      [`d|${fact.day}|${sku}`, fact.day, 'day'],
      [`m|${month}|${sku}`, month, 'month'],
      [`y|${year}|${sku}`, year, 'year'],
    ] as const) {
      const s = skus.get(key) ?? { day, sku, units: 0, sales: 0, level };
      s.units += sign * units;
      s.sales += sign * sales;
      skus.set(key, s);
    }
  }
}

const isZero = (d: DailyDelta) =>
  !d.orders &&
  !d.units &&
  !d.sales &&
  !d.fulfilled &&
  !d.fulfilledSeconds &&
  !d.returns &&
  !d.returnUnits &&
  !d.returnTotal;

/** `on conflict (…) do update` adding the row given to the one there, for these columns. */
const adding = (target: string, table: string, columns: string[]) =>
  sql.raw(
    `on conflict (${target}) do update set ${columns.map((c) => `"${c}" = "${table}"."${c}" + excluded."${c}"`).join(', ')}`,
  );

/**
 * The upserts applying deltas to the rollup rows (each in key order), as parts of one statement (`together`).
 * The tables go in one order in every such statement, the rows of each in key order, so two transactions lock
 * alike and cannot deadlock.
 */
function deltaUpserts(accountId: string, daily: Map<string, DailyDelta>, skus: Map<string, SkuDelta>): SQL[] {
  const parts: SQL[] = [];
  const dailyRows = [...daily.entries()]
    .filter(([, d]) => !isZero(d))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, d]) => ({ accountId, ...d }));
  if (dailyRows.length > 0)
    parts.push(
      insertRowsSql(metricDaily, dailyRows, {
        onConflict: adding('account_id, day, channel_id, location_id', 'metric_daily', [
          'orders',
          'units',
          'sales',
          'fulfilled',
          'fulfilled_seconds',
          'returns',
          'return_units',
          'return_total',
        ]),
      }),
    );
  const skuRows = [...skus.entries()]
    .filter(([, s]) => s.units !== 0 || s.sales !== 0)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, s]) => s);
  const of = (level: SkuDelta['level']) => skuRows.filter((s) => s.level === level);
  const daily_ = of('day').map(({ day, sku, units, sales }) => ({ accountId, day, sku, units, sales }));
  if (daily_.length > 0)
    parts.push(
      insertRowsSql(metricSkuDaily, daily_, {
        onConflict: adding('account_id, day, sku', 'metric_sku_daily', ['units', 'sales']),
      }),
    );
  const monthly = of('month').map(({ day, sku, units, sales }) => ({ accountId, month: day, sku, units, sales }));
  if (monthly.length > 0)
    parts.push(
      insertRowsSql(metricSkuMonthly, monthly, {
        onConflict: adding('account_id, month, sku', 'metric_sku_monthly', ['units', 'sales']),
      }),
    );
  const yearly = of('year').map(({ day, sku, units, sales }) => ({ accountId, year: day, sku, units, sales }));
  if (yearly.length > 0)
    parts.push(
      insertRowsSql(metricSkuYearly, yearly, {
        onConflict: adding('account_id, year, sku', 'metric_sku_yearly', ['units', 'sales']),
      }),
    );
  return parts;
}

/** Several writes in one statement (one round trip): each a data-modifying part of its `with`, in order. */
async function together(tx: Tx | Db, parts: SQL[]) {
  if (parts.length === 0) return;
  if (parts.length === 1) {
    await tx.execute(parts[0] as SQL);
    return;
  }
  const ctes = sql.join(
    parts.map((p, i) => sql`${sql.raw(`w${i}`)} as (${p})`),
    sql`, `,
  );
  await tx.execute(sql`with ${ctes} select 1`);
}

/** Applies deltas to the rollup rows (upserts in key order, in one statement). */
export async function applyDeltas(
  tx: Tx | Db,
  accountId: string,
  daily: Map<string, DailyDelta>,
  skus: Map<string, SkuDelta>,
) {
  await together(tx, deltaUpserts(accountId, daily, skus));
}

const factColumns = (f: Fact) => ({
  day: f.day,
  channelId: f.channelId,
  locationId: f.locationId,
  orders: f.orders,
  units: f.units,
  sales: f.sales,
  skus: f.skus,
  fulfilledDay: f.fulfilledDay,
  fulfilledSeconds: f.fulfilledSeconds,
  returns: f.returns,
  returnUnits: f.returnUnits,
  returnTotal: f.returnTotal,
  updatedAt: new Date(),
});

/**
 * Replaces the stored facts of `source` rows `ids` by `next` (missing from next: the row is gone). `created`: those
 * of `ids` made in this transaction, which have no facts yet (not looked for).
 */
export async function replaceFacts(
  tx: Tx | Db,
  accountId: string,
  source: 'order' | 'return',
  ids: string[],
  next: Fact[],
  created: ReadonlySet<string> = new Set(),
) {
  if (ids.length === 0) return;
  const known = ids.filter((id) => !created.has(id));
  const previous =
    known.length === 0
      ? []
      : await tx
          .select()
          .from(metricFacts)
          .where(
            and(
              eq(metricFacts.accountId, accountId),
              eq(metricFacts.source, source),
              inArray(metricFacts.sourceId, known),
            ),
          )
          .orderBy(metricFacts.sourceId)
          .for('update');
  const daily = new Map<string, DailyDelta>();
  const skus = new Map<string, SkuDelta>();
  for (const p of previous) {
    addFact(daily, skus, { ...p, source, fulfilledDay: p.fulfilledDay ?? null }, -1);
  }
  for (const f of next) addFact(daily, skus, f, 1);
  const writes = deltaUpserts(accountId, daily, skus);
  const nextIds = new Set(next.map((f) => f.sourceId));
  const gone = previous.filter((p) => !nextIds.has(p.sourceId)).map((p) => p.sourceId);
  if (gone.length > 0) {
    await tx
      .delete(metricFacts)
      .where(
        and(eq(metricFacts.source, source), eq(metricFacts.accountId, accountId), inArray(metricFacts.sourceId, gone)),
      );
  }
  const rows = [...next]
    .sort((a, b) => (a.sourceId < b.sourceId ? -1 : 1))
    .map((f) => ({ sourceId: f.sourceId, source, accountId, ...factColumns(f) }));
  if (rows.length > 0)
    writes.push(
      insertRowsSql(metricFacts, rows, {
        onConflict: sql.raw(
          `on conflict (source, source_id) do update set ${Object.keys(factColumns(next[0] as Fact))
            .map((k) => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`))
            .map((c) => `"${c}" = excluded."${c}"`)
            .join(', ')}`,
        ),
      }),
    );
  // The rollups and the facts in one statement.
  await together(tx, writes);
}

/**
 * The orders module calls this in the transaction of every change of an order (after its rows and timeline
 * are written): the dashboard's rollups then follow the order. `created`: orders made in this transaction (a
 * batch's new orders), whose earlier facts need no reading: they have none.
 */
export async function recordOrderMetrics(
  tx: Tx | Db,
  accountId: string,
  orderIds: string | string[],
  created?: ReadonlySet<string>,
) {
  const ids = [...new Set(Array.isArray(orderIds) ? orderIds : [orderIds])];
  await tx.execute(sql`select pg_advisory_xact_lock_shared(${accountLockKey(accountId)})`);
  await replaceFacts(tx, accountId, 'order', ids, await readOrderFacts(tx, accountId, ids), created);
}
