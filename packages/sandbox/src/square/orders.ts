// Orders through the Orders API: CreateOrder (catalog or ad hoc lines, PICKUP or SHIPMENT fulfillments) and
// UpdateOrder (fulfillment states, COMPLETED or CANCELED), a line's and an order's money, and stock tracking.

import { squareId } from './ids.ts';
import {
  type CatalogObject,
  type FulfillmentUpdate,
  invalid,
  type Json,
  type Money,
  type Order,
  SquareError,
} from './model.ts';
import type { Merchant } from './state.ts';

/** A line item as Square renders it: catalog name and price, and the line's computed money. */
export function lineItem(m: Merchant, variation: CatalogObject, quantity: number, uid?: string): Json {
  const data = variation.item_variation_data as Json;
  const item = m.objects.get(String(data.item_id));
  return {
    uid: uid ?? squareId.uid(m.rng),
    catalog_object_id: variation.id,
    catalog_version: variation.version,
    quantity: String(quantity),
    name: String(item?.item_data?.name ?? data.name),
    variation_name: String(data.name),
    item_type: 'ITEM',
    ...lineMoney(data.price_money as Money, quantity),
  };
}

/** A line's money before taxes and discounts: its base price and the totals of its quantity. */
function lineMoney(price: Money, quantity: number): Json {
  const total = { amount: price.amount * quantity, currency: price.currency };
  return {
    base_price_money: price,
    variation_total_price_money: total,
    gross_sales_money: total,
    total_tax_money: { amount: 0, currency: price.currency },
    total_discount_money: { amount: 0, currency: price.currency },
    total_money: total,
  };
}

/** Recomputes an order's totals from its lines and what has been paid. */
export function totals(m: Merchant, order: Order) {
  const sum = (key: string) =>
    order.line_items.reduce((s, l) => s + Number((l[key] as Money | undefined)?.amount ?? 0), 0);
  const money = (amount: number) => ({ amount, currency: m.currency });
  const total = sum('total_money');
  const paid = order.tenders.reduce((s, t) => s + Number((t.amount_money as Money | undefined)?.amount ?? 0), 0);
  order.total_money = money(total);
  order.total_tax_money = money(sum('total_tax_money'));
  order.total_discount_money = money(sum('total_discount_money'));
  order.total_tip_money = money(0);
  order.total_service_charge_money = money(0);
  order.net_amount_due_money = money(Math.max(0, total - paid));
  order.net_amounts = {
    total_money: money(total),
    tax_money: money(sum('total_tax_money')),
    discount_money: money(sum('total_discount_money')),
    tip_money: money(0),
    service_charge_money: money(0),
  };
}

/**
 * CreateOrder: an OPEN (or DRAFT) order at a location, with catalog or ad hoc lines and PICKUP or SHIPMENT
 * fulfillments (each starts PROPOSED). Unpaid, so no stock moves yet.
 */
