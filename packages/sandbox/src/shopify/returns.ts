import {
  gid,
  isoNow,
  type Shop,
  type ShopOrder,
  type ShopRefund,
  type ShopReturn,
  type WebhookTopic,
} from './model.ts';
import { createRefund, type RefundRefusal } from './refunds.ts';
import type { ShopifyStore } from './store.ts';

/**
 * Shopify's Returns API (Admin GraphQL 2025-01) over the simulated orders. A return takes back fulfilled units
 * by fulfillment line item: `returnRequest` makes it REQUESTED (the customer asked), `returnApproveRequest`
 * opens it and `returnDeclineRequest` declines it; `returnCreate` opens it at once. An OPEN return has a
 * reverse fulfillment order; `reverseFulfillmentOrderDispose` says what became of each unit: RESTOCKED at a
 * location puts it back on sale there (available +q, inventory_levels/update), NOT_RESTOCKED, MISSING and
 * PROCESSING_REQUIRED move no stock. `returnRefund` pays for it (a Refund whose `return` is this one; its lines
 * move no stock, the disposal does), `returnClose` completes it, `returnReopen` opens it again, `returnCancel`
 * undoes one nothing was done on yet. Each change sends its returns/* topic (or reverse_fulfillment_orders/
 * dispose) in the REST shape Shopify's webhooks carry, and touches the order's updated_at (the order shows its
 * return status), which is how an app's pull of updated orders finds it.
 */

export type ReturnRefusal = { field: string[]; message: string; code: string };

export const RETURN_REASONS = [
  'COLOR',
  'DEFECTIVE',
  'NOT_AS_DESCRIBED',
  'OTHER',
  'SIZE_TOO_LARGE',
  'SIZE_TOO_SMALL',
  'STYLE',
  'UNKNOWN',
  'UNWANTED',
  'WRONG_ITEM',
] as const;
export const DISPOSITION_TYPES = ['RESTOCKED', 'NOT_RESTOCKED', 'MISSING', 'PROCESSING_REQUIRED'] as const;

const refuse = (field: (string | number)[], message: string, code = 'INVALID'): ReturnRefusal => ({
  field: field.map(String),
  message,
  code,
});

/** Units of a fulfillment line item already in a return that was not declined or canceled. */
function inReturns(order: ShopOrder, fulfillmentLineItemId: number, except?: ShopReturn) {
  let n = 0;
  for (const r of order.returns) {
    if (r === except || r.status === 'DECLINED' || r.status === 'CANCELED') continue;
    for (const l of r.lines) if (l.fulfillmentLineItemId === fulfillmentLineItemId) n += l.quantity;
  }
  return n;
}

export function findFulfillmentLine(order: ShopOrder, fulfillmentLineItemId: number | null) {
  for (const f of order.fulfillments)
    for (const l of f.lines) if (l.id === fulfillmentLineItemId) return { fulfillment: f, line: l };
  return undefined;
}

/** The order and return of a return id, or undefined. */
export function findReturn(shop: Shop, id: number | null): { order: ShopOrder; ret: ShopReturn } | undefined {
  if (id === null) return undefined;
  for (const order of shop.orders.values()) {
    const ret = order.returns.find((r) => r.id === id);
    if (ret) return { order, ret };
  }
  return undefined;
}

/** The return, its reverse fulfillment order and line of a reverse fulfillment order line item id. */
export function findReverseLine(shop: Shop, id: number | null) {
  if (id === null) return undefined;
  for (const order of shop.orders.values())
    for (const ret of order.returns)
      for (const rfo of ret.reverseFulfillmentOrders) {
        const line = rfo.lines.find((l) => l.id === id);
        if (line) return { order, ret, rfo, line };
      }
  return undefined;
}

export function findReverseOrder(shop: Shop, id: number | null) {
  if (id === null) return undefined;
  for (const order of shop.orders.values())
    for (const ret of order.returns) {
      const rfo = ret.reverseFulfillmentOrders.find((x) => x.id === id);
      if (rfo) return { order, ret, rfo };
    }
  return undefined;
}

const disposed = (line: ShopReturn['reverseFulfillmentOrders'][number]['lines'][number]) =>
  line.dispositions.reduce((s, d) => s + d.quantity, 0);

