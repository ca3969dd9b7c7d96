import type { RefundState, ReturnStatus } from '@switchyard/contracts';
import { sql } from 'drizzle-orm';
import { bigint, boolean, check, index, integer, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { accounts } from '../accounts/accounts.tables.ts';
import { channels } from '../channels/channels.tables.ts';
import { locations } from '../locations/locations.tables.ts';
import { orderLines, orders } from '../orders/orders.tables.ts';

const at = () => timestamp({ withTimezone: true });
const money = () => bigint({ mode: 'number' }).notNull().default(0);

/**
 * Returns and refunds (issue 16), from the channels and made here. One row per (channel, external id): a
 * redelivered or reordered report of it finds this row. A return made here carries its own id as external id
 * until the channel's refund id is known (written back by the `returns.refund-at-channel` job).
 */
export const returns = pgTable(
  'returns',
  {
    id: text().primaryKey(),
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    channelId: text().references(() => channels.id, { onDelete: 'set null' }),
    externalId: text().notNull(),
    orderExternalId: text(),
    orderId: text().references(() => orders.id, { onDelete: 'set null' }),
    status: text().$type<ReturnStatus>().notNull().default('PENDING'),
    /** Why SKIPPED or ERROR, for the merchant. */
    message: text(),
    /** The channel's own state of it: pending, completed, failed (ProviderReturn.status). */
    providerStatus: text().notNull().default('completed'),
    currency: text().notNull().default('USD'),
    tax: money(),
    adjustment: money(),
    total: money(),
    billName: text(),
    receiptNumber: text(),
    source: text().$type<'channel' | 'switchyard'>().notNull().default('channel'),
    /** A return made here: its refund at the channel (the write-back), what it asked and how it went. */
    refundState: text().$type<RefundState>(),
    refundMessage: text(),
    refundShipping: money(),
    refundReason: text(),
    createdBy: text(),
    providerCreatedAt: at(),
    providerUpdatedAt: at(),
    processedAt: at(),
    createdAt: at().notNull().defaultNow(),
    updatedAt: at().notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('returns_channel_external_key').on(t.accountId, t.channelId, t.externalId),
    index('returns_account_created_idx').on(t.accountId, t.createdAt, t.id),
    index('returns_account_order_external_idx').on(t.accountId, t.orderExternalId),
    index('returns_order_idx').on(t.orderId),
    check('returns_status_check', sql`${t.status} in ('PENDING', 'PROCESSING', 'FINISHED', 'ERROR', 'SKIPPED')`),
  ],
);

/**
 * What a return brings back: a SKU and quantity, the return store (ours, and the channel's location as it
 * said it), and whether the units go back on sale. `restocked`/`released` record what processing did in the
 * ledger (each once: the movements' idempotency keys name the item).
 */
export const returnItems = pgTable(
  'return_items',
  {
    id: text().primaryKey(),
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    returnId: text()
      .notNull()
      .references(() => returns.id, { onDelete: 'cascade' }),
    position: integer().notNull(),
    orderLineId: text().references(() => orderLines.id, { onDelete: 'set null' }),
    lineExternalId: text(),
    sku: text(),
    /** Matched by SKU when processed (no foreign key: the item outlives a deleted variant). */
    variantId: text(),
    qty: integer().notNull(),
    locationId: text().references(() => locations.id, { onDelete: 'set null' }),
    locationExternalId: text(),
    total: money(),
    tax: money(),
    restock: boolean().notNull().default(true),
    channelRestocked: boolean().notNull().default(false),
    /** Units put back on hand, and units of the order's reservation given back instead (never shipped). */
    restocked: integer().notNull().default(0),
    released: integer().notNull().default(0),
  },
  (t) => [
    index('return_items_return_idx').on(t.returnId, t.position),
    index('return_items_line_idx').on(t.orderLineId),
    check('return_items_qty_check', sql`${t.qty} >= 0`),
  ],
);

/** Where each channel's return pull left off (the provider's updated-at). */
export const returnImportCursors = pgTable('return_import_cursors', {
  channelId: text()
    .primaryKey()
    .references(() => channels.id, { onDelete: 'cascade' }),
  accountId: text()
    .notNull()
    .references(() => accounts.id),
  since: at(),
  lastRunAt: at(),
  lastError: text(),
});
