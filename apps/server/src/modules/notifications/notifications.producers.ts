// The conditions other modules raise through one small call each (issue 17). Each knows where its notification
// is handled (the link) and which repeats are one condition (the dedupe key).
import { DEFAULT_NOTIFICATION_SETTINGS, SYNC_TYPE_LABELS, type SyncStatus, type SyncType } from '@switchyard/contracts';
import { and, eq, max } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.ts';
import type { Services } from '../../services.ts';
import { channels } from '../channels/channels.tables.ts';
import { locationsByIds } from '../locations/locations.read.ts';
import { findWaitingOrders } from '../orders/orders.waiting.ts';
import { readLowStockThreshold } from '../settings/settings.stock.ts';
import { notify } from './notifications.service.ts';
import { notificationSettings, notifications } from './notifications.tables.ts';

/** A sync run ended failed, or with items that failed (syncs.records finishSync). */
export async function notifySyncOutcome(
  db: Db | Tx,
  run: {
    id: number;
    accountId: string;
    channelId: string | null;
    channelName: string | null;
    type: SyncType;
    status: SyncStatus;
    failed: number;
    message: string | null;
  },
) {
  if (run.status !== 'failed' && run.status !== 'partial') return;
  const what = SYNC_TYPE_LABELS[run.type] ?? run.type;
  const where = run.channelName ? ` with ${run.channelName}` : '';
  await notify(db, run.accountId, {
    type: 'sync_failed',
    title:
      run.status === 'failed'
        ? `${what}${where} failed`
        : `${what}${where}: ${run.failed} ${run.failed === 1 ? 'item' : 'items'} failed`,
    body:
      run.status === 'failed'
        ? `Run #${run.id} stopped: ${run.message ?? 'no reason was recorded'}.`
        : `Run #${run.id} finished, but the channel refused ${run.failed} ${run.failed === 1 ? 'item' : 'items'}. Open the run to see why and retry them.`,
    link: `/syncs/${run.id}`,
    dedupeKey: `sync_failed:${run.channelId ?? 'account'}:${run.type}`,
  });
}

/** A job used up its retries and lies in its dead-letter queue (jobs/queue.ts calls this on the last failure). */
export async function notifyDeadLetter(services: Services, jobName: string, data: unknown, error: unknown) {
  const fields = (data && typeof data === 'object' ? data : {}) as { accountId?: unknown; channelId?: unknown };
  let accountId = typeof fields.accountId === 'string' ? fields.accountId : null;
  const channelId = typeof fields.channelId === 'string' ? fields.channelId : null;
  let channelName: string | null = null;
  if (channelId) {
    const [channel] = await services.db
      .select({ accountId: channels.accountId, name: channels.name })
      .from(channels)
      .where(eq(channels.id, channelId));
    if (channel && (!accountId || accountId === channel.accountId)) {
      accountId = channel.accountId;
      channelName = channel.name;
    }
  }
  if (!accountId) return; // a job of no account (a sweep): the logs have it
  const message = error instanceof Error ? error.message : typeof error === 'string' ? error : 'no error was recorded';
  await notify(services.db, accountId, {
    type: 'dead_letter',
    title: `A background job failed every retry${channelName ? ` (${channelName})` : ''}`,
    body: `${jobName}: ${message.slice(0, 300)}. It waits under “Jobs that failed every retry” on the Syncs screen.`,
    link: '/syncs',
    dedupeKey: `dead_letter:${jobName}:${channelId ?? accountId}`,
  });
}

/** An order became flagged (orders.timeline recomputeFlags, on the transition only). */
export async function notifyOrderFlagged(tx: Db | Tx, order: { id: string; accountId: string; number: string }) {
  await notify(tx, order.accountId, {
    type: 'order_flagged',
    title: `Order ${order.number} is flagged`,
    body: 'A line has no stock where it was routed, an unknown SKU, or a store rejected it. Route it again or adjust it.',
    link: `/orders/${order.id}`,
    dedupeKey: `order_flagged:${order.id}`,
  });
}

/** A channel was uninstalled or its access revoked (channels.webhooks). */
export async function notifyChannelDisconnected(
  tx: Db | Tx,
  channel: { id: string; accountId: string; name: string },
  reason: string,
) {
  await notify(tx, channel.accountId, {
    type: 'channel_disconnected',
    title: `${channel.name} is disconnected`,
    body: `${reason} Stock, products and orders no longer sync with it until it is re-authorised.`,
    link: `/channels/${channel.id}/advanced`,
    dedupeKey: `channel_disconnected:${channel.id}`,
  });
}

/** The subscription payment failed (billing: the account went past due). */
export async function notifyPaymentFailed(tx: Db | Tx, accountId: string, detail: { reason: string; link: string }) {
  await notify(tx, accountId, {
    type: 'payment_failed',
    title: 'Your subscription payment failed',
    body: `We could not collect the payment: ${detail.reason} Update your payment method to keep full use of Switchyard.`,
    link: detail.link,
    dedupeKey: 'payment_failed',
  });
}

/** A return came in (the returns module). */
export async function notifyReturnCreated(
  tx: Db | Tx,
  accountId: string,
  ret: {
    id: string;
    externalId: string;
    receiptNumber?: string | null;
    orderNumber?: string | null;
    channelName?: string | null;
  },
) {
  await notify(tx, accountId, {
    type: 'return_created',
    title: `New return ${ret.receiptNumber ?? ret.externalId}${ret.orderNumber ? ` for order ${ret.orderNumber}` : ''}`,
    body: `A customer return came in${ret.channelName ? ` from ${ret.channelName}` : ''}. Check its items and where they restock.`,
    link: `/returns?external_id=${encodeURIComponent(ret.externalId)}`,
    dedupeKey: `return_created:${ret.id}`,
  });
}

