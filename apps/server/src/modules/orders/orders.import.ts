// Orders arrive by webhook (stored once, processed by the channels.webhook job), by a pull of what changed
// since the channel's cursor (periodic reconciliation and "Import orders now"), and at connect (the open orders
// of the last 60 days, once the catalog is in so their SKUs match). All of it ends in ingestOrder.
import { type ChannelSettings, DEFAULT_CHANNEL_SETTINGS } from '@switchyard/contracts';
import { and, eq, sql } from 'drizzle-orm';
import { PROVIDERS } from '../../connectors/index.ts';
import type { ProviderOrder } from '../../connectors/types.ts';
import { DomainError } from '../../lib/errors.ts';
import type { Services } from '../../services.ts';
import type { Actor } from '../../trpc/context.ts';
import { type ChannelRow, connectorFor, LIVE_STATUSES } from '../channels/channels.service.ts';
import { channels } from '../channels/channels.tables.ts';
import { claimCancelRestock, type IngestChannel, ingestOrder } from './ingest.ts';
import { orderImportCursors, orders } from './orders.tables.ts';
import { recordWriteBack } from './orders.timeline.ts';

export const ORDER_IMPORT_JOB = 'orders.import';
/** At connect: the channel's open orders of this many days. */
export const INITIAL_IMPORT_DAYS = 60;
/** The periodic pull of what webhooks missed, when the channel's reconciliation interval is not set. */
const DEFAULT_PULL_MINUTES = 15;

const settingsOf = (row: Pick<ChannelRow, 'settings'>): ChannelSettings => ({
  ...DEFAULT_CHANNEL_SETTINGS,
  ...(row.settings ?? {}),
});

const live = (row: Pick<ChannelRow, 'status' | 'credentials' | 'features'>) =>
  LIVE_STATUSES.includes(row.status as (typeof LIVE_STATUSES)[number]) && !!row.credentials && !!row.features?.orders;

/**
 * The order topics' handler (channels.webhooks applyEvent): null when the event is not an order event, else
 * what was done. Shopify's payload is the order; BigCommerce and Square name it, and it is read now (so the
 * latest state is taken, whatever order the webhooks come in).
 */
export async function processOrderEvent(
  services: Services,
  event: { channelId: string | null; provider: string; topic: string; payload: unknown },
): Promise<string | null> {
  const provider = PROVIDERS[event.provider as keyof typeof PROVIDERS];
  const said = provider?.orderWebhook?.(event.topic, event.payload) ?? null;
  if (!said) return null;
  if (!event.channelId) return 'no channel for this shop';
  const [row] = await services.db.select().from(channels).where(eq(channels.id, event.channelId));
  if (!row || !live(row)) return 'orders are not imported for this channel';
  let order: ProviderOrder | null = 'order' in said ? said.order : null;
  // A payload that does not say where the channel moved its stock (Shopify's REST-shaped order webhooks carry
  // no fulfillment orders) is read whole: that location is what lets the ledger count the sale once.
  const partial = !order || order.lines.some((l) => l.stockLocationExternalId === undefined);
  if (partial) {
    const connector = connectorFor(services, row);
    const externalId = 'order' in said ? said.order.externalId : said.externalId;
    if (connector.getOrder) order = (await connector.getOrder(externalId)) ?? order;
  }
  if (!order) return 'order not found at the channel';
  if (!importable(row, order)) return 'placed before orders are imported for this channel';
  const result = await ingestOrder(services, channelOf(row), order);
  return `order ${order.name}: ${result.outcome}`;
}

const channelOf = (row: ChannelRow): IngestChannel => ({
  id: row.id,
  accountId: row.accountId,
  type: row.type,
  name: row.name,
  settings: settingsOf(row),
});

/** Orders placed before the channel's orderImportFrom day (when set) are left at the channel. */
function importable(row: ChannelRow, order: ProviderOrder) {
  const from = settingsOf(row).channel?.orderImportFrom;
  return !from || new Date(order.createdAt).getTime() >= new Date(`${from}T00:00:00Z`).getTime();
}

export interface ImportSummary {
  seen: number;
  created: number;
  updated: number;
}

/**
 * Pulls the channel's orders changed since its cursor (the first time: the open ones of the last 60 days),
 * page by page, each taken in by ingestOrder; the cursor moves to the newest updated-at of a completed pull.
 */
export async function importOrders(services: Services, channelId: string): Promise<ImportSummary> {
  const [row] = await services.db.select().from(channels).where(eq(channels.id, channelId));
  if (!row || !live(row)) return { seen: 0, created: 0, updated: 0 };
  const [cursor] = await services.db
    .select()
    .from(orderImportCursors)
    .where(eq(orderImportCursors.channelId, channelId));
  const initial = !cursor?.since;
  const windowStart = new Date(Date.now() - INITIAL_IMPORT_DAYS * 24 * 60 * 60_000);
  // A little overlap: providers stamp whole seconds, and a duplicate changes nothing.
  const since = cursor?.since ? new Date(cursor.since.getTime() - 2000) : windowStart;
  const connector = connectorFor(services, row);
  const summary: ImportSummary = { seen: 0, created: 0, updated: 0 };
  let newest = cursor?.since ?? null;
  let page: string | null = null;
  try {
    do {
      const result = await connector.listOrders({ cursor: page, since: since.toISOString() });
      for (const order of result.items) {
        summary.seen += 1;
        const updated = new Date(order.updatedAt);
        if (!newest || updated > newest) newest = updated;
        if (!importable(row, order)) continue;
        if (initial && (order.cancelled || new Date(order.createdAt) < windowStart || isDone(order))) continue;
        const { outcome } = await ingestOrder(services, channelOf(row), order, { historical: initial });
        if (outcome === 'created') summary.created += 1;
        if (outcome === 'updated') summary.updated += 1;
      }
      page = result.nextCursor;
    } while (page);
  } catch (err) {
    await saveCursor(services, row, null, err instanceof Error ? err.message.slice(0, 500) : 'import failed');
    throw err;
  }
  await saveCursor(services, row, newest ?? new Date(), null);
  return summary;
}