function openReverseOrder(shop: Shop, ret: ShopReturn) {
  if (ret.reverseFulfillmentOrders.length > 0) return;
  ret.reverseFulfillmentOrders.push({
    id: shop.nextId(),
    status: 'OPEN',
    lines: ret.lines.map((l) => ({
      id: shop.nextId(),
      returnLineId: l.id,
      totalQuantity: l.quantity,
      dispositions: [],
    })),
  });
}

function touch(ret: ShopReturn, order: ShopOrder) {
  const at = isoNow();
  ret.updatedAt = at;
  order.updatedAt = at;
}

/** returnCreate (OPEN at once) and returnRequest (REQUESTED): fulfilled units not in another return. */
export function createReturn(
  store: ShopifyStore,
  shop: Shop,
  order: ShopOrder,
  input: {
    requested: boolean;
    lines: {
      fulfillmentLineItemId: number | null;
      quantity: number;
      returnReason?: string | null;
      returnReasonNote?: string | null;
      customerNote?: string | null;
    }[];
  },
): { ret: ShopReturn } | ReturnRefusal {
  const root = input.requested ? 'input' : 'returnInput';
  if (input.lines.length === 0) return refuse([root, 'returnLineItems'], 'Return must have at least one line item.');
  if (order.cancelledAt) return refuse([root, 'orderId'], 'Order is cancelled.', 'INVALID_STATE');
  const asked = new Map<number, number>();
  const lines: ShopReturn['lines'] = [];
  for (const [i, l] of input.lines.entries()) {
    const found = findFulfillmentLine(order, l.fulfillmentLineItemId);
    if (found?.fulfillment.status !== 'SUCCESS')
      return refuse(
        [root, 'returnLineItems', i, 'fulfillmentLineItemId'],
        'Fulfillment line item does not exist.',
        'NOT_FOUND',
      );
    const reason = l.returnReason ?? 'UNKNOWN';
    if (!(RETURN_REASONS as readonly string[]).includes(reason))
      return refuse([root, 'returnLineItems', i, 'returnReason'], 'Return reason is not valid.');
    const lineItem = order.lineItems.find((x) => x.id === found.line.lineItemId);
    const before = asked.get(found.line.id) ?? 0;
    const returnable = Math.min(
      found.line.quantity - inReturns(order, found.line.id),
      (lineItem?.quantity ?? 0) - (lineItem?.refundedQuantity ?? 0) - (lineItem?.cancelledQuantity ?? 0),
    );
    if (!Number.isInteger(l.quantity) || l.quantity <= 0 || before + l.quantity > returnable)
      return refuse(
        [root, 'returnLineItems', i, 'quantity'],
        `Quantity ${l.quantity} is more than the ${Math.max(0, returnable - before)} returnable.`,
        'GREATER_THAN',
      );
    asked.set(found.line.id, before + l.quantity);
    lines.push({
      id: shop.nextId(),
      fulfillmentLineItemId: found.line.id,
      lineItemId: found.line.lineItemId,
      quantity: l.quantity,
      returnReason: reason,
      returnReasonNote: l.returnReasonNote ?? '',
      customerNote: l.customerNote ?? null,
    });
  }
  const at = isoNow();
  const ret: ShopReturn = {
    id: shop.nextId(),
    name: `${order.name}-R${order.returns.length + 1}`,
    status: input.requested ? 'REQUESTED' : 'OPEN',
    lines,
    reverseFulfillmentOrders: [],
    decline: null,
    createdAt: at,
    updatedAt: at,
  };
  if (!input.requested) openReverseOrder(shop, ret);
  order.returns.push(ret);
  order.updatedAt = at;
  emitReturn(store, shop, order, ret, input.requested ? 'RETURNS_REQUEST' : 'RETURNS_APPROVE');
  return { ret };
}

/** returnApproveRequest: a REQUESTED return opens (and gets its reverse fulfillment order). */
export function approveReturn(store: ShopifyStore, shop: Shop, order: ShopOrder, ret: ShopReturn) {
  if (ret.status !== 'REQUESTED')
    return refuse(
      ['input', 'id'],
      'Return is not approvable. Only returns with status REQUESTED can be approved.',
      'INVALID_STATE',
    );
  ret.status = 'OPEN';
  openReverseOrder(shop, ret);
  touch(ret, order);
  emitReturn(store, shop, order, ret, 'RETURNS_APPROVE');
  return null;
}

