import type { FastifyInstance } from 'fastify';
import type { ProviderSimulator, SandboxContext, ShopControl, ShopSnapshot } from '../context.ts';
import { apiRoutes, renderError } from './api.ts';
import { type Environment, invalid, SquareError } from './model.ts';
import { oauthRoutes } from './oauth.ts';
import type { Merchant } from './state.ts';
import { SquareStore } from './store.ts';

/**
 * The Square simulator. Mounted at /square, it serves both of Square's hosts: /square/... stands in for
 * https://connect.squareup.com and /square/sandbox/... for https://connect.squareupsandbox.com, with
 * separate sellers, tokens and data, as the two environments have. The control API's shop key is the
 * seller's merchant id.
 */
export const squareSimulator: ProviderSimulator = async (app, ctx) => {
  const stores: Record<Environment, SquareStore> = {
    production: new SquareStore('production', ctx),
    sandbox: new SquareStore('sandbox', ctx),
  };
  const host = (environment: Environment) => async (scope: FastifyInstance) => {
    const store = stores[environment];
    scope.setErrorHandler((err, _req, reply) => renderError(err, reply));
    scope.setNotFoundHandler((req, reply) =>
      reply.status(404).send({
        errors: [
          {
            category: 'INVALID_REQUEST_ERROR',
            code: 'NOT_FOUND',
            detail: `${req.method} ${req.url} is not an endpoint.`,
          },
        ],
      }),
    );
    oauthRoutes(scope, store, ctx);
    await scope.register(async (api) => apiRoutes(api, store, ctx));
  };
  await app.register(host('production'));
  await app.register(host('sandbox'), { prefix: '/sandbox' });
  ctx.registerControl('square', squareControl(stores, ctx));
};

function squareControl(stores: Record<Environment, SquareStore>, ctx: SandboxContext): ShopControl {
  const find = (shop: string): Merchant => {
    const merchant = stores.production.merchants.get(shop) ?? stores.sandbox.merchants.get(shop);
    if (!merchant) throw Object.assign(new Error(`No Square merchant ${shop}`), { statusCode: 404 });
    return merchant;
  };
  const asControlError = <T>(run: () => T): T => {
    try {
      return run();
    } catch (err) {
      if (err instanceof SquareError) throw Object.assign(new Error(err.message), { statusCode: err.status });
      throw err;
    }
  };
  const snapshot = (m: Merchant): ShopSnapshot => {
    const stock: Record<string, Record<string, number>> = {};
    let products = 0;
    let variants = 0;
    for (const o of m.objects.values()) {
      if (o.is_deleted) continue;
      if (o.type === 'ITEM') products++;
      if (o.type !== 'ITEM_VARIATION') continue;
      variants++;
      const sku = String(o.item_variation_data?.sku ?? o.id);
      stock[sku] = Object.fromEntries(m.locations.map((l) => [l.id, m.quantity(o.id, l.id)]));
    }
    return {
      shop: m.id,
      locations: m.locations.map((l) => ({ id: l.id, name: l.name })),
      stock,
      products,
      variants,
      orders: m.orders.size,
    };
  };
  return {
    shops: () => [...stores.production.merchants.keys(), ...stores.sandbox.merchants.keys()],
    reset: (shop, seed) => {
      const existing = stores.production.merchants.get(shop) ?? stores.sandbox.merchants.get(shop);
      if (existing) {
        existing.seed({ ...ctx.options.shopSize, seed: ctx.options.seed, ...seed });
        return snapshot(existing);
      }
      return snapshot(stores.production.ensureMerchant(shop, `Merchant ${shop}`, seed));
    },
    snapshot: (shop) => snapshot(find(shop)),
    adjustStock: (shop, change) => asControlError(() => find(shop).adjust(change.sku, change.location, change)),
    placeOrder: (shop, order) =>
      asControlError(() => {
        const merchant = find(shop);
        if (!order.fulfillmentType) return { orderId: merchant.sell(order.lines, order.location).id };
        return {
          orderId: merchant.placeOnline({
            lines: order.lines,
            location: order.location,
            fulfillmentType: order.fulfillmentType,
            customer: order.customer,
            paid: order.paid,
          }).id,
        };
      }),
    cancelOrder: (shop, orderId, body) =>
      asControlError(() => {
        const merchant = find(shop);
        const { order, refunds } = merchant.cancelAsSeller(orderId, {
          refund: body.refund !== false,
          reason: typeof body.reason === 'string' ? body.reason : undefined,
        });
        for (const r of refunds) setTimeout(() => merchant.settleRefund(r.id), 200).unref();
        return { orderId: order.id, state: order.state, refunds: refunds.map((r) => r.id) };
      }),
    // POST /_control/square/{merchant}/orders/{id}/return: a POS return at the register of `location` (default
    // the sale's store): a return order, Square's restock there, the card refund (state.ts returnAtRegister).
    returnOrder: (shop, orderId, body) =>
      asControlError(() => {
        const merchant = find(shop);
        if (body.lines.some((l) => l.restock === false))
          throw invalid(
            'BAD_REQUEST',
            'Square POS restocks returned items; take damaged ones out afterwards with a stock change.',
            'lines',
          );
        if (body.amount !== undefined || body.shipping !== undefined)
          throw invalid('BAD_REQUEST', 'A return at the register refunds what the returned items cost.', 'amount');
        const { order, refund } = merchant.returnAtRegister({
          saleOrderId: orderId,
          locationId: body.location,
          lines: body.lines.map((l) => ({ sku: l.sku, lineUid: l.lineId, quantity: l.quantity })),
          reason: body.note,
        });
        if (refund) setTimeout(() => merchant.settleRefund(refund.id), 200).unref();
        return { orderId: order.id, refundId: refund?.id ?? null };
      }),
    action: (shop, action, body) => {
      const input = (body ?? {}) as { order_id?: unknown };
      if (action !== 'pay' || typeof input.order_id !== 'string')
        throw Object.assign(new Error(`Unknown action ${action} (pay takes {"order_id"})`), { statusCode: 404 });
      const orderId = input.order_id;
      return asControlError(() => {
        const order = find(shop).pay(orderId);
        return { orderId: order.id, state: order.state, version: order.version };
      });
    },
  };
}