/** Not open any more: fulfilled, or a POS sale complete at its store (its units are long gone from our start). */
const isDone = (order: ProviderOrder) =>
  !!order.completedAtStore ||
  ['fulfilled', 'shipped', 'completed'].includes((order.fulfillmentStatus ?? '').toLowerCase());

async function saveCursor(services: Services, row: ChannelRow, since: Date | null, error: string | null) {
  const now = new Date();
  await services.db
    .insert(orderImportCursors)
    .values({ channelId: row.id, accountId: row.accountId, since, lastRunAt: now, lastError: error })
    .onConflictDoUpdate({
      target: orderImportCursors.channelId,
      set: {
        lastRunAt: now,
        lastError: error,
        ...(since ? { since: sql`greatest(${orderImportCursors.since}, ${since})` } : {}),
      },
    });
}

/** Queues a pull for the channel (one waits at a time). */
export async function queueOrderImport(services: Services, channelId: string): Promise<boolean> {
  const id = await services.queue?.send(ORDER_IMPORT_JOB, { channelId }, { singletonKey: `orders:${channelId}` });
  return id !== undefined;
}

/** "Import orders now" on the channel page. */
export async function importNow(services: Services, actor: Actor, channelId: string): Promise<{ queued: boolean }> {
  const [row] = await services.db
    .select()
    .from(channels)
    .where(and(eq(channels.id, channelId), eq(channels.accountId, actor.accountId)));
  if (!row) throw new DomainError('NOT_FOUND', 'Channel not found');
  if (!LIVE_STATUSES.includes(row.status as (typeof LIVE_STATUSES)[number]) || !row.credentials) {
    throw new DomainError('INVALID_STATE', `${row.name} is not connected. Re-authorise it first.`);
  }
  if (!row.features?.orders)
    throw new DomainError('INVALID_STATE', `Order import is off for ${row.name}. Turn it on first.`);
  await queueOrderImport(services, row.id);
  return { queued: true };
}

/** Each minute (the sweep): channels whose last pull is older than their reconciliation interval are pulled. */
export async function queueDueOrderImports(services: Services): Promise<number> {
  const rows = await services.db
    .select({
      id: channels.id,
      settings: channels.settings,
      lastRunAt: orderImportCursors.lastRunAt,
      since: orderImportCursors.since,
    })
    .from(channels)
    .leftJoin(orderImportCursors, eq(orderImportCursors.channelId, channels.id))
    .where(
      and(
        sql`${channels.status} in ('connected', 'error')`,
        sql`${channels.credentials} is not null`,
        sql`(${channels.features} ->> 'orders')::boolean`,
        // The first pull waits for the catalog import, which queues it (runCatalogImport).
        sql`${orderImportCursors.since} is not null`,
      ),
    );
  let queued = 0;
  const now = Date.now();
  for (const r of rows) {
    const every = (r.settings?.advanced?.reconcileEveryMinutes ?? DEFAULT_PULL_MINUTES) * 60_000;
    if (r.lastRunAt && now - r.lastRunAt.getTime() < every) continue;
    await queueOrderImport(services, r.id);
    queued += 1;
  }
  return queued;
}

/** The write-back of a cancel made here: the channel is told; where it cannot be, the merchant is. */
export async function cancelAtChannel(
  services: Services,
  input: { orderId: string; accountId: string },
  final: boolean,
) {
  const [order] = await services.db
    .select()
    .from(orders)
    .where(and(eq(orders.id, input.orderId), eq(orders.accountId, input.accountId)));
  if (!order?.channelId) return;
  const key = `cancel:${order.id}`;
  const [row] = await services.db.select().from(channels).where(eq(channels.id, order.channelId));
  try {
    if (!row) throw new DomainError('NOT_FOUND', 'The channel of this order was removed.');
    const connector = connectorFor(services, row);
    if (!connector.cancelOrder) {
      await recordWriteBack(
        services.db,
        order.accountId,
        order.id,
        key,
        `${row.name} cannot cancel orders through its API: cancel it there too.`,
        'failed',
      );
      return;
    }
    const asked = new Date().toISOString();
    const result = await connector.cancelOrder({ externalId: order.externalId, reason: order.cancelReason });
    if ('unsupported' in result) {
      await recordWriteBack(
        services.db,
        order.accountId,
        order.id,
        key,
        `${result.unsupported} Cancel it at ${row.name} too.`,
        'failed',
      );
      return;
    }
    // The channel put its units back: its stock report of that is met, not counted again.
    await claimCancelRestock(services, channelOf(row), order.id, asked);
    await recordWriteBack(services.db, order.accountId, order.id, key, `Cancelled at ${row.name}.`, 'ok');
  } catch (err) {
    const message = err instanceof Error ? err.message.slice(0, 300) : 'failed';
    await recordWriteBack(
      services.db,
      order.accountId,
      order.id,
      key,
      final
        ? `Cancelling at the channel failed: ${message}. Cancel it there.`
        : `Cancelling at the channel failed: ${message}. Retrying.`,
      'failed',
    );
    if (!(err instanceof DomainError)) throw err;
  }
}
