import { createRng } from '../rng.ts';
import type { SeedCatalog } from '../seed.ts';
import { spread } from '../web-order.ts';

/**
 * One simulated BigCommerce store. Money is kept in cents and rendered as BigCommerce's decimals at the
 * edge; times are epoch milliseconds. Ids follow BigCommerce's: small sequential integers per store.
 */
export interface BcBrand {
  id: number;
  name: string;
}

export interface BcOptionValue {
  id: number;
  label: string;
  option_id: number;
  option_display_name: string;
}

export interface BcVariant {
  id: number;
  productId: number;
  skuId: number;
  sku: string;
  /** Cents; null inherits the product's price. */
  price: number | null;
  retailPrice: number | null;
  salePrice: number | null;
  upc: string;
  gtin: string;
  mpn: string;
  weightGrams: number;
  optionValues: BcOptionValue[];
}

export interface BcProduct {
  id: number;
  name: string;
  type: 'physical' | 'digital';
  sku: string;
  description: string;
  price: number;
  retailPrice: number | null;
  salePrice: number | null;
  weightGrams: number;
  brandId: number;
  categories: number[];
  inventoryTracking: 'none' | 'product' | 'variant';
  isVisible: boolean;
  availability: 'available' | 'disabled' | 'preorder';
  upc: string;
  createdAt: number;
  modifiedAt: number;
  customUrl: string;
  variantIds: number[];
  /** The variant BigCommerce creates for a product without options (its stock is the product's). */
  baseVariantId: number;
}

export interface BcLocation {
  id: number;
  code: string;
  label: string;
  enabled: boolean;
  address: { address1: string; city: string; state: string; zip: string; country_code: string };
}

export interface BcStock {
  onHand: number;
  safetyStock: number;
  /** BigCommerce refuses a relative adjustment for an item never set absolutely at that location. */
  absoluteSet: boolean;
}

export interface BcOrderProduct {
  id: number;
  orderId: number;
  productId: number;
  variantId: number;
  name: string;
  sku: string;
  upc: string;
  quantity: number;
  quantityShipped: number;
  quantityRefunded: number;
  /** Unit price, cents. */
  price: number;
  /** The line's share of the order's discount and its tax, cents (whole line). */
  discount: number;
  tax: number;
  orderAddressId: number;
  locationId: number;
}

export interface BcAddress {
  id: number;
  firstName: string;
  lastName: string;
  company?: string;
  street1: string;
  street2?: string;
  city: string;
  state: string;
  zip: string;
  country: string;
  countryIso2: string;
  email: string;
  phone: string;
  shippingMethod: string;
}

export interface BcShipment {
  id: number;
  orderId: number;
  orderAddressId: number;
  trackingNumber: string;
  trackingLink: string;
  shippingProvider: string;
  trackingCarrier: string;
  comments: string;
  createdAt: number;
  items: { order_product_id: number; product_id: number; quantity: number }[];
}

export interface BcRefund {
  id: number;
  orderId: number;
  createdAt: number;
  reason: string;
  /** Cents; `tax` is the refunded products' share of their tax. */
  total: number;
  tax: number;
  items: { item_type: string; item_id: number; quantity?: number; requested_amount?: string | null }[];
  payments: { id: number; provider_id: string; amount: number; offline: boolean }[];
}

export interface BcOrder {
  id: number;
  statusId: number;
  createdAt: number;
  modifiedAt: number;
  shippedAt: number | null;
  currency: string;
  customerId: number;
  customerMessage: string;
  billing: BcAddress;
  shipping: BcAddress;
  /** Buy online, pick up in store: the location the customer collects from (no shipping then). */
  pickupLocationId: number | null;
  /** Cents. */
  shippingCost: number;
  /** Order-level discount and tax, cents (their per-line shares are on the lines). */
  discount: number;
  tax: number;
  refunded: number;
  paymentMethod: string;
  paymentProviderId: string;
  channelId: number;
  products: BcOrderProduct[];
  shipments: BcShipment[];
  refunds: BcRefund[];
}

