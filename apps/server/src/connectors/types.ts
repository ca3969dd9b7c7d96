import type { Logger } from 'pino';
import type { ProviderEndpoints } from '../providers.ts';

/**
 * What the sync engine and onboarding need from a sales channel, implemented once per provider
 * (shopify/, bigcommerce/, square/). Money is in minor units; quantities are integers; ids are the
 * provider's own, as strings (Shopify GIDs, BigCommerce numeric ids, Square object ids).
 */
export type ChannelType = 'shopify' | 'bigcommerce' | 'square';

/** What we keep (encrypted) after authorization. */
export interface ChannelCredentials {
  accessToken: string;
  scope?: string;
  /** Shopify: the shop name (the part before .myshopify.com). */
  shop?: string;
  /** BigCommerce: the store hash (from context=stores/{hash}). */
  storeHash?: string;
  /** Square: merchant id, environment, and the refresh token with the access token's expiry. */
  merchantId?: string;
  environment?: 'production' | 'sandbox';
  refreshToken?: string;
  expiresAt?: string;
}

export interface AuthorizedChannel {
  credentials: ChannelCredentials;
  /** The shop's identity at the provider (shop domain, store hash, merchant id): one channel per shop. */
  externalId: string;
  /** A name to show, e.g. the shop's name. */
  name: string;
}

export interface OAuthProvider {
  /** The provider's consent page. `shop` is required for Shopify (and ignored by the others). */
  authorizeUrl(input: {
    shop?: string;
    state: string;
    redirectUri: string;
    environment?: 'production' | 'sandbox';
  }): string;
  /**
   * Verifies the callback's query (Shopify's hmac, the presence of code/context/scope…) and exchanges
   * its code for credentials. Throws DomainError('UNAUTHORIZED' or 'VALIDATION') on a forged or broken
   * callback. `state` checking is the caller's job (signed, single-use).
   */
  completeAuthorization(query: Record<string, string>, redirectUri: string): Promise<AuthorizedChannel>;
}

export interface ProviderLocation {
  externalId: string;
  name: string;
  active: boolean;
  address?: { address1?: string; city?: string; province?: string; zip?: string; country?: string };
  /** Fulfils online orders (ships); unknown when the provider does not say. */
  ships?: boolean;
  /** Serves local pickup; unknown when the provider does not say. */
  pickup?: boolean;
}

export interface ProviderVariant {
  externalId: string;
  /** The id stock is kept against: Shopify's InventoryItem, BigCommerce's variant, Square's ITEM_VARIATION. */
  inventoryItemId: string;
  sku: string | null;
  barcode: string | null;
  title: string;
  price: number;
  compareAtPrice: number | null;
}

export interface ProviderProduct {
  externalId: string;
  title: string;
  brand: string | null;
  productType: string | null;
  status: 'active' | 'draft' | 'archived';
  images: string[];
  variants: ProviderVariant[];
  updatedAt: string | null;
}

export interface Page<T> {
  items: T[];
  /** Opaque; null on the last page. */
  nextCursor: string | null;
}

export interface InventoryLevel {
  inventoryItemId: string;
  locationExternalId: string;
  /** The quantity the channel sells from (Shopify `available`, BigCommerce `available_to_sell`, Square IN_STOCK). */
  available: number;
}

export interface InventorySet {
  inventoryItemId: string;
  locationExternalId: string;
  quantity: number;
  /**
   * What we believe the channel holds now, for compare-and-set where the provider has it (Shopify
   * compareQuantity). null: set unconditionally.
   */
  compareQuantity?: number | null;
}

export interface InventorySetOptions {
  /** The send's key (see Connector.setInventory); each request's key derives from it. */
  idempotencyKey?: string;
  /**
   * With a key: when the send was first made. A provider that dates its writes (Square's occurred_at, by which it
   * orders a count among the seller's own changes) dates them so, and a repeat asks exactly what the first call
   * asked. Absent: now.
   */
  at?: Date;
}