export function declineReturn(
  store: ShopifyStore,
  shop: Shop,
  order: ShopOrder,
  ret: ShopReturn,
  decline: { reason: string; note: string | null },
) {
  if (ret.status !== 'REQUESTED')
    return refuse(
      ['input', 'id'],
      'Return is not declinable. Only returns with status REQUESTED can be declined.',
      'INVALID_STATE',
    );
  ret.status = 'DECLINED';
  ret.decline = decline;
  touch(ret, order);
  emitReturn(store, shop, order, ret, 'RETURNS_DECLINE');
  return null;
}

const refundsOf = (order: ShopOrder, ret: ShopReturn) => order.refunds.filter((r) => r.returnId === ret.id);

/** returnCancel: only before anything was done on it (no disposition, no refund). */
export function cancelReturn(store: ShopifyStore, shop: Shop, order: ShopOrder, ret: ShopReturn) {
  if (ret.status !== 'OPEN' && ret.status !== 'REQUESTED')
    return refuse(['id'], 'Return is not cancelable.', 'INVALID_STATE');
  const worked = ret.reverseFulfillmentOrders.some((o) => o.lines.some((l) => l.dispositions.length > 0));
  if (worked || refundsOf(order, ret).length > 0)
    return refuse(['id'], 'Return has been refunded or its items disposed of; it cannot be canceled.', 'INVALID_STATE');
  ret.status = 'CANCELED';
  for (const o of ret.reverseFulfillmentOrders) o.status = 'CANCELED';
  touch(ret, order);
  emitReturn(store, shop, order, ret, 'RETURNS_CANCEL');
  return null;
}

export function closeReturn(store: ShopifyStore, shop: Shop, order: ShopOrder, ret: ShopReturn) {
  if (ret.status !== 'OPEN')
    return refuse(['id'], 'Return is not closable. Only open returns can be closed.', 'INVALID_STATE');
  ret.status = 'CLOSED';
  for (const o of ret.reverseFulfillmentOrders) if (o.status === 'OPEN') o.status = 'CLOSED';
  touch(ret, order);
  emitReturn(store, shop, order, ret, 'RETURNS_CLOSE');
  return null;
}

export function reopenReturn(store: ShopifyStore, shop: Shop, order: ShopOrder, ret: ShopReturn) {
  if (ret.status !== 'CLOSED')
    return refuse(['id'], 'Return is not reopenable. Only closed returns can be reopened.', 'INVALID_STATE');
  ret.status = 'OPEN';
  for (const o of ret.reverseFulfillmentOrders)
    if (o.status === 'CLOSED' && o.lines.some((l) => disposed(l) < l.totalQuantity)) o.status = 'OPEN';
  touch(ret, order);
  emitReturn(store, shop, order, ret, 'RETURNS_REOPEN');
  return null;
}

/**
 * reverseFulfillmentOrderDispose: all or nothing. RESTOCKED needs an active location and puts the units back
 * on sale there; the reverse fulfillment order closes once every unit has a disposition.
 */
