import type { NotificationsListInput, NotificationType } from '@switchyard/contracts';
import type { QueryClient } from '@tanstack/react-query';
import type { Trpc } from './trpc.ts';

/** The bell and the feed are read again this often while the page is open, so new ones show without a reload. */
export const NOTIFICATIONS_POLL_MS = 15_000;

/** The unread count goes on its own request (not batched): the bell polls it on every screen. */
export function unreadCountOptions(trpc: Trpc) {
  return {
    ...trpc.notifications.unreadCount.queryOptions(undefined, { trpc: { context: { skipBatch: true } } }),
    refetchInterval: NOTIFICATIONS_POLL_MS,
  };
}

export function notificationListOptions(trpc: Trpc, input: NotificationsListInput, poll = true) {
  return {
    ...trpc.notifications.list.queryOptions(input, { trpc: { context: { skipBatch: true } } }),
    refetchInterval: poll ? NOTIFICATIONS_POLL_MS : (false as const),
  };
}

/** After marking read: the count, every list. */
export async function refreshNotifications(queryClient: QueryClient, trpc: Trpc) {
  await queryClient.invalidateQueries(trpc.notifications.pathFilter());
}

export const NOTIFICATION_COLORS: Record<NotificationType, string> = {
  sync_failed: 'red',
  dead_letter: 'red',
  order_flagged: 'orange',
  order_waiting: 'yellow',
  stock_low: 'yellow',
  stock_out: 'red',
  channel_disconnected: 'red',
  payment_failed: 'red',
  return_created: 'blue',
};

const RELATIVE = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });

/** "5 minutes ago", "yesterday": how long ago a time was, for feeds. */
export function timeAgo(at: Date, now = new Date()): string {
  const seconds = Math.round((at.getTime() - now.getTime()) / 1000);
  const abs = Math.abs(seconds);
  if (abs < 45) return 'just now';
  if (abs < 45 * 60) return RELATIVE.format(Math.round(seconds / 60), 'minute');
  if (abs < 22 * 3600) return RELATIVE.format(Math.round(seconds / 3600), 'hour');
  if (abs < 26 * 86400) return RELATIVE.format(Math.round(seconds / 86400), 'day');
  return RELATIVE.format(Math.round(seconds / (30 * 86400)), 'month');
}