export interface InventorySetResult {
  applied: InventorySet[];
  /**
   * `mismatch`: the channel held something other than compareQuantity (re-read and retry). `uncertain`: the
   * call failed in a way that may have applied it all the same (a 5xx, a timeout, a dropped connection);
   * otherwise the channel refused the change and it did not land.
   */
  failed: {
    change: InventorySet;
    reason: string;
    mismatch: boolean;
    uncertain?: boolean;
    /** A mismatch's level as read right after it (`at`: when the read was asked), so the caller need not read it. */
    held?: { available: number; at: Date };
  }[];
}

export interface ProductInput {
  title: string;
  brand?: string | null;
  productType?: string | null;
  description?: string | null;
  images?: string[];
  variants: { sku: string; barcode?: string | null; title?: string; price: number; compareAtPrice?: number | null }[];
}

export interface ProviderOrderLine {
  externalId: string;
  sku: string | null;
  variantExternalId: string | null;
  title: string;
  quantity: number;
  /** Per unit, minor units. */
  price: number;
  /** The line's discounts and tax, minor units (0 when the provider has none). */
  discount?: number;
  tax?: number;
  /** Units the channel reports fulfilled / removed (cancelled, or refunded and removed) so far. */
  fulfilledQuantity?: number;
  cancelledQuantity?: number;
  refundedQuantity?: number;
  /**
   * Where the channel moved its OWN stock for this line when it took the order (Shopify: the fulfillment
   * order's assigned location, available → committed; BigCommerce: the location it lowered
   * available_to_sell at; Square: the order's location for a sale that moved IN_STOCK → SOLD). null: the
   * channel did not lower its stock for it (yet). This is what the ledger recognises in the channel's stock
   * report, so the sale is counted once (docs/decisions/0008). Left out (undefined): the report this order
   * came from does not say — Shopify's order webhooks (REST orders carry no fulfillment orders); read the
   * order with getOrder before relying on it.
   */
  stockLocationExternalId?: string | null;
}

export interface ProviderAddress {
  name?: string | null;
  company?: string | null;
  address1?: string | null;
  address2?: string | null;
  city?: string | null;
  province?: string | null;
  zip?: string | null;
  country?: string | null;
  phone?: string | null;
}

export interface ProviderOrder {
  externalId: string;
  /** What the merchant calls it: #1001, BigCommerce's order id, Square's receipt number. */
  name: string;
  createdAt: string;
  updatedAt: string;
  currency: string;
  /** Minor units. subtotal/shipping/discount/tax default to what can be derived (0). */
  total: number;
  subtotal?: number;
  shippingTotal?: number;
  discountTotal?: number;
  taxTotal?: number;
  financialStatus: string | null;
  fulfillmentStatus: string | null;
  cancelled: boolean;
  cancelledAt?: string | null;
  cancelReason?: string | null;
  /** On a cancel, the channel put the units it had taken back on its own stock (default true). */
  restockedOnCancel?: boolean;
  /**
   * A POS sale that is already complete at its store (Square COMPLETED POS order): recorded as fulfilled there,
   * moving on-hand once.
   */
  completedAtStore?: boolean;
  /** POS sales and pickup orders name where they happened / are collected. */
  locationExternalId: string | null;
  fulfillmentType: 'ship' | 'pickup' | 'curbside_pickup';
  customer: { name: string | null; email: string | null; phone?: string | null } | null;
  shippingAddress: Record<string, string | null> | null;
  billingAddress?: ProviderAddress | null;
  note?: string | null;
  tags?: string[];
  /** The order's page in the channel's admin, when it has one. */
  adminUrl?: string | null;
  lines: ProviderOrderLine[];
}

export interface FulfillmentInput {
  orderExternalId: string;
  locationExternalId?: string | null;
  lines: { lineExternalId: string; quantity: number }[];
  tracking?: { company?: string; number?: string; url?: string } | null;
  notifyCustomer?: boolean;
}

