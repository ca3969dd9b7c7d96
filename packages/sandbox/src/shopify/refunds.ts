import { gid, isoNow, money, type Shop, type ShopLineItem, type ShopOrder, type ShopRefund } from './model.ts';
import { fulfilledQuantity, unfulfilledQuantity } from './orders.ts';
import type { ShopifyStore } from './store.ts';

/**
 * Refunds as Shopify makes them (refundCreate, the admin's Refund / Return dialog, an order's cancel): lines
 * with a restock type, shipping, money back through transactions, and the order adjustment that balances
 * what the lines are worth against what was paid back. `RETURN` puts the units back on sale at the given
 * location (available and on hand +q, inventory_levels/update); `CANCEL` puts unfulfilled units back where
 * they were committed; `NO_RESTOCK` moves no stock.
 */

export type RestockType = 'RETURN' | 'CANCEL' | 'NO_RESTOCK' | 'LEGACY_RESTOCK';

export interface RefundRequest {
  note?: string | null;
  lines: { lineItemId: number | null; quantity: number; restockType?: string; locationId?: number | null }[];
  /** Money back, minor units each (REFUND transactions against the sale). */
  transactions: { amount: number; gateway?: string; parentId?: number | null }[];
  shipping?: { amount?: number | null; fullRefund?: boolean };
  /** The return this refund pays for (returnRefund). */
  returnId?: number | null;
}

export type RefundRefusal = { field: (string | number)[]; message: string };

/** A line's share of its discounted price and tax for `quantity` units, minor units. */
export function lineShare(line: ShopLineItem, quantity: number) {
  const share = line.quantity > 0 ? quantity / line.quantity : 0;
  return {
    subtotal: line.price * quantity - Math.round(line.discount * share),
    tax: Math.round(line.tax * share),
  };
}

const paidOf = (order: ShopOrder) =>
  order.transactions.filter((t) => t.kind === 'SALE').reduce((s, t) => s + t.amount, 0);
const refundedOf = (order: ShopOrder) =>
  order.transactions.filter((t) => t.kind === 'REFUND').reduce((s, t) => s + t.amount, 0);
const returnedOf = (order: ShopOrder, lineItemId: number) =>
  order.refunds
    .flatMap((r) => r.lines)
    .filter((l) => l.lineItemId === lineItemId && (l.restockType === 'RETURN' || l.restockType === 'LEGACY_RESTOCK'))
    .reduce((s, l) => s + l.quantity, 0);

