import type { ProviderAddress, ProviderOrder } from '../types.ts';
import { toMinor } from './client.ts';

/** The order topics whose payload is the order itself (Shopify's REST Order resource). */
export const SHOPIFY_ORDER_TOPICS = new Set(['orders/create', 'orders/updated', 'orders/cancelled']);

type Rest = Record<string, unknown>;
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const money = (v: unknown): number => {
  if (typeof v === 'number') return toMinor(v.toFixed(2));
  return typeof v === 'string' && v !== '' ? toMinor(v) : 0;
};
const shopMoney = (set: unknown): number | null => {
  const amount = (set as { shop_money?: { amount?: unknown } } | null)?.shop_money?.amount;
  return amount === undefined ? null : money(amount);
};

function restAddress(a: unknown): ProviderAddress | null {
  if (!a || typeof a !== 'object') return null;
  const r = a as Rest;
  return {
    name: str(r.name) ?? ([str(r.first_name), str(r.last_name)].filter(Boolean).join(' ') || null),
    company: str(r.company),
    address1: str(r.address1),
    address2: str(r.address2),
    city: str(r.city),
    province: str(r.province_code) ?? str(r.province),
    zip: str(r.zip),
    country: str(r.country_code) ?? str(r.country),
    phone: str(r.phone),
  };
}

/**
 * An orders/create|updated|cancelled payload as a ProviderOrder. The REST order names no fulfillment
 * order, so where Shopify committed each line's units is not in it: `stockLocationExternalId` is left out
 * (unknown) and `locationExternalId` null; read the order (getOrder) when they matter. null: not an order.
 */
export function orderFromWebhook(payload: unknown, adminOrdersUrl: string | null): ProviderOrder | null {
  if (!payload || typeof payload !== 'object') return null;
  const o = payload as Rest;
  const gid = str(o.admin_graphql_api_id) ?? (typeof o.id === 'number' ? `gid://shopify/Order/${o.id}` : null);
  if (!gid || !Array.isArray(o.line_items)) return null;
  const cancelled = str(o.cancelled_at) !== null;
  const customer = o.customer && typeof o.customer === 'object' ? (o.customer as Rest) : null;
  const customerName = customer
    ? [str(customer.first_name), str(customer.last_name)].filter(Boolean).join(' ') || null
    : null;
  const email = str(customer?.email) ?? str(o.email) ?? str(o.contact_email);
  const phone = str(customer?.phone) ?? str(o.phone);
  const shippingLines = Array.isArray(o.shipping_lines) ? (o.shipping_lines as Rest[]) : [];
  const pickup = !o.shipping_address && shippingLines.some((l) => /pick\s*up/i.test(`${l.code ?? ''}`));
  const tags =
    typeof o.tags === 'string'
      ? o.tags
          .split(',')
          .map((t) => t.trim())
          .filter(Boolean)
      : [];
  const discounts = shopMoney(o.total_discounts_set) ?? money(o.total_discounts);
  const shipping =
    shopMoney(o.total_shipping_price_set) ??
    shippingLines.reduce((s, l) => s + money(l.discounted_price ?? l.price), 0);
  return {
    externalId: gid,
    name: str(o.name) ?? String(o.order_number ?? o.id),
    createdAt: str(o.created_at) ?? new Date(0).toISOString(),
    updatedAt: str(o.updated_at) ?? str(o.created_at) ?? new Date(0).toISOString(),
    currency: str(o.currency) ?? 'USD',
    total: shopMoney(o.total_price_set) ?? money(o.total_price),
    subtotal: shopMoney(o.subtotal_price_set) ?? money(o.subtotal_price),
    shippingTotal: shipping,
    discountTotal: discounts,
    taxTotal: shopMoney(o.total_tax_set) ?? money(o.total_tax),
    financialStatus: str(o.financial_status),
    // REST says null for unfulfilled and `partial` for partly fulfilled; GraphQL's names, as getOrder gives.
    fulfillmentStatus:
      o.fulfillment_status === 'fulfilled'
        ? 'fulfilled'
        : o.fulfillment_status === 'partial'
          ? 'partially_fulfilled'
          : 'unfulfilled',
    cancelled,
    cancelledAt: str(o.cancelled_at),
    cancelReason: str(o.cancel_reason),
    locationExternalId: typeof o.location_id === 'number' ? `gid://shopify/Location/${o.location_id}` : null,
    fulfillmentType: pickup ? 'pickup' : 'ship',
    customer: customerName || email || phone ? { name: customerName, email, phone } : null,
    shippingAddress: restAddress(o.shipping_address) as Record<string, string | null> | null,
    billingAddress: restAddress(o.billing_address),
    note: str(o.note),
    tags,
    adminUrl: adminOrdersUrl && typeof o.id === 'number' ? `${adminOrdersUrl}/${o.id}` : null,
    lines: (o.line_items as Rest[]).map((l) => {
      const quantity = num(l.quantity);
      const current = typeof l.current_quantity === 'number' ? l.current_quantity : quantity;
      const removed = Math.max(0, quantity - current);
      const taxLines = Array.isArray(l.tax_lines) ? (l.tax_lines as Rest[]) : [];
      return {
        externalId: str(l.admin_graphql_api_id) ?? `gid://shopify/LineItem/${l.id}`,
        sku: str(l.sku),
        variantExternalId: typeof l.variant_id === 'number' ? `gid://shopify/ProductVariant/${l.variant_id}` : null,
        title: str(l.name) ?? str(l.title) ?? '',
        quantity,
        price: shopMoney(l.price_set) ?? money(l.price),
        discount: shopMoney(l.total_discount_set) ?? money(l.total_discount),
        tax: taxLines.reduce((s, t) => s + (shopMoney(t.price_set) ?? money(t.price)), 0),
        fulfilledQuantity: Math.max(0, current - num(l.fulfillable_quantity)),
        cancelledQuantity: cancelled ? removed : 0,
        refundedQuantity: cancelled ? 0 : removed,
      };
    }),
  };
}