export interface RefundInput {
  orderExternalId: string;
  /** What goes back to the customer, minor units (lines + shipping + adjustment); 0 for a return without money. */
  amount: number;
  currency: string;
  reason?: string;
  /**
   * The lines returned. `restock`: the units go back on sale (false: damaged, kept out of stock).
   * `locationExternalId`: the channel's location they go back to (default: the refund's locationExternalId).
   */
  lines?: { lineExternalId: string; quantity: number; restock?: boolean; locationExternalId?: string | null }[];
  /** The channel location the returned units go back to (the return store), for lines that do not name one. */
  locationExternalId?: string | null;
  /** Of `amount`, what refunds shipping (minor units), where the provider refunds shipping apart. */
  shipping?: number;
  /**
   * Ours, stable across retries of the same refund (the write-back job's id): sent where the provider takes
   * one (Square idempotency_key, Shopify @idempotent), else used to find a refund made by an unanswered call.
   */
  idempotencyKey?: string;
}

export interface RefundResult {
  /** The ProviderReturn.externalId this refund has at the channel (what its webhook and listReturns will say). */
  externalId: string;
  /** The refund as the channel recorded it, read back when it could be (which units it restocked itself). */
  ret?: ProviderReturn | null;
}

export interface ProviderReturnItem {
  /** The order line returned (Shopify LineItem gid, BigCommerce order_product_id, Square line item uid). */
  lineExternalId: string | null;
  sku: string | null;
  variantExternalId?: string | null;
  quantity: number;
  /** What the line refunds, minor units, tax included where the provider says it. */
  total: number;
  /** The units go back on sale (false: damaged, or the channel refunded without a return of goods). */
  restock: boolean;
  /** The channel location the units go back to (the return store); null when the channel does not say. */
  locationExternalId: string | null;
  /**
   * The channel already put these units back on its OWN stock at locationExternalId (Shopify restockType
   * RETURN, Square's POS return restock): its stock report will show +quantity there, which the ledger meets
   * with a claim so the restock is counted once (docs/decisions/0008).
   */
  channelRestocked: boolean;
}

/**
 * A return or refund at the channel, normalized: Shopify's refunds (each with the return it closes, when
 * one), BigCommerce's refunds, Square's refunds and POS itemized returns (return orders). Minor units.
 */
export interface ProviderReturn {
  externalId: string;
  /** The sale order it returns from (null: an unlinked refund). */
  orderExternalId: string | null;
  createdAt: string;
  updatedAt: string;
  /**
   * `pending`: asked for, not settled (a Shopify return still OPEN, a Square refund PENDING): nothing to
   * restock yet. `completed`: done at the channel. `failed`: refused or cancelled there, nothing moved.
   */
  status: 'pending' | 'completed' | 'failed';
  /** The channel's name for it (Shopify return name #1001-R1, Square receipt number), else null. */
  receiptNumber: string | null;
  /** The customer billed on the order, when the channel says. */
  billName: string | null;
  currency: string;
  tax: number;
  /** Refunded apart from the lines (shipping, order adjustments, a goodwill amount); may be negative (a fee). */
  adjustment: number;
  /** The money refunded in all (0 for a return without a refund yet). */
  total: number;
  items: ProviderReturnItem[];
}

/** A verified, parsed webhook delivery. */
export interface WebhookEvent {
  provider: ChannelType;
  /** Unique per provider: X-Shopify-Event-Id / webhook id, BigCommerce hash, Square event_id. */
  eventId: string;
  /** Provider topic, e.g. inventory_levels/update, store/sku/inventory/updated, inventory.count.updated. */
  topic: string;
  /** Which connected shop it is for: shop domain, store hash or merchant id (matches AuthorizedChannel.externalId). */
  shopExternalId: string;
  occurredAt: string | null;
  payload: unknown;
}

