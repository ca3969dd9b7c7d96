/**
 * Shopify orders read (listed since a time, their update stamps, one by id, each with all its lines and
 * their stock locations) and mapped to ProviderOrders, and an order's cancel.
 */

import { DomainError } from '../../lib/errors.ts';
import type { Page, ProviderAddress, ProviderOrder } from '../types.ts';
import { toMinor } from './client.ts';
import { type Connection, decodeCursor, describe, encodeCursor, type ShopifyHost } from './graphql.ts';
import {
  ORDER_CANCEL_MUTATION,
  ORDER_FULFILLMENT_LINES_QUERY,
  ORDER_LINES_QUERY,
  ORDER_NODES_PER_QUERY,
  ORDER_NODES_QUERY,
  ORDER_QUERY,
  ORDER_STAMPS_PAGE,
  ORDER_STAMPS_QUERY,
  ORDERS_QUERY,
} from './order-queries.ts';

interface Amount {
  shopMoney: { amount: string };
}

interface LineNode {
  id: string;
  sku: string | null;
  name: string;
  quantity: number;
  currentQuantity: number;
  unfulfilledQuantity: number;
  variant: { id: string } | null;
  originalUnitPriceSet: Amount;
  totalDiscountSet: Amount;
  taxLines: { priceSet: Amount }[];
}

interface AddressNode {
  firstName: string | null;
  lastName: string | null;
  name: string | null;
  company: string | null;
  address1: string | null;
  address2: string | null;
  city: string | null;
  province: string | null;
  provinceCode: string | null;
  zip: string | null;
  country: string | null;
  countryCodeV2: string | null;
  phone: string | null;
}

interface FulfillmentOrderNode {
  id: string;
  status: string;
  assignedLocation: { location: { id: string } | null };
  deliveryMethod: { methodType: string } | null;
}

interface OrderNode {
  id: string;
  legacyResourceId: string;
  name: string;
  email: string | null;
  phone: string | null;
  note: string | null;
  tags: string[];
  createdAt: string;
  updatedAt: string;
  cancelledAt: string | null;
  cancelReason: string | null;
  currencyCode: string;
  displayFinancialStatus: string | null;
  displayFulfillmentStatus: string;
  customer: { displayName: string; email: string | null; phone: string | null } | null;
  shippingAddress: AddressNode | null;
  billingAddress: AddressNode | null;
  totalPriceSet: Amount;
  subtotalPriceSet: Amount;
  totalShippingPriceSet: Amount;
  totalTaxSet: Amount | null;
  totalDiscountsSet: Amount | null;
  lineItems: Connection<LineNode>;
  fulfillmentOrders: { nodes: FulfillmentOrderNode[] };
}

const amount = (a: Amount | null | undefined) => toMinor(a?.shopMoney.amount ?? '0');

function mapAddress(a: AddressNode | null): ProviderAddress | null {
  if (!a) return null;
  return {
    name: a.name ?? ([a.firstName, a.lastName].filter(Boolean).join(' ') || null),
    company: a.company || null,
    address1: a.address1,
    address2: a.address2 || null,
    city: a.city,
    province: a.provinceCode ?? a.province,
    zip: a.zip,
    country: a.countryCodeV2 ?? a.country,
    phone: a.phone || null,
  };
}

/**
 * A Shopify order as ProviderOrder. `lineLocations`: line id → the location of the fulfillment order that
 * holds it (where Shopify moved the line's units available → committed); without it, every line is at
 * the order's only fulfillment order's location.
 */
