import type { FastifyInstance, FastifyReply } from 'fastify';
import { storeOf } from './api.ts';
import type { BigCommerceSim } from './sim.ts';
import {
  type BcAddress,
  type BcOrder,
  type BcOrderProduct,
  type BcRefund,
  type BcStore,
  type BcVariant,
  createOrder,
  ORDER_STATUSES,
  orderSubtotal,
  orderTotal,
  shippedStatus,
} from './state.ts';
import {
  BcError,
  ERROR_TYPE,
  intParam,
  paginate,
  parseDateParam,
  rfc2822,
  toCents,
  toDecimal,
  toMoneyString,
} from './support.ts';

type Query = Record<string, string | undefined>;

/**
 * A storefront sale: the order (Awaiting Fulfillment), store/order/created, then its stock taken at
 * `locationId` (on hand, so available_to_sell, falls by each line's quantity) with BigCommerce's inventory
 * webhooks for each line. The caller picks the location: the default one for a shipped order, the store
 * for a pickup.
 */
export function placeStorefrontOrder(
  sim: BigCommerceSim,
  store: BcStore,
  lines: { variant: BcVariant; quantity: number }[],
  locationId: number,
  details: Omit<Parameters<typeof createOrder>[1], 'lines' | 'locationId' | 'statusId'> = {},
): BcOrder {
  const order = createOrder(store, { ...details, lines, locationId, statusId: 11 });
  sim.emit(store, 'store/order/created', { type: 'order', id: order.id });
  for (const line of lines) sim.changeStock(store, line.variant.id, locationId, { delta: -line.quantity });
  return order;
}

/** The merchant cancels in the control panel: status Cancelled, the order webhooks, then the restock. */
export function cancelStorefrontOrder(sim: BigCommerceSim, store: BcStore, order: BcOrder) {
  const previous = order.statusId;
  if (previous === 5) return false;
  order.statusId = 5;
  order.modifiedAt = Date.now();
  sim.emit(store, 'store/order/statusUpdated', {
    type: 'order',
    id: order.id,
    status: { previous_status_id: previous, new_status_id: 5 },
  });
  sim.emit(store, 'store/order/updated', { type: 'order', id: order.id });
  restockOnStatus(sim, store, order, previous, 5);
  return true;
}

/**
 * What a status change does to stock, as BigCommerce does: into Cancelled, the units not shipped go back
 * on hand where the order took them; out of Cancelled, they are taken again.
 */
export function restockOnStatus(sim: BigCommerceSim, store: BcStore, order: BcOrder, previous: number, next: number) {
  const sign = next === 5 && previous !== 5 ? 1 : previous === 5 && next !== 5 ? -1 : 0;
  if (sign === 0) return;
  for (const line of order.products) {
    const units = line.quantity - line.quantityShipped;
    if (units > 0) sim.changeStock(store, line.variantId, line.locationId, { delta: sign * units });
  }
}

function renderAddress(a: BcAddress, orderId: number) {
  return {
    id: a.id,
    order_id: orderId,
    first_name: a.firstName,
    last_name: a.lastName,
    company: a.company ?? '',
    street_1: a.street1,
    street_2: a.street2 ?? '',
    city: a.city,
    zip: a.zip,
    country: a.country,
    country_iso2: a.countryIso2,
    state: a.state,
    email: a.email,
    phone: a.phone,
    shipping_method: a.shippingMethod,
  };
}

function paymentStatus(order: BcOrder) {
  if (order.refunded === 0) return 'captured';
  return order.refunded >= orderTotal(order) ? 'refunded' : 'partially refunded';
}