export interface StockChange {
  variantId: string;
  sku: string;
  /** Our location of the level: named in the notification (its store id orders them, S2 before S10). */
  locationId: string;
  storeId: string;
  /** What the channel held before (null: not known, so no transition can be told). */
  before: number | null;
  after: number;
}

/**
 * Levels a push just set on a channel (inventory push): a SKU that sold out (above 0 → 0), or fell to the
 * account's low-stock threshold (above it → at or below it, still above 0). Only transitions: a level that stays
 * at 0 push after push says nothing again.
 */
export async function notifyStockChanges(
  db: Db | Tx,
  accountId: string,
  channel: { id: string; name: string },
  changes: StockChange[],
) {
  const moved = changes.filter((c) => c.before !== null && c.before !== c.after);
  if (moved.length === 0) return;
  // The threshold is read only where a level fell and still has some: only such a change can cross it.
  const lowStockThreshold = moved.some((c) => c.after > 0 && c.after < (c.before as number))
    ? await readLowStockThreshold(db, accountId)
    : 0;
  // One notification per SKU and kind, naming every location of this push where it happened.
  const byVariant = new Map<string, { sku: string; out: StockChange[]; low: StockChange[] }>();
  for (const c of moved) {
    const before = c.before as number;
    const kind =
      before > 0 && c.after === 0
        ? 'out'
        : c.after > 0 && c.after <= lowStockThreshold && before > lowStockThreshold
          ? 'low'
          : null;
    if (!kind) continue;
    const entry = byVariant.get(c.variantId) ?? { sku: c.sku, out: [], low: [] };
    entry[kind].push(c);
    byVariant.set(c.variantId, entry);
  }
  if (byVariant.size === 0) return;
  // The locations by name (a store id may be a channel's code, Square's location id say), in their store ids'
  // order (S2 before S10), whatever order the channel answered in.
  const names = new Map(
    (
      await locationsByIds(
        db,
        accountId,
        [...byVariant.values()].flatMap((e) => [...e.out, ...e.low]).map((c) => c.locationId),
      )
    ).map((l) => [l.id, l.name]),
  );
  const where = (list: StockChange[], to: (c: StockChange) => string) =>
    [...list]
      .sort((a, b) => a.storeId.localeCompare(b.storeId, undefined, { numeric: true }))
      .map((c) => `${names.get(c.locationId) ?? c.storeId} (${c.before} → ${to(c)})`)
      .join(', ');
  for (const [variantId, { sku, out, low }] of byVariant) {
    const link = `/products/${channel.id}?filter=${encodeURIComponent(JSON.stringify({ search: sku }))}`;
    if (out.length > 0) {
      await notify(db, accountId, {
        type: 'stock_out',
        title: `${sku} is out of stock on ${channel.name}`,
        body: `Available to sell fell to 0 at ${where(out, () => '0')}: on hand less reserved, buffers and safety stock leave nothing to sell.`,
        link,
        dedupeKey: `stock_out:${variantId}:${channel.id}`,
      });
    }
    if (low.length > 0) {
      await notify(db, accountId, {
        type: 'stock_low',
        title: `${sku} is low on ${channel.name}`,
        body: `Available to sell fell to your low-stock threshold (${lowStockThreshold}) at ${where(low, (c) => String(c.after))}.`,
        link,
        dedupeKey: `stock_low:${variantId}:${channel.id}`,
      });
    }
  }
}

export const ORDER_WAITING_KEY = 'order_waiting';

/**
 * The periodic check: per account, orders still to be fulfilled older than its threshold. It notifies when an
 * order crossed the threshold since the account was last told (so a backlog that only ages says nothing new),
 * with the count of all waiting orders.
 */
export async function checkWaitingOrders(db: Db, now = new Date()): Promise<number> {
  const saved = await db
    .select({ accountId: notificationSettings.accountId, hours: notificationSettings.orderWaitHours })
    .from(notificationSettings);
  const hoursOf = new Map(saved.map((s) => [s.accountId, s.hours]));
  const defaultHours = DEFAULT_NOTIFICATION_SETTINGS.orderWaitHours;
  const cutoff = (hours: number) => new Date(now.getTime() - hours * 3_600_000);
  const waiting = await findWaitingOrders(
    db,
    saved.map((s) => ({ accountId: s.accountId, cutoff: cutoff(s.hours) })),
    cutoff(defaultHours),
  );
  let raised = 0;
  for (const w of waiting) {
    const hours = hoursOf.get(w.accountId) ?? defaultHours;
    const crossedAt = new Date(w.newestPlacedAt.getTime() + hours * 3_600_000);
    const [last] = await db
      .select({ at: max(notifications.lastAt) })
      .from(notifications)
      .where(and(eq(notifications.accountId, w.accountId), eq(notifications.dedupeKey, ORDER_WAITING_KEY)));
    if (last?.at && last.at >= crossedAt) continue;
    await notify(db, w.accountId, {
      type: 'order_waiting',
      title: `${w.count} ${w.count === 1 ? 'order is' : 'orders are'} waiting more than ${hours} hours`,
      body: `The oldest was placed ${w.oldestPlacedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC and is still not fulfilled. Your threshold is ${hours} hours (Notifications → Settings).`,
      link: '/orders?sort_by=placed_at&sort=asc',
      dedupeKey: ORDER_WAITING_KEY,
      count: w.count,
    });
    raised += 1;
  }
  return raised;
}
