import { z } from 'zod';
import { ChannelType } from './channels.ts';
import { DashboardGranularity, DashboardTimeframe } from './search.ts';

/**
 * Dashboard metrics (issue 17). Figures come from rollups kept in the transaction of each order and return
 * change (server modules/metrics), read for a timeframe (SPEC §2: 30d, 6m, 1y) at a granularity (day, week,
 * month, year). Days are the account's time zone's days; money is minor units of the account's currency.
 *
 * Calls:
 * - `metrics.get(MetricsInput)` (tRPC) and frontend `GET metrics`, v1/v2 `GET new-metrics` → Metrics
 * - `metrics.one({ id, ...MetricsInput })` (tRPC) and frontend `GET metric/{id}` → MetricFigure
 *
 * Windows: 30d is the last 30 days; 6m and 1y are the last 6 or 12 calendar months, the current one so far
 * included. The previous period is the same kind of window just before (the 30 days, or the whole months).
 *
 * What each figure counts:
 * - An order counts on the day it was placed unless it is cancelled (status 7); its sales are its total
 *   (orders in another currency than the account's count as orders and units, not as sales).
 * - Units sold: each line's quantity less its cancelled quantity.
 * - Location: the order's pickup store, else where its first line's units were allocated.
 * - Fulfillment time: placed → first shipped (status 3, fulfilled) or picked up (status 5), counted on the
 *   day it shipped. Orders that arrived already fulfilled (a POS sale) have none.
 * - Returns rate: returned units ÷ units sold over the same days.
 * - Sell-through: units sold ÷ (units sold + units on hand now).
 */

export const METRIC_IDS = [
  'sales',
  'orders',
  'average_order_value',
  'units',
  'sales_by_channel',
  'sales_by_location',
  'top_skus',
  'returns_rate',
  'fulfillment_time',
  'stock_health',
  'sync_health',
] as const;
export const MetricId = z.enum(METRIC_IDS, {
  error: () => `Unknown metric. Use one of: ${METRIC_IDS.join(', ')}.`,
});
export type MetricId = z.infer<typeof MetricId>;

/**
 * The merchant's low-stock threshold (an account setting, /settings/account): available to sell at or below it,
 * and above 0, is low stock: on the dashboard's stock health (summed over locations) and in the low-stock
 * notifications (on a channel). 5 until the merchant sets it.
 */
export const LOW_STOCK_SETTING = 'lowStockThreshold';
export const DEFAULT_LOW_STOCK_THRESHOLD = 5;
export const LowStockThreshold = z
  .number({ error: 'Enter a whole number of units' })
  .int('Enter a whole number of units')
  .min(0, 'Cannot be negative')
  .max(100_000, 'At most 100,000');
export const StockSettings = z.object({ lowStockThreshold: z.number().int() });
export type StockSettings = z.infer<typeof StockSettings>;
export const StockSettingsInput = z.object({ lowStockThreshold: LowStockThreshold }).strict();
export type StockSettingsInput = z.infer<typeof StockSettingsInput>;
/** How many SKUs the top SKUs figure lists. */
export const TOP_SKU_COUNT = 10;

const timeframeMessage = 'timeframe must be one of 30d, 6m, 1y';
const granularityMessage = 'granularity must be one of day, week, month, year';

/** The calls' input: strict (a bad value is a 400), with SPEC §9's defaults. */
export const MetricsInput = z.object({
  timeframe: z.enum(DashboardTimeframe.options, { error: () => timeframeMessage }).default('30d'),
  granularity: z.enum(DashboardGranularity.options, { error: () => granularityMessage }).default('day'),
});
export type MetricsInput = z.input<typeof MetricsInput>;

export const MetricIdInput = z.object({ id: MetricId });
export const MetricOneInput = MetricsInput.extend({ id: MetricId });
export type MetricOneInput = z.input<typeof MetricOneInput>;

export const MetricTotals = z.object({
  /** Minor units of the account's currency. */
  sales: z.number().int(),
  orders: z.number().int(),
  units: z.number().int(),
  /** sales ÷ orders, rounded to a minor unit; 0 without orders. */
  averageOrderValue: z.number().int(),
  returns: z.number().int(),
  returnUnits: z.number().int(),
  returnTotal: z.number().int(),
  /** returnUnits ÷ units (0…, 0 without units). */
  returnsRate: z.number(),
  /** Orders shipped or picked up in the window, and their mean placed → shipped time in seconds. */
  fulfilled: z.number().int(),
  fulfillmentSeconds: z.number().nullable(),
});
export type MetricTotals = z.infer<typeof MetricTotals>;