export interface BcHook {
  id: number;
  clientId: string;
  scope: string;
  destination: string;
  isActive: boolean;
  headers: Record<string, string> | null;
  createdAt: number;
  updatedAt: number;
}

export interface BcStore {
  hash: string;
  name: string;
  storeId: string;
  currency: string;
  brands: BcBrand[];
  products: Map<number, BcProduct>;
  variants: Map<number, BcVariant>;
  locations: BcLocation[];
  /** `${variantId}:${locationId}` → stock. */
  stock: Map<string, BcStock>;
  orders: Map<number, BcOrder>;
  hooks: Map<number, BcHook>;
  /** Access tokens issued for this store → the app and scopes they carry. */
  tokens: Map<string, { clientId: string; scope: string }>;
  rate: { windowStart: number; used: number };
  /** The store's plan quota when set through the control API (else the sandbox options' or Standard's). */
  plan: { name: string; quota: number; windowMs: number } | null;
  seq: Record<'product' | 'variant' | 'option' | 'order' | 'line' | 'address' | 'shipment' | 'refund' | 'hook', number>;
  /** A merchant's refunds on one order run one at a time (BigCommerce rejects concurrent ones). */
  refunding: Set<number>;
}

export const ORDER_STATUSES: Record<number, string> = {
  0: 'Incomplete',
  1: 'Pending',
  2: 'Shipped',
  3: 'Partially Shipped',
  4: 'Refunded',
  5: 'Cancelled',
  6: 'Declined',
  7: 'Awaiting Payment',
  8: 'Awaiting Pickup',
  9: 'Awaiting Shipment',
  10: 'Completed',
  11: 'Awaiting Fulfillment',
  12: 'Manual Verification Required',
  13: 'Disputed',
  14: 'Partially Refunded',
};

export const stockKey = (variantId: number, locationId: number) => `${variantId}:${locationId}`;

const FIRST_NAMES = ['Ava', 'Noah', 'Mia', 'Liam', 'Zoe', 'Ethan', 'Ivy', 'Owen'];
const LAST_NAMES = ['Nguyen', 'Garcia', 'Smith', 'Okafor', 'Kowalski', 'Haddad', 'Berg', 'Tanaka'];

