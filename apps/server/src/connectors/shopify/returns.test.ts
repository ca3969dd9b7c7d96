import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RunningSandbox } from '@switchyard/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryLogger, TEST_PROVIDER_SECRETS } from '../../../test/app.ts';
import { startTestSandbox } from '../../../test/sandbox.ts';
import { Config } from '../../config.ts';
import { type ProviderEndpoints, resolveProviders } from '../../providers.ts';
import type { Connector, ProviderOrder, ProviderReturn } from '../types.ts';
import { shopify } from './index.ts';
import { mapReturn } from './returns.ts';
import { connectShop, controlApi } from './testing.ts';

let sandbox: RunningSandbox;
let endpoints: ProviderEndpoints;
let ctl: ReturnType<typeof controlApi>;
let connector: Connector;
const SHOP = 'returns-demo';
const hooks: { headers: Record<string, string | string[] | undefined>; raw: Buffer; url: string }[] = [];
let hookServer: ReturnType<typeof createServer>;

beforeAll(async () => {
  sandbox = await startTestSandbox({ products: 20 });
  endpoints = resolveProviders(
    Config.parse({ NODE_ENV: 'test', DATA_DIR: '/nonexistent' }),
    sandbox.url,
    TEST_PROVIDER_SECRETS,
  );
  ctl = controlApi(sandbox.url);
  await ctl.call(`/shopify/${SHOP}/plan`, { plan: 'plus' });
  const credentials = await connectShop(endpoints, SHOP);
  connector = shopify.connect(endpoints, credentials, { logger: memoryLogger().logger });
  hookServer = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      hooks.push({ headers: req.headers, raw: Buffer.concat(chunks), url: `http://127.0.0.1${req.url}` });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => hookServer.listen(0, '127.0.0.1', r));
  await connector.subscribeWebhooks(`http://127.0.0.1:${(hookServer.address() as AddressInfo).port}/hooks`);
});

afterAll(async () => {
  await sandbox.close();
  await new Promise((r) => hookServer.close(r));
});

const topicOf = (h: (typeof hooks)[number]) => String(h.headers['x-shopify-topic']);

async function shippedOrder(quantity: number): Promise<{ order: ProviderOrder; sku: string }> {
  const snap = await ctl.snapshot(SHOP);
  const first = snap.locations[0]?.id as string;
  const sku = Object.entries(snap.stock).find(([, q]) => (q[first] ?? 0) >= quantity + 1)?.[0] as string;
  const { orderId } = (await ctl.call(`/shopify/${SHOP}/orders`, {
    lines: [{ sku, quantity }],
    location: first,
    tax: 80 * quantity,
  })) as { orderId: string };
  const order = (await connector.getOrder?.(orderId)) as ProviderOrder;
  await connector.createFulfillment({
    orderExternalId: orderId,
    lines: order.lines.map((l) => ({ lineExternalId: l.externalId, quantity: l.quantity })),
  });
  return { order, sku };
}

async function allReturns(since: string): Promise<ProviderReturn[]> {
  const out: ProviderReturn[] = [];
  let cursor: string | null = null;
  do {
    const page = await connector.listReturns({ cursor, since });
    out.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor);
  return out;
}

