import { z } from 'zod';

/**
 * Sales channels (issue 5). The server's channels module and the web screens share these shapes.
 *
 * Calls (SPEC §7; tRPC unless a REST path is given):
 * - `channels.list` → ChannelSummary[] (the channel list, cached 1 h on the web)
 * - `channels.get({ id })` → ChannelDetail
 * - `channels.getOauthUrl(GetOauthUrlInput)` → { url }
 * - `channels.disconnect({ id })` → ChannelSummary (keeps the record and its settings; re-authorise
 *   goes through getOauthUrl with properties.channelId)
 * - frontend `POST integration/create` IntegrationCreateInput → ChannelSummary (status pending)
 * - v1/v2 `POST oauth/{provider}/generate-redirect-url` GenerateRedirectUrlInput → { url }
 * - v1/v2 `POST oauth/{provider}/process-oauth` (the callback's query as a flat object) → ProcessOauthResult
 * - v1/v2 `PUT channels/{id}/settings/{key}` (key: ChannelSettingKey, body: that section) → ChannelDetail
 * - v1/v2 `PATCH channels/{id}` PatchChannelInput → ChannelDetail
 * - v1/v2 `PUT channels/{id}/actions/features` ChannelFeatures (partial) → ChannelDetail
 * - v1/v2 `GET wrappers/square/stores` → { stores: ProviderStore[] } (the account's connected Square)
 * - v1/v2 `GET wrappers/{shopify|bigcommerce}/locations?channel_id=` → { locations: ProviderStore[] }
 * - webhooks: POST /webhooks/{shopify|bigcommerce|square|stripe} (raw body, signature verified)
 */

export const CHANNEL_TYPES = ['shopify', 'bigcommerce', 'square'] as const;
export const ChannelType = z.enum(CHANNEL_TYPES);
export type ChannelType = z.infer<typeof ChannelType>;

/** The e-commerce platforms (SPEC: "each e-commerce platform's segment") and the POS provider. */
export const PLATFORM_TYPES = ['shopify', 'bigcommerce'] as const;
export const PlatformType = z.enum(PLATFORM_TYPES);
export const POS_TYPE = 'square' as const;

export const CHANNEL_LABELS: Record<ChannelType, string> = {
  shopify: 'Shopify',
  bigcommerce: 'BigCommerce',
  square: 'Square POS',
};

/**
 * A channel named after its type ("Shopify"): shown with its type, it would read "Shopify (Shopify)", so its type is
 * left out (case and surrounding spaces aside).
 */
export const namedAfterType = (name: string, type: ChannelType) =>
  name.trim().toLowerCase() === CHANNEL_LABELS[type].toLowerCase();

/**
 * pending: created, not yet authorised; connected; error: the provider refused our credentials
 * (re-authorise); disconnected: the merchant disconnected it or uninstalled the app at the provider.
 */
export const CHANNEL_STATUSES = ['pending', 'connected', 'error', 'disconnected'] as const;
export const ChannelStatus = z.enum(CHANNEL_STATUSES);
export type ChannelStatus = z.infer<typeof ChannelStatus>;

export const ChannelFeatures = z.object({
  /** Push available quantities to the channel and take its stock changes in. */
  inventory: z.boolean(),
  /** Import and publish products. */
  catalog: z.boolean(),
  /** Import orders. */
  orders: z.boolean(),
  /** Send fulfillments (tracking) back. */
  fulfillments: z.boolean(),
});
export type ChannelFeatures = z.infer<typeof ChannelFeatures>;
export const DEFAULT_FEATURES: ChannelFeatures = { inventory: true, catalog: true, orders: true, fulfillments: true };

export const ShippingSettings = z.object({
  /** The channel's shipping method names mapped to a carrier service we buy labels from. */
  methodMap: z
    .array(
      z.object({
        channelMethod: z.string().trim().min(1, '* Required').max(200),
        carrier: z.string().trim().min(1, '* Required').max(100),
        service: z.string().trim().min(1, '* Required').max(100),
      }),
    )
    .max(100),
  /** POS store id (our location's store_id) that ships when routing has no better choice. */
  defaultShipFromStoreId: z.string().nullable(),
});
export type ShippingSettings = z.infer<typeof ShippingSettings>;

export const ProductSettings = z.object({
  /** Price pushed to the channel: our price, or adjusted by a percentage or an amount in minor units. */
  priceRule: z.object({
    kind: z.enum(['none', 'percent', 'amount']),
    value: z.number().int().min(-100_000_00).max(100_000_00),
  }),
  /** Title pushed to the channel; {title}, {brand} and {variant} are replaced. */
  titleTemplate: z.string().trim().min(1, '* Required').max(300),
  /** Create listings on this channel for our products it does not have. */
  publishMissing: z.boolean(),
  /** Which fields catalog sync writes to this channel. */
  syncFields: z.object({
    title: z.boolean(),
    description: z.boolean(),
    price: z.boolean(),
    images: z.boolean(),
    barcode: z.boolean(),
  }),
});
export type ProductSettings = z.infer<typeof ProductSettings>;

export const LocationMapping = z.object({
  /** The provider's location id and name (wrappers/{platform}/locations). */
  externalLocationId: z.string().min(1),
  externalName: z.string(),
  /** The POS store (Square location id) this channel location is; null: not mapped. */
  storeId: z.string().nullable(),
  /** Whether this location's stock feeds the channel. */
  feeds: z.boolean(),
});
export type LocationMapping = z.infer<typeof LocationMapping>;

