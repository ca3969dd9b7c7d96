// What the shop's webhooks carry: the shop, inventory level, product and order as Shopify's REST resources
// (snake_case, money as decimal strings). The refund's is in refunds.ts, a fulfillment's in fulfillments.ts.

import {
  gid,
  money,
  type Shop,
  type ShopAddress,
  type ShopLevel,
  type ShopOrder,
  type ShopProduct,
  type ShopVariant,
} from './model.ts';
import { financialStatus, fulfilledQuantity, fulfillmentStatus, orderTotals, unfulfilledQuantity } from './orders.ts';
import { refundPayload } from './refunds.ts';
import type { ShopifyStore } from './store.ts';

export function shopPayload(shop: Shop) {
  return {
    id: shop.shopId,
    name: shop.name,
    email: `owner@${shop.name}.example.com`,
    domain: `${shop.name}.myshopify.com`,
    myshopify_domain: `${shop.name}.myshopify.com`,
    currency: shop.currency,
    iana_timezone: 'America/Los_Angeles',
    created_at: shop.createdAt,
  };
}

export function inventoryLevelPayload(itemId: number, locationId: number, level: ShopLevel) {
  return {
    inventory_item_id: itemId,
    location_id: locationId,
    available: level.available,
    updated_at: level.updatedAt,
    admin_graphql_api_id: `gid://shopify/InventoryLevel/${locationId}?inventory_item_id=${itemId}`,
  };
}

export function productPayload(shop: Shop, product: ShopProduct) {
  return {
    id: product.id,
    admin_graphql_api_id: gid('Product', product.id),
    title: product.title,
    handle: product.handle,
    vendor: product.vendor,
    product_type: product.productType,
    body_html: product.descriptionHtml,
    status: product.status.toLowerCase(),
    tags: product.tags.join(', '),
    created_at: product.createdAt,
    updated_at: product.updatedAt,
    variants: product.variantIds.map((id) => {
      const v = shop.variants.get(id) as ShopVariant;
      let quantity = 0;
      for (const level of shop.levels.get(v.inventoryItemId)?.values() ?? []) quantity += level.available;
      return {
        id: v.id,
        admin_graphql_api_id: gid('ProductVariant', v.id),
        product_id: product.id,
        title: v.title,
        sku: v.sku,
        barcode: v.barcode,
        price: money(v.price),
        compare_at_price: v.compareAtPrice === null ? null : money(v.compareAtPrice),
        position: v.position,
        inventory_item_id: v.inventoryItemId,
        inventory_quantity: quantity,
        updated_at: v.updatedAt,
      };
    }),
    images: product.images.map((i) => ({ id: i.id, src: i.url, alt: i.altText })),
  };
}

/**
 * The order as Shopify's REST resource (what orders/create, orders/updated and orders/cancelled carry, in
 * the webhook's API version): money as decimal strings with their `_set` twins, addresses, customer,
 * line items with their discounts, tax lines and quantities, shipping lines. Fulfillment orders are not
 * part of it (Shopify's order webhook names no fulfillment location).
 */
