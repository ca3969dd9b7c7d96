// Returns arrive like orders: by webhook (stored once, taken by the channels.webhook job, which hands return
// topics here), and by a pull of what changed since the channel's cursor (each minute's sweep queues the channels
// that are due). Both end in ingestReturn.
import { and, eq, sql } from 'drizzle-orm';
import { PROVIDERS } from '../../connectors/index.ts';
import type { ProviderReturn } from '../../connectors/types.ts';
import { inList } from '../../db/rows.ts';
import type { Services } from '../../services.ts';
import { pullSinceCursor } from '../channels/channels.pull.ts';
import { type ChannelRow, connectorFor, LIVE_STATUSES } from '../channels/channels.service.ts';
import { channels } from '../channels/channels.tables.ts';
import { ingestReturn } from './returns.ingest.ts';
import { returnImportCursors, returns } from './returns.tables.ts';

export const RETURN_IMPORT_JOB = 'returns.import';
/** The first pull of a channel looks back this far. */
export const INITIAL_RETURN_DAYS = 60;
const DEFAULT_PULL_MINUTES = 15;

/** Returns follow orders: a channel whose orders are imported has its returns imported too. */
const live = (row: Pick<ChannelRow, 'status' | 'credentials' | 'features'>) =>
  LIVE_STATUSES.includes(row.status as (typeof LIVE_STATUSES)[number]) && !!row.credentials && !!row.features?.orders;

/**
 * The return topics' handler (channels.webhooks applyEvent): null when the event is not a return event, else
 * what was done. A payload that carries the whole return is taken as it is; one that names it is read now.
 */
export async function processReturnEvent(
  services: Services,
  event: { channelId: string | null; provider: string; topic: string; payload: unknown },
): Promise<string | null> {
  const provider = PROVIDERS[event.provider as keyof typeof PROVIDERS];
  const said = provider?.returnWebhook?.(event.topic, event.payload) ?? null;
  if (!said) return null;
  if (!event.channelId) return 'no channel for this shop';
  const [row] = await services.db.select().from(channels).where(eq(channels.id, event.channelId));
  if (!row || !live(row)) return 'returns are not imported for this channel';
  let ret: ProviderReturn | null = 'ret' in said ? said.ret : null;
  if (!ret && 'externalId' in said) {
    const connector = connectorFor(services, row);
    ret = connector.getReturn ? await connector.getReturn(said.externalId) : null;
  }
  if (!ret) return 'no return at the channel';
  const result = await ingestReturn(services, row, ret);
  return `return ${ret.receiptNumber ?? ret.externalId}: ${result.outcome}`;
}

export interface ReturnImportSummary {
  seen: number;
  created: number;
  updated: number;
}

/** Pulls the channel's returns changed since its cursor, page by page; the cursor moves once a pull completes. */
export async function importReturns(services: Services, channelId: string): Promise<ReturnImportSummary> {
  const [row] = await services.db.select().from(channels).where(eq(channels.id, channelId));
  const summary: ReturnImportSummary = { seen: 0, created: 0, updated: 0 };
  if (!row || !live(row)) return summary;
  const connector = connectorFor(services, row);
  await pullSinceCursor(services.db, returnImportCursors, row, {
    firstSince: new Date(Date.now() - INITIAL_RETURN_DAYS * 24 * 60 * 60_000),
    list: async (input) => {
      const page = await connector.listReturns(input);
      const current = await heldCurrent(services, row, page.items);
      return {
        items: page.items.map((ret) => ({ updatedAt: ret.updatedAt, ret, current: current.has(ret.externalId) })),
        nextCursor: page.nextCursor,
      };
    },
    take: async ({ ret, current }) => {
      summary.seen += 1;
      if (current) return;
      const { outcome } = await ingestReturn(services, row, ret);
      if (outcome === 'created') summary.created += 1;
      if (outcome === 'updated') summary.updated += 1;
    },
  });
  return summary;
}

/**
 * Which of these returns we hold as they are now: held updated later, or at the same time with the same status
 * (what ingestReturn would answer 'older' or 'unchanged' for). A pull lists again what came by webhook since the
 * last one; taking each in anew cost a transaction a return, for nothing.
 */
async function heldCurrent(services: Services, row: ChannelRow, listed: ProviderReturn[]): Promise<Set<string>> {
  if (listed.length === 0) return new Set();
  const held = await services.db
    .select({ externalId: returns.externalId, at: returns.providerUpdatedAt, status: returns.providerStatus })
    .from(returns)
    .where(
      and(
        eq(returns.accountId, row.accountId),
        eq(returns.channelId, row.id),
        inList(
          returns.externalId,
          listed.map((r) => r.externalId),
        ),
      ),
    );
  const heldOf = new Map(held.map((h) => [h.externalId, h]));
  return new Set(
    listed
      .filter((r) => {
        const h = heldOf.get(r.externalId);
        if (!h?.at) return false;
        const [known, incoming] = [h.at.getTime(), Date.parse(r.updatedAt)];
        return known > incoming || (known === incoming && h.status === r.status);
      })
      .map((r) => r.externalId),
  );
}

export async function queueReturnImport(services: Services, channelId: string): Promise<boolean> {
  const id = await services.queue?.send(RETURN_IMPORT_JOB, { channelId }, { singletonKey: `returns:${channelId}` });
  return id !== undefined;
}

/** Each minute (the sweep): live channels whose last return pull is older than their reconciliation interval. */
export async function queueDueReturnImports(services: Services): Promise<number> {
  const rows = await services.db
    .select({ id: channels.id, settings: channels.settings, lastRunAt: returnImportCursors.lastRunAt })
    .from(channels)
    .leftJoin(returnImportCursors, eq(returnImportCursors.channelId, channels.id))
    .where(
      and(
        sql`${channels.status} in ('connected', 'error')`,
        sql`${channels.credentials} is not null`,
        sql`(${channels.features} ->> 'orders')::boolean`,
      ),
    );
  let queued = 0;
  const now = Date.now();
  for (const r of rows) {
    const every = (r.settings?.advanced?.reconcileEveryMinutes ?? DEFAULT_PULL_MINUTES) * 60_000;
    if (r.lastRunAt && now - r.lastRunAt.getTime() < every) continue;
    await queueReturnImport(services, r.id);
    queued += 1;
  }
  return queued;
}