export const ChannelSettingsSection = z.object({
  locationMap: z.array(LocationMapping).max(200),
  /**
   * Orders placed on or after this day are imported (ISO date); null: from when the channel connected.
   * Whether orders are imported at all is the `orders` feature.
   */
  orderImportFrom: z.iso.date().nullable(),
});
export type ChannelSettingsSection = z.infer<typeof ChannelSettingsSection>;

export const AdvancedSettings = z.object({
  /** Use the provider's compare-and-set where it has one (Shopify compareQuantity). */
  compareAndSet: z.boolean(),
  /** How often reconciliation compares the channel with our ledger, in minutes. */
  reconcileEveryMinutes: z.number().int().min(5).max(1440),
  /** Units held back from this channel on every SKU and location, before dynamic buffers. */
  safetyStock: z.number().int().min(0).max(100_000),
  /** Retry failed sync items on their own. */
  autoRetryFailed: z.boolean(),
});
export type AdvancedSettings = z.infer<typeof AdvancedSettings>;

export const CHANNEL_SETTING_KEYS = ['shipping', 'product', 'channel', 'advanced'] as const;
export const ChannelSettingKey = z.enum(CHANNEL_SETTING_KEYS);
export type ChannelSettingKey = z.infer<typeof ChannelSettingKey>;

export const ChannelSettings = z.object({
  shipping: ShippingSettings,
  product: ProductSettings,
  channel: ChannelSettingsSection,
  advanced: AdvancedSettings,
});
export type ChannelSettings = z.infer<typeof ChannelSettings>;

/** The body schema of `PUT channels/{id}/settings/{key}`. */
export const CHANNEL_SETTING_SCHEMAS = {
  shipping: ShippingSettings,
  product: ProductSettings,
  channel: ChannelSettingsSection,
  advanced: AdvancedSettings,
} as const satisfies Record<ChannelSettingKey, z.ZodType>;

export const DEFAULT_CHANNEL_SETTINGS: ChannelSettings = {
  shipping: { methodMap: [], defaultShipFromStoreId: null },
  product: {
    priceRule: { kind: 'none', value: 0 },
    titleTemplate: '{title}',
    publishMissing: false,
    syncFields: { title: true, description: true, price: true, images: true, barcode: true },
  },
  channel: { locationMap: [], orderImportFrom: null },
  advanced: { compareAndSet: true, reconcileEveryMinutes: 15, safetyStock: 0, autoRetryFailed: true },
};

export const ChannelSummary = z.object({
  id: z.string(),
  type: ChannelType,
  name: z.string(),
  status: ChannelStatus,
  /** Shop domain, store hash or Square merchant id; null until authorised. */
  externalId: z.string().nullable(),
  /** Why the channel is in error or was disconnected, in words for the merchant. */
  statusMessage: z.string().nullable(),
  features: ChannelFeatures,
  connectedAt: z.date().nullable(),
  lastSyncAt: z.date().nullable(),
  /** Failed sync items and webhook processing errors in the last 24 hours. */
  errorCount: z.number().int(),
  createdAt: z.date(),
});
export type ChannelSummary = z.infer<typeof ChannelSummary>;

export const ChannelDetail = ChannelSummary.extend({ settings: ChannelSettings });
export type ChannelDetail = z.infer<typeof ChannelDetail>;

export const IntegrationCreateInput = z.object({
  type: ChannelType,
  name: z.string().trim().min(1, '* Required').max(100).optional(),
});
export type IntegrationCreateInput = z.infer<typeof IntegrationCreateInput>;

export const GetOauthUrlInput = z.object({
  provider: ChannelType,
  properties: z
    .object({
      /** Shopify: the shop name (the part of "name.myshopify.com" before its first dot). */
      shop: z.string().trim().max(200).optional(),
      /** BigCommerce: the store hash. */
      hash: z.string().trim().max(200).optional(),
      /** The pending (or disconnected, to re-authorise) channel record this authorization completes. */
      channelId: z.string().max(64).optional(),
    })
    .catchall(z.string().max(500)),
});
export type GetOauthUrlInput = z.infer<typeof GetOauthUrlInput>;

/** SPEC: the POS authorization call is made with store empty and environment `api` (production). */
export const GenerateRedirectUrlInput = z.object({
  store: z.string().max(200).default(''),
  environment: z.enum(['api', 'sandbox']).default('api'),
  channelId: z.string().max(64).optional(),
});
export type GenerateRedirectUrlInput = z.infer<typeof GenerateRedirectUrlInput>;

export const ProcessOauthInput = z.record(z.string(), z.string().max(4000));
export const ProcessOauthResult = z.object({
  channelId: z.string(),
  type: ChannelType,
  name: z.string(),
  status: ChannelStatus,
});
export type ProcessOauthResult = z.infer<typeof ProcessOauthResult>;

export const PatchChannelInput = z.object({
  name: z.string().trim().min(1, '* Required').max(100).optional(),
});
export type PatchChannelInput = z.infer<typeof PatchChannelInput>;

/** A provider's store or location as listed for mapping. */
export const ProviderStore = z.object({
  id: z.string(),
  name: z.string(),
  active: z.boolean(),
  address: z.string().nullable(),
});
export type ProviderStore = z.infer<typeof ProviderStore>;

/** `/channels/{platform}/{status}` after an authorization. */
export const CHANNEL_RESULT_STATUSES = ['connected', 'error'] as const;
export const ChannelResultSearch = z.object({ message: z.string().optional() });
