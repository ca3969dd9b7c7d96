import { MetricFigure, MetricIdInput, Metrics, MetricsInput } from '@switchyard/contracts';
import type { RestApp } from '../../rest/route.ts';
import { restRoute } from '../../rest/route.ts';
import type { Services } from '../../services.ts';
import { getMetric } from './metrics.figure.ts';
import { getMetrics } from './metrics.service.ts';

const tags = ['metrics'];
const summary =
  'Dashboard metrics for a timeframe (30d, 6m, 1y) at a granularity (day, week, month, year): sales, orders, ' +
  'average order value and units over time beside the previous period, sales by channel and by location, top ' +
  'SKUs, returns rate, fulfillment time, stock and sync health. Days are the account’s time zone’s; money is ' +
  'minor units of the account’s currency.';

/** SPEC §7 frontend: `GET metrics` and `GET metric/{id}`. */
export function metricsFrontendRest(app: RestApp, services: Services) {
  restRoute(app, services, {
    method: 'GET',
    url: '/metrics',
    summary,
    tags,
    input: MetricsInput,
    output: Metrics,
    handler: ({ actor, input }) => getMetrics(services.db, actor, input),
  });
  restRoute(app, services, {
    method: 'GET',
    url: '/metric/:id',
    summary: 'One dashboard figure (its value, the previous period’s, its series and breakdown)',
    tags,
    params: MetricIdInput,
    input: MetricsInput,
    output: MetricFigure,
    handler: ({ actor, input, params }) => getMetric(services.db, actor, { ...input, id: params.id }),
  });
}

/** SPEC §7 v1/v2: `GET new-metrics`, the same figures for API keys. */
export function metricsRest(app: RestApp, services: Services) {
  restRoute(app, services, {
    method: 'GET',
    url: '/new-metrics',
    summary,
    tags,
    input: MetricsInput,
    output: Metrics,
    handler: ({ actor, input }) => getMetrics(services.db, actor, input),
  });
}
