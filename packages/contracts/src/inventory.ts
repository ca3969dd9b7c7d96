import { z } from 'zod';
import { DEFAULT_PAGE_SIZE } from './limits.ts';

/**
 * Catalog, locations, inventory, dynamic buffers and syncs (issue 6): the shapes web and server share.
 * Each area's calls are listed next to its schemas.
 */

// ---------------------------------------------------------------------------------------------- shared

export const SortOrder = z.enum(['asc', 'desc']);
export type SortOrder = z.infer<typeof SortOrder>;

/** A listing's sync status (DESIGN §3). */
export const SYNC_STATUS_CODES = [0, 1, 2, 3] as const;
export type SyncStatusCode = (typeof SYNC_STATUS_CODES)[number];
export const SYNC_STATUS_LABELS: Record<SyncStatusCode, string> = {
  0: 'Not synced',
  1: 'Synced',
  2: 'Pending',
  3: 'Error',
};

/** Why stock changed. */
export const MOVEMENT_REASONS = [
  'adjustment', // a manual change by a number of units
  'count', // a stock count: set to a number
  'import', // first stock taken from a channel at catalog import
  'channel', // a change made at a channel (POS sale, stock edit in Shopify/BigCommerce)
  'reconcile', // drift repaired by reconciliation
  'removed', // the variant was deleted: its stock written off (the ledger keeps its history)
  'order', // later issues: orders, reservations, returns
  'return',
  'transfer',
] as const;
export const MovementReason = z.enum(MOVEMENT_REASONS);
export type MovementReason = z.infer<typeof MovementReason>;

// ------------------------------------------------------------------------------------------- locations

/**
 * v1 `GET locations` (sort store_id, order ASC, search) → { results: Location[], total };
 * v1 `POST locations` LocationInput → Location; v1 `PATCH locations/{id}` LocationPatch → Location;
 * v1 `DELETE locations/{id}` → { id }. tRPC `locations.list/get/create/update/delete` over the same service.
 */
export const LocationAddress = z.object({
  address1: z.string().trim().max(200).nullish(),
  address2: z.string().trim().max(200).nullish(),
  city: z.string().trim().max(100).nullish(),
  province: z.string().trim().max(100).nullish(),
  zip: z.string().trim().max(20).nullish(),
  country: z.string().trim().max(100).nullish(),
  phone: z.string().trim().max(40).nullish(),
});
export type LocationAddress = z.infer<typeof LocationAddress>;

/** SPEC §5: an `enabled` sent as an empty string is stored as false. */
const EnabledFlag = z.preprocess(
  (v) => (v === '' ? false : v === 'true' ? true : v === 'false' ? false : v),
  z.boolean(),
);

/** Routing's coordinates of a location (decimal degrees); null: placed from its postal code when it has one. */
export const Latitude = z.number().min(-90, 'Should be between -90 and 90').max(90, 'Should be between -90 and 90');
export const Longitude = z
  .number()
  .min(-180, 'Should be between -180 and 180')
  .max(180, 'Should be between -180 and 180');

export const LocationInput = z.object({
  name: z.string().trim().min(1, '* Required').max(100),
  /** The POS store (Square location id) this location is. */
  store_id: z.string().trim().min(1, '* Required').max(100),
  enabled: EnabledFlag.default(true),
  ships: z.boolean().default(true),
  pickup: z.boolean().default(false),
  priority: z.number().int().min(0).max(1000).default(0),
  address: LocationAddress.default({}),
  latitude: Latitude.nullish(),
  longitude: Longitude.nullish(),
});
export type LocationInput = z.input<typeof LocationInput>;
export const LocationPatch = z.object({
  name: z.string().trim().min(1, '* Required').max(100).optional(),
  store_id: z.string().trim().min(1, '* Required').max(100).optional(),
  enabled: EnabledFlag.optional(),
  ships: z.boolean().optional(),
  pickup: z.boolean().optional(),
  priority: z.number().int().min(0).max(1000).optional(),
  address: LocationAddress.optional(),
  latitude: Latitude.nullish(),
  longitude: Longitude.nullish(),
});
export type LocationPatch = z.input<typeof LocationPatch>;

export const Location = z.object({
  id: z.string(),
  name: z.string(),
  store_id: z.string(),
  enabled: z.boolean(),
  ships: z.boolean(),
  pickup: z.boolean(),
  priority: z.number().int(),
  address: LocationAddress,
  /** For routing's distances (issue 14); the server always sends them (null when not set). */
  latitude: z.number().nullish(),
  longitude: z.number().nullish(),
  created_at: z.date(),
  updated_at: z.date(),
});
export type Location = z.infer<typeof Location>;

export const LocationsQuery = z.object({
  search: z.string().trim().max(200).optional(),
  sort: z.enum(['store_id', 'name', 'priority', 'id']).catch('store_id').default('store_id'),
  order: z
    .preprocess((v) => (typeof v === 'string' ? v.toLowerCase() : v), SortOrder)
    .catch('asc')
    .default('asc'),
  limit: z.coerce.number().int().min(1).max(500).catch(200).default(200),
  offset: z.coerce.number().int().min(0).catch(0).default(0),
});
export type LocationsQuery = z.infer<typeof LocationsQuery>;

// -------------------------------------------------------------------------------------- dynamic buffers

