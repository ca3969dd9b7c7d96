// The acknowledgement's write: a verified webhook event stored once per (provider, event id), with the shop's
// channel looked up in the same statement. Events that arrive while a write is on its way wait and go together
// in the next one: under a burst (three or four webhooks per order, across three providers) one statement and one
// commit carry a few dozen events instead of one each, and the provider waits for no more than the write before.
// At rest it is one insert per event, as before.
import type { ChannelType } from '@switchyard/contracts';
import { and, asc, eq, inArray, isNull, like, lt, or, sql } from 'drizzle-orm';
import type { WebhookEvent } from '../../connectors/types.ts';
import { inList } from '../../db/rows.ts';
import { newId } from '../../lib/ids.ts';
import type { Services } from '../../services.ts';
import { echoJudgement } from '../inventory/echo.ts';
import { rowsOf } from '../inventory/ledger.ts';
import { channels, webhookEvents } from './channels.tables.ts';

export interface Stored {
  /** The new row's id; null when the event was stored before (a redelivery). */
  id: string | null;
  channelId: string | null;
  accountId: string | null;
  /** A stock event that only echoes our own push: stored as done (nothing to process). */
  echo: boolean;
}

/** What a stock event reports of one level (a Shopify or Square event carries its quantities). */
export interface ReportCarried {
  inventoryItemId: string;
  externalLocationId: string;
  quantity: number;
  at: Date;
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
  /** A stock event's reports, judged against what we pushed as it is stored; null for any other event. */
  reports: ReportCarried[] | null;
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

/**
 * Stores the event (see the top of this file); answers once its write has committed. A stock event's `reports`
 * are judged in the same statement: when every level they name only echoes our own push (inventory/echo.ts), the
 * event is stored as done, and nothing reads it again.
 */
export function storeReceived(
  services: Services,
  type: ChannelType,
  event: WebhookEvent,
  occurredAt: Date | null,
  reports: ReportCarried[] | null = null,
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
      reports,
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
        for (const w of batch)
          w.done(stored.get(w.row.id) ?? { id: null, channelId: null, accountId: null, echo: false });
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
 * take events oldest first; a stock event that echoes our push is stored processed. Answers the rows inserted,
 * by id (a redelivery inserts none).
 */
async function insert(services: Services, batch: Waiting[]): Promise<Map<string, Stored>> {
  const rows = batch.map((w, ord) => ({ ...w.row, ord }));
  const reports = batch.flatMap((w, ord) =>
    (w.reports ?? []).map((r) => ({
      ord,
      item: r.inventoryItemId,
      loc: r.externalLocationId,
      qty: r.quantity,
      at: r.at.toISOString(),
    })),
  );
  const judged =
    reports.length === 0
      ? sql`select null::int as ord, null::boolean as echo where false`
      : echoJudgement(sql`(
          select x.ord, ch.id as channel_id, x.item, x.loc, x.qty, x.at
          from jsonb_to_recordset(${JSON.stringify(reports)}::jsonb)
            as x(ord int, item text, loc text, qty int, at timestamptz)
          join ch on ch.ord = x.ord)`);
  const result = await services.database.intake.execute(sql`
    with v as (
      select * from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as v(
        id text, provider text, event_id text, topic text, shop text, payload jsonb, occurred_at timestamptz, ord int)
    ),
    ch as (
      select distinct on (v.ord) v.ord, c.id, c.account_id
      from v join ${channels} c on c.type = v.provider and c.external_id = v.shop
      order by v.ord, c.status in ('connected', 'error') desc, c.updated_at desc
    ),
    judged as (${judged})
    insert into ${webhookEvents} (id, provider, event_id, topic, shop_external_id, account_id, channel_id, payload,
      occurred_at, received_at, processed_at, outcome, attempts)
    select v.id, v.provider, v.event_id, v.topic, v.shop, ch.account_id, ch.id, v.payload, v.occurred_at,
      clock_timestamp(), case when j.echo then clock_timestamp() end,
      case when j.echo then ${ECHO_OUTCOME} end, case when j.echo then 1 else 0 end
    from v left join ch on ch.ord = v.ord left join judged j on j.ord = v.ord
    order by v.ord
    on conflict (provider, event_id) do nothing
    returning id, channel_id, account_id, processed_at is not null as echo`);
  return new Map(
    rowsOf<{ id: string; channel_id: string | null; account_id: string | null; echo: boolean }>(result).map((r) => [
      r.id,
      { id: r.id, channelId: r.channel_id, accountId: r.account_id, echo: r.echo === true },
    ]),
  );
}

/** The outcome of a stock event stored as the echo of our own push. */
export const ECHO_OUTCOME = 'echo of our push: nothing to do';

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
 * oldest first, each with one more attempt counted, in one statement. Answers how many it took (`found`; fewer
 * than `limit`: none was left waiting) and those events, oldest first. An event another pass finished while this one
 * read is left out.
 */
export async function takeWaitingEvents(
  services: Services,
  channelId: string,
  topics: TopicFilter,
  limit: number,
  maxAttempts?: number,
): Promise<{ found: number; events: StoredEvent[] }> {
  const waiting = services.db
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
  const events = await services.db
    .update(webhookEvents)
    .set({ attempts: sql`${webhookEvents.attempts} + 1` })
    .where(and(inArray(webhookEvents.id, waiting), isNull(webhookEvents.processedAt)))
    .returning();
  events.sort((a, b) => a.receivedAt.getTime() - b.receivedAt.getTime() || a.id.localeCompare(b.id));
  return { found: events.length, events };
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
    .where(inList(webhookEvents.id, ids));
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
