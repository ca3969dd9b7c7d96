import { and, isNull, lt } from 'drizzle-orm';
import type { JobDefinition } from '../../jobs/queue.ts';
import type { Services } from '../../services.ts';
import { recoverPurchases, SHIPMENT_WRITE_BACK_JOB } from './shipments.buy.ts';
import { carrierEvents } from './shipments.tables.ts';
import { CARRIER_EVENT_JOB, processCarrierEvent } from './shipments.tracking.ts';
import { writeBackShipment } from './shipments.writeback.ts';

const WRITE_BACK_RETRIES = 6;

/** The shipments' jobs: the channel write-back, tracking events, and recovery of interrupted purchases. */
export function shipmentJobDefinitions(services: Services): JobDefinition<never>[] {
  const writeBack: JobDefinition<{ shipmentId: string; accountId: string }> = {
    name: SHIPMENT_WRITE_BACK_JOB,
    handler: (data, meta) =>
      writeBackShipment(services, data, { retryCount: meta.retryCount, final: meta.retryCount >= WRITE_BACK_RETRIES }),
    retryLimit: WRITE_BACK_RETRIES,
    retryDelaySeconds: 5,
    retryBackoff: true,
    concurrency: 2,
  };
  const trackingEvent: JobDefinition<{ id: string }> = {
    name: CARRIER_EVENT_JOB,
    handler: ({ id }) => processCarrierEvent(services, id),
    retryLimit: 8,
    retryDelaySeconds: 5,
    concurrency: 2,
  };
  return [writeBack, trackingEvent] as JobDefinition<never>[];
}

/**
 * The minute sweep's part (jobs/sweep.ts): purchases left `buying` are finished or undone from what the carrier
 * has, and tracking events stored but never processed (their job lost) are queued again.
 */
export async function sweepShipments(services: Services): Promise<void> {
  await recoverPurchases(services);
  const stranded = await services.db
    .select({ id: carrierEvents.id })
    .from(carrierEvents)
    .where(and(isNull(carrierEvents.processedAt), lt(carrierEvents.receivedAt, new Date(Date.now() - 60_000))))
    .limit(500);
  for (const e of stranded) await services.queue?.send(CARRIER_EVENT_JOB, { id: e.id }, { singletonKey: e.id });
}
