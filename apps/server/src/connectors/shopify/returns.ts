import type { ProviderReturn, ProviderReturnItem } from '../types.ts';
import { toMinor } from './client.ts';

/**
 * Shopify refunds and returns as ProviderReturns. A refund made without a return (refundCreate, the admin's
 * Refund dialog) is its own return here, and it is what moves stock at Shopify: each refund line has a
 * restock type — RETURN (the units came back and Shopify put them on sale at the line's location: +available
 * there), CANCEL (units never shipped, released where they were committed: committed → available there),
 * both restocked by Shopify on its own stock (`channelRestocked`); NO_RESTOCK (money only, or damaged goods).
 * The refund's id is the return's id. The refund an order's cancel makes (its lines CANCEL, the order
 * cancelled) is no return of goods: the order's cancel releases those units and meets Shopify's report of them
 * (docs/decisions/0008), so they read as not restocked here.
 */

type Money = { shopMoney: { amount: string; currencyCode?: string } };

export interface RefundNode {
  id: string;
  /** The return it pays for (returnRefund): then it is read as part of that return (mapReturn). */
  return?: { id: string } | null;
  createdAt: string | null;
  updatedAt: string;
  note: string | null;
  totalRefundedSet: Money;
  order: {
    id: string;
    name: string;
    cancelledAt?: string | null;
    customer: { displayName: string } | null;
    billingAddress: { name: string | null } | null;
  };
  refundLineItems: {
    nodes: {
      quantity: number;
      restockType: string;
      location: { id: string } | null;
      subtotalSet: Money;
      totalTaxSet: Money;
      lineItem: { id: string; sku: string | null; variant: { id: string } | null };
    }[];
    pageInfo: { hasNextPage: boolean };
  };
  refundShippingLines: { nodes: { subtotalAmountSet: Money; taxAmountSet: Money }[] };
}

const RESTOCKED = new Set(['RETURN', 'CANCEL', 'LEGACY_RESTOCK']);

function item(
  restockType: string,
  base: Omit<ProviderReturnItem, 'restock' | 'channelRestocked' | 'locationExternalId'>,
  location: string | null,
  orderCancelled = false,
): ProviderReturnItem {
  const type = restockType.toUpperCase();
  if (RESTOCKED.has(type) && !(type === 'CANCEL' && orderCancelled))
    return { ...base, restock: true, channelRestocked: true, locationExternalId: location };
  return { ...base, restock: false, channelRestocked: false, locationExternalId: null };
}

function totals(items: ProviderReturnItem[], itemTax: number, shippingTax: number, total: number) {
  const lines = items.reduce((s, i) => s + i.total, 0);
  return { tax: itemTax + shippingTax, adjustment: total - lines };
}

export function mapRefund(r: RefundNode): ProviderReturn {
  let itemTax = 0;
  const items = r.refundLineItems.nodes.map((l) => {
    const tax = toMinor(l.totalTaxSet.shopMoney.amount);
    itemTax += tax;
    return item(
      l.restockType,
      {
        lineExternalId: l.lineItem.id,
        sku: l.lineItem.sku || null,
        variantExternalId: l.lineItem.variant?.id ?? null,
        quantity: l.quantity,
        total: toMinor(l.subtotalSet.shopMoney.amount) + tax,
      },
      l.location?.id ?? null,
      !!r.order.cancelledAt,
    );
  });
  const shippingTax = r.refundShippingLines.nodes.reduce((s, x) => s + toMinor(x.taxAmountSet.shopMoney.amount), 0);
  const total = toMinor(r.totalRefundedSet.shopMoney.amount);
  return {
    externalId: r.id,
    orderExternalId: r.order.id,
    createdAt: r.createdAt ?? r.updatedAt,
    updatedAt: r.updatedAt,
    status: 'completed',
    receiptNumber: null,
    billName: r.order.billingAddress?.name || r.order.customer?.displayName || null,
    currency: r.totalRefundedSet.shopMoney.currencyCode ?? '',
    total,
    items,
    ...totals(items, itemTax, shippingTax, total),
  };
}

type Rest = Record<string, unknown>;
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const restMoney = (v: unknown): number => {
  if (typeof v === 'number' && Number.isFinite(v)) return toMinor(v.toFixed(2));
  return typeof v === 'string' && v !== '' ? toMinor(v) : 0;
};
const setMoney = (set: unknown, fallback: unknown): number => {
  const amount = (set as { shop_money?: { amount?: unknown } } | null)?.shop_money?.amount;
  return restMoney(amount ?? fallback);
};