function mapOrder(
  o: OrderNode,
  lines: LineNode[],
  adminUrl: string,
  lineLocations?: Map<string, string>,
): ProviderOrder {
  const fos = o.fulfillmentOrders.nodes.filter(
    (f) => f.status !== 'CANCELLED' || o.fulfillmentOrders.nodes.length === 1,
  );
  const pickup = fos.find((f) => f.deliveryMethod?.methodType === 'PICK_UP');
  const only = fos.length === 1 ? (fos[0]?.assignedLocation.location?.id ?? null) : null;
  const cancelled = o.cancelledAt !== null;
  return {
    externalId: o.id,
    name: o.name,
    createdAt: o.createdAt,
    updatedAt: o.updatedAt,
    currency: o.currencyCode,
    total: amount(o.totalPriceSet),
    subtotal: amount(o.subtotalPriceSet),
    shippingTotal: amount(o.totalShippingPriceSet),
    discountTotal: amount(o.totalDiscountsSet),
    taxTotal: amount(o.totalTaxSet),
    financialStatus: o.displayFinancialStatus?.toLowerCase() ?? null,
    fulfillmentStatus: o.displayFulfillmentStatus.toLowerCase(),
    cancelled,
    cancelledAt: o.cancelledAt,
    cancelReason: o.cancelReason?.toLowerCase() ?? null,
    locationExternalId: pickup?.assignedLocation.location?.id ?? null,
    fulfillmentType: pickup ? 'pickup' : 'ship',
    customer: o.customer
      ? {
          name: o.customer.displayName || null,
          email: o.customer.email ?? o.email,
          phone: o.customer.phone ?? o.phone,
        }
      : o.email || o.phone
        ? { name: null, email: o.email, phone: o.phone }
        : null,
    shippingAddress: mapAddress(o.shippingAddress) as Record<string, string | null> | null,
    billingAddress: mapAddress(o.billingAddress),
    note: o.note,
    tags: o.tags,
    adminUrl: `${adminUrl}/${o.legacyResourceId}`,
    lines: lines.map((l) => {
      // Units no longer on the order (refunded, or removed by the cancellation).
      const removed = Math.max(0, l.quantity - l.currentQuantity);
      return {
        externalId: l.id,
        sku: l.sku || null,
        variantExternalId: l.variant?.id ?? null,
        title: l.name,
        quantity: l.quantity,
        price: amount(l.originalUnitPriceSet),
        discount: amount(l.totalDiscountSet),
        tax: l.taxLines.reduce((s, t) => s + amount(t.priceSet), 0),
        // Still on the order and no longer waiting for fulfilment.
        fulfilledQuantity: Math.max(0, l.currentQuantity - l.unfulfilledQuantity),
        cancelledQuantity: cancelled ? removed : 0,
        refundedQuantity: cancelled ? 0 : removed,
        stockLocationExternalId: lineLocations?.get(l.id) ?? only,
      };
    }),
  };
}

/** Shopify's OrderCancelReason values. */
const CANCEL_REASONS = new Set(['CUSTOMER', 'DECLINED', 'FRAUD', 'INVENTORY', 'OTHER', 'STAFF']);

export async function listOrders(
  host: ShopifyHost,
  input: { cursor: string | null; since?: string },
): Promise<Page<ProviderOrder>> {
  const { since, after, query } = ordersSearch(input);
  const data = await host.client.request<{ orders: Connection<OrderNode> }>(ORDERS_QUERY, { after, query }, 770);
  const items: ProviderOrder[] = [];
  for (const o of data.orders.nodes) items.push(await fullOrder(host, o));
  return {
    items,
    nextCursor: data.orders.pageInfo.hasNextPage
      ? encodeCursor({ since, after: data.orders.pageInfo.endCursor })
      : null,
  };
}

export async function listOrderStamps(host: ShopifyHost, input: { cursor: string | null; since?: string }) {
  const { since, after, query } = ordersSearch(input);
  const data = await host.client.request<{
    orders: Connection<{ id: string; updatedAt: string }>;
  }>(ORDER_STAMPS_QUERY, { after, query }, ORDER_STAMPS_PAGE + 2);
  return {
    items: data.orders.nodes.map((o) => ({ externalId: o.id, updatedAt: o.updatedAt })),
    nextCursor: data.orders.pageInfo.hasNextPage
      ? encodeCursor({ since, after: data.orders.pageInfo.endCursor })
      : null,
  };
}

export async function getOrder(host: ShopifyHost, externalId: string): Promise<ProviderOrder | null> {
  if (!/^gid:\/\/shopify\/Order\/\d+$/.test(externalId)) return null;
  const data = await host.client.request<{ order: OrderNode | null }>(ORDER_QUERY, { id: externalId }, 130);
  return data.order ? fullOrder(host, data.order) : null;
}

/**
 * Several orders read together (`nodes`, ORDER_NODES_PER_QUERY a query: each costs what getOrder's query does,
 * so a query stays under Shopify's 1,000-point cap), each as getOrder reads it; null for an id that names no
 * order. A burst of order webhooks costs a request per six orders instead of one each.
 */
export async function getOrders(host: ShopifyHost, externalIds: string[]): Promise<Map<string, ProviderOrder | null>> {
  const found = new Map<string, ProviderOrder | null>(externalIds.map((id) => [id, null]));
  const ids = [...new Set(externalIds.filter((id) => /^gid:\/\/shopify\/Order\/\d+$/.test(id)))];
  for (let i = 0; i < ids.length; i += ORDER_NODES_PER_QUERY) {
    const chunk = ids.slice(i, i + ORDER_NODES_PER_QUERY);
    const data = await host.client.request<{ nodes: (OrderNode | Record<string, never> | null)[] }>(
      ORDER_NODES_QUERY,
      { ids: chunk },
      130 * chunk.length,
    );
    for (const node of data.nodes) {
      if (node && 'id' in node && typeof node.id === 'string' && found.has(node.id))
        found.set(node.id, await fullOrder(host, node as OrderNode));
    }
  }
  return found;
}

/**
 * Cancels the order at Shopify with restock (its committed units go back to available at their
 * location, as Shopify's own cancel does) and a refund of what was paid. Shopify cancels in a job; an
 * order it already cancelled counts as done.
 */