export function createOrder(m: Merchant, input: Json, source: { name: string } = { name: 'Switchyard' }): Order {
  const locationId = input.location_id;
  if (typeof locationId !== 'string' || locationId === '')
    throw invalid('MISSING_REQUIRED_PARAMETER', 'Field `order.location_id` is required.', 'order.location_id');
  if (!m.location(locationId))
    throw new SquareError(
      404,
      'INVALID_REQUEST_ERROR',
      'NOT_FOUND',
      `Location \`${locationId}\` not found.`,
      'order.location_id',
    );
  const state = input.state ?? 'OPEN';
  if (state !== 'OPEN' && state !== 'DRAFT')
    throw invalid('INVALID_VALUE', 'A new order is OPEN or DRAFT.', 'order.state');
  const rawLines = Array.isArray(input.line_items) ? (input.line_items as Json[]) : [];
  const lineItems = rawLines.map((raw, i) => {
    const field = `order.line_items[${i}]`;
    const quantityText = String(raw.quantity ?? '');
    if (!/^\d+$/.test(quantityText) || Number(quantityText) < 1)
      throw invalid('INVALID_VALUE', 'Quantity must be a positive whole number.', `${field}.quantity`);
    const quantity = Number(quantityText);
    const uid = typeof raw.uid === 'string' && raw.uid ? raw.uid : undefined;
    if (raw.catalog_object_id !== undefined) {
      const variation = m.objects.get(String(raw.catalog_object_id));
      if (!variation || variation.is_deleted || variation.type !== 'ITEM_VARIATION')
        throw invalid(
          'INVALID_VALUE',
          `Item variation \`${String(raw.catalog_object_id)}\` not found.`,
          `${field}.catalog_object_id`,
        );
      return { ...lineItem(m, variation, quantity, uid), ...(raw.note ? { note: String(raw.note) } : {}) };
    }
    const price = raw.base_price_money as Money | undefined;
    if (typeof raw.name !== 'string' || !price || !Number.isInteger(price.amount))
      throw invalid(
        'MISSING_REQUIRED_PARAMETER',
        'An ad hoc line item needs a name and base_price_money.',
        `${field}.base_price_money`,
      );
    if (price.currency !== m.currency)
      throw invalid('INVALID_VALUE', `Currency must be ${m.currency}.`, `${field}.base_price_money.currency`);
    return {
      uid: uid ?? squareId.uid(m.rng),
      quantity: quantityText,
      name: raw.name,
      item_type: 'CUSTOM_AMOUNT',
      ...lineMoney(price, quantity),
    };
  });
  if (lineItems.length === 0 && state === 'OPEN')
    throw invalid('MISSING_REQUIRED_PARAMETER', 'An order needs at least one line item.', 'order.line_items');
  const at = m.now();
  const fulfillments = (Array.isArray(input.fulfillments) ? (input.fulfillments as Json[]) : []).map((f, i) =>
    newFulfillment(m, f, `order.fulfillments[${i}]`, at),
  );
  const order: Order = {
    id: squareId.order(m.rng),
    location_id: locationId,
    ...(typeof input.reference_id === 'string' ? { reference_id: input.reference_id } : {}),
    ...(typeof input.customer_id === 'string' ? { customer_id: input.customer_id } : {}),
    ...(typeof input.ticket_name === 'string' ? { ticket_name: input.ticket_name } : {}),
    ...(input.metadata && typeof input.metadata === 'object' ? { metadata: input.metadata as Json } : {}),
    source,
    state: state as 'OPEN' | 'DRAFT',
    version: 1,
    created_at: at,
    updated_at: at,
    line_items: lineItems,
    fulfillments,
    tenders: [],
    refunds: [],
    total_money: { amount: 0, currency: m.currency },
  };
  totals(m, order);
  m.orders.set(order.id, order);
  m.emit({ type: 'order.created', order });
  return order;
}

/** A fulfillment as CreateOrder / UpdateOrder take it: PICKUP needs a recipient and a time, SHIPMENT a recipient. */
function newFulfillment(m: Merchant, f: Json, field: string, at: string): Json {
  const uid = typeof f.uid === 'string' && f.uid ? f.uid : squareId.uid(m.rng);
  const base = {
    uid,
    type: f.type,
    state: 'PROPOSED',
    line_item_application: f.line_item_application ?? 'ALL',
    ...(Array.isArray(f.entries) ? { entries: f.entries } : {}),
  };
  const recipientOf = (details: Json, path: string) => {
    const recipient = details.recipient as Json | undefined;
    if (!recipient?.display_name && !recipient?.customer_id)
      throw invalid(
        'MISSING_REQUIRED_PARAMETER',
        'A fulfillment recipient needs a display_name or customer_id.',
        `${path}.recipient`,
      );
    return recipient;
  };
  if (f.type === 'PICKUP') {
    const details = (f.pickup_details ?? {}) as Json;
    const path = `${field}.pickup_details`;
    const recipient = recipientOf(details, path);
    const schedule = details.schedule_type ?? 'SCHEDULED';
    if (schedule !== 'SCHEDULED' && schedule !== 'ASAP')
      throw invalid('INVALID_ENUM_VALUE', 'schedule_type is SCHEDULED or ASAP.', `${path}.schedule_type`);
    if (schedule === 'SCHEDULED' && typeof details.pickup_at !== 'string')
      throw invalid('MISSING_REQUIRED_PARAMETER', 'pickup_at is required for a SCHEDULED pickup.', `${path}.pickup_at`);
    if (details.pickup_at !== undefined && Number.isNaN(Date.parse(String(details.pickup_at))))
      throw invalid('INVALID_TIME', 'pickup_at is not an RFC 3339 timestamp.', `${path}.pickup_at`);
    return {
      ...base,
      pickup_details: {
        ...details,
        recipient,
        schedule_type: schedule,
        is_curbside_pickup: details.is_curbside_pickup === true,
        placed_at: at,
      },
    };
  }
  if (f.type === 'SHIPMENT') {
    const details = (f.shipment_details ?? {}) as Json;
    const recipient = recipientOf(details, `${field}.shipment_details`);
    return { ...base, shipment_details: { ...details, recipient, placed_at: at } };
  }
  throw invalid('INVALID_VALUE', 'A fulfillment type is PICKUP or SHIPMENT.', `${field}.type`);
}

