// Orders: placing one (a web order's checkout, or the seed's history), cancelling one as Shopify's
// orderCancel does, and the figures read off an order (its totals, financial and fulfillment status,
// quantities left to fulfil). Refunds, fulfillments and returns have their own modules.

import { createRng, seedFrom } from '../rng.ts';
import { spread, type WebOrderAddress } from '../web-order.ts';
import {
  isoNow,
  type Shop,
  type ShopAddress,
  type ShopLineItem,
  type ShopLocation,
  type ShopOrder,
  type ShopProduct,
  type ShopRefund,
  type ShopVariant,
} from './model.ts';
import { lineShare } from './refunds.ts';
import type { ShopifyStore } from './store.ts';

/** What a web order's checkout carries besides its lines (money in minor units). */
export interface OrderDetails {
  customer?: { firstName?: string; lastName?: string; email?: string; phone?: string };
  shippingAddress?: WebOrderAddress;
  billingAddress?: WebOrderAddress;
  note?: string;
  tags?: string[];
  discount?: number;
  tax?: number;
  shipping?: number;
}

const COUNTRY_NAMES: Record<string, string> = { US: 'United States', CA: 'Canada', GB: 'United Kingdom' };

function address(a: WebOrderAddress): ShopAddress {
  const [first, ...rest] = (a.name ?? '').trim().split(/\s+/);
  const countryCode = a.country?.toUpperCase() ?? null;
  return {
    firstName: a.firstName ?? (first || null),
    lastName: a.lastName ?? (rest.join(' ') || null),
    company: a.company ?? null,
    address1: a.address1 ?? null,
    address2: a.address2 ?? null,
    city: a.city ?? null,
    province: a.province ?? null,
    provinceCode: a.province && a.province.length <= 3 ? a.province.toUpperCase() : null,
    zip: a.zip ?? null,
    country: countryCode ? (COUNTRY_NAMES[countryCode] ?? countryCode) : null,
    countryCode,
    phone: a.phone ?? null,
  };
}

const FIRST_NAMES = ['Ava', 'Noah', 'Mia', 'Liam', 'Zoe', 'Ethan', 'Ivy', 'Owen'];
const LAST_NAMES = ['Nguyen', 'Garcia', 'Patel', 'Smith', 'Kim', 'Olsen', 'Rossi', 'Brown'];

/** What ShopifyStore.createOrder places: the lines, the location that fulfils them, and the checkout's details. */
export interface NewOrder {
  lines: { variant: ShopVariant; quantity: number }[];
  location: ShopLocation;
  at: string;
  rng?: ReturnType<typeof createRng>;
  commit: boolean;
  pickup?: boolean;
  details?: OrderDetails;
}

export function createOrder(store: ShopifyStore, shop: Shop, input: NewOrder): ShopOrder {
  const rng = input.rng ?? createRng(seedFrom(`${shop.name}:${shop.orders.size}`));
  const d = input.details ?? {};
  const first = d.customer?.firstName ?? rng.pick(FIRST_NAMES);
  const last = d.customer?.lastName ?? rng.pick(LAST_NAMES);
  const number = shop.nextOrderNumber();
  const orderId = shop.nextId();
  const values = input.lines.map((l) => l.variant.price * l.quantity);
  const discounts = spread(d.discount ?? 0, values);
  const taxes = spread(
    d.tax ?? 0,
    values.map((v, i) => v - (discounts[i] as number)),
  );
  const lineItems: ShopLineItem[] = input.lines.map(({ variant, quantity }, i) => {
    const product = shop.products.get(variant.productId) as ShopProduct;
    const net = (values[i] as number) - (discounts[i] as number);
    return {
      id: shop.nextId(),
      variantId: variant.id,
      productId: product.id,
      sku: variant.sku,
      title: product.title,
      variantTitle: variant.title === 'Default Title' ? null : variant.title,
      quantity,
      price: variant.price,
      discount: discounts[i] as number,
      tax: taxes[i] as number,
      taxRate: net > 0 ? Math.round(((taxes[i] as number) / net) * 10_000) / 10_000 : 0,
      refundedQuantity: 0,
      cancelledQuantity: 0,
    };
  });
  const shippingPrice = d.shipping ?? (input.pickup ? 0 : 599);
  const total = lineItems.reduce((s, l) => s + l.price * l.quantity - l.discount + l.tax, 0) + shippingPrice;
  const email = d.customer?.email ?? `${first}.${last}@example.com`.toLowerCase().replace(/\s+/g, '');
  const phone = d.customer?.phone ?? null;
  const made: ShopAddress = {
    firstName: first,
    lastName: last,
    company: null,
    address1: `${rng.int(1, 999)} Elm St`,
    address2: null,
    city: 'Portland',
    province: 'Oregon',
    provinceCode: 'OR',
    zip: '97205',
    country: 'United States',
    countryCode: 'US',
    phone,
  };
  const shippingAddress = input.pickup ? null : d.shippingAddress ? address(d.shippingAddress) : made;
  const order: ShopOrder = {
    id: orderId,
    number,
    name: `#${number}`,
    email,
    phone,
    customer: { id: shop.nextId(), firstName: first, lastName: last, email, phone },
    shippingAddress,
    billingAddress: d.billingAddress ? address(d.billingAddress) : (shippingAddress ?? made),
    currency: shop.currency,
    lineItems,
    shippingPrice,
    shippingTitle: input.pickup ? input.location.name : 'Standard',
    note: d.note ?? null,
    tags: d.tags ?? [],
    cancelReason: null,
    staffNote: null,
    fulfillmentOrders: [
      {
        id: shop.nextId(),
        locationId: input.location.id,
        status: 'OPEN',
        methodType: input.pickup ? 'PICK_UP' : 'SHIPPING',
        lineItems: lineItems.map((l) => ({
          id: shop.nextId(),
          lineItemId: l.id,
          totalQuantity: l.quantity,
          remainingQuantity: l.quantity,
        })),
        createdAt: input.at,
        updatedAt: input.at,
      },
    ],
    fulfillments: [],
    transactions: [
      {
        id: shop.nextId(),
        kind: 'SALE',
        gateway: 'shopify_payments',
        status: 'SUCCESS',
        amount: total,
        parentId: null,
        createdAt: input.at,
      },
    ],
    refunds: [],
    returns: [],
    cancelledAt: null,
    createdAt: input.at,
    updatedAt: input.at,
  };
  shop.orders.set(order.id, order);
  if (input.commit) {
    // Shopify commits the units at the fulfillment order's location: available → committed (on hand stays).
    for (const { variant, quantity } of input.lines) {
      const level = store.level(shop, variant.inventoryItemId, input.location.id, true, input.at);
      level.available -= quantity;
      level.committed += quantity;
      level.updatedAt = input.at;
    }
  }
  return order;
}