export function disposeReturnLines(
  store: ShopifyStore,
  shop: Shop,
  inputs: { lineId: number | null; quantity: number; type: string; locationId: number | null }[],
): { lineIds: number[] } | ReturnRefusal {
  const asked = new Map<number, number>();
  const plan: { hit: NonNullable<ReturnType<typeof findReverseLine>>; input: (typeof inputs)[number] }[] = [];
  for (const [i, input] of inputs.entries()) {
    const hit = findReverseLine(shop, input.lineId);
    if (!hit)
      return refuse(
        ['dispositionInputs', i, 'reverseFulfillmentOrderLineItemId'],
        'Reverse fulfillment order line item does not exist.',
        'NOT_FOUND',
      );
    if (hit.ret.status !== 'OPEN' || hit.rfo.status !== 'OPEN')
      return refuse(
        ['dispositionInputs', i, 'reverseFulfillmentOrderLineItemId'],
        'Reverse fulfillment order is not open.',
        'INVALID_STATE',
      );
    if (!(DISPOSITION_TYPES as readonly string[]).includes(input.type))
      return refuse(['dispositionInputs', i, 'dispositionType'], 'Disposition type is not valid.');
    const before = asked.get(hit.line.id) ?? 0;
    if (
      !Number.isInteger(input.quantity) ||
      input.quantity <= 0 ||
      before + input.quantity > hit.line.totalQuantity - disposed(hit.line)
    )
      return refuse(
        ['dispositionInputs', i, 'quantity'],
        'Quantity exceeds the quantity left to dispose.',
        'GREATER_THAN',
      );
    if (input.type === 'RESTOCKED') {
      const loc = shop.locations.find((l) => l.id === input.locationId);
      if (!loc)
        return refuse(
          ['dispositionInputs', i, 'locationId'],
          'Location is required to restock and must exist.',
          'NOT_FOUND',
        );
      if (!loc.isActive)
        return refuse(['dispositionInputs', i, 'locationId'], 'Location is not active.', 'INVALID_STATE');
    }
    asked.set(hit.line.id, before + input.quantity);
    plan.push({ hit, input });
  }
  const at = isoNow();
  const touched: { itemId: number; locationId: number }[] = [];
  const byOrder = new Map<
    number,
    {
      order: ShopOrder;
      rfo: (typeof plan)[number]['hit']['rfo'];
      made: ShopReturn['reverseFulfillmentOrders'][number]['lines'][number]['dispositions'];
    }
  >();
  for (const { hit, input } of plan) {
    const restock = input.type === 'RESTOCKED';
    const disposition = {
      id: shop.nextId(),
      type: input.type,
      quantity: input.quantity,
      locationId: restock ? input.locationId : null,
    };
    hit.line.dispositions.push(disposition);
    const entry = byOrder.get(hit.rfo.id) ?? { order: hit.order, rfo: hit.rfo, made: [] };
    entry.made.push(disposition);
    byOrder.set(hit.rfo.id, entry);
    touch(hit.ret, hit.order);
    if (!restock || input.locationId === null) continue;
    const returnLine = hit.ret.lines.find((l) => l.id === hit.line.returnLineId);
    const lineItem = hit.order.lineItems.find((l) => l.id === returnLine?.lineItemId);
    const variant = lineItem?.variantId == null ? undefined : shop.variants.get(lineItem.variantId);
    if (!variant) continue;
    const level = store.level(shop, variant.inventoryItemId, input.locationId, true, at);
    level.available += input.quantity;
    level.updatedAt = at;
    touched.push({ itemId: variant.inventoryItemId, locationId: input.locationId });
  }
  for (const { rfo } of byOrder.values())
    if (rfo.lines.every((l) => disposed(l) >= l.totalQuantity)) rfo.status = 'CLOSED';
  for (const t of touched) store.emitLevel(shop, t.itemId, t.locationId);
  for (const { rfo, made } of byOrder.values())
    store.emit(shop, 'REVERSE_FULFILLMENT_ORDERS_DISPOSE', disposePayload(rfo, made));
  return { lineIds: plan.map((p) => p.hit.line.id) };
}

/**
 * returnRefund: a refund of the return's lines (by return line item), shipping and money, linked to the return;
 * its lines move no stock (the disposal does). refunds/create carries `return` naming it.
 */
