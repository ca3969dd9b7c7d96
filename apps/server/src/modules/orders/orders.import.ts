// Orders arrive by webhook (stored once, processed by the channels.webhook job), by a pull of what changed
// since the channel's cursor (periodic reconciliation and "Import orders now"), and at connect (the open orders
// of the last 60 days, once the catalog is in so their SKUs match). All of it ends in ingestOrder.
import { type ChannelSettings, DEFAULT_CHANNEL_SETTINGS, type SyncTrigger } from '@switchyard/contracts';
import { and, eq, sql } from 'drizzle-orm';
import { PROVIDERS } from '../../connectors/index.ts';
import type { Connector, ProviderOrder } from '../../connectors/types.ts';
import { inList } from '../../db/rows.ts';
import { DomainError } from '../../lib/errors.ts';
import type { Services } from '../../services.ts';
import type { Actor } from '../../trpc/context.ts';
import { pullSinceCursor } from '../channels/channels.pull.ts';
import { type ChannelRow, connectorFor, LIVE_STATUSES } from '../channels/channels.service.ts';
import { channels } from '../channels/channels.tables.ts';
import { finishSync, recordSyncProgress, restartSync, runningSync, startSync } from '../syncs/syncs.records.ts';
import { syncs } from '../syncs/syncs.tables.ts';
import { claimCancelRestock, type IngestChannel, ingestOrder } from './ingest.ts';
import { orderImportCursors, orders } from './orders.tables.ts';
import { recordWriteBack } from './orders.timeline.ts';

export const ORDER_IMPORT_JOB = 'orders.import';
/** Attempts of a pull after the first (the job's retry limit). */
export const ORDER_IMPORT_RETRIES = 5;
/** At connect: the channel's open orders of this many days. */
export const INITIAL_IMPORT_DAYS = 60;
/** The periodic pull of what webhooks missed, when the channel's reconciliation interval is not set. */
const DEFAULT_PULL_MINUTES = 15;

export const settingsOf = (row: Pick<ChannelRow, 'settings'>): ChannelSettings => ({
  ...DEFAULT_CHANNEL_SETTINGS,
  ...(row.settings ?? {}),
});

export const live = (row: Pick<ChannelRow, 'status' | 'credentials' | 'features'>) =>
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
  const externalId = 'order' in said ? said.order.externalId : said.externalId;
  const order = await wholeOrder(connectorFor(services, row), externalId, 'order' in said ? said.order : null);
  if (!order) return 'order not found at the channel';
  if (!importable(row, order)) return 'placed before orders are imported for this channel';
  const result = await ingestOrder(services, channelOf(row), order);
  return `order ${order.name}: ${result.outcome}`;
}

/** Whether a webhook's order must be read from the channel: it carried none, or lines without their location. */
export const needsRead = (carried: ProviderOrder | null) =>
  !carried || carried.lines.some((l) => l.stockLocationExternalId === undefined);

/**
 * The order to take in for a webhook: what its payload carried, unless that does not say where the channel
 * moved its stock (Shopify's REST-shaped order webhooks carry no fulfillment orders) or carried nothing
 * (BigCommerce, Square): then it is read whole, as it is now. That location is what lets the ledger count the
 * sale once.
 */
export async function wholeOrder(
  connector: Pick<Connector, 'getOrder'>,
  externalId: string,
  carried: ProviderOrder | null,
): Promise<ProviderOrder | null> {
  if (!needsRead(carried) || !connector.getOrder) return carried;
  return (await connector.getOrder(externalId)) ?? carried;
}

export const channelOf = (row: ChannelRow): IngestChannel => ({
  id: row.id,
  accountId: row.accountId,
  type: row.type,
  name: row.name,
  settings: settingsOf(row),
});

/** Orders placed before the channel's orderImportFrom day (when set) are left at the channel. */
export function importable(row: ChannelRow, order: ProviderOrder) {
  const from = settingsOf(row).channel?.orderImportFrom;
  return !from || new Date(order.createdAt).getTime() >= new Date(`${from}T00:00:00Z`).getTime();
}

export interface ImportSummary {
  seen: number;
  created: number;
  updated: number;
}

