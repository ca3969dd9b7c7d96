import { z } from 'zod';
import { ChannelType } from './channels.ts';
import { MovementReason, ProductsSearch, SyncStatus, SyncTrigger, SyncType } from './inventory.ts';

/**
 * Products, manual stock changes and file uploads (issue 6): the shapes web and server share.
 * The full list of calls is in /work/notes/products-api.md; in short (tRPC unless a REST path is given):
 * - `products.list` ProductsListInput → ProductListResult (rows are variants; see ProductListItem)
 * - `products.get` { id } → ProductDetail
 * - `products.create` ProductCreateInput → ProductDetail
 * - `products.update` ProductUpdateInput → ProductDetail
 * - `products.delete` { id } → { id }
 * - `products.bulk` ProductsBulkInput → ProductsBulkResult
 * - `products.sync` { id, channelId? } → ProductDetail
 * - `products.brands` (no input) → string[]
 * - `inventory.adjust` StockAdjustInput → StockChangeResult
 * - `inventory.count` StockCountInput → StockChangeResult
 * - frontend `GET products/{id}` → ProductDetail; `POST products` ProductCreateInput → ProductDetail;
 *   `PUT products` ProductsBulkUpdateInput → { results: ProductDetail[] }; `PUT products/{id}` ProductInput →
 *   ProductDetail
 * - v1/v2 `POST products` ProductCreateInput → ProductDetail; `DELETE product/{id}` → { id }
 * - v1/v2 `POST files/upload` (multipart, field `file`) → UploadedFile
 */

// ------------------------------------------------------------------------------------------------ input

export const PRODUCT_STATUSES = ['active', 'draft', 'archived'] as const;
export const ProductStatus = z.enum(PRODUCT_STATUSES);
export type ProductStatus = z.infer<typeof ProductStatus>;
export const PRODUCT_STATUS_LABELS: Record<ProductStatus, string> = {
  active: 'Active',
  draft: 'Draft',
  archived: 'Archived',
};

/** Largest price in minor units (a 32-bit column). */
export const MAX_PRICE_MINOR = 2_000_000_000;
export const MAX_VARIANTS_PER_PRODUCT = 100;
export const MAX_IMAGES_PER_PRODUCT = 50;

const optionalText = (max: number) =>
  z
    .string()
    .trim()
    .max(max, `Should be at most ${max} characters`)
    .nullish()
    .transform((v) => (v ? v : null));

const Money = z.coerce
  .number({ error: 'Should be a number' })
  .int('Should be in minor units (a whole number)')
  .min(0, 'Should be 0 or more')
  .max(MAX_PRICE_MINOR, 'Too large');

export const VariantInput = z.object({
  /** Present when updating an existing variant of the product; absent for a new one. */
  id: z.string().min(1).max(64).optional(),
  sku: z.string().trim().min(1, '* Required').max(200, 'Should be at most 200 characters'),
  alu: optionalText(200),
  barcode: optionalText(200),
  title: z.string().trim().max(200, 'Should be at most 200 characters').default(''),
  /** Minor units (cents). */
  price: Money,
  /** Minor units; above price means on sale. */
  compareAtPrice: Money.nullish().transform((v) => v ?? null),
});
export type VariantInput = z.input<typeof VariantInput>;

