import type { NotificationType } from '@switchyard/contracts';
import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { accounts } from '../accounts/accounts.tables.ts';

/**
 * The in-app feed. A repeating condition (the same dedupe key) updates its one unread notification (count,
 * latest time and text) instead of adding another; once read, the next occurrence is a new one.
 */
export const notifications = pgTable(
  'notifications',
  {
    id: text().primaryKey(),
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    type: text().$type<NotificationType>().notNull(),
    title: text().notNull(),
    body: text().notNull(),
    link: text().notNull(),
    dedupeKey: text(),
    count: integer().notNull().default(1),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    lastAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    readAt: timestamp({ withTimezone: true }),
    /** When it last went out in an e-mail digest; a later occurrence (lastAt) goes in the next one. */
    emailedAt: timestamp({ withTimezone: true }),
  },
  (t) => [
    index('notifications_account_last_idx').on(t.accountId, t.lastAt, t.id),
    index('notifications_unread_idx').on(t.accountId).where(sql`${t.readAt} is null`),
    uniqueIndex('notifications_dedupe_key')
      .on(t.accountId, t.dedupeKey)
      .where(sql`${t.readAt} is null and ${t.dedupeKey} is not null`),
    index('notifications_last_idx').on(t.lastAt),
  ],
);

/**
 * Per account: which types also go by e-mail, when, and how long an order may wait. The low-stock threshold is an
 * account setting (settings/settings.stock.ts), shared with the dashboard.
 */
export const notificationSettings = pgTable('notification_settings', {
  accountId: text()
    .primaryKey()
    .references(() => accounts.id),
  emailTypes: jsonb().$type<NotificationType[]>().notNull(),
  digestHour: integer().notNull(),
  orderWaitHours: integer().notNull(),
  /** The account's local date (YYYY-MM-DD) of the last digest, claimed before sending so it goes once a day. */
  lastDigestDate: text(),
  updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
});
