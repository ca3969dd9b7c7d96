// The shape of a simulated Shopify shop's state (locations, catalog, inventory levels, orders with their
// fulfillments, refunds and returns, webhook subscriptions) and the small conversions every module uses:
// GIDs, Shopify's DateTime and money strings, an inventory level's named quantities.

export const QUANTITY_NAMES = [
  'available',
  'on_hand',
  'committed',
  'reserved',
  'incoming',
  'damaged',
  'safety_stock',
  'quality_control',
] as const;
export type QuantityName = (typeof QUANTITY_NAMES)[number];

export interface ShopLocation {
  id: number;
  name: string;
  isActive: boolean;
  fulfillsOnlineOrders: boolean;
  /** Offers local pickup (Shopify's localPickupSettingsV2); the seeded shops' stores do, the warehouse not. */
  pickup?: boolean;
  address: { address1: string; city: string; province: string; zip: string; countryCode: string };
  createdAt: string;
  updatedAt: string;
}

export interface ShopImage {
  id: number;
  url: string;
  altText: string | null;
}

export interface ShopProduct {
  id: number;
  title: string;
  handle: string;
  vendor: string;
  productType: string;
  descriptionHtml: string;
  status: 'ACTIVE' | 'DRAFT' | 'ARCHIVED';
  tags: string[];
  options: { id: number; name: string; values: string[] }[];
  variantIds: number[];
  images: ShopImage[];
  createdAt: string;
  updatedAt: string;
}

export interface ShopVariant {
  id: number;
  productId: number;
  title: string;
  sku: string;
  barcode: string | null;
  /** Minor units. */
  price: number;
  compareAtPrice: number | null;
  position: number;
  selectedOptions: { name: string; value: string }[];
  inventoryItemId: number;
  createdAt: string;
  updatedAt: string;
}

export interface ShopInventoryItem {
  id: number;
  variantId: number;
  tracked: boolean;
  createdAt: string;
  updatedAt: string;
}

/** Stored quantities of one item at one location; `on_hand` is derived. */
export interface ShopLevel {
  available: number;
  committed: number;
  reserved: number;
  incoming: number;
  damaged: number;
  safety_stock: number;
  quality_control: number;
  createdAt: string;
  updatedAt: string;
}

export interface ShopLineItem {
  id: number;
  variantId: number | null;
  productId: number | null;
  sku: string | null;
  title: string;
  variantTitle: string | null;
  quantity: number;
  /** Minor units, per unit. */
  price: number;
  /** The line's share of the order's discounts and its tax, minor units (whole line). */
  discount: number;
  tax: number;
  taxRate: number;
  refundedQuantity: number;
  /** Units removed when the order was cancelled. */
  cancelledQuantity: number;
}

/** A mailing address as Shopify keeps it. */
export interface ShopAddress {
  firstName: string | null;
  lastName: string | null;
  company: string | null;
  address1: string | null;
  address2: string | null;
  city: string | null;
  province: string | null;
  provinceCode: string | null;
  zip: string | null;
  country: string | null;
  countryCode: string | null;
  phone: string | null;
}

export interface ShopFulfillmentOrder {
  id: number;
  locationId: number;
  status: 'OPEN' | 'IN_PROGRESS' | 'CLOSED' | 'CANCELLED';
  methodType: 'SHIPPING' | 'PICK_UP';
  /** A pickup fulfillment order's items were marked ready (fulfillmentOrderLineItemsPreparedForPickup). */
  preparedForPickupAt?: string | null;
  lineItems: { id: number; lineItemId: number; totalQuantity: number; remainingQuantity: number }[];
  createdAt: string;
  updatedAt: string;
}

export interface ShopFulfillment {
  id: number;
  /** CANCELLED by fulfillmentCancel: its units are unfulfilled again and it counts for nothing. */
  status: 'SUCCESS' | 'CANCELLED';
  locationId: number;
  tracking: { company: string | null; number: string | null; url: string | null }[];
  /**
   * Its FulfillmentLineItems: `id` is what a return names (ReturnLineItemInput.fulfillmentLineItemId);
   * `left`, the units that left on hand (committed) when it was made, what a cancel puts back (unset: all).
   */
  lines: { id: number; lineItemId: number; quantity: number; left?: number }[];
  createdAt: string;
  updatedAt?: string;
}

export interface ShopTransaction {
  id: number;
  kind: 'SALE' | 'REFUND';
  gateway: string;
  status: 'SUCCESS';
  amount: number;
  parentId: number | null;
  createdAt: string;
}