export interface WebhookRequest {
  rawBody: Buffer;
  headers: Record<string, string | string[] | undefined>;
  /** The full URL the provider posted to (Square signs it together with the body). */
  url: string;
}

export interface WebhookVerifier {
  /** True when the signature over the raw body is valid. Constant-time comparison. */
  verify(req: WebhookRequest): boolean;
  /** Parses a verified delivery. */
  parse(req: WebhookRequest): WebhookEvent;
}

/** One connected shop, authenticated. */
export interface Connector {
  readonly type: ChannelType;
  /** The most inventory changes one setInventory call sends in a single provider request. */
  readonly maxInventoryBatch: number;
  getShop(): Promise<{ externalId: string; name: string; currency: string; timezone: string | null }>;
  listLocations(): Promise<ProviderLocation[]>;
  listProducts(cursor: string | null): Promise<Page<ProviderProduct>>;
  getInventoryLevels(input: { cursor: string | null; locationExternalIds?: string[] }): Promise<Page<InventoryLevel>>;
  /**
   * The levels of given (item, location) pairs, read now (webhook follow-ups, compare-and-set mismatches,
   * reconciliation of a few items). Pairs the channel does not stock are left out.
   */
  readInventory(pairs: { inventoryItemId: string; locationExternalId: string }[]): Promise<InventoryLevel[]>;
  /**
   * Resolves when the shop's request budget has room for reads that can wait: a third of it left over what
   * calls of the foreground lane ask (lib/lanes.ts). Where webhooks name a level without its quantity
   * (BigCommerce), a stock pass waits here before it gathers its events, so the events that came meanwhile cost
   * one read. Absent: no wait.
   */
  readBudget?(): Promise<void>;
  /**
   * Sends up to any number of changes, split into the provider's largest batches. With `idempotencyKey` (where
   * `idempotentInventory`), the provider runs each of its requests once: the same changes sent again with the same
   * key (after the answer was lost) get the first answer back, whether or not that first call had landed.
   */
  setInventory(changes: InventorySet[], options?: InventorySetOptions): Promise<InventorySetResult>;
  /**
   * The provider takes an idempotency key on inventory writes and answers a repeat with the first answer (Shopify's
   * @idempotent, 2026-01; Square's idempotency_key): a push records the key with what it sends, and replays a send
   * whose answer it lost.
   */
  readonly idempotentInventory?: boolean;
  createProduct(input: ProductInput): Promise<ProviderProduct>;
  updateProduct(externalId: string, input: Partial<ProductInput>): Promise<ProviderProduct>;
  /** Orders created or updated since the cursor (an updated-at timestamp or provider cursor). */
  listOrders(input: { cursor: string | null; since?: string }): Promise<Page<ProviderOrder>>;
  /**
   * The same orders as listOrders, as ids and updated-at times only, where the provider charges by what a read
   * returns (Shopify: about a point per order against some 128 for a whole one). A periodic pull lists these and
   * reads whole only the orders it does not hold as they are. Absent: the pull lists whole orders.
   */
  listOrderStamps?(input: {
    cursor: string | null;
    since?: string;
  }): Promise<Page<{ externalId: string; updatedAt: string }>>;
  createFulfillment(input: FulfillmentInput): Promise<{ externalId: string }>;
  /**
   * Writes a refund (and return of lines) made here to the channel, once: retried with the same
   * idempotencyKey it makes no second refund.
   */
  refund(input: RefundInput): Promise<RefundResult>;
  /**
   * Returns and refunds created or updated since `since` (ISO time) or the cursor, oldest change first.
   */
  listReturns(input: { cursor: string | null; since?: string }): Promise<Page<ProviderReturn>>;
  /**
   * One return, read now (a webhook that names it). Takes what returnWebhook's externalId names; the read
   * may carry another externalId (a Square refund of a POS return is read as its return order). null: not found.
   */
  getReturn?(externalId: string): Promise<ProviderReturn | null>;
  /** One order, read now (a webhook that carries only an id, a check before a write-back). null: not found. */
  getOrder?(externalId: string): Promise<ProviderOrder | null>;
  /**
   * Several orders read at once (Square's BatchRetrieveOrders, 100 a request; BigCommerce's list by id range;
   * Shopify's nodes, six a query), where the provider can: a request for several instead of one each against its
   * request budget. Each id maps to its order, or null as getOrder answers.
   */
  getOrders?(externalIds: string[]): Promise<Map<string, ProviderOrder | null>>;
  /**
   * Cancels the order at the channel (restocking its units there, as the provider does on cancel).
   * `unsupported`: the provider cannot cancel it through the API (the merchant is told to do it there).
   */
  cancelOrder?(input: { externalId: string; reason?: string | null }): Promise<{ ok: true } | { unsupported: string }>;
  /**
   * A pickup order's progress at the channel (issue 15): `ready` (Shopify: its pickup fulfillment order prepared
   * for pickup; Square: the PICKUP fulfillment RESERVED then PREPARED) or `picked_up` (Shopify: that fulfillment
   * order fulfilled; Square: the fulfillment COMPLETED; BigCommerce: the order's status 8 Awaiting Pickup, then
   * 10 Completed). Idempotent: a state already reached is a success.
   * `unsupported`: the channel's order cannot take it (the merchant is told). Absent: no pickup states.
   */
  updatePickup?(input: {
    orderExternalId: string;
    /** The channel's pickup location, when known. */
    locationExternalId?: string | null;
    state: 'ready' | 'picked_up';
  }): Promise<{ ok: true } | { unsupported: string }>;
  /** Subscribes the topics we process to `callbackUrl` (idempotent). Square: no-op (app-level). */
  subscribeWebhooks(callbackUrl: string): Promise<void>;
}