/** Builds a store from the shared seed catalog: same SKUs and barcodes as the other providers' shops. */
export function buildStore(hash: string, catalog: SeedCatalog, seed: number, now = Date.now()): BcStore {
  const rng = createRng(seed ^ 0x5bc);
  const store: BcStore = {
    hash,
    name: `${hash} (BigCommerce sandbox)`,
    storeId: String(1_000_000 + (seed % 8_999_999)),
    currency: catalog.currency,
    brands: [],
    products: new Map(),
    variants: new Map(),
    locations: [],
    stock: new Map(),
    orders: new Map(),
    hooks: new Map(),
    tokens: new Map(),
    rate: { windowStart: 0, used: 0 },
    plan: null,
    seq: { product: 76, variant: 100, option: 200, order: 99, line: 0, address: 0, shipment: 0, refund: 0, hook: 0 },
    refunding: new Set(),
  };
  const brandIds = new Map<string, number>();
  const brandFor = (name: string) => {
    let id = brandIds.get(name);
    if (!id) {
      id = 36 + brandIds.size + 1;
      brandIds.set(name, id);
      store.brands.push({ id, name });
    }
    return id;
  };
  const categoryIds: Record<string, number> = { Apparel: 23, Footwear: 24, Home: 25, Outdoor: 26 };

  catalog.locations.forEach((loc, i) => {
    store.locations.push({
      id: i + 1,
      code: i === 0 ? 'BIGC-1' : `BIGC-${loc.key.toUpperCase()}`,
      label: loc.name,
      enabled: true,
      address: { address1: loc.address1, city: loc.city, state: loc.province, zip: loc.zip, country_code: loc.country },
    });
  });

  // Products were created over the last year, the newest last.
  const span = 365 * 24 * 3600 * 1000;
  catalog.products.forEach((p, index) => {
    const created = now - span + Math.floor((span * index) / Math.max(1, catalog.products.length));
    const productId = ++store.seq.product;
    const optionIds = p.optionNames.map(() => ++store.seq.option);
    const first = p.variants[0];
    const product: BcProduct = {
      id: productId,
      name: p.title,
      type: 'physical',
      sku: `SY-${String(index + 1).padStart(5, '0')}`,
      description: `<p>${p.description}</p>`,
      price: first?.price ?? 0,
      retailPrice: first?.compareAtPrice ?? null,
      salePrice: null,
      weightGrams: first?.weightGrams ?? 0,
      brandId: brandFor(p.vendor),
      categories: [categoryIds[p.productType] ?? 23],
      inventoryTracking: 'variant',
      isVisible: true,
      availability: 'available',
      upc: '',
      createdAt: created,
      modifiedAt: created,
      customUrl: `/${p.handle}/`,
      variantIds: [],
      baseVariantId: 0,
    };
    for (const v of p.variants) {
      const variant: BcVariant = {
        id: ++store.seq.variant,
        productId,
        skuId: store.seq.variant + 1000,
        sku: v.sku,
        price: v.price,
        retailPrice: v.compareAtPrice,
        salePrice: null,
        upc: v.barcode,
        gtin: v.barcode,
        mpn: '',
        weightGrams: v.weightGrams,
        optionValues: v.options.map((label, i) => ({
          id: ++store.seq.option,
          label,
          option_id: optionIds[i] as number,
          option_display_name: p.optionNames[i] ?? 'Option',
        })),
      };
      store.variants.set(variant.id, variant);
      product.variantIds.push(variant.id);
      const perLocation = catalog.stock.get(v.sku);
      catalog.locations.forEach((loc, i) => {
        store.stock.set(stockKey(variant.id, i + 1), {
          onHand: perLocation?.get(loc.key) ?? 0,
          safetyStock: 0,
          absoluteSet: true,
        });
      });
    }
    product.baseVariantId = product.variantIds[0] ?? 0;
    store.products.set(productId, product);
  });

  // A few orders from the last two weeks, so a first sync has history to read.
  const variants = [...store.variants.values()];
  const statuses = [11, 11, 10, 2, 1, 8];
  for (let i = 0; i < statuses.length && variants.length > 0; i++) {
    const created = now - (14 - i * 2) * 24 * 3600 * 1000 - rng.int(0, 3600) * 1000;
    const lines = Array.from({ length: rng.int(1, 3) }, () => ({
      variant: rng.pick(variants),
      quantity: rng.int(1, 2),
    }));
    const order = createOrder(store, {
      lines,
      locationId: 1,
      statusId: statuses[i] as number,
      createdAt: created,
      customer: { first: rng.pick(FIRST_NAMES), last: rng.pick(LAST_NAMES) },
      // The last one is collected in store.
      pickupLocationId: statuses[i] === 8 ? (store.locations[1]?.id ?? 1) : null,
    });
    if (order.statusId === 2 || order.statusId === 10) {
      for (const line of order.products) line.quantityShipped = line.quantity;
      order.shippedAt = created + 24 * 3600 * 1000;
      order.modifiedAt = order.shippedAt;
    }
  }
  return store;
}