/** How a pull was asked for: visible pulls (at connect, "Import orders now", a retry) show as a run on /syncs. */
export interface OrderImportJob {
  channelId: string;
}

/**
 * Pulls the channel's orders changed since its cursor (the first time: the open ones of the last 60 days),
 * page by page, each taken in by ingestOrder; the cursor moves to the newest updated-at of a completed pull.
 * The pull is an "Order import" run on /syncs: the run queued for it (at connect, "Import orders now", a
 * retry), else, for the periodic pull, one opened only when it takes in a new or changed order (a quiet pull
 * leaves no row).
 * A failed attempt leaves the cursor where it was, so the retry takes the same orders (each changes nothing
 * the second time).
 */
export async function importOrders(
  services: Services,
  channelId: string,
  attempt: { retryCount: number; retryLimit: number } = { retryCount: 0, retryLimit: 0 },
): Promise<ImportSummary> {
  const { db } = services;
  const [row] = await db.select().from(channels).where(eq(channels.id, channelId));
  if (!row) return { seen: 0, created: 0, updated: 0 };
  let runId = await runningSync(db, row.accountId, channelId, 'order_import');
  if (runId) await restartSync(db, runId);
  if (!live(row)) {
    if (runId)
      await finishSync(db, runId, {
        error: `Orders are not imported for ${row.name}: it is not connected, or order import is off.`,
      });
    return { seen: 0, created: 0, updated: 0 };
  }
  const openRun = async () => {
    runId ??= await startSync(db, { accountId: row.accountId, channelId, type: 'order_import', trigger: 'schedule' });
    return runId;
  };
  const windowStart = new Date(Date.now() - INITIAL_IMPORT_DAYS * 24 * 60 * 60_000);
  const connector = connectorFor(services, row);
  const summary: ImportSummary = { seen: 0, created: 0, updated: 0 };
  let taken = 0;
  let changed = 0;
  try {
    await pullSinceCursor(db, orderImportCursors, row, {
      firstSince: windowStart,
      list: ({ initial, ...input }) =>
        !initial && connector.listOrderStamps
          ? changedOrders(services, row, connector, input)
          : wholeOrders(services, row, connector, input),
      take: async ({ order }, { initial }) => {
        summary.seen += 1;
        if (!order) return;
        if (!importable(row, order)) return;
        if (initial && (order.cancelled || new Date(order.createdAt) < windowStart || isDone(order))) return;
        const { outcome } = await ingestOrder(services, channelOf(row), order, { historical: initial });
        if (outcome === 'created') summary.created += 1;
        if (outcome === 'updated') summary.updated += 1;
        if (outcome === 'created' || outcome === 'updated') changed += 1;
        taken += 1;
      },
      page: async () => {
        if (taken > 0 && (runId || changed > 0)) {
          await recordSyncProgress(db, await openRun(), row.accountId, { succeeded: taken });
        }
        taken = 0;
        changed = 0;
      },
    });
  } catch (err) {
    // The cursor stays where it was, its row saying why (pullSinceCursor).
    const message = err instanceof Error ? err.message.slice(0, 500) : 'import failed';
    const id = await openRun();
    if (attempt.retryCount >= attempt.retryLimit) {
      await finishSync(db, id, { error: `Orders could not be read from ${row.name}: ${message}` });
    } else {
      await db
        .update(syncs)
        .set({ message: `Attempt ${attempt.retryCount + 1} failed: ${message} Retrying.`, updatedAt: new Date() })
        .where(eq(syncs.id, id));
    }
    throw err;
  }
  if (runId) await finishSync(db, runId, { message: importMessage(summary) });
  return summary;
}

/** A page of a pull: each order listed, with the order itself where it was read whole (null: held as it is). */
type Listed = { updatedAt: string; order: ProviderOrder | null };

/**
 * A page of orders read whole. Those we already hold as they are now (most came by webhook) are passed over,
 * as changedOrders does: taking each in again cost a transaction an order, and a pull after a busy spell went
 * through every order of it one by one.
 */
