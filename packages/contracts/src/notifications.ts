import { z } from 'zod';
import { DEFAULT_PAGE_SIZE } from './limits.ts';
import { DEFAULT_LOW_STOCK_THRESHOLD, LowStockThreshold } from './metrics.ts';

/**
 * Notifications (issue 17): an in-app feed of what needs the merchant, each linking to where it is handled,
 * and, per type, a daily e-mail digest in the account's time zone.
 *
 * Calls (tRPC):
 * - `notifications.list(NotificationsListInput)` → NotificationList (newest first; `unread` filters)
 * - `notifications.unreadCount()` → { unread } (the header bell polls it)
 * - `notifications.markRead({ ids })` → { updated }; `notifications.markAllRead()` → { updated }
 * - `notifications.settings()` → NotificationSettings; `notifications.updateSettings(NotificationSettingsPatch)`
 * - v2 `PATCH options` (NotificationSettingsPatch) → NotificationSettings: the same options for API keys.
 */

export const NOTIFICATION_TYPES = [
  'sync_failed',
  'dead_letter',
  'order_flagged',
  'order_waiting',
  'stock_low',
  'stock_out',
  'channel_disconnected',
  'payment_failed',
  'return_created',
] as const;
export const NotificationType = z.enum(NOTIFICATION_TYPES);
export type NotificationType = z.infer<typeof NotificationType>;

export const NOTIFICATION_TYPE_LABELS: Record<NotificationType, string> = {
  sync_failed: 'Sync runs with failed items',
  dead_letter: 'Jobs that failed every retry',
  order_flagged: 'Flagged orders',
  order_waiting: 'Orders waiting too long',
  stock_low: 'Low stock',
  stock_out: 'Out of stock',
  channel_disconnected: 'Channel disconnected or uninstalled',
  payment_failed: 'Failed payment',
  return_created: 'New returns',
};

export const NOTIFICATION_TYPE_DESCRIPTIONS: Record<NotificationType, string> = {
  sync_failed: 'A sync run ended failed, or with items a channel refused.',
  dead_letter: 'A background job used up its retries and waits on the Syncs screen.',
  order_flagged: 'An order has a line without stock, an unknown SKU or a store that rejected it.',
  order_waiting: 'Open orders older than your threshold that nobody has fulfilled yet.',
  stock_low: 'A SKU fell to or below your low-stock threshold on a channel.',
  stock_out: 'A SKU sold out on a channel (available to sell reached 0).',
  channel_disconnected: 'A channel was uninstalled or its access revoked: it no longer syncs.',
  payment_failed: 'Your subscription payment failed.',
  return_created: 'A customer return came in from a channel.',
};

/** Kept this long, read or not; the prune job deletes older ones. */
export const NOTIFICATION_RETENTION_DAYS = 90;
/** How many the header bell's dropdown shows. */
export const NOTIFICATION_RECENT_COUNT = 8;

export const DEFAULT_NOTIFICATION_SETTINGS = {
  /** Types that also go in the daily e-mail digest. */
  emailTypes: ['channel_disconnected', 'payment_failed', 'dead_letter'] as NotificationType[],
  /** The hour (0–23, the account's time zone) the digest is sent. */
  digestHour: 8,
  /** An open order older than this (hours) is "waiting too long". */
  orderWaitHours: 24,
  /** Available to sell at or below this (and above 0) is low stock: the account setting (metrics.ts). */
  lowStockThreshold: DEFAULT_LOW_STOCK_THRESHOLD,
};

export const Notification = z.object({
  id: z.string(),
  type: NotificationType,
  title: z.string(),
  body: z.string(),
  /** An app path (`/orders/ord_…`) where it is handled. */
  link: z.string(),
  /** How many times it happened while unread (a repeating condition updates one notification). */
  count: z.number().int(),
  createdAt: z.date(),
  /** The latest occurrence. */
  lastAt: z.date(),
  readAt: z.date().nullable(),
});
export type Notification = z.infer<typeof Notification>;

const BooleanParam = z.preprocess((v) => (v === 'true' ? true : v === 'false' ? false : v), z.boolean());

/** The /notifications/ screen's search params. */
export const NotificationsSearch = z.object({
  unread: BooleanParam.catch(false).default(false),
  limit: z.coerce.number().int().min(1).max(200).catch(DEFAULT_PAGE_SIZE).default(DEFAULT_PAGE_SIZE),
  offset: z.coerce.number().int().min(0).catch(0).default(0),
});
export type NotificationsSearch = z.infer<typeof NotificationsSearch>;

export const NotificationsListInput = z.object({
  unread: z.boolean().default(false),
  limit: z.number().int().min(1).max(200).default(DEFAULT_PAGE_SIZE),
  offset: z.number().int().min(0).max(1_000_000).default(0),
});
export type NotificationsListInput = z.input<typeof NotificationsListInput>;

export const NotificationList = z.object({
  results: z.array(Notification),
  total: z.number().int(),
  unread: z.number().int(),
});
export type NotificationList = z.infer<typeof NotificationList>;

export const NotificationIdsInput = z.object({
  ids: z.array(z.string().trim().min(1).max(64)).min(1, 'Name at least one notification').max(200),
});
export type NotificationIdsInput = z.infer<typeof NotificationIdsInput>;

export const NotificationSettings = z.object({
  emailTypes: z.array(NotificationType),
  digestHour: z.number().int(),
  orderWaitHours: z.number().int(),
  lowStockThreshold: z.number().int(),
  /** The account's time zone, which the digest hour is in. */
  timezone: z.string(),
  nextDigestAt: z.date().nullable(),
});
export type NotificationSettings = z.infer<typeof NotificationSettings>;

export const NotificationSettingsPatch = z
  .object({
    emailTypes: z.array(NotificationType).max(NOTIFICATION_TYPES.length),
    digestHour: z.number().int().min(0, 'Choose an hour from 0 to 23').max(23, 'Choose an hour from 0 to 23'),
    orderWaitHours: z
      .number()
      .int()
      .min(1, 'At least 1 hour')
      .max(24 * 30, 'At most 720 hours (30 days)'),
    /** Sets the account's low-stock threshold (the setting of /settings/account). */
    lowStockThreshold: LowStockThreshold,
  })
  .partial()
  .strict();
export type NotificationSettingsPatch = z.infer<typeof NotificationSettingsPatch>;
