// A channel's order webhooks, taken in passes: one pass per channel waits at a time (pg-boss `short` policy)
// and drains every order event waiting, in batches. Within a batch each order is read from the channel once,
// however many of its events wait (its latest state is what is taken in), reads run side by side, and the
// orders are then taken in together by ingestOrders (several per transaction, one by one if one fails).
// Acknowledging a webhook costs one insert; a burst of them queues one pass, not a job each (bench/orders.ts
// "ingest").
import { eq } from 'drizzle-orm';
import { PROVIDERS } from '../../connectors/index.ts';
import type { Connector, ProviderOrder } from '../../connectors/types.ts';
import { passesPerKey } from '../../lib/passes.ts';
import type { Services } from '../../services.ts';
import { finishEvents, recordEventError, type StoredEvent, takeWaitingEvents } from '../channels/channels.intake.ts';
import { connectorFor } from '../channels/channels.service.ts';
import { channels } from '../channels/channels.tables.ts';
import { ingestOrders } from './ingest.ts';
import { channelOf, importable, live, needsRead, wholeOrder } from './orders.import.ts';

export const ORDER_EVENTS_JOB = 'channels.order-events';

/** Every provider's order topics: the events this pass takes (refunds and the rest go their own way). */
export const ORDER_TOPICS: readonly string[] = Object.values(PROVIDERS).flatMap((p) => p.orderTopics ?? []);
export const isOrderTopic = (topic: string) => ORDER_TOPICS.includes(topic);

/** Events per batch; a pass takes batches until none wait. */
const BATCH = 100;
/** Orders read from the channel at once within a batch. */
const READS_AT_ONCE = 8;
/** A batch that failed this many times is left with its error (the pass goes on with newer events). */
const MAX_ATTEMPTS = 9;

/**
 * Starts the pass over a channel's waiting order events: at once in this process when it takes order events
 * (the events are stored, so nothing waits on a job's round trip), else as a job; a pass already waiting makes
 * this a no-op.
 */
export async function queueOrderEvents(services: Services, channelId: string): Promise<void> {
  await services.queue?.run(ORDER_EVENTS_JOB, { channelId }, { singletonKey: channelId });
}

/**
 * The job: takes every order event of the channel that waits, batch after batch; one pass per channel at a
 * time in this process (a burst of calls costs at most two).
 */
export const processOrderEvents = passesPerKey<Services>(async (services, channelId) => {
  while ((await drainOrderEvents(services, channelId)) === BATCH) {}
});

type EventRow = StoredEvent;

/** One batch; answers how many events it found waiting. */
async function drainOrderEvents(services: Services, channelId: string): Promise<number> {
  const { found, events } = await takeWaitingEvents(services, channelId, { in: ORDER_TOPICS }, BATCH, MAX_ATTEMPTS);
  if (events.length === 0) return found;
  const outcomes = await takeIn(services, channelId, events);
  // Every outcome in one statement (each order has its own: "order #1001: created").
  await finishEvents(services, outcomes);
  const failed = events.filter((e) => !outcomes.has(e.id));
  if (failed.length > 0) throw new Error(`${failed.length} order event(s) failed; they are retried`);
  return found;
}

/**
 * Takes a batch in: the outcome of each event that was handled (an event left out failed, with its error
 * recorded on it, and stays waiting for the retry).
 */
