// Sales in Square's own apps: a POS sale, a Square Online checkout, the buyer's payment (which moves the stock)
// and a cancel in the seller's Order Manager.

import { squareId } from './ids.ts';
import {
  type CatalogObject,
  type FulfillmentUpdate,
  invalid,
  type Json,
  type Money,
  type Order,
  type Refund,
  SquareError,
} from './model.ts';
import { decrement, lineItem, moveStock, setFulfillmentState, totals } from './orders.ts';
import type { Merchant } from './state.ts';

/** A captured card payment for the whole amount due, recorded as the order's tender. */
function payInFull(m: Merchant, order: Order, at: string) {
  const due = order.net_amount_due_money as Money;
  const paymentId = squareId.payment(m.rng);
  const money = { amount: due.amount, currency: due.currency };
  m.payments.set(paymentId, {
    id: paymentId,
    order_id: order.id,
    location_id: order.location_id,
    receipt_number: paymentId.slice(0, 4),
    amount_money: money,
    total_money: money,
    refunded_money: { amount: 0, currency: due.currency },
    status: 'COMPLETED',
    source_type: 'CARD',
    created_at: at,
    updated_at: at,
  });
  order.tenders.push({
    id: paymentId,
    location_id: order.location_id,
    transaction_id: order.id,
    created_at: at,
    amount_money: money,
    type: 'CARD',
    card_details: { status: 'CAPTURED', entry_method: 'KEYED' },
    payment_id: paymentId,
  });
  totals(m, order);
}

export function buildOrder(
  m: Merchant,
  locationId: string,
  lines: { variation: CatalogObject; quantity: number }[],
  at: string,
  state: 'OPEN' | 'COMPLETED',
): Order {
  const id = squareId.order(m.rng);
  const order: Order = {
    id,
    location_id: locationId,
    source: { name: 'Square Point of Sale' },
    state,
    version: 1,
    created_at: at,
    updated_at: at,
    ...(state === 'COMPLETED' ? { closed_at: at } : {}),
    line_items: lines.map(({ variation, quantity }) => lineItem(m, variation, quantity)),
    fulfillments: [],
    tenders: [],
    refunds: [],
    total_money: { amount: 0, currency: m.currency },
  };
  totals(m, order);
  payInFull(m, order, at);
  return order;
}

function resolveLines(m: Merchant, lines: { sku: string; quantity: number }[]) {
  if (!Array.isArray(lines) || lines.length === 0)
    throw invalid('MISSING_REQUIRED_PARAMETER', 'An order needs at least one line.', 'line_items');
  return lines.map((l) => {
    const variation = m.variationBySku(l.sku);
    if (!variation) throw new SquareError(404, 'INVALID_REQUEST_ERROR', 'NOT_FOUND', `No variation with SKU ${l.sku}.`);
    if (!Number.isInteger(l.quantity) || l.quantity < 1)
      throw invalid('INVALID_VALUE', 'Quantity must be a positive integer.');
    return { variation, quantity: l.quantity };
  });
}

/** A POS sale at a location: a paid, completed order; stock moves IN_STOCK → SOLD. */
export function sell(m: Merchant, lines: { sku: string; quantity: number }[], locationId?: string): Order {
  const location = locationId ? m.location(locationId) : m.locations[0];
  if (!location) throw new SquareError(404, 'INVALID_REQUEST_ERROR', 'NOT_FOUND', `Location ${locationId} not found.`);
  const resolved = resolveLines(m, lines);
  const order = buildOrder(m, location.id, resolved, m.now(), 'COMPLETED');
  m.orders.set(order.id, order);
  m.emit({ type: 'order.created', order });
  decrement(m, order);
  return order;
}

/**
 * A Square Online order (what a buyer's checkout creates): a PICKUP (curbside or not) or SHIPMENT order
 * at the location, paid at checkout unless `paid` is false (pay at pickup). Paying moves the stock.
 */
