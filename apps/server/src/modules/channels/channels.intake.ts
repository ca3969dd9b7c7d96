// The acknowledgement's write: a verified webhook event stored once per (provider, event id), with the shop's
// channel looked up in the same statement. Events that arrive while a write is on its way wait and go together
// in the next one: under a burst (three or four webhooks per order, across three providers) one statement and one
// commit carry a few dozen events instead of one each, and the provider waits for no more than the write before.
// At rest it is one insert per event, as before.
import type { ChannelType } from '@switchyard/contracts';
import { and, asc, eq, inArray, isNull, like, lt, or, sql } from 'drizzle-orm';
import type { WebhookEvent } from '../../connectors/types.ts';
import { newId } from '../../lib/ids.ts';
import type { Services } from '../../services.ts';
import { rowsOf } from '../inventory/ledger.ts';
import { channels, webhookEvents } from './channels.tables.ts';

export interface Stored {
  /** The new row's id; null when the event was stored before (a redelivery). */
  id: string | null;
  channelId: string | null;
  accountId: string | null;
}

interface Waiting {
  row: {
    id: string;
    provider: ChannelType;
    event_id: string;
    topic: string;
    shop: string;
    payload: unknown;
    occurred_at: string | null;
  };
  done: (stored: Stored) => void;
  failed: (err: unknown) => void;
}

/** Events in one statement at most (a larger burst takes several writes, one after the other). */
const MOST_PER_WRITE = 200;

interface Writer {
  waiting: Waiting[];
  writing: boolean;
}

const writers = new WeakMap<Services, Writer>();

/** Stores the event (see the top of this file); answers once its write has committed. */
export function storeReceived(
  services: Services,
  type: ChannelType,
  event: WebhookEvent,
  occurredAt: Date | null,
): Promise<Stored> {
  let writer = writers.get(services);
  if (!writer) {
    writer = { waiting: [], writing: false };
    writers.set(services, writer);
  }
  const w = writer;
  return new Promise<Stored>((done, failed) => {
    w.waiting.push({
      row: {
        id: newId('whe'),
        provider: type,
        event_id: event.eventId,
        topic: event.topic,
        shop: event.shopExternalId,
        payload: event.payload ?? {},
        occurred_at: occurredAt ? occurredAt.toISOString() : null,
      },
      done,
      failed,
    });
    if (!w.writing) void write(services, w);
  });
}

async function write(services: Services, writer: Writer) {
  writer.writing = true;
  try {
    while (writer.waiting.length > 0) {
      const batch = writer.waiting.splice(0, MOST_PER_WRITE);
      try {
        const stored = await insert(services, batch);
        for (const w of batch) w.done(stored.get(w.row.id) ?? { id: null, channelId: null, accountId: null });
      } catch (err) {
        for (const w of batch) w.failed(err);
      }
    }
  } finally {
    writer.writing = false;
  }
}

/**
 * One statement for the batch: each event's channel is the live installation of its shop if there is one, else
 * its most recent; received_at follows arrival (clock_timestamp per row, in arrival order), as the stock passes
 * take events oldest first. Answers the rows inserted, by id (a redelivery inserts none).
 */
async function insert(services: Services, batch: Waiting[]): Promise<Map<string, Stored>> {
  const rows = batch.map((w, ord) => ({ ...w.row, ord }));
  const result = await services.database.intake.execute(sql`
    with v as (
      select * from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as v(
        id text, provider text, event_id text, topic text, shop text, payload jsonb, occurred_at timestamptz, ord int)
    ),
    ch as (
      select distinct on (v.ord) v.ord, c.id, c.account_id
      from v join ${channels} c on c.type = v.provider and c.external_id = v.shop
      order by v.ord, c.status in ('connected', 'error') desc, c.updated_at desc
    )
    insert into ${webhookEvents} (id, provider, event_id, topic, shop_external_id, account_id, channel_id, payload, occurred_at, received_at)
    select v.id, v.provider, v.event_id, v.topic, v.shop, ch.account_id, ch.id, v.payload, v.occurred_at, clock_timestamp()
    from v left join ch on ch.ord = v.ord
    order by v.ord
    on conflict (provider, event_id) do nothing
    returning id, channel_id, account_id`);
  return new Map(
    rowsOf<{ id: string; channel_id: string | null; account_id: string | null }>(result).map((r) => [
      r.id,
      { id: r.id, channelId: r.channel_id, accountId: r.account_id },
    ]),
  );
}

