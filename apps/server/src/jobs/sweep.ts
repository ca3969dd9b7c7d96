// Safety nets, each minute: provider webhooks (channels, Stripe) that were stored but whose job was lost (a
// process that died between storing and queueing) are queued again. Nothing stored is left unprocessed.
import { requeueStrandedBillingEvents } from '../modules/billing/billing.webhooks.ts';
import { pruneWebhookEvents } from '../modules/channels/channels.retention.ts';
import { queueWaitingStockEvents, requeueStrandedEvents } from '../modules/channels/channels.webhooks.ts';
import { pruneClaims } from '../modules/inventory/claims.ts';
import { queueDueOrderImports } from '../modules/orders/orders.import.ts';
import { queueDueReturnImports } from '../modules/returns/returns.import.ts';
import { sweepShipments } from '../modules/shipments/shipments.jobs.ts';
import type { Services } from '../services.ts';
import type { JobDefinition } from './queue.ts';

export const EVENTS_SWEEP_JOB = 'events.sweep';
export const EVENTS_SWEEP_CRON = '* * * * *';

export async function sweepStrandedEvents(services: Services): Promise<{ channel: number; billing: number }> {
  const found = {
    channel: await requeueStrandedEvents(services),
    billing: await requeueStrandedBillingEvents(services),
  };
  // Orders webhooks missed, pulled by each channel's cursor when its interval is due; met stock claims and
  // processed webhook events past their retention pruned.
  await queueDueOrderImports(services);
  await sweepShipments(services);
  await queueDueReturnImports(services);
  await pruneClaims(services.db);
  const pruned = await pruneWebhookEvents(services.db);
  if (pruned > 0) services.logger.info({ pruned }, 'webhook events past their retention deleted');
  return found;
}

export function sweepJobDefinition(services: Services): JobDefinition<Record<string, never>> {
  return {
    name: EVENTS_SWEEP_JOB,
    handler: async () => {
      const found = await sweepStrandedEvents(services);
      if (found.channel + found.billing > 0) services.logger.warn(found, 'queued stored webhooks again');
    },
    retryLimit: 1,
    retryDelaySeconds: 30,
    concurrency: 1,
  };
}

/**
 * At start-up of a process that works the queue: the minute schedule (idempotent; it lives in the database),
 * and a pass for every channel whose stock events wait.
 */
export async function scheduleSweep(services: Services): Promise<void> {
  await services.queue?.boss.schedule(EVENTS_SWEEP_JOB, EVENTS_SWEEP_CRON, {}, { tz: 'UTC' });
  await queueWaitingStockEvents(services);
}
