import { MetricFigure, MetricOneInput, Metrics, MetricsInput } from '@switchyard/contracts';
import { authedProcedure, router } from '../../trpc/init.ts';
import { getMetric } from './metrics.figure.ts';
import { getMetrics } from './metrics.service.ts';

export const metricsRouter = router({
  get: authedProcedure
    .input(MetricsInput.optional())
    .output(Metrics)
    .query(({ ctx, input }) => getMetrics(ctx.services.db, ctx.actor, input)),
  one: authedProcedure
    .input(MetricOneInput)
    .output(MetricFigure)
    .query(({ ctx, input }) => getMetric(ctx.services.db, ctx.actor, input)),
});
