import type { JobDefinition } from '../../jobs/queue.ts';
import type { Services } from '../../services.ts';
import { PICKUP_AT_CHANNEL_JOB, type PickupStage, pickupAtChannel } from './fulfillment.pickup.ts';

/** The pickup write-back: retried with backoff; its last failure tells the merchant to update the channel. */
export function fulfillmentJobDefinitions(services: Services): JobDefinition<never>[] {
  const pickup: JobDefinition<{ orderId: string; accountId: string; stage: PickupStage }> = {
    name: PICKUP_AT_CHANNEL_JOB,
    handler: (data, meta) =>
      pickupAtChannel(services, data, { retryCount: meta.retryCount, final: meta.retryCount >= 5 }),
    retryLimit: 5,
    retryDelaySeconds: 10,
    retryBackoff: true,
    concurrency: 2,
  };
  return [pickup as JobDefinition<never>];
}