export interface CancelRequest {
  reason: string;
  refund: boolean;
  restock: boolean;
  staffNote?: string | null;
}

/**
 * Cancels an order as Shopify's orderCancel does: the open fulfillment orders close; with `restock` their
 * committed units go back to available where they were committed (else they leave on hand, written off);
 * with `refund` what was paid and not yet refunded goes back. Then orders/cancelled, refunds/create (with a
 * refund), orders/updated, and inventory_levels/update for each level whose available changed.
 * Returns an error message (and code) when Shopify would refuse.
 */
export function cancelOrder(
  store: ShopifyStore,
  shop: Shop,
  order: ShopOrder,
  input: CancelRequest,
): { code: string; message: string } | null {
  if (order.cancelledAt) return { code: 'INVALID', message: 'Order has already been cancelled' };
  if (order.fulfillments.some((f) => f.status === 'SUCCESS'))
    return {
      code: 'INVALID',
      message: 'Cannot cancel an order that has fulfillments. Cancel the fulfillments first.',
    };
  const at = isoNow();
  const touched: { itemId: number; locationId: number }[] = [];
  const refundLines: ShopRefund['lines'] = [];
  for (const fo of order.fulfillmentOrders) {
    if (fo.status === 'CLOSED' || fo.status === 'CANCELLED') continue;
    for (const fl of fo.lineItems) {
      const take = fl.remainingQuantity;
      if (take === 0) continue;
      fl.remainingQuantity = 0;
      const line = order.lineItems.find((l) => l.id === fl.lineItemId) as ShopLineItem;
      line.cancelledQuantity += take;
      refundLines.push({
        id: shop.nextId(),
        lineItemId: line.id,
        quantity: take,
        restockType: input.restock ? 'CANCEL' : 'NO_RESTOCK',
        locationId: input.restock ? fo.locationId : null,
        ...lineShare(line, take),
      });
      const variant = line.variantId === null ? undefined : shop.variants.get(line.variantId);
      const level = variant && store.level(shop, variant.inventoryItemId, fo.locationId);
      if (!variant || !level) continue;
      level.committed = Math.max(0, level.committed - take);
      if (input.restock) {
        level.available += take;
        touched.push({ itemId: variant.inventoryItemId, locationId: fo.locationId });
      }
      level.updatedAt = at;
    }
    fo.status = 'CLOSED';
    fo.updatedAt = at;
  }
  const paid = order.transactions.filter((t) => t.kind === 'SALE').reduce((s, t) => s + t.amount, 0);
  const refunded = order.transactions.filter((t) => t.kind === 'REFUND').reduce((s, t) => s + t.amount, 0);
  const amount = input.refund ? paid - refunded : 0;
  let refund: ShopRefund | null = null;
  if (amount > 0 || (input.refund && refundLines.length > 0)) {
    const sale = order.transactions.find((t) => t.kind === 'SALE');
    const transactionIds: number[] = [];
    if (amount > 0) {
      const id = shop.nextId();
      transactionIds.push(id);
      order.transactions.push({
        id,
        kind: 'REFUND',
        gateway: sale?.gateway ?? 'manual',
        status: 'SUCCESS',
        amount,
        parentId: sale?.id ?? null,
        createdAt: at,
      });
    }
    // A cancel's refund gives back what was paid: the shipping with it, no discrepancy.
    const shipping = order.shippingPrice - order.refunds.reduce((s, r) => s + r.shipping, 0);
    const worth = refundLines.reduce((s, l) => s + l.subtotal + l.tax, 0) + shipping;
    const adjustments: ShopRefund['adjustments'] = [];
    if (shipping > 0) adjustments.push({ id: shop.nextId(), kind: 'shipping_refund', amount: -shipping, tax: 0 });
    if (worth !== amount)
      adjustments.push({ id: shop.nextId(), kind: 'refund_discrepancy', amount: worth - amount, tax: 0 });
    refund = {
      id: shop.nextId(),
      note: null,
      amount,
      lines: refundLines,
      shipping,
      adjustments,
      transactionIds,
      createdAt: at,
    };
    order.refunds.push(refund);
  }
  order.cancelledAt = at;
  order.cancelReason = input.reason;
  order.staffNote = input.staffNote ?? null;
  order.updatedAt = at;
  const payload = store.orderPayload(shop, order);
  store.emit(shop, 'ORDERS_CANCELLED', payload);
  if (refund) store.emit(shop, 'REFUNDS_CREATE', store.refundPayload(shop, order, refund));
  store.emit(shop, 'ORDERS_UPDATED', payload);
  for (const t of touched) store.emitLevel(shop, t.itemId, t.locationId);
  return null;
}

