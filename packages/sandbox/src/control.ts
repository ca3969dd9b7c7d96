import type { FastifyInstance } from 'fastify';
import type { PlaceOrderInput, ReturnOrderInput, SandboxContext, ShopControl } from './context.ts';
import type { FaultConfig } from './faults.ts';

type Provider = 'shopify' | 'bigcommerce' | 'square';

/**
 * The control API (`/_control`) for tests, the demo and benchmarks: seed a shop, read what it holds,
 * change stock, make a sale, inject faults, read webhook deliveries. Not part of any provider's API.
 */
export function controlRoutes(app: FastifyInstance, ctx: SandboxContext, controls: Map<Provider, ShopControl>) {
  const control = (provider: string) => {
    const c = controls.get(provider as Provider);
    if (!c) throw Object.assign(new Error(`Unknown provider ${provider}`), { statusCode: 404 });
    return c;
  };

  app.get('/_control', async () => ({
    providers: [...controls.entries()].map(([provider, c]) => ({ provider, shops: c.shops() })),
  }));

  app.post<{
    Params: { provider: string; shop: string };
    Body: { seed?: number; products?: number; locations?: number; variantsPerProduct?: number };
  }>('/_control/:provider/:shop/reset', async (req) =>
    control(req.params.provider).reset(req.params.shop, req.body ?? {}),
  );

  app.get<{ Params: { provider: string; shop: string } }>('/_control/:provider/:shop', async (req) =>
    control(req.params.provider).snapshot(req.params.shop),
  );

  app.post<{
    Params: { provider: string; shop: string };
    Body: { sku: string; location?: string; quantity?: number; delta?: number };
  }>('/_control/:provider/:shop/stock', async (req) => {
    control(req.params.provider).adjustStock(req.params.shop, req.body);
    return { ok: true };
  });

  app.post<{ Params: { provider: string; shop: string }; Body: PlaceOrderInput }>(
    '/_control/:provider/:shop/orders',
    async (req) => control(req.params.provider).placeOrder(req.params.shop, req.body),
  );

  app.get<{ Params: { provider: string; shop: string; id: string } }>(
    '/_control/:provider/:shop/orders/:id',
    async (req) => {
      const c = control(req.params.provider);
      if (!c.getOrder) throw Object.assign(new Error('This provider cannot show orders here'), { statusCode: 404 });
      return c.getOrder(req.params.shop, req.params.id);
    },
  );

  app.post<{ Params: { provider: string; shop: string; id: string }; Body: Record<string, unknown> }>(
    '/_control/:provider/:shop/orders/:id/cancel',
    async (req) => {
      const c = control(req.params.provider);
      if (!c.cancelOrder) throw Object.assign(new Error('This provider cannot cancel orders'), { statusCode: 404 });
      return (await c.cancelOrder(req.params.shop, req.params.id, req.body ?? {})) ?? { ok: true };
    },
  );

  app.post<{ Params: { provider: string; shop: string; id: string }; Body: ReturnOrderInput }>(
    '/_control/:provider/:shop/orders/:id/return',
    async (req) => {
      const c = control(req.params.provider);
      if (!c.returnOrder) throw Object.assign(new Error('This provider cannot take returns'), { statusCode: 404 });
      const body = req.body ?? ({} as ReturnOrderInput);
      if (!Array.isArray(body.lines) || body.lines.length === 0)
        throw Object.assign(new Error('A return needs lines'), { statusCode: 400 });
      for (const l of body.lines)
        if (!Number.isInteger(l?.quantity) || l.quantity <= 0)
          throw Object.assign(new Error('Each line needs a whole, positive quantity'), { statusCode: 400 });
      return (await c.returnOrder(req.params.shop, req.params.id, body)) ?? { ok: true };
    },
  );

  app.post<{ Params: { provider: string; shop: string; action: string }; Body: unknown }>(
    '/_control/:provider/:shop/:action',
    async (req) => {
      const c = control(req.params.provider);
      if (!c.action) throw Object.assign(new Error(`Unknown action ${req.params.action}`), { statusCode: 404 });
      return (await c.action(req.params.shop, req.params.action, req.body ?? {})) ?? { ok: true };
    },
  );

  app.put<{ Params: { provider: string; shop: string }; Body: Partial<FaultConfig> }>(
    '/_control/:provider/:shop/faults',
    async (req) => ctx.faults.set(req.params.provider, req.params.shop, req.body ?? {}),
  );

  app.delete<{ Params: { provider: string; shop: string } }>('/_control/:provider/:shop/faults', async (req) => {
    ctx.faults.clear(req.params.provider, req.params.shop);
    return { ok: true };
  });

  app.get<{ Querystring: { provider?: string; shop?: string } }>('/_control/deliveries', async (req) => ({
    deliveries: ctx.webhooks.log.filter(
      (d) =>
        (!req.query.provider || d.provider === req.query.provider) && (!req.query.shop || d.shop === req.query.shop),
    ),
  }));

  // How long the receiver took to answer each webhook landed since `from` (a `count` this answered before; 0 for
  // all that are kept): the acknowledgement times a provider sees, for benches.
  app.get<{ Querystring: { from?: string } }>('/_control/deliveries/acks', async (req) =>
    ctx.webhooks.acksSince(Number(req.query.from ?? 0) || 0),
  );

  // A provider's backlog: deliveries wait while held, and go when released (benches time a drained backlog).
  app.post('/_control/deliveries/hold', async () => {
    ctx.webhooks.hold();
    return { ok: true };
  });
  app.post('/_control/deliveries/release', async () => ({ ok: true, waiting: ctx.webhooks.release() }));

  app.post('/_control/deliveries/settle', async () => {
    await ctx.webhooks.settled();
    return { ok: true };
  });
}
