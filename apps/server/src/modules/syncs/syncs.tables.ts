import type { SyncStatus, SyncTrigger, SyncType } from '@switchyard/contracts';
import { sql } from 'drizzle-orm';
import { check, index, integer, jsonb, pgTable, serial, text, timestamp } from 'drizzle-orm/pg-core';
import { accounts } from '../accounts/accounts.tables.ts';
import { channels } from '../channels/channels.tables.ts';

const at = () => timestamp({ withTimezone: true });

/** One run of a sync job (DESIGN §3): what it was, how far it got, and how it ended. */
export const syncs = pgTable(
  'syncs',
  {
    id: serial().primaryKey(),
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    channelId: text().references(() => channels.id),
    type: text().$type<SyncType>().notNull(),
    status: text().$type<SyncStatus>().notNull().default('queued'),
    trigger: text().$type<SyncTrigger>().notNull().default('manual'),
    /** Items to handle (0 while unknown), handled, and of those failed. */
    total: integer().notNull().default(0),
    processed: integer().notNull().default(0),
    succeeded: integer().notNull().default(0),
    failed: integer().notNull().default(0),
    /** A line for the merchant: what happened, or why the run failed as a whole. */
    message: text(),
    /** The run this one retries (retry of failed items). */
    retryOf: integer(),
    options: jsonb().$type<Record<string, unknown>>().notNull().default({}),
    createdAt: at().notNull().defaultNow(),
    startedAt: at(),
    finishedAt: at(),
    updatedAt: at().notNull().defaultNow(),
  },
  (t) => [
    index('syncs_account_idx').on(t.accountId, t.id),
    index('syncs_account_type_idx').on(t.accountId, t.type, t.id),
    index('syncs_channel_idx').on(t.channelId, t.id),
    check('syncs_status_check', sql`${t.status} in ('queued', 'running', 'succeeded', 'partial', 'failed')`),
  ],
);

/** A failed item of a run, with what is needed to retry it. */
export const syncItems = pgTable(
  'sync_items',
  {
    id: serial().primaryKey(),
    syncId: integer()
      .notNull()
      .references(() => syncs.id, { onDelete: 'cascade' }),
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    /** What the item is, for the merchant: a SKU, "SKU @ store", a product title. */
    label: text().notNull(),
    variantId: text(),
    status: text().$type<'failed' | 'retried' | 'succeeded'>().notNull().default('failed'),
    error: text().notNull(),
    payload: jsonb().$type<Record<string, unknown>>().notNull().default({}),
    createdAt: at().notNull().defaultNow(),
  },
  (t) => [index('sync_items_sync_idx').on(t.syncId, t.id)],
);