/** Checks and makes a refund; sends refunds/create, orders/updated and inventory_levels/update as Shopify does. */
export function createRefund(
  store: ShopifyStore,
  shop: Shop,
  order: ShopOrder,
  req: RefundRequest,
): { refund: ShopRefund } | RefundRefusal {
  const lines: ShopRefund['lines'] = [];
  const asked = new Map<number, number>();
  for (const [i, r] of req.lines.entries()) {
    const line = order.lineItems.find((l) => l.id === r.lineItemId);
    if (!line) return { field: ['refundLineItems', i, 'lineItemId'], message: 'Line item does not exist' };
    const before = asked.get(line.id) ?? 0;
    if (r.quantity <= 0 || before + r.quantity > line.quantity - line.refundedQuantity - line.cancelledQuantity)
      return {
        field: ['refundLineItems', i, 'quantity'],
        message: 'Quantity cannot refund more items than were purchased',
      };
    asked.set(line.id, before + r.quantity);
    const restockType = (r.restockType ?? 'NO_RESTOCK') as RestockType;
    if (!['RETURN', 'CANCEL', 'NO_RESTOCK', 'LEGACY_RESTOCK'].includes(restockType))
      return { field: ['refundLineItems', i, 'restockType'], message: 'Restock type is not valid' };
    let locationId: number | null = null;
    if (restockType === 'RETURN' || restockType === 'LEGACY_RESTOCK') {
      // Returned units are the ones that left: fulfilled and not returned yet.
      if (r.quantity > fulfilledQuantity(order, line.id) - returnedOf(order, line.id))
        return {
          field: ['refundLineItems', i, 'quantity'],
          message: 'Cannot return more items than were fulfilled. Use restock type CANCEL for unfulfilled items.',
        };
      const fulfilledAt = order.fulfillments.find(
        (f) => f.status === 'SUCCESS' && f.lines.some((x) => x.lineItemId === line.id),
      )?.locationId;
      const loc =
        r.locationId != null
          ? shop.locations.find((l) => l.id === r.locationId)
          : shop.locations.find((l) => l.id === fulfilledAt);
      if (!loc) return { field: ['refundLineItems', i, 'locationId'], message: 'Location does not exist' };
      if (!loc.isActive) return { field: ['refundLineItems', i, 'locationId'], message: 'Location is not active' };
      locationId = loc.id;
    }
    if (restockType === 'CANCEL') {
      if (r.quantity > unfulfilledQuantity(order, line.id))
        return { field: ['refundLineItems', i, 'quantity'], message: 'Cannot cancel more items than are unfulfilled' };
      // Released where they were committed: the open fulfillment order's location.
      locationId =
        order.fulfillmentOrders.find((fo) =>
          fo.lineItems.some((x) => x.lineItemId === line.id && x.remainingQuantity > 0),
        )?.locationId ?? null;
    }
    const { subtotal, tax } = lineShare(line, r.quantity);
    lines.push({
      id: shop.nextId(),
      lineItemId: line.id,
      quantity: r.quantity,
      restockType,
      locationId,
      subtotal,
      tax,
    });
  }
  const shippingRefunded = order.refunds.reduce((s, r) => s + r.shipping, 0);
  const shippingLeft = order.cancelledAt ? 0 : order.shippingPrice - shippingRefunded;
  const shipping = req.shipping?.fullRefund ? shippingLeft : (req.shipping?.amount ?? 0);
  if (shipping < 0 || shipping > shippingLeft)
    return { field: ['shipping', 'amount'], message: `Shipping refund cannot exceed ${money(shippingLeft)}` };
  const paid = paidOf(order);
  const refunded = refundedOf(order);
  let amount = 0;
  for (const [i, t] of req.transactions.entries()) {
    if (!Number.isInteger(t.amount) || t.amount <= 0)
      return { field: ['transactions', i, 'amount'], message: 'Amount must be greater than 0' };
    if (t.parentId != null && !order.transactions.some((x) => x.id === t.parentId && x.kind === 'SALE'))
      return { field: ['transactions', i, 'parentId'], message: 'Parent transaction does not exist' };
    amount += t.amount;
  }
  if (amount > paid - refunded)
    return {
      field: ['transactions'],
      message: `Refund amount exceeds the refundable amount of ${money(paid - refunded)}`,
    };
  if (lines.length === 0 && amount === 0 && shipping === 0)
    return { field: ['refundLineItems'], message: 'Refund must include line items or an amount' };

  const at = isoNow();
  const sale = order.transactions.find((t) => t.kind === 'SALE');
  const transactionIds: number[] = [];
  if (amount > 0) {
    const id = shop.nextId();
    transactionIds.push(id);
    order.transactions.push({
      id,
      kind: 'REFUND',
      gateway: req.transactions[0]?.gateway ?? sale?.gateway ?? 'manual',
      status: 'SUCCESS',
      amount,
      parentId: req.transactions[0]?.parentId ?? sale?.id ?? null,
      createdAt: at,
    });
  }
  // What the lines and shipping are worth against what went back: Shopify records the difference.
  const worth = lines.reduce((s, l) => s + l.subtotal + l.tax, 0) + shipping;
  const adjustments: ShopRefund['adjustments'] = [];
  if (shipping > 0) adjustments.push({ id: shop.nextId(), kind: 'shipping_refund', amount: -shipping, tax: 0 });
  if (worth !== amount)
    adjustments.push({ id: shop.nextId(), kind: 'refund_discrepancy', amount: worth - amount, tax: 0 });

  const touched: { itemId: number; locationId: number }[] = [];
  for (const l of lines) {
    const line = order.lineItems.find((x) => x.id === l.lineItemId) as ShopLineItem;
    line.refundedQuantity += l.quantity;
    const variant = line.variantId === null ? undefined : shop.variants.get(line.variantId);
    if (l.restockType === 'NO_RESTOCK') continue;
    if (l.restockType === 'CANCEL') {
      // Unfulfilled units go back on sale where they were committed.
      let left = l.quantity;
      for (const fo of order.fulfillmentOrders)
        for (const fl of fo.lineItems) {
          if (fl.lineItemId !== line.id || left === 0) continue;
          const take = Math.min(left, fl.remainingQuantity);
          fl.remainingQuantity -= take;
          fl.totalQuantity -= take;
          left -= take;
          const level = variant && store.level(shop, variant.inventoryItemId, fo.locationId);
          if (variant && level && take > 0) {
            level.committed = Math.max(0, level.committed - take);
            level.available += take;
            level.updatedAt = at;
            touched.push({ itemId: variant.inventoryItemId, locationId: fo.locationId });
          }
          if (fo.lineItems.every((x) => x.remainingQuantity === 0)) fo.status = 'CLOSED';
        }
    } else if (variant && l.locationId !== null) {
      // A return: the units are back on hand and on sale at that location.
      const level = store.level(shop, variant.inventoryItemId, l.locationId, true, at);
      level.available += l.quantity;
      level.updatedAt = at;
      touched.push({ itemId: variant.inventoryItemId, locationId: l.locationId });
    }
  }
  const refund: ShopRefund = {
    id: shop.nextId(),
    note: req.note ?? null,
    amount,
    lines,
    shipping,
    adjustments,
    transactionIds,
    returnId: req.returnId ?? null,
    createdAt: at,
  };
  order.refunds.push(refund);
  order.updatedAt = at;
  for (const t of touched) store.emitLevel(shop, t.itemId, t.locationId);
  store.emit(shop, 'REFUNDS_CREATE', refundPayload(store, shop, order, refund));
  store.emit(shop, 'ORDERS_UPDATED', store.orderPayload(shop, order));
  return { refund };
}