export function placeOnline(
  m: Merchant,
  input: {
    lines: { sku: string; quantity: number }[];
    location?: string;
    fulfillmentType: 'ship' | 'pickup' | 'curbside_pickup';
    customer?: { name?: string; email?: string; phone?: string };
    paid?: boolean;
  },
): Order {
  const location = input.location ? m.location(input.location) : m.locations[0];
  if (!location)
    throw new SquareError(404, 'INVALID_REQUEST_ERROR', 'NOT_FOUND', `Location ${input.location} not found.`);
  const resolved = resolveLines(m, input.lines);
  const recipient = {
    display_name: input.customer?.name ?? 'Pat Buyer',
    email_address: input.customer?.email ?? 'pat.buyer@example.com',
    ...(input.customer?.phone ? { phone_number: input.customer.phone } : {}),
  };
  const fulfillment =
    input.fulfillmentType === 'ship'
      ? {
          type: 'SHIPMENT',
          shipment_details: {
            recipient: {
              ...recipient,
              address: {
                address_line_1: '500 Electric Ave',
                locality: 'Portland',
                administrative_district_level_1: 'OR',
                postal_code: '97205',
                country: 'US',
              },
            },
          },
        }
      : {
          type: 'PICKUP',
          pickup_details: {
            recipient,
            schedule_type: 'SCHEDULED',
            pickup_at: new Date(Date.now() + 60 * 60 * 1000).toISOString(),
            prep_time_duration: 'PT20M',
            ...(input.fulfillmentType === 'curbside_pickup'
              ? { is_curbside_pickup: true, curbside_pickup_details: { curbside_details: 'Blue hatchback, bay 2' } }
              : {}),
          },
        };
  const order = m.createOrder(
    {
      location_id: location.id,
      line_items: resolved.map(({ variation, quantity }) => ({
        catalog_object_id: variation.id,
        quantity: String(quantity),
      })),
      fulfillments: [fulfillment],
    },
    { name: 'Square Online' },
  );
  return input.paid === false ? order : m.pay(order.id);
}

/**
 * The buyer pays the whole amount due (at checkout, or at the counter on pickup): a card tender is added,
 * an order without fulfillments becomes COMPLETED, and its stock moves IN_STOCK → SOLD.
 */
export function pay(m: Merchant, orderId: string): Order {
  const order = m.orders.get(orderId);
  if (!order) throw new SquareError(404, 'INVALID_REQUEST_ERROR', 'NOT_FOUND', `Order \`${orderId}\` not found.`);
  if (order.state !== 'OPEN') throw invalid('BAD_REQUEST', `An order in state ${order.state} cannot be paid.`);
  if ((order.net_amount_due_money as Money).amount === 0) return order;
  const at = m.now();
  payInFull(m, order, at);
  if (order.fulfillments.length === 0) {
    order.state = 'COMPLETED';
    order.closed_at = at;
  }
  order.version += 1;
  order.updated_at = at;
  m.emit({ type: 'order.updated', order });
  decrement(m, order);
  return order;
}

/**
 * What the seller does in Square's Order Manager (Cancel items → all, then refund): the order and its open
 * fulfillments become CANCELED, the units a paid order had moved go back IN_STOCK at its location, and
 * (unless `refund` is false) what was paid is refunded. A COMPLETED order is returned, not cancelled.
 */
export function cancelAsSeller(
  m: Merchant,
  orderId: string,
  options: { refund?: boolean; reason?: string } = {},
): { order: Order; refunds: Refund[] } {
  const order = m.orders.get(orderId);
  if (!order) throw new SquareError(404, 'INVALID_REQUEST_ERROR', 'NOT_FOUND', `Order \`${orderId}\` not found.`);
  if (order.state !== 'OPEN')
    throw invalid('BAD_REQUEST', `An order in state ${order.state} cannot be canceled.`, 'order.state');
  const at = m.now();
  const updates: FulfillmentUpdate[] = [];
  for (const f of order.fulfillments) {
    const from = String(f.state);
    if (from === 'COMPLETED' || from === 'CANCELED' || from === 'FAILED') continue;
    setFulfillmentState(f, 'CANCELED', at);
    const details = (f.pickup_details ?? f.shipment_details) as Json | undefined;
    if (details) details.cancel_reason = (options.reason ?? 'Customer cancellation request').slice(0, 100);
    updates.push({ fulfillment_uid: String(f.uid), old_state: from, new_state: 'CANCELED' });
  }
  order.state = 'CANCELED';
  order.closed_at = at;
  order.version += 1;
  order.updated_at = at;
  m.emit({ type: 'order.updated', order });
  if (updates.length > 0) m.emit({ type: 'order.fulfillment.updated', order, updates });
  if (m.stockMoved.delete(order.id)) moveStock(m, order, 'SOLD', 'IN_STOCK');
  const refunds: Refund[] = [];
  if (options.refund !== false) {
    for (const t of order.tenders) {
      const payment = m.payments.get(String(t.id));
      if (!payment) continue;
      const pending = [...m.refunds.values()]
        .filter((r) => r.payment_id === payment.id && (r.status === 'PENDING' || r.status === 'COMPLETED'))
        .reduce((sum, r) => sum + r.amount_money.amount, 0);
      const left = payment.amount_money.amount - pending;
      if (left > 0)
        refunds.push(
          m.refund({
            paymentId: payment.id,
            amount: { amount: left, currency: payment.amount_money.currency },
            reason: 'Canceled order',
          }),
        );
    }
  }
  return { order, refunds };
}