/** An image we serve (files/upload answers an absolute URL) or a channel's image URL. */
export const ImageUrl = z
  .string()
  .trim()
  .max(2000)
  .regex(/^https?:\/\//, 'Should be an http(s) address');

export const ProductInput = z.object({
  title: z.string().trim().min(1, '* Required').max(255, 'Should be at most 255 characters'),
  description: z.string().max(20_000, 'Should be at most 20,000 characters').default(''),
  brand: optionalText(200),
  productType: optionalText(200),
  status: ProductStatus.default('active'),
  images: z.array(ImageUrl).max(MAX_IMAGES_PER_PRODUCT, `At most ${MAX_IMAGES_PER_PRODUCT} images`).default([]),
  variants: z
    .array(VariantInput)
    .min(1, 'A product needs at least one variant')
    .max(MAX_VARIANTS_PER_PRODUCT, `At most ${MAX_VARIANTS_PER_PRODUCT} variants`)
    .superRefine((variants, ctx) => {
      const seen = new Map<string, number>();
      variants.forEach((v, i) => {
        const key = v.sku.trim();
        if (seen.has(key)) {
          ctx.addIssue({ code: 'custom', path: [i, 'sku'], message: 'SKU is used by another variant of this product' });
        } else seen.set(key, i);
      });
    }),
});
export type ProductInput = z.input<typeof ProductInput>;
export type ProductInputParsed = z.output<typeof ProductInput>;

/**
 * Create: the product and its variants; with `channelId` (the channel the screen is on) also listings on
 * that channel, pending (syncStatusCode 2), and a publish is queued when the channel's catalog feature is on.
 */
export const ProductCreateInput = ProductInput.extend({
  channelId: z.string().min(1).max(64).optional(),
});
export type ProductCreateInput = z.input<typeof ProductCreateInput>;

/**
 * Update replaces the product's fields and its variant list: variants with an id are updated, variants
 * without one are created, and existing variants left out are deleted.
 */
export const ProductUpdateInput = ProductInput.extend({ id: z.string().min(1).max(64) });
export type ProductUpdateInput = z.input<typeof ProductUpdateInput>;

/** frontend `PUT products`: several products at once (each as in ProductUpdateInput), all or none. */
export const ProductsBulkUpdateInput = z.object({
  products: z.array(ProductUpdateInput).min(1).max(100),
});
export type ProductsBulkUpdateInput = z.input<typeof ProductsBulkUpdateInput>;

export const ProductsListInput = ProductsSearch.extend({ channelId: z.string().min(1).max(64) });
export type ProductsListInput = z.input<typeof ProductsListInput>;

/** Bulk actions on the list: `ids` are PRODUCT ids (a row's productId); delete removes whole products. */
export const ProductsBulkInput = z.object({
  action: z.enum(['sync', 'delete']),
  ids: z.array(z.string().min(1).max(64)).min(1, 'Select at least one product').max(500),
  /** For sync: the channel to sync to (default: every channel the products are listed on). */
  channelId: z.string().min(1).max(64).optional(),
});
export type ProductsBulkInput = z.input<typeof ProductsBulkInput>;
export const ProductsBulkResult = z.object({
  action: z.enum(['sync', 'delete']),
  /** Products acted on (ids of another account or unknown are skipped, not errors). */
  count: z.number().int(),
  ids: z.array(z.string()),
});
export type ProductsBulkResult = z.infer<typeof ProductsBulkResult>;

export const ProductSyncInput = z.object({
  id: z.string().min(1).max(64),
  /** Only this channel (default: every channel the product is listed on). */
  channelId: z.string().min(1).max(64).optional(),
});
export type ProductSyncInput = z.input<typeof ProductSyncInput>;

/**
 * A request id made by the client once per intended change (e.g. crypto.randomUUID() when the modal
 * opens): the same id sent twice applies once.
 */
const RequestId = z.string().trim().min(8, 'A request id is required').max(100);
const Note = z.string().trim().max(500, 'Should be at most 500 characters').optional();

/** `inventory.adjust`: change on hand by `delta` units (negative to remove). */
export const StockAdjustInput = z.object({
  variantId: z.string().min(1).max(64),
  locationId: z.string().min(1).max(64),
  delta: z.coerce
    .number({ error: 'Should be a number' })
    .int('Should be a whole number')
    .min(-1_000_000)
    .max(1_000_000)
    .refine((v) => v !== 0, 'Should not be 0'),
  note: Note,
  requestId: RequestId,
});
export type StockAdjustInput = z.input<typeof StockAdjustInput>;

/** `inventory.count`: set on hand to `count` (a stock take); the movement records the difference. */
export const StockCountInput = z.object({
  variantId: z.string().min(1).max(64),
  locationId: z.string().min(1).max(64),
  count: z.coerce
    .number({ error: 'Should be a number' })
    .int('Should be a whole number')
    .min(0, 'Should be 0 or more')
    .max(10_000_000),
  note: Note,
  requestId: RequestId,
});
export type StockCountInput = z.input<typeof StockCountInput>;

export const StockChangeResult = z.object({
  variantId: z.string(),
  locationId: z.string(),
  onHand: z.number().int(),
  reserved: z.number().int(),
  /** The change applied (0 when nothing changed). */
  delta: z.number().int(),
  /** false: this request id was applied before (a double submit), or the count equalled on hand. */
  applied: z.boolean(),
});
export type StockChangeResult = z.infer<typeof StockChangeResult>;

// ----------------------------------------------------------------------------------------------- output

export const ListingSummary = z.object({
  id: z.string(),
  channelId: z.string(),
  externalProductId: z.string().nullable(),
  externalVariantId: z.string().nullable(),
  inventoryItemId: z.string().nullable(),
  syncStatusCode: z.number().int().min(0).max(3),
  lastError: z.string().nullable(),
  lastSyncedAt: z.date().nullable(),
});
export type ListingSummary = z.infer<typeof ListingSummary>;

/**
 * A row of `products.list`: one VARIANT of the account's catalog, with its listing on the list's channel
 * when it has one (`listing: null` = not on that channel; its syncStatusCode counts as 0, not synced).
 */
export const ProductListItem = z.object({
  /** The variant id (rows are variants). */
  id: z.string(),
  productId: z.string(),
  title: z.string(),
  variantTitle: z.string(),
  sku: z.string(),
  alu: z.string().nullable(),
  barcode: z.string().nullable(),
  brand: z.string().nullable(),
  productType: z.string().nullable(),
  status: ProductStatus,
  /** The product's first image, if any. */
  image: z.string().nullable(),
  /** Minor units. */
  price: z.number().int(),
  compareAtPrice: z.number().int().nullable(),
  /** Variants of the product (1 = simple). */
  variantCount: z.number().int(),
  /** On hand at the filter's location, else summed over all locations. */
  onHand: z.number().int(),
  reserved: z.number().int(),
  /** The listing's sync status on this channel; 0 without a listing. */
  syncStatusCode: z.number().int().min(0).max(3),
  listing: ListingSummary.nullable(),
  updatedAt: z.date(),
});
export type ProductListItem = z.infer<typeof ProductListItem>;

export const ProductsPagination = z.object({
  total: z.number().int(),
  limit: z.number().int(),
  currentPage: z.number().int(),
});
export type ProductsPagination = z.infer<typeof ProductsPagination>;

export const ProductListResult = z.object({
  results: z.array(ProductListItem),
  pagination: ProductsPagination,
});
export type ProductListResult = z.infer<typeof ProductListResult>;

/** A variant's stock at one of our locations (every location of the account, 0 where no level exists). */
export const StockLevel = z.object({
  locationId: z.string(),
  locationName: z.string(),
  storeId: z.string(),
  enabled: z.boolean(),
  onHand: z.number().int(),
  reserved: z.number().int(),
  updatedAt: z.date().nullable(),
});
export type StockLevel = z.infer<typeof StockLevel>;

/**
 * Why a channel shows what it shows, per channel location the variant is listed at:
 * max(0, onHand − reserved − buffer − safetyStock) = available, the number we push (inventory/available.ts).
 */
export const AvailableExplanation = z.object({
  channelId: z.string(),
  channelName: z.string(),
  channelType: ChannelType,
  externalLocationId: z.string(),
  /** The channel location's name as the channel calls it, when known. */
  externalLocationName: z.string().nullable(),
  /** Our location it maps to (null: not mapped, nothing pushed). */
  locationId: z.string().nullable(),
  locationName: z.string().nullable(),
  storeId: z.string().nullable(),
  onHand: z.number().int(),
  reserved: z.number().int(),
  buffer: z.number().int(),
  safetyStock: z.number().int(),
  /** What we push: the result of the formula. */
  available: z.number().int(),
  /** The last quantity the channel acknowledged from us, and when (null: never pushed). */
  pushedQty: z.number().int().nullable(),
  pushedAt: z.date().nullable(),
  /** A push sent and not yet answered. */
  pendingQty: z.number().int().nullable(),
  pendingAt: z.date().nullable(),
  /** When the channel acknowledged the last push (same as pushedAt; kept for the screen's wording). */
  acknowledgedAt: z.date().nullable(),
  /** The quantity the channel last reported to us, and the provider's time of it. */
  channelQty: z.number().int().nullable(),
  channelQtyAt: z.date().nullable(),
  /** The channel holds what we would push now. */
  inSync: z.boolean(),
  lastError: z.string().nullable(),
});
export type AvailableExplanation = z.infer<typeof AvailableExplanation>;

export const ListingDetail = ListingSummary.extend({
  channelName: z.string(),
  channelType: ChannelType,
});
export type ListingDetail = z.infer<typeof ListingDetail>;

export const ProductVariant = z.object({
  id: z.string(),
  sku: z.string(),
  alu: z.string().nullable(),
  barcode: z.string().nullable(),
  title: z.string(),
  price: z.number().int(),
  compareAtPrice: z.number().int().nullable(),
  position: z.number().int(),
  stock: z.array(StockLevel),
  available: z.array(AvailableExplanation),
  listings: z.array(ListingDetail),
});
export type ProductVariant = z.infer<typeof ProductVariant>;

export const StockMovement = z.object({
  id: z.number().int(),
  variantId: z.string(),
  sku: z.string(),
  locationId: z.string(),
  locationName: z.string(),
  delta: z.number().int(),
  reservedDelta: z.number().int(),
  onHandAfter: z.number().int(),
  reason: MovementReason,
  source: z.string(),
  reference: z.string().nullable(),
  userId: z.string().nullable(),
  /** The user's e-mail for manual changes, when known. */
  userEmail: z.string().nullable(),
  createdAt: z.date(),
});
export type StockMovement = z.infer<typeof StockMovement>;

/** A sync run that touched this product (a failed item of it, or a run on one of its channels). */
export const ProductSyncSummary = z.object({
  id: z.number().int(),
  type: SyncType,
  status: SyncStatus,
  trigger: SyncTrigger,
  channelId: z.string().nullable(),
  channelName: z.string().nullable(),
  total: z.number().int(),
  processed: z.number().int(),
  failed: z.number().int(),
  message: z.string().nullable(),
  /** This product's own error in that run, when it failed there. */
  itemError: z.string().nullable(),
  createdAt: z.date(),
  finishedAt: z.date().nullable(),
});
export type ProductSyncSummary = z.infer<typeof ProductSyncSummary>;

export const ProductDetail = z.object({
  id: z.string(),
  title: z.string(),
  description: z.string(),
  brand: z.string().nullable(),
  productType: z.string().nullable(),
  status: ProductStatus,
  images: z.array(z.string()),
  createdAt: z.date(),
  updatedAt: z.date(),
  variants: z.array(ProductVariant),
  /** The latest 50 movements of its variants, newest first. */
  movements: z.array(StockMovement),
  /** The latest 20 sync runs that concern it, newest first. */
  syncs: z.array(ProductSyncSummary),
});
export type ProductDetail = z.infer<typeof ProductDetail>;

// ------------------------------------------------------------------------------------------------ files

export const UPLOAD_MAX_BYTES = 10 * 1024 * 1024;
export const UPLOAD_IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'] as const;

/** v1/v2 `POST files/upload` (multipart form, one file in field `file`). */
export const UploadedFile = z.object({
  /** Absolute address channels can fetch. */
  url: z.string(),
  name: z.string(),
  size: z.number().int(),
  contentType: z.enum(UPLOAD_IMAGE_TYPES),
});
export type UploadedFile = z.infer<typeof UploadedFile>;