/** The Refund as Shopify's REST resource: what refunds/create carries and an order's `refunds` hold. */
export function refundPayload(store: ShopifyStore, shop: Shop, order: ShopOrder, refund: ShopRefund) {
  const set = (minor: number) => ({
    shop_money: { amount: money(minor), currency_code: order.currency },
    presentment_money: { amount: money(minor), currency_code: order.currency },
  });
  const restLines = store.orderLineItemsPayload(shop, order);
  return {
    id: refund.id,
    admin_graphql_api_id: gid('Refund', refund.id),
    order_id: order.id,
    created_at: refund.createdAt,
    processed_at: refund.createdAt,
    note: refund.note,
    user_id: null,
    restock: refund.lines.some((l) => l.restockType !== 'NO_RESTOCK'),
    duties: [],
    total_duties_set: set(0),
    return: refund.returnId ? { id: refund.returnId, admin_graphql_api_id: gid('Return', refund.returnId) } : null,
    refund_line_items: refund.lines.map((l) => ({
      id: l.id,
      line_item_id: l.lineItemId,
      quantity: l.quantity,
      location_id: l.locationId,
      restock_type: l.restockType.toLowerCase(),
      subtotal: Number(money(l.subtotal)),
      subtotal_set: set(l.subtotal),
      total_tax: Number(money(l.tax)),
      total_tax_set: set(l.tax),
      line_item: restLines.find((x) => x.id === l.lineItemId) ?? null,
    })),
    transactions: refund.transactionIds.flatMap((id) => {
      const t = order.transactions.find((x) => x.id === id);
      return t
        ? [
            {
              id: t.id,
              admin_graphql_api_id: gid('OrderTransaction', t.id),
              order_id: order.id,
              kind: 'refund',
              gateway: t.gateway,
              status: 'success',
              message: null,
              created_at: t.createdAt,
              processed_at: t.createdAt,
              test: false,
              authorization: null,
              location_id: null,
              user_id: null,
              parent_id: t.parentId,
              device_id: null,
              error_code: null,
              source_name: 'web',
              receipt: {},
              amount: money(t.amount),
              currency: order.currency,
            },
          ]
        : [];
    }),
    order_adjustments: refund.adjustments.map((a) => ({
      id: a.id,
      order_id: order.id,
      refund_id: refund.id,
      amount: money(a.amount),
      amount_set: set(a.amount),
      tax_amount: money(a.tax),
      tax_amount_set: set(a.tax),
      kind: a.kind,
      reason: a.kind === 'shipping_refund' ? 'Shipping refund' : 'Refund discrepancy',
    })),
  };
}
