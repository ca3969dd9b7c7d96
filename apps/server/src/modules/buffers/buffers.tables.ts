import { sql } from 'drizzle-orm';
import { check, index, integer, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { accounts } from '../accounts/accounts.tables.ts';
import { channels } from '../channels/channels.tables.ts';

const at = () => timestamp({ withTimezone: true });

/**
 * Dynamic buffers: safety stock held back from one channel for a SKU at a location (SPEC §3: sku,
 * location_external_id, qty, id, channel_id). `location_external_id` is the location's POS store id.
 */
export const buffers = pgTable(
  'buffers',
  {
    id: serial().primaryKey(),
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    sku: text().notNull(),
    locationExternalId: text().notNull(),
    channelId: text()
      .notNull()
      .references(() => channels.id),
    qty: integer().notNull(),
    createdAt: at().notNull().defaultNow(),
    updatedAt: at().notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('buffers_account_key').on(t.accountId, t.channelId, t.sku, t.locationExternalId),
    index('buffers_account_sku_idx').on(t.accountId, t.sku),
    check('buffers_qty_check', sql`${t.qty} >= 0`),
  ],
);