export interface ShopRefund {
  id: number;
  note: string | null;
  /** Money back (its REFUND transactions), minor units. */
  amount: number;
  /** `subtotal` (discounted) and `tax` are the lines' share, minor units. */
  lines: {
    id: number;
    lineItemId: number;
    quantity: number;
    restockType: string;
    locationId: number | null;
    subtotal: number;
    tax: number;
  }[];
  /** Shipping refunded, minor units. */
  shipping: number;
  /** shipping_refund (−shipping) and refund_discrepancy (what the lines are worth less what went back). */
  adjustments: { id: number; kind: 'shipping_refund' | 'refund_discrepancy'; amount: number; tax: number }[];
  transactionIds: number[];
  /** The return this refund pays for (returnRefund), else null. */
  returnId?: number | null;
  createdAt: string;
}

export type ShopReturnStatus = 'REQUESTED' | 'OPEN' | 'CLOSED' | 'DECLINED' | 'CANCELED';

/**
 * A return (Shopify's Returns API): the fulfilled units a customer sends back, by fulfillment line item. An
 * OPEN return has a reverse fulfillment order whose lines are disposed of (RESTOCKED at a location puts the
 * units back on sale there; NOT_RESTOCKED, MISSING or PROCESSING_REQUIRED move no stock); its refunds are
 * made with returnRefund; returnClose completes it.
 */
export interface ShopReturn {
  id: number;
  /** #1001-R1: the order's name and the return's number on it. */
  name: string;
  status: ShopReturnStatus;
  lines: {
    id: number;
    fulfillmentLineItemId: number;
    lineItemId: number;
    quantity: number;
    returnReason: string;
    returnReasonNote: string;
    customerNote: string | null;
  }[];
  /** Made when the return opens (returnCreate, or a request approved); one per return here. */
  reverseFulfillmentOrders: {
    id: number;
    status: 'OPEN' | 'CLOSED' | 'CANCELED';
    lines: {
      id: number;
      returnLineId: number;
      totalQuantity: number;
      dispositions: { id: number; type: string; quantity: number; locationId: number | null }[];
    }[];
  }[];
  decline: { reason: string; note: string | null } | null;
  createdAt: string;
  updatedAt: string;
}