export interface ConnectorOptions {
  logger: Logger;
  /** Per-call timeout; default 15 s. */
  timeoutMs?: number;
  /** Retries after the first attempt on 429/5xx/timeouts; default 5. */
  maxRetries?: number;
  /** Called when a refresh changes the credentials (Square), so the caller can store them. */
  onCredentials?: (credentials: ChannelCredentials) => Promise<void>;
}

/** A provider's module: how to authorize, connect and verify its webhooks. */
export interface ProviderModule {
  type: ChannelType;
  oauth(endpoints: ProviderEndpoints): OAuthProvider;
  /** `key` identifies the connected shop for its rate limiter (one limiter per shop per process). */
  connect(endpoints: ProviderEndpoints, credentials: ChannelCredentials, options: ConnectorOptions): Connector;
  webhooks(endpoints: ProviderEndpoints): WebhookVerifier;
  /**
   * What an order webhook (Shopify orders/create|updated|cancelled, BigCommerce store/order/*, Square
   * order.created|updated and order.fulfillment.updated) says: the whole order when the payload carries it
   * (Shopify), else only which order to read with `getOrder` (BigCommerce and Square send ids). null: not an
   * order topic.
   */
  orderWebhook?(topic: string, payload: unknown): { order: ProviderOrder } | { externalId: string } | null;
  /**
   * The topics that report an order created or changed (what `orderWebhook` reads): their events are taken
   * in per channel, in batches (orders/order-events.ts). Other topics naming an order (refunds) are not here.
   */
  orderTopics?: readonly string[];
  /**
   * What a return/refund webhook (Shopify refunds/create and returns/*, BigCommerce store/order/refund/created,
   * Square refund.created|updated, a POS return's included) says: the whole return when the payload
   * carries it (Shopify refunds/create), else which one to read with `getReturn`. null: not a return topic.
   */
  returnWebhook?(
    topic: string,
    payload: unknown,
  ): { ret: ProviderReturn } | { externalId: string; orderExternalId?: string | null } | null;
}