const renderLine = (l: BcOrderProduct) => ({
  id: l.id,
  order_id: l.orderId,
  product_id: l.productId,
  variant_id: l.variantId,
  order_address_id: l.orderAddressId,
  order_pickup_method_id: 0,
  name: l.name,
  sku: l.sku,
  upc: l.upc,
  type: 'physical',
  base_price: toMoneyString(l.price),
  price_ex_tax: toMoneyString(l.price),
  price_inc_tax: toMoneyString(l.price + Math.round(l.tax / Math.max(1, l.quantity))),
  price_tax: toMoneyString(Math.round(l.tax / Math.max(1, l.quantity))),
  base_total: toMoneyString(l.price * l.quantity),
  total_ex_tax: toMoneyString(l.price * l.quantity),
  total_inc_tax: toMoneyString(l.price * l.quantity + l.tax),
  total_tax: toMoneyString(l.tax),
  applied_discounts:
    l.discount > 0
      ? [{ id: 'coupon', amount: toMoneyString(l.discount), name: 'Sandbox discount', code: null, target: 'order' }]
      : [],
  quantity: l.quantity,
  quantity_shipped: l.quantityShipped,
  quantity_refunded: l.quantityRefunded,
  refund_amount: toMoneyString(l.price * l.quantityRefunded),
  is_refunded: l.quantityRefunded >= l.quantity,
  product_options: [],
});

