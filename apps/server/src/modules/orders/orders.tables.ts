import type { Address, FulfillmentType, TimelineKind } from '@switchyard/contracts';
import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { accounts } from '../accounts/accounts.tables.ts';
import { channels } from '../channels/channels.tables.ts';
import { locations } from '../locations/locations.tables.ts';

const at = () => timestamp({ withTimezone: true });
const money = () => bigint({ mode: 'number' }).notNull().default(0);

/**
 * Every channel's orders (issue 13). One row per (channel, external id); the provider's `updated_at` orders
 * reports of it (latest wins, older and duplicate reports change nothing). Money in minor units of `currency`.
 */
export const orders = pgTable(
  'orders',
  {
    id: text().primaryKey(),
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    channelId: text().references(() => channels.id, { onDelete: 'set null' }),
    externalId: text().notNull(),
    number: text().notNull(),
    status: integer().notNull(),
    fulfillmentType: text().$type<FulfillmentType>().notNull().default('ship'),
    customerName: text(),
    customerEmail: text(),
    customerPhone: text(),
    shippingAddress: jsonb().$type<Address>(),
    billingAddress: jsonb().$type<Address>(),
    pickupLocationId: text().references(() => locations.id, { onDelete: 'set null' }),
    /** The channel's location of a POS sale or pickup (mapped to ours through the channel's location map). */
    channelLocationId: text(),
    currency: text().notNull(),
    subtotal: money(),
    shippingTotal: money(),
    discountTotal: money(),
    taxTotal: money(),
    total: money(),
    financialStatus: text(),
    fulfillmentStatus: text(),
    note: text(),
    tags: text().array().notNull().default(sql`'{}'::text[]`),
    adminUrl: text(),
    itemCount: integer().notNull().default(0),
    /** An allocation at 0, 4 or 5, or a line whose SKU is not in the catalog. */
    flagged: boolean().notNull().default(false),
    /** Lowercased number, customer name and e-mail, and SKUs: what the list's search looks in. */
    searchText: text().notNull().default(''),
    cancelledAt: at(),
    cancelReason: text(),
    placedAt: at().notNull(),
    providerUpdatedAt: at().notNull(),
    createdAt: at().notNull().defaultNow(),
    updatedAt: at().notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('orders_channel_external_key').on(t.accountId, t.channelId, t.externalId),
    index('orders_account_status_idx').on(t.accountId, t.status, t.id),
    index('orders_account_id_idx').on(t.accountId, t.id),
    index('orders_account_placed_idx').on(t.accountId, t.placedAt),
    // The list's search (`search_text like '%term%'`): trigrams, so a term of 3+ characters reads only the rows
    // that can match instead of every order of the account (pg_trgm, loaded by PGlite too: db/client.ts).
    index('orders_search_trgm_idx').using('gin', t.searchText.op('gin_trgm_ops')),
    check('orders_status_check', sql`${t.status} between 0 and 9`),
  ],
);

export const orderLines = pgTable(
  'order_lines',
  {
    id: text().primaryKey(),
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    orderId: text()
      .notNull()
      .references(() => orders.id, { onDelete: 'cascade' }),
    position: integer().notNull(),
    externalId: text().notNull(),
    sku: text(),
    /** Matched by SKU at import (no foreign key: the line outlives a deleted variant). */
    variantId: text(),
    title: text().notNull(),
    quantity: integer().notNull(),
    unitPrice: money(),
    discount: money(),
    tax: money(),
    fulfilledQty: integer().notNull().default(0),
    cancelledQty: integer().notNull().default(0),
    refundedQty: integer().notNull().default(0),
    /** Where the channel moved its own stock for this line, and whether we met that movement (claims.ts). */
    stockLocationExternalId: text(),
    channelClaimed: boolean().notNull().default(false),
    channelRestockClaimed: boolean().notNull().default(false),
  },
  (t) => [
    index('order_lines_order_idx').on(t.orderId, t.position),
    index('order_lines_account_sku_idx').on(t.accountId, t.sku),
  ],
);

/**
 * Where each line's units come from: a location, a quantity and an allocation status (DESIGN §3: 0
 * unallocated, 1 allocated, 2 picked, 3 fulfilled, 4 insufficient stock, 5 rejected). `reserved` is what this
 * allocation holds in the ledger now (released on cancel, consumed on fulfilment): the ledger invariant is
 * reserved(level) = Σ allocations.reserved at that level.
 */
export const orderAllocations = pgTable(
  'order_allocations',
  {
    id: text().primaryKey(),
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    orderId: text()
      .notNull()
      .references(() => orders.id, { onDelete: 'cascade' }),
    lineId: text()
      .notNull()
      .references(() => orderLines.id, { onDelete: 'cascade' }),
    variantId: text(),
    locationId: text().references(() => locations.id, { onDelete: 'set null' }),
    quantity: integer().notNull(),
    status: integer().notNull(),
    reserved: integer().notNull().default(0),
    reason: text(),
    createdAt: at().notNull().defaultNow(),
    updatedAt: at().notNull().defaultNow(),
  },
  (t) => [
    index('order_allocations_order_idx').on(t.orderId),
    index('order_allocations_location_idx').on(t.accountId, t.locationId, t.status),
    check('order_allocations_status_check', sql`${t.status} between 0 and 5`),
    check('order_allocations_reserved_check', sql`${t.reserved} >= 0 and ${t.reserved} <= ${t.quantity}`),
  ],
);

/** The order's timeline: imported, status changes (who, from, to), allocations, comments, write-backs. */
export const orderEvents = pgTable(
  'order_events',
  {
    id: text().primaryKey(),
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    orderId: text()
      .notNull()
      .references(() => orders.id, { onDelete: 'cascade' }),
    kind: text().$type<TimelineKind>().notNull(),
    message: text().notNull(),
    actor: text(),
    userId: text(),
    fromStatus: integer(),
    toStatus: integer(),
    outcome: text().$type<'ok' | 'failed' | 'pending'>(),
    /** A write-back's job key, so its outcome updates this entry. */
    key: text(),
    createdAt: at().notNull().defaultNow(),
  },
  (t) => [
    index('order_events_order_idx').on(t.orderId, t.createdAt),
    uniqueIndex('order_events_key').on(t.accountId, t.key),
  ],
);

/** Where each channel's order pull left off (its provider's updated-at cursor). */
export const orderImportCursors = pgTable('order_import_cursors', {
  channelId: text()
    .primaryKey()
    .references(() => channels.id, { onDelete: 'cascade' }),
  accountId: text()
    .notNull()
    .references(() => accounts.id),
  /** The newest provider updated-at seen by a completed pull. */
  since: at(),
  lastRunAt: at(),
  lastError: text(),
});