/** Sets a fulfillment's state with the timestamp Square records for it. */
export function setFulfillmentState(f: Json, state: string, at: string) {
  f.state = state;
  const details = (f.type === 'PICKUP' ? f.pickup_details : f.shipment_details) as Json | undefined;
  if (!details) return;
  const stamp: Record<string, string> =
    f.type === 'PICKUP'
      ? { RESERVED: 'accepted_at', PREPARED: 'ready_at', COMPLETED: 'picked_up_at', CANCELED: 'canceled_at' }
      : { RESERVED: 'in_progress_at', PREPARED: 'packaged_at', COMPLETED: 'shipped_at', CANCELED: 'canceled_at' };
  const key = stamp[state];
  if (key) details[key] ??= at;
}

/**
 * UpdateOrder, sparse: fulfillments are matched by uid (new uids are added) and `state` may change.
 * The version must match; COMPLETED and CANCELED orders cannot be changed; a paid order cannot be
 * CANCELED and an order that is not fully paid cannot be COMPLETED.
 */
export function updateOrder(m: Merchant, orderId: string, patch: Json): Order {
  const order = m.orders.get(orderId);
  if (!order) throw new SquareError(404, 'INVALID_REQUEST_ERROR', 'NOT_FOUND', `Order \`${orderId}\` not found.`);
  if (patch.version === undefined)
    throw invalid('MISSING_REQUIRED_PARAMETER', 'Field `order.version` is required.', 'order.version');
  if (Number(patch.version) !== order.version) {
    throw invalid('VERSION_MISMATCH', `The order's current version is ${order.version}.`, 'order.version');
  }
  if (order.state === 'COMPLETED' || order.state === 'CANCELED') {
    throw invalid('BAD_REQUEST', `An order in state ${order.state} cannot be updated.`, 'order.state');
  }
  const next = structuredClone(order);
  const at = m.now();
  const fulfillments = Array.isArray(patch.fulfillments) ? (patch.fulfillments as Json[]) : [];
  const updates: FulfillmentUpdate[] = [];
  const flow = ['PROPOSED', 'RESERVED', 'PREPARED', 'COMPLETED'];
  fulfillments.forEach((f, i) => {
    const existing = next.fulfillments.find((x) => x.uid === f.uid);
    const state = f.state === undefined ? undefined : String(f.state);
    if (state !== undefined && !flow.includes(state) && state !== 'CANCELED' && state !== 'FAILED') {
      throw invalid('INVALID_ENUM_VALUE', `Unknown fulfillment state ${state}.`, `order.fulfillments[${i}].state`);
    }
    if (existing) {
      const from = String(existing.state);
      if (from === 'COMPLETED' || from === 'CANCELED' || from === 'FAILED') {
        throw invalid('BAD_REQUEST', `A fulfillment in state ${from} cannot change.`, `order.fulfillments[${i}].state`);
      }
      if (state && flow.includes(state) && flow.indexOf(state) < flow.indexOf(from)) {
        throw invalid(
          'BAD_REQUEST',
          `A fulfillment cannot move from ${from} back to ${state}.`,
          `order.fulfillments[${i}].state`,
        );
      }
      const { state: _s, pickup_details, shipment_details, ...rest } = f;
      Object.assign(existing, rest);
      if (pickup_details && existing.pickup_details)
        existing.pickup_details = { ...(existing.pickup_details as Json), ...(pickup_details as Json) };
      if (shipment_details && existing.shipment_details)
        existing.shipment_details = { ...(existing.shipment_details as Json), ...(shipment_details as Json) };
      if (state && state !== from) {
        setFulfillmentState(existing, state, at);
        updates.push({ fulfillment_uid: String(existing.uid), old_state: from, new_state: state });
      }
    } else {
      const created = newFulfillment(m, f, `order.fulfillments[${i}]`, at);
      next.fulfillments.push(created);
      updates.push({ fulfillment_uid: String(created.uid), new_state: 'PROPOSED' });
      if (state && state !== 'PROPOSED') {
        setFulfillmentState(created, state, at);
        updates.push({ fulfillment_uid: String(created.uid), old_state: 'PROPOSED', new_state: state });
      }
    }
  });
  let completed = false;
  if (patch.state !== undefined && patch.state !== next.state) {
    if (patch.state === 'CANCELED') {
      if (next.tenders.length > 0)
        throw invalid('BAD_REQUEST', 'Orders cannot be canceled after payments have been processed.', 'order.state');
      for (const f of next.fulfillments) {
        const from = String(f.state);
        if (from === 'COMPLETED' || from === 'CANCELED' || from === 'FAILED') continue;
        setFulfillmentState(f, 'CANCELED', at);
        updates.push({ fulfillment_uid: String(f.uid), old_state: from, new_state: 'CANCELED' });
      }
    } else if (patch.state === 'COMPLETED') {
      if ((next.net_amount_due_money as Money).amount > 0)
        throw invalid('BAD_REQUEST', 'An order must be fully paid before it is COMPLETED.', 'order.state');
      completed = true;
    } else {
      throw invalid('INVALID_VALUE', 'An OPEN order can become COMPLETED or CANCELED.', 'order.state');
    }
    next.state = patch.state;
    next.closed_at = at;
  }
  next.version += 1;
  next.updated_at = at;
  m.orders.set(next.id, next);
  m.emit({ type: 'order.updated', order: next });
  if (updates.length > 0) m.emit({ type: 'order.fulfillment.updated', order: next, updates });
  if (completed) decrement(m, next);
  return next;
}