export async function cancelOrder(
  host: ShopifyHost,
  input: {
    externalId: string;
    reason?: string | null;
  },
): Promise<{ ok: true } | { unsupported: string }> {
  type Answer = {
    orderCancel: {
      job: { id: string } | null;
      orderCancelUserErrors: { field: string[] | null; message: string; code: string | null }[];
    };
  };
  const cancelledNow = async () => {
    const now = await host.client.request<{ order: { cancelledAt: string | null } | null }>(
      'query($id: ID!) { order(id: $id) { cancelledAt } }',
      { id: input.externalId },
      1,
    );
    if (!now.order) throw new DomainError('NOT_FOUND', 'The order is not in the Shopify shop');
    return now.order.cancelledAt !== null;
  };
  const reason = (input.reason ?? '').toUpperCase();
  const res = await host.client.mutateOnce<Answer>(
    ORDER_CANCEL_MUTATION,
    {
      orderId: input.externalId,
      reason: CANCEL_REASONS.has(reason) ? reason : 'OTHER',
      refund: true,
      restock: true,
      notifyCustomer: false,
      staffNote: input.reason ? input.reason.slice(0, 255) : null,
    },
    async () => ((await cancelledNow()) ? { orderCancel: { job: null, orderCancelUserErrors: [] } } : null),
  );
  const errors = res.orderCancel.orderCancelUserErrors;
  if (errors.length === 0) return { ok: true };
  if (errors.some((e) => e.code === 'NOT_FOUND'))
    throw new DomainError('NOT_FOUND', 'The order is not in the Shopify shop');
  // A repeat of a cancel that went through: Shopify refuses it as already cancelled.
  if (await cancelledNow()) return { ok: true };
  throw new DomainError('INVALID_STATE', `Shopify refused to cancel the order: ${describe(errors)}`);
}

/** The order with all its lines, and each line's stock location when it is split over several. */
async function fullOrder(host: ShopifyHost, o: OrderNode): Promise<ProviderOrder> {
  const lines = await allLines(host, o);
  const fos = o.fulfillmentOrders.nodes.filter((f) => f.status !== 'CANCELLED');
  let lineLocations: Map<string, string> | undefined;
  if (new Set(fos.map((f) => f.assignedLocation.location?.id)).size > 1) {
    const data = await host.client.request<{
      order: {
        fulfillmentOrders: {
          nodes: {
            status: string;
            assignedLocation: { location: { id: string } | null };
            lineItems: { nodes: { totalQuantity: number; lineItem: { id: string } }[] };
          }[];
        };
      } | null;
    }>(ORDER_FULFILLMENT_LINES_QUERY, { id: o.id }, 430);
    lineLocations = new Map();
    const held = new Map<string, number>();
    for (const fo of data.order?.fulfillmentOrders.nodes ?? []) {
      const location = fo.assignedLocation.location?.id;
      if (!location || fo.status === 'CANCELLED') continue;
      // A line split over locations is placed where most of its units are.
      for (const l of fo.lineItems.nodes)
        if (l.totalQuantity > (held.get(l.lineItem.id) ?? 0)) {
          held.set(l.lineItem.id, l.totalQuantity);
          lineLocations.set(l.lineItem.id, location);
        }
    }
  }
  return mapOrder(o, lines, host.adminOrdersUrl, lineLocations);
}

async function allLines(host: ShopifyHost, o: OrderNode): Promise<LineNode[]> {
  const lines = [...o.lineItems.nodes];
  let after = o.lineItems.pageInfo.hasNextPage ? o.lineItems.pageInfo.endCursor : null;
  while (after) {
    const data: { order: { lineItems: Connection<LineNode> } | null } = await host.client.request(
      ORDER_LINES_QUERY,
      { id: o.id, after },
      455,
    );
    if (!data.order) break;
    lines.push(...data.order.lineItems.nodes);
    after = data.order.lineItems.pageInfo.hasNextPage ? data.order.lineItems.pageInfo.endCursor : null;
  }
  return lines;
}

/** listOrders' and listOrderStamps' search: since a time (a cursor is a time or a page of a search), to the second. */
function ordersSearch(input: { cursor: string | null; since?: string }) {
  let since = input.since ?? null;
  let after: string | null = null;
  if (input.cursor) {
    if (!Number.isNaN(Date.parse(input.cursor)) && /^\d{4}-\d{2}-\d{2}T/.test(input.cursor)) since = input.cursor;
    else ({ since, after } = decodeCursor<{ since: string | null; after: string | null }>(input.cursor));
  }
  // Shopify's search is to the second; `>=` so an order updated in the cursor's second is not lost.
  const query = since ? `updated_at:>='${new Date(since).toISOString().replace(/\.\d{3}Z$/, 'Z')}'` : null;
  return { since, after, query };
}