/**
 * A refunds/create payload (Shopify's REST Refund resource) as a ProviderReturn. It carries the lines with
 * their restock type, location, subtotal and tax, the transactions and the order adjustments, but not the
 * order's customer: `billName` is null (read the refund with getReturn for it). null: not a refund.
 */
export function refundFromWebhook(payload: unknown): ProviderReturn | null {
  if (!payload || typeof payload !== 'object') return null;
  const r = payload as Rest;
  const id = str(r.admin_graphql_api_id) ?? (typeof r.id === 'number' ? `gid://shopify/Refund/${r.id}` : null);
  const orderId = typeof r.order_id === 'number' || typeof r.order_id === 'string' ? String(r.order_id) : null;
  if (!id || !orderId || !Array.isArray(r.refund_line_items)) return null;
  let currency: string | null = null;
  let itemTax = 0;
  const items = (r.refund_line_items as Rest[]).map((l) => {
    const line = (l.line_item && typeof l.line_item === 'object' ? l.line_item : {}) as Rest;
    currency ??= str((line.price_set as { shop_money?: { currency_code?: unknown } })?.shop_money?.currency_code);
    const tax = setMoney(l.total_tax_set, l.total_tax);
    itemTax += tax;
    const lineId =
      str(line.admin_graphql_api_id) ?? (l.line_item_id != null ? `gid://shopify/LineItem/${l.line_item_id}` : null);
    return item(
      String(l.restock_type ?? 'no_restock'),
      {
        lineExternalId: lineId,
        sku: str(line.sku),
        variantExternalId: line.variant_id != null ? `gid://shopify/ProductVariant/${line.variant_id}` : null,
        quantity: typeof l.quantity === 'number' ? l.quantity : 0,
        total: setMoney(l.subtotal_set, l.subtotal) + tax,
      },
      l.location_id != null ? `gid://shopify/Location/${l.location_id}` : null,
    );
  });
  const transactions = Array.isArray(r.transactions) ? (r.transactions as Rest[]) : [];
  let total = 0;
  for (const t of transactions) {
    if (t.kind !== 'refund' || (t.status !== 'success' && t.status !== undefined)) continue;
    total += restMoney(t.amount);
    currency ??= str(t.currency);
  }
  const adjustments = Array.isArray(r.order_adjustments) ? (r.order_adjustments as Rest[]) : [];
  const shippingTax = adjustments
    .filter((a) => a.kind === 'shipping_refund')
    .reduce((s, a) => s - setMoney(a.tax_amount_set, a.tax_amount), 0);
  const at = str(r.processed_at) ?? str(r.created_at) ?? new Date().toISOString();
  return {
    externalId: id,
    orderExternalId: `gid://shopify/Order/${orderId}`,
    createdAt: str(r.created_at) ?? at,
    updatedAt: at,
    status: 'completed',
    receiptNumber: null,
    billName: null,
    currency: currency ?? '',
    total,
    items,
    ...totals(items, itemTax, shippingTax, total),
  };
}

/**
 * A refunds/create payload with lines restocked by CANCEL: it may be the refund of an order's cancel, which
 * the payload does not say; read the refund (getReturn) to know.
 */
export function refundCancelsLines(payload: unknown): boolean {
  const lines = (payload as { refund_line_items?: unknown } | null)?.refund_line_items;
  return Array.isArray(lines) && lines.some((l) => String((l as Rest)?.restock_type ?? '').toLowerCase() === 'cancel');
}

/** The note marker that names our idempotency key on a refund we wrote (2025-01 has no @idempotent). */
export const refundMarker = (key: string) => `[switchyard:${key}]`;