// Stock follows Square's automatic inventory tracking: an order moves its catalog lines IN_STOCK → SOLD at
// its location once, when it is fully paid (a POS sale is paid and COMPLETED at once; a Square Online
// pickup or shipment order is paid at checkout and stays OPEN until fulfilled; an unpaid one moves when it
// is paid or completed). An order cancelled by the seller in Square's Order Manager puts the units it had
// moved back (SOLD → IN_STOCK); the API cannot cancel a paid order at all.

/** With automatic inventory tracking, a paid order moves its quantities IN_STOCK → SOLD (once). */
export function decrement(m: Merchant, order: Order) {
  if (m.stockMoved.has(order.id)) return;
  m.stockMoved.add(order.id);
  moveStock(m, order, 'IN_STOCK', 'SOLD');
}

export function moveStock(m: Merchant, order: Order, from: string, to: string) {
  const at = new Date().toISOString();
  const changes = order.line_items
    .filter((l) => typeof l.catalog_object_id === 'string' && m.objects.has(l.catalog_object_id))
    .map((l) => ({
      type: 'ADJUSTMENT',
      adjustment: {
        catalog_object_id: l.catalog_object_id,
        location_id: order.location_id,
        from_state: from,
        to_state: to,
        quantity: String(l.quantity),
        occurred_at: at,
      },
    }));
  if (changes.length > 0) m.applyChanges(changes, false);
}