/** Orders V2 (bare JSON, RFC 2822 dates, 204 for an empty list), shipments, and V3 refunds. */
export function orderRoutes(api: FastifyInstance, sim: BigCommerceSim) {
  const base = (store: BcStore) => `${sim.ctx.url()}/bigcommerce/api/stores/${store.hash}/v2`;
  /**
   * `include=consignments(.line_items)`: where each line goes, shipping addresses and in-store pickups,
   * as an object with `consignment_structure=object` (the legacy default wraps it in an array).
   */
  const renderConsignments = (store: BcStore, o: BcOrder, q: Query) => {
    const include = (q.include ?? '').split(',');
    const withLines = include.includes('consignments.line_items');
    if (!withLines && !include.includes('consignments')) return undefined;
    const lines = withLines
      ? o.products.map(renderLine)
      : [{ url: `${base(store)}/orders/${o.id}/products`, resource: `/orders/${o.id}/products` }];
    const location = store.locations.find((l) => l.id === o.pickupLocationId);
    const consignments = {
      pickups: location
        ? [
            {
              id: o.shipping.id,
              pickup_method_id: 1,
              pickup_method_display_name: 'Pickup In Store',
              collection_instructions: 'Bring your order number to the counter.',
              collection_time_description: 'Ready in 2 hours',
              location: {
                id: location.id,
                name: location.label,
                code: location.code,
                address_line_1: location.address.address1,
                address_line_2: '',
                city: location.address.city,
                state: location.address.state,
                postal_code: location.address.zip,
                country_alpha2: location.address.country_code,
                email: '',
                phone: '',
              },
              line_items: lines,
            },
          ]
        : [],
      shipping: location
        ? []
        : [
            {
              ...renderAddress(o.shipping, o.id),
              order_id: undefined,
              form_fields: [],
              line_items: lines,
              items_total: o.products.reduce((s, l) => s + l.quantity, 0),
              items_shipped: o.products.reduce((s, l) => s + l.quantityShipped, 0),
              base_cost: toDecimal(o.shippingCost),
              cost_ex_tax: toDecimal(o.shippingCost),
              cost_inc_tax: toDecimal(o.shippingCost),
              cost_tax: 0,
            },
          ],
      downloads: [],
      email: { gift_certificates: [] },
    };
    return q.consignment_structure === 'object' ? consignments : [consignments];
  };

  const renderOrder = (store: BcStore, o: BcOrder, q: Query = {}) => {
    const subtotal = orderSubtotal(o);
    const total = orderTotal(o);
    const link = (sub: string) => ({ url: `${base(store)}/orders/${o.id}/${sub}`, resource: `/orders/${o.id}/${sub}` });
    return {
      id: o.id,
      customer_id: o.customerId,
      date_created: rfc2822(o.createdAt),
      date_modified: rfc2822(o.modifiedAt),
      date_shipped: o.shippedAt ? rfc2822(o.shippedAt) : '',
      status_id: o.statusId,
      status: ORDER_STATUSES[o.statusId],
      subtotal_ex_tax: toMoneyString(subtotal),
      subtotal_inc_tax: toMoneyString(subtotal + o.tax),
      subtotal_tax: toMoneyString(o.tax),
      base_shipping_cost: toMoneyString(o.shippingCost),
      shipping_cost_ex_tax: toMoneyString(o.shippingCost),
      shipping_cost_inc_tax: toMoneyString(o.shippingCost),
      total_ex_tax: toMoneyString(total - o.tax),
      total_inc_tax: toMoneyString(total),
      total_tax: toMoneyString(o.tax),
      discount_amount: toMoneyString(o.discount),
      coupon_discount: '0.0000',
      items_total: o.products.reduce((s, l) => s + l.quantity, 0),
      items_shipped: o.products.reduce((s, l) => s + l.quantityShipped, 0),
      payment_method: o.paymentMethod,
      payment_provider_id: o.paymentProviderId,
      payment_status: paymentStatus(o),
      refunded_amount: toMoneyString(o.refunded),
      currency_code: o.currency,
      default_currency_code: o.currency,
      currency_exchange_rate: '1.0000000000',
      customer_message: o.customerMessage,
      staff_notes: '',
      order_is_digital: false,
      channel_id: o.channelId,
      order_source: 'www',
      external_source: null,
      is_deleted: false,
      billing_address: {
        ...renderAddress(o.billing, o.id),
        id: undefined,
        order_id: undefined,
        shipping_method: undefined,
      },
      products: link('products'),
      shipping_addresses: link('shipping_addresses'),
      coupons: link('coupons'),
      consignments: renderConsignments(store, o, q) ?? link('consignments'),
    };
  };

  const orderOf = (store: BcStore, id: string) => {
    const order = store.orders.get(Number(id));
    if (!order) throw new BcError(404, 'The requested resource was not found.');
    return order;
  };

  /** V2 lists: page/limit (max 250) and 204 with no body when nothing is on the page. */
  const v2Page = <T>(reply: FastifyReply, items: T[], q: Query) => {
    const limit = intParam(q.limit, 50);
    const page = intParam(q.page, 1);
    if (!Number.isInteger(limit) || limit < 1 || limit > 250)
      throw new BcError(400, 'The limit must be between 1 and 250.');
    if (!Number.isInteger(page) || page < 1) throw new BcError(400, 'The page must be a positive integer.');
    const slice = items.slice((page - 1) * limit, page * limit);
    if (slice.length === 0) return reply.code(204).send();
    return slice;
  };

  api.get<{ Querystring: Query }>('/v2/orders', async (req, reply) => {
    const store = storeOf(req);
    const q = req.query;
    const bound = (name: string) => {
      const raw = q[name];
      if (raw === undefined) return null;
      const ms = parseDateParam(raw);
      if (ms === null) throw new BcError(400, `The filter ${name} is not a valid date.`);
      // V2 dates have whole seconds: compare at that precision, as BigCommerce does.
      return Math.floor(ms / 1000);
    };
    const secs = (ms: number) => Math.floor(ms / 1000);
    const [minMod, maxMod, minCreated, maxCreated] = [
      bound('min_date_modified'),
      bound('max_date_modified'),
      bound('min_date_created'),
      bound('max_date_created'),
    ];
    const minId = q.min_id === undefined ? null : Number(q.min_id);
    const maxId = q.max_id === undefined ? null : Number(q.max_id);
    let orders = [...store.orders.values()].filter(
      (o) =>
        (minMod === null || secs(o.modifiedAt) >= minMod) &&
        (maxMod === null || secs(o.modifiedAt) <= maxMod) &&
        (minCreated === null || secs(o.createdAt) >= minCreated) &&
        (maxCreated === null || secs(o.createdAt) <= maxCreated) &&
        (minId === null || o.id >= minId) &&
        (maxId === null || o.id <= maxId) &&
        (q.status_id === undefined || String(o.statusId) === q.status_id) &&
        (q.channel_id === undefined || String(o.channelId) === q.channel_id),
    );
    const [field, dir] = (q.sort ?? 'id:asc').split(':');
    const sign = dir === 'desc' ? -1 : 1;
    const key = (o: BcOrder) =>
      field === 'date_modified' ? o.modifiedAt : field === 'date_created' ? o.createdAt : o.id;
    orders = orders.sort((a, b) => sign * (key(a) - key(b)) || a.id - b.id);
    const page = v2Page(reply, orders, q);
    return Array.isArray(page) ? page.map((o) => renderOrder(store, o, q)) : page;
  });

  api.get<{ Params: { id: string }; Querystring: Query }>('/v2/orders/:id', async (req) => {
    const store = storeOf(req);
    return renderOrder(store, orderOf(store, req.params.id), req.query);
  });

  api.put<{ Params: { id: string }; Body: Record<string, unknown> }>('/v2/orders/:id', async (req) => {
    const store = storeOf(req);
    const order = orderOf(store, req.params.id);
    const body = req.body ?? {};
    for (const key of Object.keys(body)) {
      if (key !== 'status_id' && key !== 'customer_message') {
        throw new BcError(
          400,
          `The field '${key}' cannot be written to. Please remove it from your request before trying again.`,
        );
      }
    }
    if (body.status_id !== undefined) {
      if (typeof body.status_id !== 'number' || !(body.status_id in ORDER_STATUSES)) {
        throw new BcError(400, 'The field status_id is invalid.');
      }
      const previous = order.statusId;
      setStatus(store, order, body.status_id);
      if (typeof body.customer_message === 'string') order.customerMessage = body.customer_message;
      order.modifiedAt = Date.now();
      sim.emit(store, 'store/order/updated', { type: 'order', id: order.id });
      // Cancelling puts the unshipped units back on hand at their location (and un-cancelling takes them).
      restockOnStatus(sim, store, order, previous, body.status_id);
      return renderOrder(store, order);
    }
    if (typeof body.customer_message === 'string') order.customerMessage = body.customer_message;
    order.modifiedAt = Date.now();
    sim.emit(store, 'store/order/updated', { type: 'order', id: order.id });
    return renderOrder(store, order);
  });

  const setStatus = (store: BcStore, order: BcOrder, statusId: number) => {
    if (order.statusId === statusId) return;
    const previous = order.statusId;
    order.statusId = statusId;
    sim.emit(store, 'store/order/statusUpdated', {
      type: 'order',
      id: order.id,
      status: { previous_status_id: previous, new_status_id: statusId },
    });
  };

  api.get<{ Params: { id: string }; Querystring: Query }>('/v2/orders/:id/products', async (req, reply) => {
    const store = storeOf(req);
    const order = orderOf(store, req.params.id);
    const page = v2Page(reply, order.products, req.query);
    if (!Array.isArray(page)) return page;
    return page.map(renderLine);
  });

  api.get<{ Params: { id: string } }>('/v2/orders/:id/shipping_addresses', async (req) => {
    const store = storeOf(req);
    const order = orderOf(store, req.params.id);
    return [renderAddress(order.shipping, order.id)];
  });

  const renderShipment = (order: BcOrder, s: BcOrder['shipments'][number]) => ({
    id: s.id,
    order_id: s.orderId,
    customer_id: order.customerId,
    order_address_id: s.orderAddressId,
    date_created: rfc2822(s.createdAt),
    tracking_number: s.trackingNumber,
    tracking_link: s.trackingLink,
    generated_tracking_link: s.trackingLink,
    shipping_method: order.shipping.shippingMethod,
    shipping_provider: s.shippingProvider,
    tracking_carrier: s.trackingCarrier,
    comments: s.comments,
    billing_address: renderAddress(order.billing, order.id),
    shipping_address: renderAddress(order.shipping, order.id),
    items: s.items,
  });

  api.get<{ Params: { id: string }; Querystring: Query }>('/v2/orders/:id/shipments', async (req, reply) => {
    const store = storeOf(req);
    const order = orderOf(store, req.params.id);
    const page = v2Page(reply, order.shipments, req.query);
    return Array.isArray(page) ? page.map((s) => renderShipment(order, s)) : page;
  });

  api.post<{ Params: { id: string }; Body: Record<string, unknown> }>(
    '/v2/orders/:id/shipments',
    async (req, reply) => {
      const store = storeOf(req);
      const order = orderOf(store, req.params.id);
      const body = req.body ?? {};
      if (body.order_address_id === undefined)
        throw new BcError(400, 'The required field order_address_id was not supplied.');
      if (Number(body.order_address_id) !== order.shipping.id) {
        throw new BcError(400, 'The order_address_id does not belong to this order.');
      }
      if (!Array.isArray(body.items) || body.items.length === 0) {
        throw new BcError(400, 'The required field items was not supplied.');
      }
      if (order.statusId === 5 || order.statusId === 4)
        throw new BcError(400, 'The order cannot be shipped in its status.');
      const wanted = new Map<number, number>();
      for (const raw of body.items as { order_product_id?: unknown; quantity?: unknown }[]) {
        const line = order.products.find((l) => l.id === Number(raw.order_product_id));
        if (!line)
          throw new BcError(400, `Order product ${String(raw.order_product_id)} does not belong to this order.`);
        const quantity = Number(raw.quantity);
        if (!Number.isInteger(quantity) || quantity < 1) throw new BcError(400, 'Each item needs a positive quantity.');
        wanted.set(line.id, (wanted.get(line.id) ?? 0) + quantity);
      }
      for (const [lineId, quantity] of wanted) {
        const line = order.products.find((l) => l.id === lineId);
        if (line && line.quantityShipped + quantity > line.quantity) {
          throw new BcError(
            400,
            `Only ${line.quantity - line.quantityShipped} of order product ${lineId} remain to ship.`,
          );
        }
      }
      const now = Date.now();
      const shipment = {
        id: ++store.seq.shipment,
        orderId: order.id,
        orderAddressId: order.shipping.id,
        trackingNumber: typeof body.tracking_number === 'string' ? body.tracking_number : '',
        trackingLink: typeof body.tracking_link === 'string' ? body.tracking_link : '',
        shippingProvider: typeof body.shipping_provider === 'string' ? body.shipping_provider : '',
        trackingCarrier: typeof body.tracking_carrier === 'string' ? body.tracking_carrier : '',
        comments: typeof body.comments === 'string' ? body.comments : '',
        createdAt: now,
        items: [...wanted].map(([lineId, quantity]) => ({
          order_product_id: lineId,
          product_id: order.products.find((l) => l.id === lineId)?.productId ?? 0,
          quantity,
        })),
      };
      for (const [lineId, quantity] of wanted) {
        const line = order.products.find((l) => l.id === lineId);
        if (line) line.quantityShipped += quantity;
      }
      order.shipments.push(shipment);
      order.shippedAt = now;
      order.modifiedAt = now;
      setStatus(store, order, shippedStatus(order));
      sim.emit(store, 'store/shipment/created', { type: 'shipment', id: shipment.id, orderId: order.id });
      sim.emit(store, 'store/order/updated', { type: 'order', id: order.id });
      return reply.code(201).send(renderShipment(order, shipment));
    },
  );

  // --- V3 payment actions: refund quotes and refunds ---------------------------------------------

  const refundError = (reply: FastifyReply, status: number, title: string) =>
    reply.code(status).send({ data: [{ status, title, type: ERROR_TYPE }] });

  /** What the items ask back, in cents, or an error title. */
  const quote = (order: BcOrder, items: unknown): { total: number; tax: number } | { error: string } => {
    if (!Array.isArray(items) || items.length === 0) return { error: 'The items field is required.' };
    let total = 0;
    let taxTotal = 0;
    for (const raw of items as Record<string, unknown>[]) {
      const type = raw.item_type;
      const amount = raw.amount === undefined ? null : toCents(raw.amount);
      if (type === 'PRODUCT') {
        const line = order.products.find((l) => l.id === Number(raw.item_id));
        if (!line) return { error: `Order product ${String(raw.item_id)} is not part of order ${order.id}.` };
        const quantity = Number(raw.quantity);
        if (amount !== null) total += amount;
        else if (Number.isInteger(quantity) && quantity > 0) {
          if (line.quantityRefunded + quantity > line.quantity) {
            return {
              error: `Only ${line.quantity - line.quantityRefunded} of order product ${line.id} can be refunded.`,
            };
          }
          const tax = Math.round((line.tax * quantity) / Math.max(1, line.quantity));
          total += line.price * quantity + tax;
          taxTotal += tax;
        } else return { error: 'A PRODUCT item needs a quantity or an amount.' };
      } else if (type === 'SHIPPING') {
        if (Number(raw.item_id) !== order.shipping.id) return { error: 'The shipping item is not part of this order.' };
        if (amount === null || amount < 0 || amount > order.shippingCost)
          return { error: 'The shipping amount is invalid.' };
        total += amount;
      } else if (type === 'ORDER') {
        if (Number(raw.item_id) !== order.id) return { error: 'The ORDER item must name this order.' };
        if (amount === null || amount <= 0) return { error: 'An ORDER item needs a positive amount.' };
        total += amount;
      } else {
        return { error: `Item type ${String(type)} is not supported.` };
      }
    }
    const refundable = orderTotal(order) - order.refunded;
    if (total > refundable) return { error: `The refund exceeds the refundable amount of ${toDecimal(refundable)}.` };
    if (total <= 0) return { error: 'Nothing to refund.' };
    return { total, tax: taxTotal };
  };

  const refundMethods = (order: BcOrder, total: number) => {
    const methods = [
      [
        {
          provider_id: order.paymentProviderId,
          provider_description: 'Braintree',
          amount: toDecimal(total),
          offline: false,
          offline_provider: false,
          offline_reason: '',
        },
      ],
      [
        {
          provider_id: 'custom',
          provider_description: 'Custom',
          amount: toDecimal(total),
          offline: true,
          offline_provider: true,
          offline_reason: 'This is an offline payment provider.',
        },
      ],
    ];
    // BigCommerce cannot give store credit to a guest.
    if (order.customerId !== 0) {
      methods.push([
        {
          provider_id: 'storecredit',
          provider_description: 'Store Credit',
          amount: toDecimal(total),
          offline: false,
          offline_provider: false,
          offline_reason: '',
        },
      ]);
    }
    return methods;
  };

  api.post<{ Params: { id: string }; Body: Record<string, unknown> }>(
    '/v3/orders/:id/payment_actions/refund_quotes',
    async (req, reply) => {
      const store = storeOf(req);
      const order = store.orders.get(Number(req.params.id));
      if (!order) return refundError(reply, 404, 'Order not found.');
      const q = quote(order, req.body?.items);
      if ('error' in q) return refundError(reply, 422, q.error);
      return reply.code(201).send({
        data: {
          order_id: order.id,
          total_refund_amount: toDecimal(q.total),
          total_refund_tax_amount: toDecimal(q.tax),
          rounding: 0,
          adjustment: 0,
          tax_inclusive: false,
          refund_methods: refundMethods(order, q.total),
        },
        meta: {},
      });
    },
  );

  const renderRefund = (r: BcRefund) => ({
    id: r.id,
    order_id: r.orderId,
    user_id: 0,
    created: new Date(r.createdAt).toISOString(),
    reason: r.reason,
    total_amount: toDecimal(r.total),
    total_tax: toDecimal(r.tax),
    uses_merchant_override_values: false,
    payments: r.payments.map((p) => ({ ...p, amount: toDecimal(p.amount), is_declined: false, declined_message: '' })),
    items: r.items,
  });

  /**
   * A refund (V3 payment actions, or the control panel's Refund dialog): the quoted items, paid back through
   * methods the quote offers, one at a time per order. It moves no stock: BigCommerce's refund has no restock
   * option and names no location (its docs list none), and stock comes back only when the order's status
   * becomes Cancelled; a return's units are put back by whoever keeps the stock (the merchant, or an app).
   */
  const createRefund = (
    store: BcStore,
    order: BcOrder,
    body: Record<string, unknown>,
  ): { refund: BcRefund } | { status: number; title: string } => {
    if (store.refunding.has(order.id)) return { status: 409, title: 'A refund is already in progress for this order.' };
    const q = quote(order, body.items);
    if ('error' in q) return { status: 422, title: q.error };
    if (!Array.isArray(body.payments) || body.payments.length === 0)
      return { status: 422, title: 'The payments field is required.' };
    const offered = refundMethods(order, q.total).flat();
    let paid = 0;
    const payments: BcRefund['payments'] = [];
    for (const raw of body.payments as Record<string, unknown>[]) {
      const amount = toCents(raw.amount);
      const method = offered.find((m) => m.provider_id === raw.provider_id);
      if (!method)
        return {
          status: 422,
          title:
            raw.provider_id === 'storecredit'
              ? 'Unable to provide store credit for a guest customer.'
              : `The payment provider ${String(raw.provider_id)} is not available for this refund.`,
        };
      if (amount === null || amount <= 0 || amount > (toCents(method.amount) ?? 0))
        return { status: 422, title: 'The payment amount does not match an amount offered by the refund quote.' };
      paid += amount;
      payments.push({ id: payments.length + 1, provider_id: method.provider_id, amount, offline: method.offline });
    }
    if (paid !== q.total) return { status: 422, title: 'The payments do not add up to the refund total in the quote.' };
    store.refunding.add(order.id);
    try {
      const refund: BcRefund = {
        id: ++store.seq.refund,
        orderId: order.id,
        createdAt: Date.now(),
        reason: typeof body.reason === 'string' ? body.reason : '',
        total: q.total,
        tax: q.tax,
        items: (body.items as Record<string, unknown>[]).map((i) => ({
          item_type: String(i.item_type),
          item_id: Number(i.item_id),
          ...(i.quantity !== undefined ? { quantity: Number(i.quantity) } : {}),
          requested_amount: i.amount === undefined ? null : String(i.amount),
        })),
        payments: payments.map((p, n) => ({ ...p, id: store.seq.refund * 10 + n })),
      };
      for (const item of refund.items) {
        if (item.item_type !== 'PRODUCT' || item.quantity === undefined) continue;
        const line = order.products.find((l) => l.id === item.item_id);
        if (line) line.quantityRefunded += item.quantity;
      }
      order.refunds.push(refund);
      order.refunded += q.total;
      order.modifiedAt = Date.now();
      setStatus(store, order, order.refunded >= orderTotal(order) ? 4 : 14);
      sim.emit(store, 'store/order/refund/created', { type: 'order', id: order.id, refund: { refund_id: refund.id } });
      sim.emit(store, 'store/order/updated', { type: 'order', id: order.id });
      return { refund };
    } finally {
      store.refunding.delete(order.id);
    }
  };
  sim.quoteRefund = quote;
  sim.refundOrder = (store, order, body) => {
    const made = createRefund(store, order, body);
    return 'refund' in made ? { refund: renderRefund(made.refund) } : made;
  };

  api.post<{ Params: { id: string }; Body: Record<string, unknown> }>(
    '/v3/orders/:id/payment_actions/refunds',
    async (req, reply) => {
      const store = storeOf(req);
      const order = store.orders.get(Number(req.params.id));
      if (!order) return refundError(reply, 404, 'Order not found.');
      const made = createRefund(store, order, req.body ?? {});
      if (!('refund' in made)) return refundError(reply, made.status, made.title);
      return reply.code(201).send({ data: renderRefund(made.refund), meta: {} });
    },
  );

  // All the store's refunds (GET /v3/orders/payment_actions/refunds): filters id:in, order_id:in, created:min,
  // created:max; page and limit with V3 pagination, oldest first.
  api.get<{ Querystring: Query }>('/v3/orders/payment_actions/refunds', async (req, reply) => {
    const store = storeOf(req);
    const q = req.query;
    const ids = (v: string | undefined) => (v ? new Set(v.split(',').map((x) => Number(x.trim()))) : null);
    const idIn = ids(q['id:in']);
    const orderIn = ids(q['order_id:in']);
    const min = q['created:min'] ? parseDateParam(q['created:min']) : null;
    const max = q['created:max'] ? parseDateParam(q['created:max']) : null;
    if ((q['created:min'] && min === null) || (q['created:max'] && max === null))
      return refundError(reply, 422, 'The created filter must be a date.');
    const all = [...store.orders.values()]
      .flatMap((o) => o.refunds)
      .filter(
        (r) =>
          (!idIn || idIn.has(r.id)) &&
          (!orderIn || orderIn.has(r.orderId)) &&
          (min === null || r.createdAt >= min) &&
          (max === null || r.createdAt <= max),
      )
      .sort((a, b) => a.id - b.id);
    const page = paginate(all, q, { maxLimit: 250 });
    return { data: page.data.map(renderRefund), meta: page.meta };
  });

  api.get<{ Params: { id: string } }>('/v3/orders/:id/payment_actions/refunds', async (req, reply) => {
    const store = storeOf(req);
    const order = store.orders.get(Number(req.params.id));
    if (!order) return refundError(reply, 404, 'Order not found.');
    return { data: order.refunds.map(renderRefund), meta: {} };
  });
}