export interface ShopOrder {
  id: number;
  number: number;
  name: string;
  email: string | null;
  phone: string | null;
  customer: { id: number; firstName: string; lastName: string; email: string | null; phone: string | null } | null;
  shippingAddress: ShopAddress | null;
  billingAddress: ShopAddress | null;
  currency: string;
  lineItems: ShopLineItem[];
  /** Minor units. */
  shippingPrice: number;
  /** The shipping line's title: the rate's name, or the pickup location's for a pickup. */
  shippingTitle: string;
  note: string | null;
  tags: string[];
  /** OrderCancelReason, as given (CUSTOMER, DECLINED, FRAUD, INVENTORY, OTHER, STAFF). */
  cancelReason: string | null;
  staffNote: string | null;
  fulfillmentOrders: ShopFulfillmentOrder[];
  fulfillments: ShopFulfillment[];
  transactions: ShopTransaction[];
  refunds: ShopRefund[];
  returns: ShopReturn[];
  cancelledAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export type WebhookTopic =
  | 'APP_UNINSTALLED'
  | 'INVENTORY_LEVELS_UPDATE'
  | 'INVENTORY_ITEMS_UPDATE'
  | 'ORDERS_CREATE'
  | 'ORDERS_UPDATED'
  | 'ORDERS_CANCELLED'
  | 'ORDERS_FULFILLED'
  | 'REFUNDS_CREATE'
  | 'PRODUCTS_CREATE'
  | 'PRODUCTS_UPDATE'
  | 'FULFILLMENTS_CREATE'
  | 'FULFILLMENTS_UPDATE'
  | 'RETURNS_REQUEST'
  | 'RETURNS_APPROVE'
  | 'RETURNS_DECLINE'
  | 'RETURNS_CANCEL'
  | 'RETURNS_CLOSE'
  | 'RETURNS_REOPEN'
  | 'REVERSE_FULFILLMENT_ORDERS_DISPOSE';
export const WEBHOOK_TOPICS: WebhookTopic[] = [
  'APP_UNINSTALLED',
  'INVENTORY_LEVELS_UPDATE',
  'INVENTORY_ITEMS_UPDATE',
  'ORDERS_CREATE',
  'ORDERS_UPDATED',
  'ORDERS_CANCELLED',
  'ORDERS_FULFILLED',
  'REFUNDS_CREATE',
  'PRODUCTS_CREATE',
  'PRODUCTS_UPDATE',
  'FULFILLMENTS_CREATE',
  'FULFILLMENTS_UPDATE',
  'RETURNS_REQUEST',
  'RETURNS_APPROVE',
  'RETURNS_DECLINE',
  'RETURNS_CANCEL',
  'RETURNS_CLOSE',
  'RETURNS_REOPEN',
  'REVERSE_FULFILLMENT_ORDERS_DISPOSE',
];
/** Topics whose payloads hold returns: Shopify subscribes them only for an app granted read_returns. */
export const RETURN_TOPICS: ReadonlySet<WebhookTopic> = new Set([
  'RETURNS_REQUEST',
  'RETURNS_APPROVE',
  'RETURNS_DECLINE',
  'RETURNS_CANCEL',
  'RETURNS_CLOSE',
  'RETURNS_REOPEN',
  'REVERSE_FULFILLMENT_ORDERS_DISPOSE',
]);
/** ORDERS_CREATE → orders/create, as Shopify's X-Shopify-Topic header names it. */
export const topicHeader = (topic: WebhookTopic) => {
  const [first, ...rest] = topic.toLowerCase().split('_');
  // APP_UNINSTALLED → app/uninstalled; INVENTORY_LEVELS_UPDATE → inventory_levels/update.
  const action = rest.pop() as string;
  return `${[first, ...rest].join('_')}/${action}`;
};

export interface WebhookSubscription {
  id: number;
  topic: WebhookTopic;
  callbackUrl: string;
  format: 'JSON';
  clientId: string;
  createdAt: string;
  updatedAt: string;
}

/** One simulated shop. */
export interface Shop {
  name: string;
  shopId: number;
  currency: string;
  createdAt: string;
  locations: ShopLocation[];
  products: Map<number, ShopProduct>;
  variants: Map<number, ShopVariant>;
  items: Map<number, ShopInventoryItem>;
  /** inventory item id → location id → level. */
  levels: Map<number, Map<number, ShopLevel>>;
  orders: Map<number, ShopOrder>;
  subscriptions: Map<number, WebhookSubscription>;
  /** Cost bucket (points) for the Admin GraphQL API, per app and shop; see cost.ts. */
  bucket: { available: number; at: number; maximumAvailable: number; restoreRate: number };
  /** Control: how many of the next mutations are applied and then lose their answer (a dropped connection). */
  dropAfterApply: number;
  /** 2026-01+ @idempotent keys (per app): what the mutation asked and its answer (null while running). */
  idempotency: Map<string, { fingerprint: string; data: unknown }>;
  nextId: () => number;
  nextOrderNumber: () => number;
  adjustmentGroups: number;
}

export const gid = (type: string, id: number | string) => `gid://shopify/${type}/${id}`;

/** The numeric id of a GID of the given type, or null. */
export function parseGid(value: unknown, type: string): number | null {
  if (typeof value !== 'string') return null;
  const m = /^gid:\/\/shopify\/([A-Za-z]+)\/(\d+)(\?.*)?$/.exec(value);
  if (!m || m[1] !== type) return null;
  const n = Number(m[2]);
  return Number.isSafeInteger(n) ? n : null;
}

/** Shopify's DateTime: ISO 8601 to the second. */
export const isoNow = (ms = Date.now()) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** Minor units → Shopify's decimal string ("12.5" style is never used; always two decimals). */
export const money = (minor: number) => {
  const sign = minor < 0 ? '-' : '';
  const abs = Math.abs(minor);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
};

/** Shopify's decimal string → minor units (no floating point). */
export function parseMoney(value: unknown): number | null {
  const text = typeof value === 'number' ? value.toFixed(2) : value;
  if (typeof text !== 'string') return null;
  const m = /^(-)?(\d+)(?:\.(\d{1,2}))?$/.exec(text.trim());
  if (!m) return null;
  const minor = Number(m[2]) * 100 + Number((m[3] ?? '0').padEnd(2, '0'));
  return m[1] ? -minor : minor;
}

export const onHand = (l: ShopLevel) =>
  l.available + l.committed + l.reserved + l.damaged + l.safety_stock + l.quality_control;

export function quantityOf(level: ShopLevel, name: string): number | null {
  if (name === 'on_hand') return onHand(level);
  if ((QUANTITY_NAMES as readonly string[]).includes(name)) return level[name as Exclude<QuantityName, 'on_hand'>];
  return null;
}