async function takeIn(services: Services, channelId: string, events: EventRow[]): Promise<Map<string, string>> {
  const startedAt = performance.now();
  const outcomes = new Map<string, string>();
  const all = (outcome: string) => {
    for (const e of events) outcomes.set(e.id, outcome);
    return outcomes;
  };
  const [row] = await services.db.select().from(channels).where(eq(channels.id, channelId));
  if (!row || !live(row)) return all('orders are not imported for this channel');
  const provider = PROVIDERS[row.type];
  // What each event says, grouped by order: the newest whole order a payload carried, if any.
  const byOrder = new Map<string, { events: EventRow[]; carried: ProviderOrder | null }>();
  for (const event of events) {
    const said = provider.orderWebhook?.(event.topic, event.payload) ?? null;
    if (!said) {
      outcomes.set(event.id, 'not an order event');
      continue;
    }
    const externalId = 'order' in said ? said.order.externalId : said.externalId;
    const entry = byOrder.get(externalId) ?? { events: [], carried: null };
    entry.events.push(event);
    if ('order' in said && (!entry.carried || said.order.updatedAt >= entry.carried.updatedAt)) {
      entry.carried = said.order;
    }
    byOrder.set(externalId, entry);
  }
  const connector = connectorFor(services, row);
  const channel = channelOf(row);
  const entries = [...byOrder.entries()];
  const reader = await readTogether(connector, entries);
  // Read side by side, then taken in together (ingestOrders: several orders per transaction, one by one when
  // one of them fails).
  const read = await mapLimited(entries, READS_AT_ONCE, ([externalId, { carried }]) =>
    wholeOrder(reader, externalId, carried),
  );
  const failures = new Map<string, EventRow[]>();
  const fail = (entry: { events: EventRow[] }, err: unknown) => {
    const message = err instanceof Error ? err.message.slice(0, 500) : 'processing failed';
    failures.set(message, [...(failures.get(message) ?? []), ...entry.events]);
  };
  const toTake: { entry: { events: EventRow[] }; order: ProviderOrder }[] = [];
  for (const [index, [, entry]] of entries.entries()) {
    const settled = read[index] as PromiseSettledResult<ProviderOrder | null>;
    if (settled.status === 'rejected') {
      fail(entry, settled.reason);
      continue;
    }
    const order = settled.value;
    let outcome: string | null = null;
    if (!order) outcome = 'order not found at the channel';
    else if (!importable(row, order)) outcome = 'placed before orders are imported for this channel';
    else toTake.push({ entry, order });
    if (outcome) for (const e of entry.events) outcomes.set(e.id, outcome);
  }
  const readMs = performance.now() - startedAt;
  const taken = toTake.length
    ? await ingestOrders(
        services,
        channel,
        toTake.map((t) => t.order),
      )
    : new Map();
  services.logger.debug(
    {
      channelId,
      events: events.length,
      orders: toTake.length,
      readMs: Math.round(readMs),
      ingestMs: Math.round(performance.now() - startedAt - readMs),
    },
    'order events read and taken in',
  );
  for (const { entry, order } of toTake) {
    const result = taken.get(order.externalId);
    if (!result || result instanceof Error) {
      fail(entry, result ?? new Error('not taken in'));
      continue;
    }
    for (const e of entry.events) outcomes.set(e.id, `order ${order.name}: ${result.outcome}`);
  }
  for (const [message, failed] of failures) {
    services.logger.warn({ channelId, err: message, events: failed.length }, 'order event failed');
    await recordEventError(
      services,
      failed.map((e) => e.id),
      message,
    );
  }
  return outcomes;
}

/**
 * Where the provider reads several orders in one request (Square), the orders of a batch that need a read are
 * read so, up front: a burst of Square order webhooks otherwise costs one request each against the seller's
 * request budget (about 20 a second), which paced intake at that rate. A batch read that fails leaves each
 * order to its own read (and its own failure).
 */
async function readTogether(
  connector: Pick<Connector, 'getOrder' | 'getOrders'>,
  entries: [string, { carried: ProviderOrder | null }][],
): Promise<Pick<Connector, 'getOrder'>> {
  const getOrders = connector.getOrders;
  const ids = entries.filter(([, { carried }]) => needsRead(carried)).map(([id]) => id);
  if (!getOrders || !connector.getOrder || ids.length < 2) return connector;
  let read: Map<string, ProviderOrder | null>;
  try {
    read = await getOrders.call(connector, ids);
  } catch {
    return connector;
  }
  return { getOrder: async (externalId) => read.get(externalId) ?? null };
}

/** `fn` over `items`, at most `limit` at a time; settled results in the items' order. */
async function mapLimited<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>) {
  const results: PromiseSettledResult<R>[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      try {
        results[i] = { status: 'fulfilled', value: await fn(items[i] as T) };
      } catch (reason) {
        results[i] = { status: 'rejected', reason };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