export function orderPayload(store: ShopifyStore, shop: Shop, order: ShopOrder) {
  const set = (minor: number) => ({
    shop_money: { amount: money(minor), currency_code: order.currency },
    presentment_money: { amount: money(minor), currency_code: order.currency },
  });
  const t = orderTotals(order);
  const restAddress = (a: ShopAddress | null) =>
    a && {
      first_name: a.firstName,
      last_name: a.lastName,
      name: [a.firstName, a.lastName].filter(Boolean).join(' ') || null,
      company: a.company,
      address1: a.address1,
      address2: a.address2,
      city: a.city,
      province: a.province,
      province_code: a.provinceCode,
      zip: a.zip,
      country: a.country,
      country_code: a.countryCode,
      phone: a.phone,
      latitude: null,
      longitude: null,
    };
  const taxLine = (minor: number, rate: number) => ({
    title: 'Sales Tax',
    price: money(minor),
    rate,
    price_set: set(minor),
    channel_liable: false,
  });
  const c = order.customer;
  const pickup = order.fulfillmentOrders.some((f) => f.methodType === 'PICK_UP');
  return {
    id: order.id,
    admin_graphql_api_id: gid('Order', order.id),
    name: order.name,
    number: order.number - 1000,
    order_number: order.number,
    email: order.email,
    contact_email: order.email,
    phone: order.phone,
    created_at: order.createdAt,
    updated_at: order.updatedAt,
    processed_at: order.createdAt,
    closed_at: null,
    cancelled_at: order.cancelledAt,
    cancel_reason: order.cancelReason?.toLowerCase() ?? null,
    currency: order.currency,
    presentment_currency: order.currency,
    source_name: 'web',
    test: false,
    confirmed: true,
    taxes_included: false,
    total_line_items_price: money(t.lineItems),
    total_line_items_price_set: set(t.lineItems),
    subtotal_price: money(t.subtotal),
    subtotal_price_set: set(t.subtotal),
    current_subtotal_price: money(t.currentSubtotal),
    current_subtotal_price_set: set(t.currentSubtotal),
    total_discounts: money(t.discounts),
    total_discounts_set: set(t.discounts),
    current_total_discounts: money(t.currentDiscounts),
    current_total_discounts_set: set(t.currentDiscounts),
    total_shipping_price_set: set(order.shippingPrice),
    total_tax: money(t.tax),
    total_tax_set: set(t.tax),
    current_total_tax: money(t.currentTax),
    current_total_tax_set: set(t.currentTax),
    total_price: money(t.total),
    total_price_set: set(t.total),
    current_total_price: money(t.currentTotal),
    current_total_price_set: set(t.currentTotal),
    total_outstanding: '0.00',
    total_refunded: money(t.refunded),
    total_weight: 0,
    financial_status: financialStatus(order).toLowerCase(),
    fulfillment_status: restFulfillmentStatus(order),
    note: order.note,
    note_attributes: [],
    tags: order.tags.join(', '),
    location_id: null,
    user_id: null,
    gateway: order.transactions[0]?.gateway ?? null,
    payment_gateway_names: [...new Set(order.transactions.map((x) => x.gateway))],
    customer: c && {
      id: c.id,
      admin_graphql_api_id: gid('Customer', c.id),
      email: c.email,
      first_name: c.firstName,
      last_name: c.lastName,
      phone: c.phone,
      state: 'disabled',
      currency: order.currency,
      created_at: order.createdAt,
      updated_at: order.createdAt,
      default_address: restAddress(order.billingAddress),
    },
    billing_address: restAddress(order.billingAddress),
    shipping_address: restAddress(order.shippingAddress),
    tax_lines: t.tax > 0 ? [taxLine(t.tax, order.lineItems[0]?.taxRate ?? 0)] : [],
    discount_codes: t.discounts > 0 ? [{ code: 'SANDBOX', amount: money(t.discounts), type: 'fixed_amount' }] : [],
    line_items: orderLineItemsPayload(shop, order),
    shipping_lines: [
      {
        id: order.id + 1,
        title: order.shippingTitle,
        code: pickup ? 'Pickup' : order.shippingTitle,
        source: 'shopify',
        price: money(order.shippingPrice),
        price_set: set(order.shippingPrice),
        discounted_price: money(order.shippingPrice),
        discounted_price_set: set(order.shippingPrice),
        tax_lines: [],
        discount_allocations: [],
      },
    ],
    fulfillments: order.fulfillments.map((f) => ({
      id: f.id,
      admin_graphql_api_id: gid('Fulfillment', f.id),
      order_id: order.id,
      status: f.status.toLowerCase(),
      location_id: f.locationId,
      created_at: f.createdAt,
      tracking_company: f.tracking[0]?.company ?? null,
      tracking_number: f.tracking[0]?.number ?? null,
      tracking_numbers: f.tracking.map((x) => x.number).filter(Boolean),
      line_items: f.lines.map((x) => ({ id: x.lineItemId, quantity: x.quantity })),
    })),
    refunds: order.refunds.map((r) => refundPayload(store, shop, order, r)),
  };
}

/** An order's line items as its REST resource holds them. */
export function orderLineItemsPayload(shop: Shop, order: ShopOrder) {
  const set = (minor: number) => ({
    shop_money: { amount: money(minor), currency_code: order.currency },
    presentment_money: { amount: money(minor), currency_code: order.currency },
  });
  const taxLine = (minor: number, rate: number) => ({
    title: 'Sales Tax',
    price: money(minor),
    rate,
    price_set: set(minor),
    channel_liable: false,
  });
  const pickup = order.fulfillmentOrders.some((f) => f.methodType === 'PICK_UP');
  return order.lineItems.map((l) => {
    const variant = l.variantId === null ? undefined : shop.variants.get(l.variantId);
    const product = l.productId === null ? undefined : shop.products.get(l.productId);
    const fulfillable = unfulfilledQuantity(order, l.id);
    const fulfilled = fulfilledQuantity(order, l.id);
    return {
      id: l.id,
      admin_graphql_api_id: gid('LineItem', l.id),
      variant_id: l.variantId,
      product_id: l.productId,
      sku: l.sku,
      title: l.title,
      variant_title: l.variantTitle,
      name: l.variantTitle ? `${l.title} - ${l.variantTitle}` : l.title,
      vendor: product?.vendor ?? null,
      quantity: l.quantity,
      current_quantity: l.quantity - l.refundedQuantity - l.cancelledQuantity,
      fulfillable_quantity: fulfillable,
      fulfillment_status: fulfilled >= l.quantity ? 'fulfilled' : fulfilled > 0 ? 'partial' : null,
      fulfillment_service: 'manual',
      price: money(l.price),
      price_set: set(l.price),
      total_discount: money(l.discount),
      total_discount_set: set(l.discount),
      discount_allocations:
        l.discount > 0
          ? [{ amount: money(l.discount), amount_set: set(l.discount), discount_application_index: 0 }]
          : [],
      tax_lines: l.tax > 0 ? [taxLine(l.tax, l.taxRate)] : [],
      taxable: true,
      requires_shipping: !pickup,
      gift_card: false,
      grams: 0,
      product_exists: product !== undefined,
      properties: [],
      variant_inventory_management: variant ? 'shopify' : null,
    };
  });
}

function restFulfillmentStatus(order: ShopOrder): string | null {
  const status = fulfillmentStatus(order);
  return status === 'FULFILLED' ? 'fulfilled' : status === 'PARTIALLY_FULFILLED' ? 'partial' : null;
}
