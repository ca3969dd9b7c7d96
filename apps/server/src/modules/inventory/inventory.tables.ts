import type { MovementReason } from '@switchyard/contracts';
import { sql } from 'drizzle-orm';
import {
  bigserial,
  check,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { accounts } from '../accounts/accounts.tables.ts';
import { channels } from '../channels/channels.tables.ts';
import { locations } from '../locations/locations.tables.ts';
import { variants } from '../products/products.tables.ts';

const at = () => timestamp({ withTimezone: true });

/** The current stock of a variant at a location. Changed only together with a movement (ledger.ts). */
export const inventoryLevels = pgTable(
  'inventory_levels',
  {
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    variantId: text()
      .notNull()
      .references(() => variants.id, { onDelete: 'cascade' }),
    locationId: text()
      .notNull()
      .references(() => locations.id, { onDelete: 'cascade' }),
    onHand: integer().notNull().default(0),
    reserved: integer().notNull().default(0),
    updatedAt: at().notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.variantId, t.locationId] }),
    index('inventory_levels_account_location_idx').on(t.accountId, t.locationId),
    check('inventory_levels_reserved_check', sql`${t.reserved} >= 0`),
  ],
);

/**
 * The append-only ledger: every stock change, with why (reason), where from (source: manual, square,
 * shopify, bigcommerce, import, order…) and what caused it (reference: an event id, an order id, a user).
 * `idempotency_key` makes a replayed cause (a redelivered webhook, a retried job) a no-op. Movements outlive
 * the variant and location they name (no foreign key to either): deleting a product writes its stock off
 * (reason `removed`) and keeps its history.
 */
export const inventoryMovements = pgTable(
  'inventory_movements',
  {
    id: bigserial({ mode: 'number' }).primaryKey(),
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    variantId: text().notNull(),
    locationId: text().notNull(),
    /** Change of on_hand (reserved changes carry reservedDelta). */
    delta: integer().notNull(),
    reservedDelta: integer().notNull().default(0),
    /** on_hand after this movement. */
    onHandAfter: integer().notNull(),
    reason: text().$type<MovementReason>().notNull(),
    source: text().notNull(),
    reference: text(),
    idempotencyKey: text(),
    userId: text(),
    createdAt: at().notNull().defaultNow(),
  },
  (t) => [
    index('inventory_movements_level_idx').on(t.variantId, t.locationId, t.id),
    index('inventory_movements_account_idx').on(t.accountId, t.createdAt),
    uniqueIndex('inventory_movements_idempotency_key').on(t.accountId, t.idempotencyKey),
  ],
);

/**
 * What each channel holds for a listing at one of its locations, as far as we know: what we last pushed
 * and had acknowledged, what is in flight, and what the channel last told us (with the provider's time,
 * so an older event cannot overwrite a newer one).
 */
export const channelStock = pgTable(
  'channel_stock',
  {
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    channelId: text()
      .notNull()
      .references(() => channels.id),
    variantId: text()
      .notNull()
      .references(() => variants.id, { onDelete: 'cascade' }),
    externalLocationId: text().notNull(),
    /** Our location the channel location maps to (null: not mapped). */
    locationId: text().references(() => locations.id, { onDelete: 'set null' }),
    inventoryItemId: text().notNull(),
    /** Last quantity the channel acknowledged from us. */
    pushedQty: integer(),
    pushedAt: at(),
    /** A push sent and not yet answered: its quantity (a webhook echoing it is not a change). */
    pendingQty: integer(),
    pendingAt: at(),
    /**
     * What we believed the channel held when our last acknowledged push was made, and the time of that
     * belief: a report from before the push (a sale the push overwrote) counts from here, not from the push.
     */
    basisQty: integer(),
    basisAt: at(),
    /** The quantities sent since the push acknowledged before the last one: reports of any of them are echoes. */
    sentQtys: integer().array(),
    /**
     * The idempotency key of the provider request carrying the pending send, and the quantity it compared with
     * (Shopify's @idempotent, 2026-01): a send whose answer was lost (the process died) is sent again with
     * them before anything else, so the provider answers what it did with it (push.replay.ts).
     */
    pendingKey: text(),
    pendingCompare: integer(),
    /** Last quantity the channel reported (webhook or read), and the provider's time of it. */
    channelQty: integer(),
    channelQtyAt: at(),
    /**
     * When we took that report in (our clock). What the channel holds is whichever we learnt last, its
     * acknowledgement of our push or its report: providers stamp whole seconds, so their time alone cannot
     * order a report against a push made in the same second.
     */
    channelQtySeenAt: at(),
    lastError: text(),
    updatedAt: at().notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.channelId, t.variantId, t.externalLocationId] }),
    index('channel_stock_item_idx').on(t.channelId, t.inventoryItemId, t.externalLocationId),
    index('channel_stock_account_variant_idx').on(t.accountId, t.variantId),
  ],
);

/**
 * The dirty set: (channel, variant) pairs whose available quantity may have changed since the channel's
 * last push. A push job takes the rows marked up to its start and deletes only those it handled; a mark
 * made meanwhile (a later `marked_at`) survives for the next push.
 */
export const inventoryDirty = pgTable(
  'inventory_dirty',
  {
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    channelId: text()
      .notNull()
      .references(() => channels.id),
    variantId: text()
      .notNull()
      .references(() => variants.id, { onDelete: 'cascade' }),
    markedAt: at().notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.channelId, t.variantId] }),
    index('inventory_dirty_marked_idx').on(t.channelId, t.markedAt),
  ],
);

/**
 * A sale (or restock) is counted once (docs/decisions/0008-a-sale-moves-stock-once.md). A channel lowers its
 * own stock when it takes an order and reports that as a stock change; the order import reserves for the same
 * units. Whichever arrives first leaves a row here for the other to meet:
 * - `expected`: an imported order's line says the channel moved `qty` (signed: −q sold, +q put back) at this
 *   channel location at time `at`; the channel's report of it is absorbed instead of counted.
 * - `counted`: a channel report already moved our on_hand by `qty`; an order that turns out to have caused it
 *   reverses it (the order's own verbs then reserve or consume).
 * `remaining` drops as rows are met; a row at 0 is done. Expected rows lapse after EXPECTED_CLAIM_TTL.
 */
export const channelStockClaims = pgTable(
  'channel_stock_claims',
  {
    id: bigserial({ mode: 'number' }).primaryKey(),
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    channelId: text()
      .notNull()
      .references(() => channels.id, { onDelete: 'cascade' }),
    variantId: text().notNull(),
    externalLocationId: text().notNull(),
    /** Our location the channel location mapped to when the row was made (where a reversal lands). */
    locationId: text().notNull(),
    kind: text().$type<'expected' | 'counted'>().notNull(),
    qty: integer().notNull(),
    remaining: integer().notNull(),
    /** The provider's time of the channel's movement (the order's time, or the report's). */
    at: at().notNull(),
    /** Unique per cause: the order line's claim, or the movement's idempotency key. */
    key: text().notNull(),
    reference: text(),
    createdAt: at().notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('channel_stock_claims_key').on(t.accountId, t.key),
    index('channel_stock_claims_open_idx')
      .on(t.channelId, t.variantId, t.externalLocationId, t.kind)
      .where(sql`${t.remaining} <> 0`),
    index('channel_stock_claims_created_idx').on(t.createdAt),
  ],
);
