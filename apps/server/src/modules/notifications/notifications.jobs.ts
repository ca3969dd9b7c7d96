// The notifications' periodic work: every 15 minutes, orders waiting too long and the digests due (each
// account's hour in its own time zone, zones a quarter or half hour from UTC included); once a day, pruning.
import { NOTIFICATION_RETENTION_DAYS } from '@switchyard/contracts';
import type { JobDefinition } from '../../jobs/queue.ts';
import type { Services } from '../../services.ts';
import { pruneNotifications, sendDigests } from './notifications.digest.ts';
import { checkWaitingOrders, notifyDeadLetter } from './notifications.producers.ts';

export const NOTIFICATIONS_TICK_JOB = 'notifications.tick';
export const NOTIFICATIONS_TICK_CRON = '*/15 * * * *';
export const NOTIFICATIONS_PRUNE_JOB = 'notifications.prune';
export const NOTIFICATIONS_PRUNE_CRON = '40 3 * * *';

export async function runNotificationsTick(services: Services, now = new Date()) {
  const waiting = await checkWaitingOrders(services.db, now);
  const digests = await sendDigests(services, now);
  return { waiting, digests: digests.length };
}

export function notificationJobDefinitions(services: Services): JobDefinition<never>[] {
  const tick: JobDefinition<Record<string, never>> = {
    name: NOTIFICATIONS_TICK_JOB,
    handler: async () => {
      await runNotificationsTick(services);
    },
    retryLimit: 2,
    retryDelaySeconds: 60,
    concurrency: 1,
  };
  const prune: JobDefinition<Record<string, never>> = {
    name: NOTIFICATIONS_PRUNE_JOB,
    handler: async () => {
      const deleted = await pruneNotifications(services.db, NOTIFICATION_RETENTION_DAYS);
      if (deleted > 0) services.logger.info({ deleted }, 'notifications pruned');
    },
    retryLimit: 2,
    retryDelaySeconds: 300,
    concurrency: 1,
  };
  return [tick as JobDefinition<never>, prune as JobDefinition<never>];
}

/** At start-up of a process that works the queue (idempotent: the schedules live in the database). */
export async function scheduleNotificationJobs(services: Services): Promise<void> {
  await services.queue?.boss.schedule(NOTIFICATIONS_TICK_JOB, NOTIFICATIONS_TICK_CRON, {}, { tz: 'UTC' });
  await services.queue?.boss.schedule(NOTIFICATIONS_PRUNE_JOB, NOTIFICATIONS_PRUNE_CRON, {}, { tz: 'UTC' });
}

/** Given to the queue: a job that failed its last retry (and so lands in its dead-letter queue). */
export function onDeadLetter(services: Services) {
  return (jobName: string, data: unknown, error: unknown) => notifyDeadLetter(services, jobName, data, error);
}