/** SPEC §2: the dynamic buffers list's search params. */
export const BUFFER_SORT_KEYS = ['sku', 'location_external_id', 'qty', 'id', 'channel_id'] as const;
export const BuffersSearch = z.object({
  limit: z.coerce.number().int().min(1).max(200).catch(DEFAULT_PAGE_SIZE).default(DEFAULT_PAGE_SIZE),
  offset: z.coerce.number().int().min(0).catch(0).default(0),
  sort: SortOrder.catch('desc').default('desc'),
  sort_by: z.enum(BUFFER_SORT_KEYS).catch('id').default('id'),
  sku: z.string().trim().max(200).optional(),
  search: z.string().trim().max(200).optional(),
  /** SPEC: "channel_id (non-negative)"; our channel ids are strings (`chn_…`). */
  channel_id: z.string().trim().max(64).optional(),
});
export type BuffersSearch = z.infer<typeof BuffersSearch>;

export const BufferInput = z.object({
  sku: z.string().trim().min(1, '* Required').max(200),
  location_external_id: z.string().trim().min(1, '* Required').max(100),
  channel_id: z.string().trim().min(1, '* Required').max(64),
  qty: z.coerce
    .number({ error: 'Should be a whole number' })
    .int('Should be a whole number')
    .min(0, 'Should be 0 or more')
    .max(1_000_000, 'Should be at most 1,000,000'),
});
export type BufferInput = z.input<typeof BufferInput>;
export const BufferPatch = BufferInput.partial();

export const Buffer = z.object({
  id: z.number().int(),
  sku: z.string(),
  location_external_id: z.string(),
  channel_id: z.string(),
  qty: z.number().int(),
});
export type Buffer = z.infer<typeof Buffer>;

// ---------------------------------------------------------------------------------------------- syncs

export const SYNC_TYPES = [
  'inventory_push',
  'catalog_import',
  'catalog_publish',
  'order_import',
  'reconcile',
  'refund',
  'fulfillment_write_back',
] as const;
export const SyncType = z.enum(SYNC_TYPES);
export type SyncType = z.infer<typeof SyncType>;
export const SYNC_TYPE_LABELS: Record<SyncType, string> = {
  inventory_push: 'Stock push',
  catalog_import: 'Catalog import',
  catalog_publish: 'Catalog publish',
  order_import: 'Order import',
  reconcile: 'Reconciliation',
  refund: 'Refund',
  fulfillment_write_back: 'Fulfillment write-back',
};
export const SYNC_STATUSES = ['queued', 'running', 'succeeded', 'partial', 'failed'] as const;
export const SyncStatus = z.enum(SYNC_STATUSES);
export type SyncStatus = z.infer<typeof SyncStatus>;
export const SYNC_TRIGGERS = ['webhook', 'manual', 'schedule', 'retry', 'change'] as const;
export const SyncTrigger = z.enum(SYNC_TRIGGERS);
export type SyncTrigger = z.infer<typeof SyncTrigger>;

const BooleanParam = z.preprocess((v) => (v === 'true' ? true : v === 'false' ? false : v), z.boolean());

/** SPEC §2: the syncs list's search params. */
export const SyncsSearch = z.object({
  type: SyncType.optional().catch(undefined),
  has_errors: BooleanParam.catch(false).default(false),
  limit: z.coerce.number().int().min(1).max(200).catch(DEFAULT_PAGE_SIZE).default(DEFAULT_PAGE_SIZE),
  offset: z.coerce.number().int().min(0).catch(0).default(0),
  sort: SortOrder.catch('desc').default('desc'),
});
export type SyncsSearch = z.infer<typeof SyncsSearch>;

// -------------------------------------------------------------------------------------------- products

export const QTY_OPERATIONS = ['=', '>', '<', '>=', '<='] as const;
export const ProductsFilter = z.object({
  syncStatusCode: z.coerce.number().int().min(0).max(3).optional().catch(undefined),
  skuOrAlu: z.enum(['sku', 'alu']).catch('sku').default('sku'),
  qtyOperation: z.enum(QTY_OPERATIONS).catch('=').default('='),
  qty: z.coerce.number().int().optional().catch(undefined),
  /** Comma-separated SKUs (or ALUs, per skuOrAlu). */
  skus: z.string().trim().max(5000).optional(),
  /** A location's store_id: qty filters and shows stock there. */
  location: z.string().trim().max(100).optional(),
  /** Comma-separated brands. */
  brands: z.string().trim().max(2000).optional(),
  search: z.string().trim().max(200).optional(),
  /** 'true' | 'false': listed with sync on / off (a listing in status 0 is off). */
  sync: z.enum(['true', 'false']).optional().catch(undefined),
  /** 'true': on sale (compare-at price above price). */
  sale: z.enum(['true', 'false']).optional().catch(undefined),
  /** simple: one variant; variants: several; both. */
  type: z.enum(['both', 'simple', 'variants']).catch('both').default('both'),
});
export type ProductsFilter = z.infer<typeof ProductsFilter>;

/** SPEC §2: the products list's search params. */
export const ProductsSearch = z.object({
  currentPage: z.coerce.number().int().min(1).catch(1).default(1),
  sizePerPage: z.coerce.number().int().min(1).max(200).catch(DEFAULT_PAGE_SIZE).default(DEFAULT_PAGE_SIZE),
  filter: ProductsFilter.catch(() => ProductsFilter.parse({})).default(() => ProductsFilter.parse({})),
});
export type ProductsSearch = z.infer<typeof ProductsSearch>;