export const MetricPoint = z.object({
  /** The bucket's first day in the window (YYYY-MM-DD, the account's time zone). */
  period: z.string(),
  /** The first day of the matching bucket of the previous period. */
  previousPeriod: z.string().nullable(),
  sales: z.number().int(),
  orders: z.number().int(),
  units: z.number().int(),
  averageOrderValue: z.number().int(),
  returnUnits: z.number().int(),
  fulfilled: z.number().int(),
  fulfillmentSeconds: z.number().nullable(),
  previousSales: z.number().int(),
  previousOrders: z.number().int(),
  previousUnits: z.number().int(),
  previousAverageOrderValue: z.number().int(),
});
export type MetricPoint = z.infer<typeof MetricPoint>;

export const MetricBreakdown = z.object({
  /** Channel or location id; null: none (an order without a channel, or not allocated yet). */
  id: z.string().nullable(),
  name: z.string(),
  type: ChannelType.nullable(),
  sales: z.number().int(),
  orders: z.number().int(),
  units: z.number().int(),
});
export type MetricBreakdown = z.infer<typeof MetricBreakdown>;

export const TopSku = z.object({ sku: z.string(), units: z.number().int(), sales: z.number().int() });
export type TopSku = z.infer<typeof TopSku>;

export const StockHealth = z.object({
  skus: z.number().int(),
  outOfStock: z.number().int(),
  lowStock: z.number().int(),
  lowStockThreshold: z.number().int(),
  onHand: z.number().int(),
  /** Units sold in the window ÷ (units sold + on hand now); null with neither. */
  sellThrough: z.number().nullable(),
});
export type StockHealth = z.infer<typeof StockHealth>;

export const SyncHealth = z.object({
  /** Age of the oldest stock change not yet pushed to its channel (0: none waiting). */
  pushLagSeconds: z.number().int(),
  pendingChanges: z.number().int(),
  lastPushAt: z.date().nullable(),
  /** Failed items of sync runs started today (the account's day), and runs that failed or half-failed. */
  failedItemsToday: z.number().int(),
  failedRunsToday: z.number().int(),
});
export type SyncHealth = z.infer<typeof SyncHealth>;

export const Metrics = z.object({
  timeframe: DashboardTimeframe,
  granularity: DashboardGranularity,
  currency: z.string(),
  timezone: z.string(),
  /** The window's first and last day (inclusive), and the previous window's. */
  from: z.string(),
  to: z.string(),
  previousFrom: z.string(),
  previousTo: z.string(),
  totals: MetricTotals,
  previousTotals: MetricTotals,
  series: z.array(MetricPoint),
  byChannel: z.array(MetricBreakdown),
  byLocation: z.array(MetricBreakdown),
  topSkus: z.array(TopSku),
  stock: StockHealth,
  sync: SyncHealth,
});
export type Metrics = z.infer<typeof Metrics>;

export const MetricUnit = z.enum(['money', 'count', 'ratio', 'seconds']);
export type MetricUnit = z.infer<typeof MetricUnit>;

/** One figure: its value and the previous period's, its series, and its breakdown where it has one. */
export const MetricFigure = z.object({
  id: MetricId,
  label: z.string(),
  unit: MetricUnit,
  currency: z.string(),
  timeframe: DashboardTimeframe,
  granularity: DashboardGranularity,
  from: z.string(),
  to: z.string(),
  value: z.number().nullable(),
  previousValue: z.number().nullable(),
  series: z.array(z.object({ period: z.string(), value: z.number().nullable(), previous: z.number().nullable() })),
  breakdown: z.array(z.object({ key: z.string(), label: z.string(), value: z.number() })),
});
export type MetricFigure = z.infer<typeof MetricFigure>;

export const METRIC_LABELS: Record<MetricId, string> = {
  sales: 'Sales',
  orders: 'Orders',
  average_order_value: 'Average order value',
  units: 'Units sold',
  sales_by_channel: 'Sales by channel',
  sales_by_location: 'Sales by location',
  top_skus: 'Top SKUs',
  returns_rate: 'Returns rate',
  fulfillment_time: 'Fulfillment time',
  stock_health: 'Stock health',
  sync_health: 'Sync health',
};
