// One figure of the dashboard (frontend `GET metric/{id}`): its value beside the previous period's, its series
// and its breakdown, cut from the same read as the whole dashboard.
import {
  METRIC_LABELS,
  type MetricFigure,
  type MetricId,
  MetricOneInput,
  type Metrics,
  type MetricUnit,
} from '@switchyard/contracts';
import type { Db } from '../../db/client.ts';
import type { Actor } from '../../trpc/context.ts';
import { getMetrics } from './metrics.service.ts';

type Cut = Pick<MetricFigure, 'value' | 'previousValue' | 'series' | 'breakdown'> & { unit: MetricUnit };

function cut(m: Metrics, id: MetricId): Cut {
  const series = (
    value: (p: Metrics['series'][number]) => number | null,
    previous?: (p: Metrics['series'][number]) => number,
  ) => m.series.map((p) => ({ period: p.period, value: value(p), previous: previous ? previous(p) : null }));
  switch (id) {
    case 'sales':
      return {
        unit: 'money',
        value: m.totals.sales,
        previousValue: m.previousTotals.sales,
        series: series(
          (p) => p.sales,
          (p) => p.previousSales,
        ),
        breakdown: [],
      };
    case 'orders':
      return {
        unit: 'count',
        value: m.totals.orders,
        previousValue: m.previousTotals.orders,
        series: series(
          (p) => p.orders,
          (p) => p.previousOrders,
        ),
        breakdown: [],
      };
    case 'average_order_value':
      return {
        unit: 'money',
        value: m.totals.averageOrderValue,
        previousValue: m.previousTotals.averageOrderValue,
        series: series(
          (p) => p.averageOrderValue,
          (p) => p.previousAverageOrderValue,
        ),
        breakdown: [],
      };
    case 'units':
      return {
        unit: 'count',
        value: m.totals.units,
        previousValue: m.previousTotals.units,
        series: series(
          (p) => p.units,
          (p) => p.previousUnits,
        ),
        breakdown: [],
      };
    case 'sales_by_channel':
    case 'sales_by_location': {
      const rows = id === 'sales_by_channel' ? m.byChannel : m.byLocation;
      return {
        unit: 'money',
        value: m.totals.sales,
        previousValue: m.previousTotals.sales,
        series: [],
        breakdown: rows.map((r) => ({ key: r.id ?? '', label: r.name, value: r.sales })),
      };
    }
    case 'top_skus':
      return {
        unit: 'money',
        value: m.topSkus.reduce((s, r) => s + r.sales, 0),
        previousValue: null,
        series: [],
        breakdown: m.topSkus.map((r) => ({ key: r.sku, label: r.sku, value: r.sales })),
      };
    case 'returns_rate':
      return {
        unit: 'ratio',
        value: m.totals.returnsRate,
        previousValue: m.previousTotals.returnsRate,
        series: series((p) => (p.units > 0 ? p.returnUnits / p.units : 0)),
        breakdown: [],
      };
    case 'fulfillment_time':
      return {
        unit: 'seconds',
        value: m.totals.fulfillmentSeconds,
        previousValue: m.previousTotals.fulfillmentSeconds,
        series: series((p) => p.fulfillmentSeconds),
        breakdown: [],
      };
    case 'stock_health':
      return {
        unit: 'count',
        value: m.stock.outOfStock,
        previousValue: null,
        series: [],
        breakdown: [
          { key: 'out_of_stock', label: 'Out of stock', value: m.stock.outOfStock },
          { key: 'low_stock', label: 'Low stock', value: m.stock.lowStock },
          { key: 'in_stock', label: 'In stock', value: m.stock.skus - m.stock.outOfStock - m.stock.lowStock },
          { key: 'sell_through', label: 'Sell-through', value: m.stock.sellThrough ?? 0 },
        ],
      };
    case 'sync_health':
      return {
        unit: 'seconds',
        value: m.sync.pushLagSeconds,
        previousValue: null,
        series: [],
        breakdown: [
          { key: 'pending_changes', label: 'Changes waiting to push', value: m.sync.pendingChanges },
          { key: 'failed_items_today', label: 'Failed items today', value: m.sync.failedItemsToday },
          { key: 'failed_runs_today', label: 'Failed runs today', value: m.sync.failedRunsToday },
        ],
      };
  }
}

export async function getMetric(db: Db, actor: Pick<Actor, 'accountId'>, raw: unknown): Promise<MetricFigure> {
  const input = MetricOneInput.parse(raw);
  const m = await getMetrics(db, actor, { timeframe: input.timeframe, granularity: input.granularity });
  return {
    id: input.id,
    label: METRIC_LABELS[input.id],
    currency: m.currency,
    timeframe: m.timeframe,
    granularity: m.granularity,
    from: m.from,
    to: m.to,
    ...cut(m, input.id),
  };
}