/** A return read whole (RETURN_FIELDS). */
export interface ReturnNode {
  id: string;
  name: string;
  status: string;
  order: {
    id: string;
    currencyCode: string;
    customer: { displayName: string } | null;
    billingAddress: { name: string | null } | null;
    fulfillments: { createdAt: string; fulfillmentLineItems: { nodes: { id: string }[] } }[];
  };
  returnLineItems: {
    nodes: {
      id: string;
      quantity: number;
      fulfillmentLineItem?: {
        id: string;
        lineItem: { id: string; sku: string | null; variant: { id: string } | null };
      };
    }[];
  };
  reverseFulfillmentOrders: {
    nodes: {
      lineItems: {
        nodes: {
          totalQuantity: number;
          fulfillmentLineItem: { id: string } | null;
          dispositions: { quantity: number; type: string; location: { id: string } | null }[];
        }[];
      };
    }[];
  };
  refunds: {
    nodes: {
      id: string;
      createdAt: string | null;
      totalRefundedSet: Money;
      refundLineItems: {
        nodes: { quantity: number; subtotalSet: Money; totalTaxSet: Money; lineItem: { id: string } }[];
      };
      refundShippingLines: { nodes: { subtotalAmountSet: Money; taxAmountSet: Money }[] };
    }[];
  };
}

/**
 * A Shopify return (its Returns API) as one ProviderReturn, whatever reported it first (a returns/* webhook, the
 * refunds/create of the refund that pays for it, the disposal's webhook, the pull): its id is the return's.
 * - status: REQUESTED, or OPEN with units not yet disposed of, is `pending`; OPEN with every unit disposed of,
 *   or CLOSED, is `completed`; DECLINED and CANCELED are `failed` (nothing came back).
 * - items: per returned line, what became of its units: RESTOCKED at a location is restocked there, and
 *   Shopify has put it back on its own stock (`channelRestocked`, met by a claim); NOT_RESTOCKED, MISSING,
 *   PROCESSING_REQUIRED and units with no disposition are not restocked.
 * - money: its refunds (their lines' subtotal and tax, shipping, the money back), 0 until refunded.
 * - createdAt: when the returned units were shipped. 2025-01's Return has no timestamps, and the restock's
 *   claim must not be later than Shopify's disposal (whose stock report it meets), which is after the shipment.
 * - updatedAt: when it was read. It is always read whole, as it is now, so the latest read is the latest state.
 */
export function mapReturn(r: ReturnNode, readAt = new Date()): ProviderReturn {
  const status = r.status.toUpperCase();
  const disposals = new Map<
    string,
    ReturnNode['reverseFulfillmentOrders']['nodes'][number]['lineItems']['nodes'][number]['dispositions']
  >();
  for (const o of r.reverseFulfillmentOrders.nodes)
    for (const l of o.lineItems.nodes) {
      if (!l.fulfillmentLineItem) continue;
      disposals.set(l.fulfillmentLineItem.id, [
        ...(disposals.get(l.fulfillmentLineItem.id) ?? []),
        ...l.dispositions.map((d) => ({ ...d })),
      ]);
    }
  // What the refunds paid per order line (subtotal and tax), shared out over that line's returned units.
  const paid = new Map<string, { money: number; units: number }>();
  let itemTax = 0;
  let shippingTax = 0;
  let total = 0;
  let currency: string | null = null;
  for (const f of r.refunds.nodes) {
    total += toMinor(f.totalRefundedSet.shopMoney.amount);
    currency ??= f.totalRefundedSet.shopMoney.currencyCode ?? null;
    for (const l of f.refundLineItems.nodes) {
      const tax = toMinor(l.totalTaxSet.shopMoney.amount);
      itemTax += tax;
      const was = paid.get(l.lineItem.id) ?? { money: 0, units: 0 };
      paid.set(l.lineItem.id, {
        money: was.money + toMinor(l.subtotalSet.shopMoney.amount) + tax,
        units: was.units + l.quantity,
      });
    }
    for (const s of f.refundShippingLines.nodes) shippingTax += toMinor(s.taxAmountSet.shopMoney.amount);
  }
  const items: ProviderReturnItem[] = [];
  let undisposed = 0;
  for (const line of r.returnLineItems.nodes) {
    const fli = line.fulfillmentLineItem;
    const lineItem = fli?.lineItem;
    const base = {
      lineExternalId: lineItem?.id ?? null,
      sku: lineItem?.sku || null,
      variantExternalId: lineItem?.variant?.id ?? null,
    };
    const money = lineItem ? paid.get(lineItem.id) : undefined;
    const worth = (quantity: number) => {
      if (!money || money.units <= 0) return 0;
      const take = Math.min(quantity, money.units);
      const share = Math.round((money.money * take) / money.units);
      money.money -= share;
      money.units -= take;
      return share;
    };
    let left = line.quantity;
    // Lines of one fulfillment line item (returned in parts) share its dispositions: each takes what it uses.
    for (const d of (fli && disposals.get(fli.id)) ?? []) {
      if (left <= 0) break;
      if (d.quantity <= 0) continue;
      const quantity = Math.min(left, d.quantity);
      left -= quantity;
      d.quantity -= quantity;
      const restocked = d.type.toUpperCase() === 'RESTOCKED' && !!d.location;
      items.push({
        ...base,
        quantity,
        total: worth(quantity),
        restock: restocked,
        channelRestocked: restocked,
        locationExternalId: restocked ? (d.location?.id ?? null) : null,
      });
    }
    if (left > 0) {
      undisposed += left;
      items.push({
        ...base,
        quantity: left,
        total: worth(left),
        restock: false,
        channelRestocked: false,
        locationExternalId: null,
      });
    }
  }
  const returned = new Set(r.returnLineItems.nodes.map((l) => l.fulfillmentLineItem?.id).filter(Boolean));
  const shippedAt = r.order.fulfillments
    .filter((f) => f.fulfillmentLineItems.nodes.some((l) => returned.has(l.id)))
    .map((f) => f.createdAt)
    .sort()
    .at(-1);
  const firstRefund = r.refunds.nodes
    .map((f) => f.createdAt)
    .filter((x): x is string => !!x)
    .sort()[0];
  const at = readAt.toISOString();
  return {
    externalId: r.id,
    orderExternalId: r.order.id,
    createdAt: shippedAt ?? firstRefund ?? at,
    updatedAt: at,
    status:
      status === 'DECLINED' || status === 'CANCELED'
        ? 'failed'
        : status === 'CLOSED' || (status === 'OPEN' && undisposed === 0)
          ? 'completed'
          : 'pending',
    receiptNumber: r.name || null,
    billName: r.order.billingAddress?.name || r.order.customer?.displayName || null,
    currency: currency ?? r.order.currencyCode ?? '',
    total,
    items,
    ...totals(items, itemTax, shippingTax, total),
  };
}

