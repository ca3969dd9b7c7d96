import { index, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * Every message the product sends, written in the same transaction as its cause and delivered by a
 * job. Without SMTP it stays here, and the development mailbox shows it.
 */
export const mailMessages = pgTable(
  'mail_messages',
  {
    id: text().primaryKey(),
    accountId: text(),
    to: text().notNull(),
    subject: text().notNull(),
    text: text().notNull(),
    html: text().notNull(),
    links: jsonb().$type<string[]>().notNull().default([]),
    template: text().notNull(),
    status: text().$type<'queued' | 'sent' | 'stored' | 'failed'>().notNull().default('queued'),
    error: text(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    sentAt: timestamp({ withTimezone: true }),
  },
  (t) => [index('mail_messages_created_idx').on(t.createdAt)],
);
