import type { JobDefinition } from '../../jobs/queue.ts';
import type { Services } from '../../services.ts';
import { backfillMetrics, rebuildAccountMetrics } from './metrics.rebuild.ts';

/** Rebuilds one account's rollups (`accountId`), or every account missing orders in them (no `accountId`). */
export const METRICS_REBUILD_JOB = 'metrics.rebuild';

export function metricsJobDefinitions(services: Services): JobDefinition<never>[] {
  const rebuild: JobDefinition<{ accountId?: string }> = {
    name: METRICS_REBUILD_JOB,
    handler: async ({ accountId }) => {
      if (accountId) {
        const { facts } = await rebuildAccountMetrics(services.db, accountId);
        services.logger.info({ accountId, facts }, 'metrics rebuilt');
        return;
      }
      const rebuilt = await backfillMetrics(services.db, (line) => services.logger.info(line));
      if (rebuilt > 0) services.logger.info({ rebuilt }, 'metrics backfilled');
    },
    retryLimit: 3,
    retryDelaySeconds: 30,
    expireInSeconds: 60 * 60,
    concurrency: 1,
  };
  return [rebuild as JobDefinition<never>];
}

/** At the start of a process that works the queue: accounts with orders from before the rollups get them. */
export async function queueMetricsBackfill(services: Services): Promise<void> {
  await services.queue?.send(METRICS_REBUILD_JOB, {}, { singletonKey: 'metrics.backfill' });
}

/** After an account's time zone changed: its days move, so its rollups are rebuilt. */
export async function queueMetricsRebuild(services: Pick<Services, 'queue'>, accountId: string): Promise<boolean> {
  if (!services.queue) return false;
  await services.queue.send(METRICS_REBUILD_JOB, { accountId }, { singletonKey: `metrics.rebuild:${accountId}` });
  return true;
}