export function unfulfilledQuantity(order: ShopOrder, lineItemId: number): number {
  let remaining = 0;
  for (const fo of order.fulfillmentOrders)
    for (const l of fo.lineItems) if (l.lineItemId === lineItemId) remaining += l.remainingQuantity;
  return remaining;
}

export function fulfilledQuantity(order: ShopOrder, lineItemId: number): number {
  let done = 0;
  for (const f of order.fulfillments)
    if (f.status === 'SUCCESS') for (const l of f.lines) if (l.lineItemId === lineItemId) done += l.quantity;
  return done;
}

/** An order's money, minor units: as placed, and current (after refunds and a cancellation). */
export function orderTotals(order: ShopOrder) {
  let lineItems = 0;
  let discounts = 0;
  let tax = 0;
  let currentLines = 0;
  let currentDiscounts = 0;
  let currentTax = 0;
  for (const l of order.lineItems) {
    lineItems += l.price * l.quantity;
    discounts += l.discount;
    tax += l.tax;
    const current = l.quantity - l.refundedQuantity - l.cancelledQuantity;
    const share = l.quantity > 0 ? current / l.quantity : 0;
    currentLines += l.price * current;
    currentDiscounts += Math.round(l.discount * share);
    currentTax += Math.round(l.tax * share);
  }
  const refunded = order.refunds.reduce((s, r) => s + r.amount, 0);
  const subtotal = lineItems - discounts;
  const total = subtotal + order.shippingPrice + tax;
  const currentSubtotal = currentLines - currentDiscounts;
  const shipping = order.cancelledAt ? 0 : order.shippingPrice;
  return {
    lineItems,
    discounts,
    tax,
    subtotal,
    total,
    refunded,
    currentDiscounts,
    currentTax,
    currentSubtotal,
    currentTotal: Math.max(0, Math.min(total - refunded, currentSubtotal + shipping + currentTax)),
  };
}

export function financialStatus(order: ShopOrder): 'PAID' | 'PARTIALLY_REFUNDED' | 'REFUNDED' {
  const paid = order.transactions.filter((t) => t.kind === 'SALE').reduce((s, t) => s + t.amount, 0);
  const refunded = order.transactions.filter((t) => t.kind === 'REFUND').reduce((s, t) => s + t.amount, 0);
  if (refunded === 0) return 'PAID';
  return refunded >= paid ? 'REFUNDED' : 'PARTIALLY_REFUNDED';
}

export function fulfillmentStatus(order: ShopOrder): 'UNFULFILLED' | 'PARTIALLY_FULFILLED' | 'FULFILLED' {
  let total = 0;
  let remaining = 0;
  for (const fo of order.fulfillmentOrders)
    for (const l of fo.lineItems) {
      total += l.totalQuantity;
      remaining += l.remainingQuantity;
    }
  if (remaining === 0 && total > 0) return 'FULFILLED';
  return remaining < total ? 'PARTIALLY_FULFILLED' : 'UNFULFILLED';
}