export type StoredEvent = typeof webhookEvents.$inferSelect;

/** Which events a pass takes: topics named, and topics like a pattern (`%` for any part). */
export interface TopicFilter {
  in: readonly string[];
  like?: readonly string[];
}

/** SQL: an event of `webhook_events` whose topic the filter takes. */
export const topicSql = (f: TopicFilter) =>
  or(inArray(webhookEvents.topic, [...f.in]), ...(f.like ?? []).map((p) => like(webhookEvents.topic, p)));

/**
 * For a channel's pass (stock events, order events): up to `limit` of its unprocessed events whose topic `topics` takes,
 * oldest first, each with one more attempt counted. Answers how many were found waiting and those this pass took
 * (an event another pass finished meanwhile is left out), oldest first.
 */
export async function takeWaitingEvents(
  services: Services,
  channelId: string,
  topics: TopicFilter,
  limit: number,
  maxAttempts?: number,
): Promise<{ found: number; events: StoredEvent[] }> {
  const waiting = await services.db
    .select({ id: webhookEvents.id })
    .from(webhookEvents)
    .where(
      and(
        eq(webhookEvents.channelId, channelId),
        isNull(webhookEvents.processedAt),
        topicSql(topics),
        maxAttempts === undefined ? undefined : lt(webhookEvents.attempts, maxAttempts),
      ),
    )
    .orderBy(asc(webhookEvents.receivedAt), asc(webhookEvents.id))
    .limit(limit);
  if (waiting.length === 0) return { found: 0, events: [] };
  const events = await services.db
    .update(webhookEvents)
    .set({ attempts: sql`${webhookEvents.attempts} + 1` })
    .where(
      and(
        inArray(
          webhookEvents.id,
          waiting.map((w) => w.id),
        ),
        isNull(webhookEvents.processedAt),
      ),
    )
    .returning();
  events.sort((a, b) => a.receivedAt.getTime() - b.receivedAt.getTime() || a.id.localeCompare(b.id));
  return { found: waiting.length, events };
}

/** Events a pass took are done: each with its own outcome ("order #1001: created"), in one statement. */
export async function finishEvents(services: Pick<Services, 'db'>, outcomes: Map<string, string>) {
  if (outcomes.size === 0) return;
  const rows = sql.join(
    [...outcomes].map(([id, outcome]) => sql`(${id}::text, ${outcome}::text)`),
    sql`, `,
  );
  await services.db.execute(sql`
    update ${webhookEvents} set processed_at = ${new Date().toISOString()}::timestamptz, outcome = v.outcome, error = null
    from (values ${rows}) as v(id, outcome) where ${webhookEvents.id} = v.id`);
}

/** Events a pass took are done, all with one outcome. */
export async function finishEventsAs(services: Pick<Services, 'db'>, ids: string[], outcome: string) {
  if (ids.length === 0) return;
  await services.db
    .update(webhookEvents)
    .set({ processedAt: new Date(), outcome, error: null })
    .where(inArray(webhookEvents.id, ids));
}

/** Events a pass failed on keep the error's first 500 characters (shown on the channel page); they are retried. */
export async function recordEventError(services: Pick<Services, 'db'>, ids: string[], err: unknown) {
  if (ids.length === 0) return;
  const message = typeof err === 'string' ? err : err instanceof Error ? err.message : 'processing failed';
  await services.db
    .update(webhookEvents)
    .set({ error: message.slice(0, 500) })
    .where(inArray(webhookEvents.id, ids));
}