/** The return a refunds/create payload pays for (a refund made by returnRefund names it), else null. */
export function returnOfRefund(payload: unknown): string | null {
  const ret = (payload as { return?: { id?: unknown; admin_graphql_api_id?: unknown } | null } | null)?.return;
  if (!ret || typeof ret !== 'object') return null;
  if (typeof ret.admin_graphql_api_id === 'string' && ret.admin_graphql_api_id) return ret.admin_graphql_api_id;
  return typeof ret.id === 'number' || typeof ret.id === 'string' ? `gid://shopify/Return/${ret.id}` : null;
}

/** The returns/* topics (each names its return) and the disposal's (it names the reverse fulfillment order). */
export const SHOPIFY_RETURN_TOPICS = new Set([
  'returns/request',
  'returns/approve',
  'returns/decline',
  'returns/cancel',
  'returns/close',
  'returns/reopen',
]);
export const SHOPIFY_DISPOSE_TOPIC = 'reverse_fulfillment_orders/dispose';

/** Which return (or reverse fulfillment order) a returns/* or disposal payload names. */
export function returnNamedBy(
  topic: string,
  payload: unknown,
): { externalId: string; orderExternalId: string | null } | null {
  const p = (payload ?? {}) as {
    id?: unknown;
    admin_graphql_api_id?: unknown;
    order_id?: unknown;
    order?: { admin_graphql_api_id?: unknown; id?: unknown };
  };
  const type =
    topic === SHOPIFY_DISPOSE_TOPIC ? 'ReverseFulfillmentOrder' : SHOPIFY_RETURN_TOPICS.has(topic) ? 'Return' : null;
  if (!type) return null;
  const id =
    typeof p.admin_graphql_api_id === 'string' && p.admin_graphql_api_id
      ? p.admin_graphql_api_id
      : typeof p.id === 'number' || typeof p.id === 'string'
        ? `gid://shopify/${type}/${p.id}`
        : null;
  if (!id) return null;
  const order = p.order?.admin_graphql_api_id ?? p.order?.id ?? p.order_id;
  const orderExternalId =
    typeof order === 'string' && order.startsWith('gid://')
      ? order
      : typeof order === 'number' || typeof order === 'string'
        ? `gid://shopify/Order/${order}`
        : null;
  return { externalId: id, orderExternalId };
}
