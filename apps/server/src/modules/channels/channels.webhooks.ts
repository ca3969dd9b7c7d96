// Provider webhooks: verified over the raw body, stored once per (provider, event id), answered at once,
// and processed by the `channels.webhook` job (stock events: by the channel's `channels.stock-events` pass).
import { createHash } from 'node:crypto';
import { CHANNEL_TYPES, type ChannelType } from '@switchyard/contracts';
import { and, desc, eq, isNotNull, isNull, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { publicUrl } from '../../config.ts';
import { verifySignedPayload } from '../../connectors/bigcommerce/index.ts';
import { PROVIDERS } from '../../connectors/index.ts';
import type { WebhookEvent, WebhookRequest } from '../../connectors/types.ts';
import { newId } from '../../lib/ids.ts';
import { findUnstorable, storableCopy } from '../../lib/storable.ts';
import { sendError } from '../../rest/errors.ts';
import type { Services } from '../../services.ts';
import {
  carriedReports,
  INVENTORY_TOPIC_FILTER,
  isInventoryTopic,
  processInventoryEvents,
} from '../inventory/inbound.events.ts';
import { deferWhilePushing, queueStockEvents } from '../inventory/schedule.ts';
import { isOrderTopic, ORDER_TOPICS, processOrderEvents, queueOrderEvents } from '../orders/order-events.ts';
import { processOrderEvent } from '../orders/orders.import.ts';
import { processReturnEvent } from '../returns/returns.import.ts';
import { applyAccessEvent, REVOKED_TOPICS, UNINSTALL_TOPICS } from './channels.access.ts';
import { finishEventsAs, recordEventError, storeReceived, type TopicFilter, topicSql } from './channels.intake.ts';
import { channels, webhookEvents } from './channels.tables.ts';

export const CHANNEL_WEBHOOK_JOB = 'channels.webhook';

export type ReceiveResult = { status: 200; duplicate: boolean; id: string } | { status: 400 | 401; message: string };

/**
 * Safety net, each minute (jobs/sweep.ts): events stored and never tried for over `olderThanSeconds` (their
 * job was lost, say with a process that died between storing and queueing) are queued again. Answers how
 * many were found.
 */
export async function requeueStrandedEvents(services: Services, olderThanSeconds = 120): Promise<number> {
  const stranded = await services.db
    .select({ id: webhookEvents.id, channelId: webhookEvents.channelId, topic: webhookEvents.topic })
    .from(webhookEvents)
    .where(
      and(
        isNull(webhookEvents.processedAt),
        eq(webhookEvents.attempts, 0),
        isNull(webhookEvents.error),
        sql`${webhookEvents.receivedAt} <= clock_timestamp() - make_interval(secs => ${olderThanSeconds})`,
      ),
    )
    .limit(5000);
  const stockChannels = new Set<string>();
  const orderChannels = new Set<string>();
  for (const event of stranded) {
    if (event.channelId && isInventoryTopic(event.topic)) stockChannels.add(event.channelId);
    else if (event.channelId && isOrderTopic(event.topic)) orderChannels.add(event.channelId);
    else await services.queue?.send(CHANNEL_WEBHOOK_JOB, { id: event.id }, { singletonKey: event.id });
  }
  for (const channelId of stockChannels) await queueStockEvents(services, channelId);
  for (const channelId of orderChannels) await queueOrderEvents(services, channelId);
  return stranded.length;
}

/**
 * At start-up: a pass for every channel with stock or order events waiting (a process that died while they
 * waited for its push to end, or before their pass ran). A pass already waiting makes this a no-op. Answers
 * how many channels had stock events waiting.
 */
export async function queueWaitingStockEvents(services: Services): Promise<number> {
  const waitingOn = (topics: TopicFilter) =>
    services.db
      .selectDistinct({ channelId: webhookEvents.channelId })
      .from(webhookEvents)
      .where(and(isNull(webhookEvents.processedAt), isNotNull(webhookEvents.channelId), topicSql(topics)));
  const rows = await waitingOn(INVENTORY_TOPIC_FILTER);
  for (const { channelId } of rows) if (channelId) await queueStockEvents(services, channelId);
  for (const { channelId } of await waitingOn({ in: ORDER_TOPICS })) {
    if (channelId) await queueOrderEvents(services, channelId);
  }
  return rows.length;
}

/** Verifies, stores (once) and queues one delivery. Processing happens in the job, not here. */
export async function receiveWebhook(
  services: Services,
  type: ChannelType,
  req: WebhookRequest,
): Promise<ReceiveResult> {
  const verifier = PROVIDERS[type].webhooks(services.providers);
  let verified = false;
  try {
    verified = verifier.verify(req);
  } catch {
    // Malformed signature headers are as good as none.
  }
  if (!verified) return { status: 401, message: 'Invalid webhook signature' };
  let event: WebhookEvent;
  try {
    event = verifier.parse(req);
  } catch (err) {
    // Signed, so from the provider: kept and marked failed. Refusing it would only have the provider retry it.
    const reason = err instanceof Error ? err.message : 'no detail';
    return storeEvent(
      services,
      type,
      {
        provider: type,
        eventId: `unreadable:${createHash('sha256').update(req.rawBody).digest('hex')}`,
        topic: 'unreadable',
        shopExternalId: '',
        occurredAt: null,
        payload: { body: req.rawBody.toString('utf8').slice(0, 65_536) },
      },
      `Unreadable webhook payload: ${reason}`,
    );
  }
  return storeEvent(services, type, event);
}

const INT4_MAX = 2_147_483_647;
/** PostgreSQL's timestamptz holds 4713 BC to 294276 AD; a JavaScript Date goes further back. */
const storableDate = (d: Date | null) => (d && !Number.isNaN(d.getTime()) && d.getUTCFullYear() >= 1 ? d : null);

/**
 * Why a verified event cannot be processed as it is (undefined: it can). Such an event is stored, made
 * storable, and marked failed with the reason: processing it would fail on every retry, and a stock event
 * would hold up the channel's whole batch with it.
 */
function malformation(event: WebhookEvent): string | undefined {
  const { eventId, topic, shopExternalId: shop, payload } = event;
  const unstorable = findUnstorable({ eventId, topic, shop, payload });
  if (unstorable) return `${unstorable.path || 'the event'} ${unstorable.problem}`;
  if (eventId.length > 500 || topic.length > 500 || shop.length > 500) {
    return 'an event id, topic or shop longer than 500 characters';
  }
  const reports = isInventoryTopic(topic)
    ? (carriedReports({ ...event, occurredAt: null, receivedAt: new Date() }) ?? [])
    : [];
  for (const report of reports) {
    if (!Number.isInteger(report.quantity) || Math.abs(report.quantity) > INT4_MAX) {
      return `a stock quantity that is not a whole number in range (${report.quantity})`;
    }
    if (!storableDate(report.at)) return 'a stock report time out of range';
  }
  return undefined;
}

/**
 * Stores a verified event once per (provider, event id) and queues its processing; a malformed one (or one
 * whose body could not be read: `failure`) is stored with the reason and not processed.
 */
async function storeEvent(
  services: Services,
  type: ChannelType,
  received: WebhookEvent,
  failure?: string,
): Promise<ReceiveResult> {
  const problem = failure ?? malformation(received);
  const event = problem ? malformedCopy(received) : received;
  // The live installation of the shop if there is one, else its most recent channel.
  const theChannel = () =>
    services.db
      .select({ id: channels.id, accountId: channels.accountId })
      .from(channels)
      .where(and(eq(channels.type, type), eq(channels.externalId, event.shopExternalId)))
      .orderBy(sql`${channels.status} in ('connected', 'error') desc`, desc(channels.updatedAt))
      .limit(1);
  const occurredAt = storableDate(event.occurredAt ? new Date(event.occurredAt) : null);
  let channel: { id: string; accountId: string } | undefined;
  let stored: { id: string } | undefined;
  let echo = false;
  if (problem) {
    [channel] = await theChannel();
    [stored] = await services.db
      .insert(webhookEvents)
      .values({
        id: newId('whe'),
        provider: type,
        eventId: event.eventId,
        topic: event.topic,
        shopExternalId: event.shopExternalId,
        accountId: channel?.accountId ?? null,
        channelId: channel?.id ?? null,
        payload: event.payload ?? {},
        occurredAt,
        processedAt: new Date(),
        outcome: 'not processed: malformed',
        error: problem.slice(0, 500),
      })
      .onConflictDoNothing({ target: [webhookEvents.provider, webhookEvents.eventId] })
      .returning({ id: webhookEvents.id });
  } else {
    // The acknowledgement's one round trip (shared with the events that arrive meanwhile): the shop's channel
    // looked up and the event stored in one statement.
    // A Shopify or Square stock event carries its quantities: judged against our pushes as it is stored.
    const reports = isInventoryTopic(event.topic)
      ? carriedReports({
          provider: type,
          payload: event.payload,
          eventId: event.eventId,
          occurredAt,
          receivedAt: new Date(),
        })
      : null;
    const row = await storeReceived(services, type, event, occurredAt, reports);
    echo = row.echo;
    if (row.id) {
      stored = { id: row.id };
      channel = row.channelId ? { id: row.channelId, accountId: row.accountId as string } : undefined;
    } else {
      // A duplicate: its channel, to queue it again below.
      [channel] = await theChannel();
    }
  }
  if (problem) {
    services.logger.warn(
      { provider: type, id: stored?.id, problem: problem.slice(0, 200) },
      'webhook: malformed event',
    );
    return { status: 200, duplicate: !stored, id: stored?.id ?? '' };
  }
  if (!stored) {
    const [existing] = await services.db
      .select({ id: webhookEvents.id, processedAt: webhookEvents.processedAt })
      .from(webhookEvents)
      .where(and(eq(webhookEvents.provider, type), eq(webhookEvents.eventId, event.eventId)));
    // A redelivery of an event not processed yet queues it again, in case queueing failed the first time;
    // the singleton key keeps it to one job while one is waiting or running.
    if (existing && !existing.processedAt) {
      if (channel && isInventoryTopic(event.topic)) await queueStockEvents(services, channel.id);
      else if (channel && isOrderTopic(event.topic)) await queueOrderEvents(services, channel.id);
      else await services.queue?.send(CHANNEL_WEBHOOK_JOB, { id: existing.id }, { singletonKey: existing.id });
    }
    return { status: 200, duplicate: true, id: existing?.id ?? '' };
  }
  // A stock event is answered once stored. The echo of our own push (most of the stock events a burst of
  // orders brings) was stored as done; anything else queues the channel's stock pass after the answer, unless this
  // process is pushing the channel (the push's end queues it). Lost with the process, the event is still stored and
  // unprocessed: the start-up pass and the sweep take it in.
  if (channel && isInventoryTopic(event.topic)) {
    const channelId = channel.id;
    if (!echo && !deferWhilePushing(channelId))
      void queueStockEvents(services, channelId).catch((err: unknown) =>
        services.logger.warn({ err, channelId, id: stored.id }, 'webhook: stock pass not queued; the sweep takes it'),
      );
    return { status: 200, duplicate: false, id: stored.id };
  }
  // Order events are taken per channel, in batches: a burst of them queues one pass.
  if (channel && isOrderTopic(event.topic)) {
    await queueOrderEvents(services, channel.id);
    return { status: 200, duplicate: false, id: stored.id };
  }
  await services.queue?.send(CHANNEL_WEBHOOK_JOB, { id: stored.id }, { singletonKey: stored.id });
  // Stock changes are latency-critical: this process's idle webhook workers fetch it now, not at their next poll.
  services.queue?.notify?.(CHANNEL_WEBHOOK_JOB);
  return { status: 200, duplicate: false, id: stored.id };
}

/** The event made storable; an id too long for the unique index is kept as its hash. */
function malformedCopy(event: WebhookEvent): WebhookEvent {
  const copy = storableCopy(event) as WebhookEvent;
  const long = (text: string) =>
    text.length > 500 ? `sha256:${createHash('sha256').update(text).digest('hex')}` : text;
  return { ...copy, eventId: long(copy.eventId), topic: long(copy.topic), shopExternalId: long(copy.shopExternalId) };
}

/**
 * BigCommerce's uninstall callback (`GET …?signed_payload_jwt=`, server to server), kept as the same
 * `store/app/uninstalled` event its webhook carries. The token is the callback's identity: a retried
 * callback is a duplicate.
 */
export async function receiveBigcommerceUninstall(services: Services, jwt: string): Promise<ReceiveResult> {
  let storeHash: string;
  try {
    ({ storeHash } = await verifySignedPayload(services.providers, jwt));
  } catch {
    return { status: 401, message: 'Invalid signed payload' };
  }
  return storeEvent(services, 'bigcommerce', {
    provider: 'bigcommerce',
    eventId: `uninstall-callback:${createHash('sha256').update(jwt).digest('hex')}`,
    topic: 'store/app/uninstalled',
    shopExternalId: storeHash,
    occurredAt: new Date().toISOString(),
    payload: { callback: 'uninstall', store_hash: storeHash },
  });
}

/** POST /webhooks/{shopify|bigcommerce|square}, in a scope of its own whose body parser keeps the raw bytes. */
export async function channelWebhookRoutes(app: FastifyInstance, services: Services) {
  app.get<{ Querystring: { signed_payload_jwt?: string } }>('/webhooks/bigcommerce/uninstall', async (req, reply) => {
    const result = await receiveBigcommerceUninstall(services, req.query.signed_payload_jwt ?? '');
    if (result.status !== 200) return sendError(reply, result.status, result.message);
    return reply.status(200).send({ received: true, duplicate: result.duplicate });
  });
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
    for (const type of CHANNEL_TYPES) {
      scope.post(`/webhooks/${type}`, async (req, reply) => {
        const rawBody = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
        const query = req.url.includes('?') ? req.url.slice(req.url.indexOf('?')) : '';
        // Square signs the notification URL it was given, which is our public address, not the Host header.
        const url = `${publicUrl(services.config)}/webhooks/${type}${query}`;
        const result = await receiveWebhook(services, type, { rawBody, headers: req.headers, url });
        if (result.status !== 200) {
          req.log.info({ provider: type, status: result.status }, 'webhook refused');
          return sendError(reply, result.status, result.message);
        }
        return reply.status(200).send({ received: true, duplicate: result.duplicate });
      });
    }
  });
}

