import type { JobDefinition } from '../../jobs/queue.ts';
import type { Services } from '../../services.ts';
import { importReturns, RETURN_IMPORT_JOB } from './returns.import.ts';
import { REFUND_RETRIES, refundAtChannel } from './returns.refund.ts';
import { RETURN_REFUND_JOB } from './returns.service.ts';

/** The returns pull (one waits at a time per channel) and the refund write-back (retried, then dead-lettered). */
export function returnJobDefinitions(services: Services): JobDefinition<never>[] {
  const pull: JobDefinition<{ channelId: string }> = {
    name: RETURN_IMPORT_JOB,
    handler: async ({ channelId }) => {
      await importReturns(services, channelId);
    },
    retryLimit: 5,
    retryDelaySeconds: 30,
    retryBackoff: true,
    expireInSeconds: 60 * 60,
    concurrency: 1,
    lane: 'background',
  };
  const refund: JobDefinition<{ returnId: string; accountId: string; syncId: number | null }> = {
    name: RETURN_REFUND_JOB,
    handler: (data, meta) => refundAtChannel(services, data, meta.retryCount >= REFUND_RETRIES),
    retryLimit: REFUND_RETRIES,
    retryDelaySeconds: 10,
    retryBackoff: true,
    concurrency: 2,
  };
  return [pull as JobDefinition<never>, refund as JobDefinition<never>];
}
