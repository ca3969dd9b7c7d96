import { BILLING_EVENT_JOB, processBillingEvent } from '../modules/billing/billing.webhooks.ts';
import { CHANNEL_WEBHOOK_JOB, processWebhookEvent } from '../modules/channels/channels.webhooks.ts';
import { fulfillmentJobDefinitions } from '../modules/fulfillment/fulfillment.jobs.ts';
import { processInventoryEvents } from '../modules/inventory/inbound.events.ts';
import { inventoryJobDefinitions } from '../modules/inventory/inventory.jobs.ts';
import { CHANNEL_STOCK_EVENTS_JOB } from '../modules/inventory/schedule.ts';
import { deliverMail, MAIL_SEND_JOB } from '../modules/mail/mail.service.ts';
import { metricsJobDefinitions } from '../modules/metrics/metrics.jobs.ts';
import { notificationJobDefinitions } from '../modules/notifications/notifications.jobs.ts';
import { ORDER_EVENTS_JOB, processOrderEvents } from '../modules/orders/order-events.ts';
import {
  cancelAtChannel,
  importOrders,
  ORDER_IMPORT_JOB,
  ORDER_IMPORT_RETRIES,
} from '../modules/orders/orders.import.ts';
import { ORDER_CANCEL_JOB } from '../modules/orders/orders.service.ts';
import { CATALOG_DAILY_JOB, dispatchDailyCatalogSync } from '../modules/products/catalog.schedule.ts';
import { CATALOG_IMPORT_JOB, CATALOG_IMPORT_RETRIES, runCatalogImport } from '../modules/products/catalog-import.ts';
import {
  CATALOG_PUBLISH_JOB,
  CATALOG_PUBLISH_RETRIES,
  runCatalogPublish,
} from '../modules/products/catalog-publish.ts';
import { returnJobDefinitions } from '../modules/returns/returns.jobs.ts';
import { shipmentJobDefinitions } from '../modules/shipments/shipments.jobs.ts';
import type { Services } from '../services.ts';
import type { JobDefinition } from './queue.ts';
import { sweepJobDefinition } from './sweep.ts';

/** Every job type the workers run. Modules add theirs here as the sync engine grows. */
export function jobDefinitions(services: Services): JobDefinition<never>[] {
  const mailSend: JobDefinition<{ id: string }> = {
    name: MAIL_SEND_JOB,
    handler: ({ id }) => deliverMail(services, id),
    retryLimit: 8,
    retryDelaySeconds: 10,
    concurrency: 2,
  };
  const channelWebhook: JobDefinition<{ id: string }> = {
    name: CHANNEL_WEBHOOK_JOB,
    handler: ({ id }) => processWebhookEvent(services, id),
    retryLimit: 8,
    retryDelaySeconds: 5,
    concurrency: 2,
  };
  // A channel's stock events, all waiting ones per pass; one pass per channel waits at a time (`short`).
  const stockEvents: JobDefinition<{ channelId: string }> = {
    name: CHANNEL_STOCK_EVENTS_JOB,
    handler: ({ channelId }) => processInventoryEvents(services, channelId),
    retryLimit: 8,
    retryDelaySeconds: 5,
    concurrency: 2,
    policy: 'short',
  };
  // A channel's order events, all waiting ones per pass (batches of 100); one pass per channel waits at a time.
  const orderEvents: JobDefinition<{ channelId: string }> = {
    name: ORDER_EVENTS_JOB,
    handler: ({ channelId }) => processOrderEvents(services, channelId),
    retryLimit: 8,
    retryDelaySeconds: 5,
    concurrency: 3,
    policy: 'short',
  };
  // One at a time: events of one subscription are applied in the order they are taken.
  const billingEvent: JobDefinition<{ id: string }> = {
    name: BILLING_EVENT_JOB,
    handler: ({ id }) => processBillingEvent(services, id),
    retryLimit: 8,
    retryDelaySeconds: 5,
    concurrency: 1,
  };
  // Catalog import and publish: a failed attempt starts the run over (both are idempotent); two at once so
  // one long import does not hold up another channel's.
  const catalogImport: JobDefinition<Parameters<typeof runCatalogImport>[1]> = {
    name: CATALOG_IMPORT_JOB,
    handler: (data, meta) => runCatalogImport(services, data, meta),
    retryLimit: CATALOG_IMPORT_RETRIES,
    retryDelaySeconds: 30,
    // A large Shopify catalog pages slowly under its query-cost limit: an import may take hours.
    expireInSeconds: 6 * 60 * 60,
    concurrency: 2,
    // Bulk reads (and the stock read at its end): they give way to pushes and webhook reads (lib/lanes.ts).
    lane: 'background',
  };
  const catalogPublish: JobDefinition<Parameters<typeof runCatalogPublish>[1]> = {
    name: CATALOG_PUBLISH_JOB,
    handler: (data, meta) => runCatalogPublish(services, data, meta),
    retryLimit: CATALOG_PUBLISH_RETRIES,
    retryDelaySeconds: 30,
    expireInSeconds: 60 * 60,
    concurrency: 1,
    lane: 'background',
  };
  const catalogDaily: JobDefinition<Record<string, never>> = {
    name: CATALOG_DAILY_JOB,
    handler: async () => {
      await dispatchDailyCatalogSync(services);
    },
    retryLimit: 3,
    retryDelaySeconds: 60,
    concurrency: 1,
  };
  // A channel's order pull (one waits at a time per channel) and the cancel write-back (retried; its last
  // failure tells the merchant to cancel at the channel).
  const orderImport: JobDefinition<{ channelId: string }> = {
    name: ORDER_IMPORT_JOB,
    handler: async ({ channelId }, meta) => {
      await importOrders(services, channelId, { retryCount: meta.retryCount, retryLimit: ORDER_IMPORT_RETRIES });
    },
    retryLimit: ORDER_IMPORT_RETRIES,
    retryDelaySeconds: 30,
    retryBackoff: true,
    expireInSeconds: 60 * 60,
    concurrency: 2,
    // Catching up: an order webhook's read of the same shop goes first (lib/lanes.ts).
    lane: 'background',
  };
  const orderCancel: JobDefinition<{ orderId: string; accountId: string }> = {
    name: ORDER_CANCEL_JOB,
    handler: (data, meta) => cancelAtChannel(services, data, meta.retryCount >= 5),
    retryLimit: 5,
    retryDelaySeconds: 10,
    retryBackoff: true,
    concurrency: 2,
  };
  return [
    mailSend as JobDefinition<never>,
    orderImport as JobDefinition<never>,
    orderCancel as JobDefinition<never>,
    ...fulfillmentJobDefinitions(services),
    channelWebhook as JobDefinition<never>,
    stockEvents as JobDefinition<never>,
    orderEvents as JobDefinition<never>,
    billingEvent as JobDefinition<never>,
    ...inventoryJobDefinitions(services),
    catalogImport as JobDefinition<never>,
    catalogPublish as JobDefinition<never>,
    catalogDaily as JobDefinition<never>,
    ...shipmentJobDefinitions(services),
    sweepJobDefinition(services) as JobDefinition<never>,
    ...returnJobDefinitions(services),
    ...metricsJobDefinitions(services),
    ...notificationJobDefinitions(services),
  ];
}
