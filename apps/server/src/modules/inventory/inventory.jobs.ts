// The sync engine's jobs: the per-channel push, reconciliation of one channel, and the minute job that
// queues the reconciliations that are due.
import type { SyncTrigger } from '@switchyard/contracts';
import type { JobDefinition } from '../../jobs/queue.ts';
import type { Services } from '../../services.ts';
import { pushJobHandler, pushLeftovers } from './push.run.ts';
import {
  INVENTORY_RECONCILE_DUE_JOB,
  INVENTORY_RECONCILE_JOB,
  queueDueReconciliations,
  reconcileChannel,
} from './reconcile.ts';
import { INVENTORY_PUSH_JOB } from './schedule.ts';

/** Every minute: the channels whose advanced.reconcileEveryMinutes has elapsed are reconciled. */
export const RECONCILE_DUE_CRON = '* * * * *';

export function inventoryJobDefinitions(services: Services): JobDefinition<never>[] {
  // Several channels push at once; one channel's pushes run one at a time (push.run.ts runPush).
  const push: JobDefinition<{ channelId: string; trigger?: SyncTrigger }> = {
    name: INVENTORY_PUSH_JOB,
    handler: pushJobHandler(services),
    retryLimit: 6,
    retryDelaySeconds: 5,
    retryBackoff: true,
    // A push round is bounded (2,000 variants); a job of a worker that died comes back after this.
    expireInSeconds: 10 * 60,
    concurrency: 3,
  };
  const reconcile: JobDefinition<{ channelId: string; trigger?: SyncTrigger }> = {
    name: INVENTORY_RECONCILE_JOB,
    handler: async ({ channelId, trigger }, meta) => {
      await reconcileChannel(services, channelId, meta.retryCount > 0 ? 'retry' : (trigger ?? 'schedule'));
    },
    retryLimit: 3,
    retryDelaySeconds: 30,
    expireInSeconds: 60 * 60,
    concurrency: 1,
    // Reads every level of the channel: it gives way to pushes and webhook reads on the shop's budget.
    lane: 'background',
  };
  const reconcileDue: JobDefinition<Record<string, never>> = {
    name: INVENTORY_RECONCILE_DUE_JOB,
    handler: async () => {
      await queueDueReconciliations(services);
    },
    retryLimit: 1,
    retryDelaySeconds: 30,
    concurrency: 1,
  };
  return [push, reconcile, reconcileDue] as JobDefinition<never>[];
}

/** In a process that works the queue: the minute schedule of reconciliation exists (idempotent; it lives in the database). */
export async function startInventoryWork(services: Services): Promise<void> {
  // After a crash or a stop, what was left dirty is pushed now rather than when the next change comes.
  await pushLeftovers(services);
  await services.queue?.boss.schedule(INVENTORY_RECONCILE_DUE_JOB, RECONCILE_DUE_CRON, {}, { tz: 'UTC' });
}