const wholeOrders = async (
  services: Services,
  row: ChannelRow,
  connector: Connector,
  input: { cursor: string | null; since: string },
) => {
  const page = await connector.listOrders(input);
  const current = await heldCurrent(services, row, page.items);
  return {
    items: page.items.map(
      (order): Listed => ({ updatedAt: order.updatedAt, order: current.has(order.externalId) ? null : order }),
    ),
    nextCursor: page.nextCursor,
  };
};

/** Which of these orders we hold as they are now (held updated at or after the channel's updated-at). */
async function heldCurrent(
  services: Services,
  row: ChannelRow,
  listed: { externalId: string; updatedAt: string }[],
): Promise<Set<string>> {
  if (listed.length === 0) return new Set();
  const held = await services.db
    .select({ externalId: orders.externalId, at: orders.providerUpdatedAt })
    .from(orders)
    .where(
      and(
        eq(orders.accountId, row.accountId),
        eq(orders.channelId, row.id),
        inList(
          orders.externalId,
          listed.map((l) => l.externalId),
        ),
      ),
    );
  const heldAt = new Map(held.map((h) => [h.externalId, h.at.getTime()]));
  return new Set(
    listed
      .filter((l) => {
        const at = heldAt.get(l.externalId);
        return at !== undefined && at >= Date.parse(l.updatedAt);
      })
      .map((l) => l.externalId),
  );
}

/**
 * A periodic pull where the channel lists what changed for little (Connector.listOrderStamps): only orders we do
 * not hold as they are now are read whole, most having come by webhook already. Listing Shopify's orders whole
 * cost some 128 points each, so at a standard plan's 50 a second a pull of a busy hour's orders held the shop's
 * budget for minutes, and webhook reads and pushes waited behind it.
 */
async function changedOrders(
  services: Services,
  row: ChannelRow,
  connector: Connector,
  input: { cursor: string | null; since: string },
) {
  const stamps = await (connector.listOrderStamps as NonNullable<Connector['listOrderStamps']>)(input);
  const current = await heldCurrent(services, row, stamps.items);
  const items: Listed[] = [];
  for (const stamp of stamps.items) {
    items.push({
      updatedAt: stamp.updatedAt,
      order: current.has(stamp.externalId) ? null : ((await connector.getOrder?.(stamp.externalId)) ?? null),
    });
  }
  return { items, nextCursor: stamps.nextCursor };
}

const importMessage = (s: ImportSummary) =>
  s.created + s.updated === 0
    ? `No new or changed orders (${s.seen} read).`
    : `${s.created} new and ${s.updated} changed order${s.created + s.updated === 1 ? '' : 's'} taken in.`;

/** Not open any more: fulfilled, or a POS sale complete at its store (its units are long gone from our start). */
const isDone = (order: ProviderOrder) =>
  !!order.completedAtStore ||
  ['fulfilled', 'shipped', 'completed'].includes((order.fulfillmentStatus ?? '').toLowerCase());

/**
 * Queues a pull for the channel (one waits at a time). With `visible`, the pull shows as a queued "Order
 * import" run on /syncs (answered; a run already queued or running for the channel is answered instead).
 */
export async function queueOrderImport(
  services: Services,
  channelId: string,
  visible?: { accountId: string; trigger: SyncTrigger; retryOf?: number },
): Promise<number | null> {
  let runId: number | null = null;
  if (visible) {
    runId = await runningSync(services.db, visible.accountId, channelId, 'order_import');
    if (runId && !visible.retryOf) return runId;
    runId = await startSync(services.db, {
      accountId: visible.accountId,
      channelId,
      type: 'order_import',
      trigger: visible.trigger,
      status: 'queued',
      retryOf: visible.retryOf ?? null,
    });
  }
  const job: OrderImportJob = { channelId };
  await services.queue?.send(ORDER_IMPORT_JOB, job, { singletonKey: `orders:${channelId}` });
  return runId;
}

/** "Import orders now" on the channel page. */
export async function importNow(
  services: Services,
  actor: Actor,
  channelId: string,
): Promise<{ queued: boolean; syncId: number | null }> {
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
  const syncId = await queueOrderImport(services, row.id, { accountId: row.accountId, trigger: 'manual' });
  return { queued: true, syncId };
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
