// The dashboard's figures for a timeframe and granularity, from the reads of metrics.queries.ts run side by side
// on the pool: the series, totals and previous period, cut into the granularity's buckets.
import { type MetricPoint, type Metrics, MetricsInput, type MetricTotals } from '@switchyard/contracts';
import type { Db } from '../../db/client.ts';
import type { Actor } from '../../trpc/context.ts';
import { bucketsOf, daysOf, windowOf } from './metrics.dates.ts';
import { accountClock, type DayRow, dailyFigures, stockHealth, syncHealth, topSkus } from './metrics.queries.ts';

const ZERO: Omit<DayRow, 'day'> = {
  orders: 0,
  units: 0,
  sales: 0,
  fulfilled: 0,
  fulfilledSeconds: 0,
  returns: 0,
  returnUnits: 0,
  returnTotal: 0,
};

function sum(rows: Omit<DayRow, 'day'>[]): Omit<DayRow, 'day'> {
  const total = { ...ZERO };
  for (const r of rows) for (const k of Object.keys(ZERO) as (keyof typeof ZERO)[]) total[k] += r[k];
  return total;
}

const aov = (sales: number, orders: number) => (orders > 0 ? Math.round(sales / orders) : 0);

function totalsOf(t: Omit<DayRow, 'day'>): MetricTotals {
  return {
    sales: t.sales,
    orders: t.orders,
    units: t.units,
    averageOrderValue: aov(t.sales, t.orders),
    returns: t.returns,
    returnUnits: t.returnUnits,
    returnTotal: t.returnTotal,
    returnsRate: t.units > 0 ? t.returnUnits / t.units : 0,
    fulfilled: t.fulfilled,
    fulfillmentSeconds: t.fulfilled > 0 ? t.fulfilledSeconds / t.fulfilled : null,
  };
}

export async function getMetrics(db: Db, actor: Pick<Actor, 'accountId'>, raw: unknown): Promise<Metrics> {
  const input = MetricsInput.parse(raw ?? {});
  const { timezone, currency, today } = await accountClock(db, actor.accountId);
  const w = windowOf(input.timeframe, today);
  const [{ days, byChannel, byLocation }, skus, sync, stock] = await Promise.all([
    dailyFigures(db, actor.accountId, w),
    topSkus(db, actor.accountId, w.from, w.to, today),
    syncHealth(db, actor.accountId, today, timezone),
    stockHealth(db, actor.accountId),
  ]);
  const byDay = new Map(days.map((d) => [d.day, d]));
  const current = bucketsOf(w.from, w.to, input.granularity);
  const previous = bucketsOf(w.previousFrom, w.previousTo, input.granularity);
  const collect = (order: string[], of: Map<string, string>, from: string, to: string) => {
    const buckets = new Map(order.map((b) => [b, { ...ZERO }]));
    for (const day of daysOf(from, to)) {
      const row = byDay.get(day);
      const bucket = buckets.get(of.get(day) as string);
      if (!row || !bucket) continue;
      for (const k of Object.keys(ZERO) as (keyof typeof ZERO)[]) bucket[k] += row[k];
    }
    return order.map((b) => ({ period: b, ...(buckets.get(b) ?? ZERO) }));
  };
  const now = collect(current.order, current.of, w.from, w.to);
  const before = collect(previous.order, previous.of, w.previousFrom, w.previousTo);
  const series: MetricPoint[] = now.map((b, i) => {
    const p = before[i];
    return {
      period: b.period,
      previousPeriod: p?.period ?? null,
      sales: b.sales,
      orders: b.orders,
      units: b.units,
      averageOrderValue: aov(b.sales, b.orders),
      returnUnits: b.returnUnits,
      fulfilled: b.fulfilled,
      fulfillmentSeconds: b.fulfilled > 0 ? b.fulfilledSeconds / b.fulfilled : null,
      previousSales: p?.sales ?? 0,
      previousOrders: p?.orders ?? 0,
      previousUnits: p?.units ?? 0,
      previousAverageOrderValue: p ? aov(p.sales, p.orders) : 0,
    };
  });
  const totals = totalsOf(sum(now));
  return {
    timeframe: input.timeframe,
    granularity: input.granularity,
    currency,
    timezone,
    ...w,
    totals,
    previousTotals: totalsOf(sum(before)),
    series,
    byChannel,
    byLocation,
    topSkus: skus,
    stock: {
      ...stock,
      sellThrough: totals.units + stock.onHand > 0 ? totals.units / (totals.units + stock.onHand) : null,
    },
    sync,
  };
}
