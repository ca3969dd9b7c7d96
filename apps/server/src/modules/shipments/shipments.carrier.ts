// The carrier a shipment is bought from, and the address its tracking webhook is sent to.
import { carrierEndpoint, EasyPostClient, ensureCarrierWebhook } from '../../carriers/easypost.ts';
import { publicUrl } from '../../config.ts';
import type { Services } from '../../services.ts';

export const carrierClient = (services: Services) => new EasyPostClient(carrierEndpoint(services));

/** Our tracking webhook: the public address's /webhooks/easypost. */
export const carrierWebhookUrl = (services: Services) => `${publicUrl(services.config)}/webhooks/easypost`;

/** Subscribes the tracking webhook before the first label of this process (a failure only logs: labels go on). */
export async function ensureTrackingWebhook(services: Services, client: EasyPostClient) {
  try {
    await ensureCarrierWebhook(client, carrierWebhookUrl(services));
  } catch (err) {
    services.logger.warn({ err: (err as Error).message }, 'carrier webhook subscription failed');
  }
}
