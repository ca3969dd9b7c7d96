import type { ProviderSimulator, ShopControl, ShopSnapshot } from '../context.ts';
import { minorUnits, splitName, type WebOrderAddress, type WebOrderInput } from '../web-order.ts';
import { apiRoutes } from './api.ts';
import { oauthRoutes } from './oauth.ts';
import { cancelStorefrontOrder, placeStorefrontOrder } from './orders.ts';
import { BC_APPS, BigCommerceSim } from './sim.ts';
import type { BcStore } from './state.ts';

const notFound = (message: string) => Object.assign(new Error(message), { statusCode: 404 });
const badRequest = (message: string) => Object.assign(new Error(message), { statusCode: 400 });

function snapshot(store: BcStore): ShopSnapshot {
  const stock: Record<string, Record<string, number>> = {};
  for (const variant of store.variants.values()) {
    const perLocation: Record<string, number> = {};
    for (const loc of store.locations) {
      const level = store.stock.get(`${variant.id}:${loc.id}`);
      if (level) perLocation[String(loc.id)] = level.onHand - level.safetyStock;
    }
    stock[variant.sku] = perLocation;
  }
  return {
    shop: store.hash,
    locations: store.locations.map((l) => ({ id: String(l.id), name: l.label })),
    stock,
    products: store.products.size,
    variants: store.variants.size,
    orders: store.orders.size,
  };
}

/**
 * The BigCommerce simulator: login.bigcommerce.com under `/bigcommerce/login` and
 * api.bigcommerce.com under `/bigcommerce/api`, one in-memory store per store hash.
 */