export function refundReturn(
  store: ShopifyStore,
  shop: Shop,
  order: ShopOrder,
  ret: ShopReturn,
  input: {
    lines: { returnLineItemId: number | null; quantity: number }[];
    shipping?: { amount?: number | null; fullRefund?: boolean };
    transactions: { amount: number; parentId: number | null; gateway?: string }[];
  },
): { refund: ShopRefund } | ReturnRefusal | RefundRefusal {
  if (ret.status !== 'OPEN' && ret.status !== 'CLOSED')
    return refuse(
      ['returnRefundInput', 'returnId'],
      'Return is not refundable. Only open or closed returns can be refunded.',
      'INVALID_STATE',
    );
  const lines: { lineItemId: number; quantity: number; restockType: string }[] = [];
  for (const [i, l] of input.lines.entries()) {
    const line = ret.lines.find((x) => x.id === l.returnLineItemId);
    if (!line)
      return refuse(
        ['returnRefundInput', 'returnRefundLineItems', i, 'returnLineItemId'],
        'Return line item does not exist.',
        'NOT_FOUND',
      );
    const refunded = refundsOf(order, ret)
      .flatMap((r) => r.lines)
      .filter((x) => x.lineItemId === line.lineItemId)
      .reduce((s, x) => s + x.quantity, 0);
    if (l.quantity <= 0 || l.quantity > line.quantity - refunded)
      return refuse(
        ['returnRefundInput', 'returnRefundLineItems', i, 'quantity'],
        'Quantity is more than is refundable.',
        'GREATER_THAN',
      );
    lines.push({ lineItemId: line.lineItemId, quantity: l.quantity, restockType: 'NO_RESTOCK' });
  }
  const made = createRefund(store, shop, order, {
    note: null,
    lines,
    transactions: input.transactions,
    shipping: input.shipping,
    returnId: ret.id,
  });
  if ('refund' in made) touch(ret, order);
  return made;
}

// ---- Webhook payloads (REST shape) ---------------------------------------------------------------------------

const TOPIC_STATUS: Partial<Record<WebhookTopic, string>> = {
  RETURNS_CLOSE: 'closed',
  RETURNS_REOPEN: 'open',
  RETURNS_CANCEL: 'canceled',
};

/** returns/request and returns/approve carry the return and its lines; close, reopen, cancel and decline name it. */
export function returnPayload(order: ShopOrder, ret: ShopReturn, topic: WebhookTopic) {
  const head = { id: ret.id, admin_graphql_api_id: gid('Return', ret.id) };
  if (topic === 'RETURNS_DECLINE')
    return {
      ...head,
      status: 'declined',
      decline: ret.decline && { reason: ret.decline.reason.toLowerCase(), note: ret.decline.note },
    };
  const status = TOPIC_STATUS[topic];
  if (status) return { ...head, order_id: order.id, status };
  return {
    ...head,
    status: ret.status.toLowerCase(),
    order: { id: order.id, admin_graphql_api_id: gid('Order', order.id) },
    total_return_line_items: ret.lines.length,
    name: ret.name,
    return_line_items: ret.lines.map((l) => ({
      id: l.id,
      admin_graphql_api_id: gid('ReturnLineItem', l.id),
      fulfillment_line_item: {
        id: l.fulfillmentLineItemId,
        admin_graphql_api_id: gid('FulfillmentLineItem', l.fulfillmentLineItemId),
        line_item: { id: l.lineItemId, admin_graphql_api_id: gid('LineItem', l.lineItemId) },
      },
      quantity: l.quantity,
      return_reason: l.returnReason.toLowerCase(),
      return_reason_note: l.returnReasonNote,
      customer_note: l.customerNote,
    })),
    exchange_line_items: [],
    total_exchange_line_items: 0,
    return_shipping_fees: [],
  };
}

export function emitReturn(store: ShopifyStore, shop: Shop, order: ShopOrder, ret: ShopReturn, topic: WebhookTopic) {
  store.emit(shop, topic, returnPayload(order, ret, topic));
}

function disposePayload(
  rfo: ShopReturn['reverseFulfillmentOrders'][number],
  made: ShopReturn['reverseFulfillmentOrders'][number]['lines'][number]['dispositions'],
) {
  const lineOf = (d: (typeof made)[number]) => rfo.lines.find((l) => l.dispositions.includes(d));
  return {
    id: rfo.id,
    admin_graphql_api_id: gid('ReverseFulfillmentOrder', rfo.id),
    total_dispositions: made.length,
    dispositions: made.map((d) => {
      const line = lineOf(d);
      return {
        location:
          d.locationId === null ? null : { id: d.locationId, admin_graphql_api_id: gid('Location', d.locationId) },
        quantity: d.quantity,
        reverse_delivery_line_item: null,
        reverse_fulfillment_order_line_item: line
          ? { id: line.id, admin_graphql_api_id: gid('ReverseFulfillmentOrderLineItem', line.id) }
          : null,
        type: d.type.toLowerCase(),
      };
    }),
  };
}