/** The job: applies one stored event once. Failures are recorded on the event and retried by the queue. */
export async function processWebhookEvent(services: Services, id: string): Promise<void> {
  const [waiting] = await services.db
    .select({ channelId: webhookEvents.channelId, topic: webhookEvents.topic, processedAt: webhookEvents.processedAt })
    .from(webhookEvents)
    .where(eq(webhookEvents.id, id));
  if (!waiting || waiting.processedAt) return;
  // Stock events are taken together per channel (inbound.ts), this one with the others waiting.
  if (waiting.channelId && isInventoryTopic(waiting.topic)) return processInventoryEvents(services, waiting.channelId);
  // So are order events (orders/order-events.ts).
  if (waiting.channelId && isOrderTopic(waiting.topic)) return processOrderEvents(services, waiting.channelId);
  const [event] = await services.db
    .update(webhookEvents)
    .set({ attempts: sql`${webhookEvents.attempts} + 1` })
    .where(and(eq(webhookEvents.id, id), isNull(webhookEvents.processedAt)))
    .returning();
  if (!event) return;
  try {
    const outcome = await applyEvent(services, event);
    await finishEventsAs(services, [id], outcome);
  } catch (err) {
    await recordEventError(services, [id], err);
    throw err;
  }
}

type EventRow = typeof webhookEvents.$inferSelect;

async function applyEvent(services: Services, event: EventRow): Promise<string> {
  if (!event.channelId) return 'no channel for this shop';
  const isRevoked = REVOKED_TOPICS.has(event.topic);
  if (!UNINSTALL_TOPICS.has(event.topic) && !isRevoked) {
    // A topic may be both (Square's order.created of a POS return order): each handler takes what is its own.
    const ordered = await processOrderEvent(services, event);
    const returned = await processReturnEvent(services, event);
    if (ordered !== null || returned !== null) return [ordered, returned].filter((s) => s !== null).join('; ');
    // Product topics wait for the sync engine, which reads them from this table.
    return 'no handler yet';
  }

  return applyAccessEvent(services, event, isRevoked ? 'revoked' : 'uninstalled');
}