describe('Shopify connector: returns and refunds', () => {
  it('writes a refund that restocks at the return store once, whatever the retries, and reads it back', async () => {
    const since = new Date(Date.now() - 1000).toISOString();
    const { order, sku } = await shippedOrder(2);
    const line = order.lines[0];
    if (!line) throw new Error('no line');
    const before = await ctl.snapshot(SHOP);
    const store = before.locations[1]?.id as string;
    const input = {
      orderExternalId: order.externalId,
      amount: line.price + 80 + 300,
      currency: 'USD',
      reason: 'Too small',
      lines: [{ lineExternalId: line.externalId, quantity: 1, restock: true }],
      locationExternalId: store,
      shipping: 300,
      idempotencyKey: 'return-job-1',
    };
    const made = await connector.refund(input);
    expect(made.externalId).toMatch(/^gid:\/\/shopify\/Refund\/\d+$/);
    expect(made.ret).toMatchObject({
      externalId: made.externalId,
      orderExternalId: order.externalId,
      status: 'completed',
      currency: 'USD',
      total: line.price + 80 + 300,
      tax: 80,
      adjustment: 300,
      billName: expect.any(String),
      items: [
        {
          lineExternalId: line.externalId,
          sku,
          quantity: 1,
          total: line.price + 80,
          restock: true,
          channelRestocked: true,
          locationExternalId: store,
        },
      ],
    });
    // Shopify put the unit back on its own stock at the return store.
    const after = await ctl.snapshot(SHOP);
    expect(after.stock[sku]?.[store]).toBe((before.stock[sku]?.[store] ?? 0) + 1);

    // The same write-back again (a retried job after a crash): the refund it made, not a second one.
    const again = await connector.refund(input);
    expect(again.externalId).toBe(made.externalId);
    expect((await ctl.snapshot(SHOP)).stock[sku]?.[store]).toBe(after.stock[sku]?.[store]);

    const listed = await allReturns(since);
    expect(listed.filter((r) => r.orderExternalId === order.externalId)).toEqual([made.ret]);
    expect(await connector.getReturn?.(made.externalId)).toEqual(made.ret);
    expect(await connector.getReturn?.('gid://shopify/Refund/999999999')).toBeNull();
  });

  it('keeps a damaged unit out of stock, and cancels units that never shipped where they were committed', async () => {
    const snap = await ctl.snapshot(SHOP);
    const first = snap.locations[0]?.id as string;
    const sku = Object.entries(snap.stock).find(([, q]) => (q[first] ?? 0) >= 3)?.[0] as string;
    const { orderId } = (await ctl.call(`/shopify/${SHOP}/orders`, {
      lines: [{ sku, quantity: 2 }],
      location: first,
    })) as {
      orderId: string;
    };
    const order = (await connector.getOrder?.(orderId)) as ProviderOrder;
    const line = order.lines[0] as ProviderOrder['lines'][number];
    const placed = await ctl.snapshot(SHOP);
    const made = await connector.refund({
      orderExternalId: orderId,
      amount: line.price * 2,
      currency: 'USD',
      lines: [
        { lineExternalId: line.externalId, quantity: 1, restock: false },
        { lineExternalId: line.externalId, quantity: 1, restock: true },
      ],
    });
    expect(made.ret?.items).toEqual([
      expect.objectContaining({ quantity: 1, restock: false, channelRestocked: false, locationExternalId: null }),
      // Never shipped: Shopify released it where it was committed (restockType CANCEL).
      expect.objectContaining({ quantity: 1, restock: true, channelRestocked: true, locationExternalId: first }),
    ]);
    expect((await ctl.snapshot(SHOP)).stock[sku]?.[first]).toBe((placed.stock[sku]?.[first] ?? 0) + 1);
  });

  it('takes a return the merchant makes in Shopify’s admin from its verified refunds/create webhook', async () => {
    const { order, sku } = await shippedOrder(1);
    const snap = await ctl.snapshot(SHOP);
    const store = snap.locations[2]?.id as string;
    const seen = hooks.length;
    await ctl.call(`/shopify/${SHOP}/orders/${encodeURIComponent(order.externalId)}/return`, {
      lines: [{ sku, quantity: 1 }],
      location: store,
    });
    await sandbox.ctx.webhooks.settled();
    const delivery = hooks.slice(seen).find((h) => topicOf(h) === 'refunds/create');
    if (!delivery) throw new Error('no refunds/create delivery');
    const verifier = shopify.webhooks(endpoints);
    const req = { rawBody: delivery.raw, headers: delivery.headers, url: delivery.url };
    expect(verifier.verify(req)).toBe(true);
    expect(
      verifier.verify({
        ...req,
        rawBody: Buffer.from(delivery.raw.toString().replace('"quantity":1', '"quantity":2')),
      }),
    ).toBe(false);
    const event = verifier.parse(req);
    const said = shopify.returnWebhook?.(event.topic, event.payload);
    if (!said || !('ret' in said)) throw new Error('refunds/create not read as a return');
    const read = await connector.getReturn?.(said.ret.externalId);
    // The webhook names no customer; the rest is what the refund reads.
    expect({ ...said.ret, billName: read?.billName }).toEqual(read);
    expect(said.ret.items).toEqual([
      expect.objectContaining({ sku, quantity: 1, restock: true, channelRestocked: true, locationExternalId: store }),
    ]);
    // Shopify's stock report for the restock went out too.
    expect(hooks.slice(seen).some((h) => topicOf(h) === 'inventory_levels/update')).toBe(true);
    expect(shopify.returnWebhook?.('orders/updated', event.payload)).toBeNull();
  });

  it('refunds once when the answer is lost after Shopify applied it, finding its refund by our key', async () => {
    const { order } = await shippedOrder(1);
    const line = order.lines[0] as ProviderOrder['lines'][number];
    await ctl.call(`/shopify/${SHOP}/drop-after-apply`, { count: 1 });
    const made = await connector.refund({
      orderExternalId: order.externalId,
      amount: line.price,
      currency: 'USD',
      lines: [{ lineExternalId: line.externalId, quantity: 1, restock: false }],
      idempotencyKey: 'lost-answer-1',
    });
    const listed = (await allReturns(new Date(Date.now() - 5000).toISOString())).filter(
      (r) => r.orderExternalId === order.externalId,
    );
    expect(listed.map((r) => r.externalId)).toEqual([made.externalId]);
  });

  it('reads the refund of an order cancelled in Shopify as nothing to restock (the cancel releases those units)', async () => {
    const snap = await ctl.snapshot(SHOP);
    const first = snap.locations[0]?.id as string;
    const sku = Object.entries(snap.stock).find(([, q]) => (q[first] ?? 0) >= 2)?.[0] as string;
    const { orderId } = (await ctl.call(`/shopify/${SHOP}/orders`, {
      lines: [{ sku, quantity: 1 }],
      location: first,
    })) as {
      orderId: string;
    };
    const seen = hooks.length;
    await ctl.call(`/shopify/${SHOP}/orders/${encodeURIComponent(orderId)}/cancel`, {});
    await sandbox.ctx.webhooks.settled();
    const delivery = hooks.slice(seen).find((h) => topicOf(h) === 'refunds/create');
    if (!delivery) throw new Error('no refunds/create');
    const event = shopify
      .webhooks(endpoints)
      .parse({ rawBody: delivery.raw, headers: delivery.headers, url: delivery.url });
    const said = shopify.returnWebhook?.(event.topic, event.payload);
    // Its lines are CANCEL: whether it is the cancel's refund is the order's to say, so it is read whole.
    expect(said).toEqual({ externalId: expect.stringMatching(/^gid:\/\/shopify\/Refund\//), orderExternalId: orderId });
    const ret = await connector.getReturn?.((said as { externalId: string }).externalId);
    expect(ret?.items).toEqual([
      expect.objectContaining({ sku, quantity: 1, restock: false, channelRestocked: false, locationExternalId: null }),
    ]);
  });

  it("reads a return of Shopify's Returns API as one return, whichever webhook names it, and the pull lists it once", async () => {
    const since = new Date(Date.now() - 1000).toISOString();
    const { order, sku } = await shippedOrder(2);
    const line = order.lines[0];
    if (!line) throw new Error('no line');
    const before = await ctl.snapshot(SHOP);
    const store = before.locations[1]?.id as string;
    const seen = hooks.length;
    // The admin's Return flow: one unit back on sale at the store, one damaged; refunded; closed.
    const made = (await ctl.call(`/shopify/${SHOP}/orders/${encodeURIComponent(order.externalId)}/return`, {
      flow: 'return',
      lines: [
        { lineId: line.externalId, quantity: 1 },
        { lineId: line.externalId, quantity: 1, restock: false },
      ],
      location: store,
    })) as { returnId: string; refundId: string };
    expect(made.returnId).toMatch(/^gid:\/\/shopify\/Return\/\d+$/);
    expect((await ctl.snapshot(SHOP)).stock[sku]?.[store]).toBe((before.stock[sku]?.[store] ?? 0) + 1);

    await sandbox.ctx.webhooks.settled();
    const named = new Map<string, unknown>();
    for (const h of hooks.slice(seen)) {
      const event = shopify.webhooks(endpoints).parse({ rawBody: h.raw, headers: h.headers, url: h.url });
      const said = shopify.returnWebhook?.(event.topic, event.payload);
      if (said) named.set(event.topic, said);
    }
    // Every topic that tells of it names the return (the disposal its reverse order); none carries it whole.
    expect([...named.keys()].sort()).toEqual([
      'refunds/create',
      'returns/approve',
      'returns/close',
      'reverse_fulfillment_orders/dispose',
    ]);
    expect(named.get('refunds/create')).toEqual({ externalId: made.returnId, orderExternalId: order.externalId });
    expect(named.get('returns/approve')).toEqual({ externalId: made.returnId, orderExternalId: order.externalId });
    expect(named.get('returns/close')).toEqual({ externalId: made.returnId, orderExternalId: order.externalId });
    const reverse = named.get('reverse_fulfillment_orders/dispose') as { externalId: string };
    expect(reverse.externalId).toMatch(/^gid:\/\/shopify\/ReverseFulfillmentOrder\//);

    const ret = await connector.getReturn?.(made.returnId);
    const unit = line.price + 80;
    expect(ret).toMatchObject({
      externalId: made.returnId,
      orderExternalId: order.externalId,
      status: 'completed',
      receiptNumber: `${order.name}-R1`,
      currency: 'USD',
      total: 2 * unit,
      tax: 160,
      adjustment: 0,
      items: [
        {
          lineExternalId: line.externalId,
          sku,
          quantity: 1,
          total: unit,
          restock: true,
          channelRestocked: true,
          locationExternalId: store,
        },
        {
          lineExternalId: line.externalId,
          sku,
          quantity: 1,
          total: unit,
          restock: false,
          channelRestocked: false,
          locationExternalId: null,
        },
      ],
    });
    // The disposal's reverse order and the refund read as the same return.
    const { updatedAt: _u, ...same } = ret as ProviderReturn;
    expect(await connector.getReturn?.(reverse.externalId)).toMatchObject(same);
    expect(await connector.getReturn?.(made.refundId)).toMatchObject(same);
    const listed = (await allReturns(since)).filter((r) => r.orderExternalId === order.externalId);
    expect(listed.map((r) => r.externalId)).toEqual([made.returnId]);
  });

  it('reads a requested return as pending, an open one with units not yet disposed of as pending, a declined one as failed', () => {
    const base = {
      id: 'gid://shopify/Return/1',
      name: '#1001-R1',
      order: {
        id: 'gid://shopify/Order/1',
        currencyCode: 'USD',
        customer: null,
        billingAddress: null,
        fulfillments: [],
      },
      returnLineItems: { nodes: [{ id: 'gid://shopify/ReturnLineItem/1', quantity: 1 }] },
      reverseFulfillmentOrders: { nodes: [] },
      refunds: { nodes: [] },
    };
    expect(mapReturn({ ...base, status: 'REQUESTED' }).status).toBe('pending');
    expect(mapReturn({ ...base, status: 'OPEN' }).status).toBe('pending');
    expect(mapReturn({ ...base, status: 'CLOSED' })).toMatchObject({
      status: 'completed',
      items: [{ restock: false }],
    });
    expect(mapReturn({ ...base, status: 'DECLINED' }).status).toBe('failed');
    expect(mapReturn({ ...base, status: 'CANCELED' }).status).toBe('failed');
  });
});
