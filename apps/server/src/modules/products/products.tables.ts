import type { SyncStatusCode } from '@switchyard/contracts';
import { sql } from 'drizzle-orm';
import { check, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { accounts } from '../accounts/accounts.tables.ts';
import { channels } from '../channels/channels.tables.ts';

const at = () => timestamp({ withTimezone: true });

/** One catalog per account: products with variants; money in minor units of the account's currency. */
export const products = pgTable(
  'products',
  {
    id: text().primaryKey(),
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    title: text().notNull(),
    description: text().notNull().default(''),
    brand: text(),
    productType: text(),
    status: text().$type<'active' | 'draft' | 'archived'>().notNull().default('active'),
    /** Image URLs: ours (files/upload) or the channel's. */
    images: jsonb().$type<string[]>().notNull().default([]),
    createdAt: at().notNull().defaultNow(),
    updatedAt: at().notNull().defaultNow(),
  },
  (t) => [index('products_account_idx').on(t.accountId, t.createdAt)],
);

/** A sellable unit. SKU is unique in the account: channels' variants are matched to ours by it. */
export const variants = pgTable(
  'variants',
  {
    id: text().primaryKey(),
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    productId: text()
      .notNull()
      .references(() => products.id, { onDelete: 'cascade' }),
    sku: text().notNull(),
    /** Alternate lookup code. */
    alu: text(),
    barcode: text(),
    title: text().notNull().default(''),
    price: integer().notNull().default(0),
    compareAtPrice: integer(),
    position: integer().notNull().default(0),
    createdAt: at().notNull().defaultNow(),
    updatedAt: at().notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('variants_account_sku_key').on(t.accountId, t.sku),
    index('variants_product_idx').on(t.productId, t.position),
    index('variants_account_alu_idx').on(t.accountId, t.alu),
    index('variants_account_barcode_idx').on(t.accountId, t.barcode),
    check('variants_price_check', sql`${t.price} >= 0`),
  ],
);

/**
 * A variant on a channel: the channel's ids for it and where its sync stands (DESIGN §3:
 * 0 not synced, 1 synced, 2 pending, 3 error).
 */
export const listings = pgTable(
  'listings',
  {
    id: text().primaryKey(),
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    channelId: text()
      .notNull()
      .references(() => channels.id),
    variantId: text()
      .notNull()
      .references(() => variants.id, { onDelete: 'cascade' }),
    externalProductId: text(),
    externalVariantId: text(),
    /** What the channel keeps stock against (Shopify InventoryItem, BigCommerce variant, Square variation). */
    inventoryItemId: text(),
    syncStatusCode: integer().$type<SyncStatusCode>().notNull().default(0),
    lastError: text(),
    lastSyncedAt: at(),
    createdAt: at().notNull().defaultNow(),
    updatedAt: at().notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('listings_channel_variant_key').on(t.channelId, t.variantId),
    uniqueIndex('listings_channel_item_key').on(t.channelId, t.inventoryItemId),
    index('listings_variant_idx').on(t.variantId),
    index('listings_account_channel_status_idx').on(t.accountId, t.channelId, t.syncStatusCode),
    check('listings_sync_status_check', sql`${t.syncStatusCode} between 0 and 3`),
  ],
);