/** A storefront order (stock is the caller's business: seeded orders are history, placed ones decrement). */
export function createOrder(
  store: BcStore,
  input: {
    lines: { variant: BcVariant; quantity: number }[];
    locationId: number;
    statusId?: number;
    createdAt?: number;
    customer?: { first: string; last: string; email?: string; phone?: string };
    pickupLocationId?: number | null;
    shippingAddress?: Partial<BcAddress>;
    billingAddress?: Partial<BcAddress>;
    customerMessage?: string;
    discount?: number;
    tax?: number;
    shippingCost?: number;
  },
): BcOrder {
  const id = ++store.seq.order;
  const createdAt = input.createdAt ?? Date.now();
  const first = input.customer?.first ?? 'Jordan';
  const last = input.customer?.last ?? 'Reyes';
  const email = input.customer?.email ?? `${first}.${last}@example.com`.toLowerCase().replace(/\s+/g, '');
  const address = (addressId: number): BcAddress => ({
    id: addressId,
    firstName: first,
    lastName: last,
    street1: `${(id * 7) % 900} Alder St`,
    city: 'Portland',
    state: 'Oregon',
    zip: '97205',
    country: 'United States',
    countryIso2: 'US',
    email,
    phone: input.customer?.phone ?? '503-555-0100',
    shippingMethod: 'Flat Rate',
  });
  const given = (base: BcAddress, a: Partial<BcAddress> | undefined): BcAddress => {
    const out = { ...base };
    for (const [k, v] of Object.entries(a ?? {})) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
    return out;
  };
  const shipping = given(address(++store.seq.address), input.shippingAddress);
  const values = input.lines.map((l) => variantPrice(store, l.variant) * l.quantity);
  const discounts = spread(input.discount ?? 0, values);
  const taxes = spread(
    input.tax ?? 0,
    values.map((v, i) => v - (discounts[i] as number)),
  );
  const order: BcOrder = {
    id,
    statusId: input.statusId ?? 11,
    createdAt,
    modifiedAt: createdAt,
    shippedAt: null,
    currency: store.currency,
    customerId: 0,
    customerMessage: input.customerMessage ?? '',
    billing: given({ ...address(0) }, input.billingAddress ?? input.shippingAddress),
    shipping: input.pickupLocationId ? { ...shipping, shippingMethod: 'Pickup In Store' } : shipping,
    pickupLocationId: input.pickupLocationId ?? null,
    shippingCost: input.shippingCost ?? (input.pickupLocationId ? 0 : 800),
    discount: input.discount ?? 0,
    tax: input.tax ?? 0,
    refunded: 0,
    paymentMethod: 'Credit Card',
    paymentProviderId: 'braintree',
    channelId: 1,
    products: [],
    shipments: [],
    refunds: [],
  };
  for (const [i, { variant, quantity }] of input.lines.entries()) {
    const product = store.products.get(variant.productId);
    order.products.push({
      id: ++store.seq.line,
      orderId: id,
      productId: variant.productId,
      variantId: variant.id,
      name: product?.name ?? variant.sku,
      sku: variant.sku,
      upc: variant.upc,
      quantity,
      quantityShipped: 0,
      quantityRefunded: 0,
      price: variantPrice(store, variant),
      discount: discounts[i] as number,
      tax: taxes[i] as number,
      orderAddressId: shipping.id,
      locationId: input.locationId,
    });
  }
  store.orders.set(id, order);
  return order;
}

export function variantPrice(store: BcStore, variant: BcVariant): number {
  const product = store.products.get(variant.productId);
  return variant.salePrice ?? variant.price ?? product?.salePrice ?? product?.price ?? 0;
}

export function orderSubtotal(order: BcOrder): number {
  return order.products.reduce((sum, line) => sum + line.price * line.quantity, 0);
}

/** What the customer paid: items, less the discount, plus shipping and tax. */
export function orderTotal(order: BcOrder): number {
  return orderSubtotal(order) - order.discount + order.shippingCost + order.tax;
}

/** Status after shipping: all shipped, some shipped, or unchanged. */
export function shippedStatus(order: BcOrder): number {
  const total = order.products.reduce((s, l) => s + l.quantity, 0);
  const shipped = order.products.reduce((s, l) => s + l.quantityShipped, 0);
  if (shipped === 0) return order.statusId;
  return shipped >= total ? 2 : 3;
}