export const bigcommerceSimulator: ProviderSimulator = (app, ctx) => {
  const sim = new BigCommerceSim(ctx);
  oauthRoutes(app, sim);
  apiRoutes(app, sim);

  const variantBySku = (store: BcStore, sku: string) => {
    const variant = [...store.variants.values()].find((v) => v.sku === sku);
    if (!variant) throw notFound(`No variant with SKU ${sku}`);
    return variant;
  };
  const locationId = (store: BcStore, location: string | undefined) => {
    if (location === undefined) return store.locations[0]?.id ?? 1;
    const loc = store.locations.find((l) => String(l.id) === String(location));
    if (!loc) throw notFound(`No location ${location}`);
    return loc.id;
  };

  const control: ShopControl = {
    shops: () => [...sim.stores.keys()],
    reset: (hash, seed) => snapshot(sim.seed(hash, seed)),
    snapshot: (hash) => snapshot(sim.store(hash)),
    adjustStock: (hash, change) => {
      const store = sim.store(hash);
      const variant = variantBySku(store, change.sku);
      const loc = locationId(store, change.location);
      if (change.quantity !== undefined) {
        // The control panel sets on hand; quantities here are what is available to sell.
        const level = sim.stock(store, variant.id, loc);
        sim.changeStock(store, variant.id, loc, { absolute: change.quantity + level.safetyStock });
      } else if (change.delta !== undefined) {
        sim.changeStock(store, variant.id, loc, { delta: change.delta });
      } else {
        throw badRequest('Give quantity or delta');
      }
    },
    // A storefront checkout: a shipped order takes its stock at the store's default location (1), a pickup
    // order (buy online, pick up in store) at its pickup location.
    placeOrder: (hash, raw) => {
      const store = sim.store(hash);
      const order = (raw ?? {}) as WebOrderInput;
      if (!Array.isArray(order.lines) || order.lines.length === 0) throw badRequest('An order needs lines');
      const lines = order.lines.map((l) => {
        if (!Number.isInteger(l.quantity) || l.quantity <= 0) throw badRequest(`Bad quantity for ${l.sku}`);
        return { variant: variantBySku(store, l.sku), quantity: l.quantity };
      });
      const type = order.fulfillmentType ?? 'ship';
      if (type !== 'ship' && type !== 'pickup') throw badRequest(`BigCommerce has no ${type} orders`);
      const defaultLocation = store.locations[0]?.id ?? 1;
      const pickup =
        type === 'pickup' ? locationId(store, order.location ?? String(store.locations[1]?.id ?? 1)) : null;
      if (!pickup && order.location !== undefined && locationId(store, order.location) !== defaultLocation)
        throw badRequest(
          'A shipped storefront order takes its stock at the default location; give location for a pickup',
        );
      const named = splitName(order.customer?.name);
      const address = (a: WebOrderAddress | undefined) => {
        if (!a) return undefined;
        const n = splitName(a.name);
        return {
          firstName: a.firstName ?? n?.first,
          lastName: a.lastName ?? n?.last,
          company: a.company,
          street1: a.address1,
          street2: a.address2,
          city: a.city,
          state: a.province,
          zip: a.zip,
          countryIso2: a.country?.toUpperCase(),
          country: a.country?.toUpperCase() === 'US' ? 'United States' : a.country,
          phone: a.phone,
        };
      };
      const placed = placeStorefrontOrder(sim, store, lines, pickup ?? defaultLocation, {
        customer: named
          ? { first: named.first, last: named.last, email: order.customer?.email, phone: order.customer?.phone }
          : order.customer && {
              first: 'Jordan',
              last: 'Reyes',
              email: order.customer.email,
              phone: order.customer.phone,
            },
        pickupLocationId: pickup,
        shippingAddress: address(order.shippingAddress),
        billingAddress: address(order.billingAddress),
        customerMessage: order.note,
        discount: minorUnits(order.discount, 'discount'),
        tax: minorUnits(order.tax, 'tax'),
        shippingCost: minorUnits(order.shipping, 'shipping'),
      });
      return { orderId: String(placed.id) };
    },
    // POST /_control/bigcommerce/{hash}/orders/{id}/cancel: the merchant sets the order to Cancelled.
    cancelOrder: (hash, id) => {
      const store = sim.store(hash);
      const order = store.orders.get(Number(id));
      if (!order) throw notFound(`No order ${id}`);
      if (!cancelStorefrontOrder(sim, store, order)) throw badRequest(`Order ${id} is already cancelled`);
      return { orderId: String(order.id), statusId: order.statusId };
    },
    // POST /_control/bigcommerce/{hash}/orders/{id}/return: the merchant refunds lines (and shipping) in the
    // control panel's Refund dialog, to the original payment. BigCommerce's refund moves no stock and names no
    // location (so `location` and `restock` are not recorded): store/order/refund/created, store/order/updated.
    returnOrder: (hash, id, body) => {
      const store = sim.store(hash);
      const order = store.orders.get(Number(id));
      if (!order) throw notFound(`No order ${id}`);
      const items: Record<string, unknown>[] = body.lines.map((l) => {
        const line = order.products.find((p) => (l.lineId ? p.id === Number(l.lineId) : p.sku === l.sku));
        if (!line) throw badRequest(`Order ${id} has no line ${l.lineId ?? l.sku}`);
        return { item_type: 'PRODUCT', item_id: line.id, quantity: l.quantity };
      });
      const shipping = minorUnits(body.shipping, 'shipping');
      if (shipping) items.push({ item_type: 'SHIPPING', item_id: order.shipping.id, amount: shipping / 100 });
      const amount = minorUnits(body.amount, 'amount');
      // A goodwill amount instead of the lines' worth is refunded on the order as a whole.
      const refundItems =
        amount === undefined ? items : [{ item_type: 'ORDER', item_id: order.id, amount: amount / 100 }];
      const quoted = sim.quoteRefund(order, refundItems);
      if ('error' in quoted) throw badRequest(quoted.error);
      const made = sim.refundOrder(store, order, {
        items: refundItems,
        payments: [{ provider_id: order.paymentProviderId, amount: quoted.total / 100, offline: false }],
        reason: body.note ?? '',
      });
      if (!('refund' in made)) throw badRequest(made.title);
      return { orderId: String(order.id), refund: made.refund };
    },
    action: async (hash, action, body) => {
      const store = sim.store(hash);
      const input = (body ?? {}) as Record<string, unknown>;
      const clientId = typeof input.clientId === 'string' ? input.clientId : [...BC_APPS.keys()][0];
      if (!clientId || !BC_APPS.has(clientId)) throw notFound(`Unknown app ${String(input.clientId)}`);
      if (action === 'token') {
        // A store API account created in the control panel: a token without the OAuth dance.
        const scope =
          typeof input.scope === 'string'
            ? input.scope
            : 'store_v2_products store_inventory store_locations store_v2_orders store_v2_transactions store_v2_information_read_only';
        return { access_token: sim.issueToken(store, clientId, scope), scope, context: `stores/${hash}` };
      }
      if (action === 'plan') {
        // Standard and Plus: 150 requests per 30 s; Pro: 450. Or any quota and window, e.g. for a benchmark.
        const plans: Record<string, number> = { standard: 150, plus: 150, pro: 450 };
        const name = typeof input.plan === 'string' ? input.plan.toLowerCase() : 'custom';
        const quota = typeof input.quota === 'number' ? input.quota : plans[name];
        const windowMs = typeof input.windowMs === 'number' ? input.windowMs : 30_000;
        if (!quota || quota < 1 || windowMs < 1) throw badRequest('Give a plan (standard, plus, pro) or a quota');
        store.plan = { name, quota, windowMs };
        store.rate = { windowStart: 0, used: 0 };
        return { plan: name, quota, windowMs };
      }
      if (action === 'uninstall') {
        const result = await sim.uninstall(store, clientId);
        if (!result) throw notFound('The app is not installed on this store');
        return result;
      }
      throw notFound(`Unknown action ${action}`);
    },
  };

  ctx.registerControl('bigcommerce', control);
};
