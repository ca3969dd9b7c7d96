import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ShopSnapshot } from '../context.ts';
import { type RunningSandbox, startSandbox } from '../server.ts';

/**
 * BigCommerce refunds as the connector uses them (there is no official Node client in our dependencies: the
 * calls are made over HTTP as its docs print them): refund quotes with tax, refunds, the store-wide refunds
 * list with its filters and V3 pagination, the refund webhook, and the control panel's refund.
 */

let sandbox: RunningSandbox;
let receiver: Server;
let hookUrl: string;
const received: { scope: string; data: Record<string, unknown> }[] = [];

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: 9, shopSize: { products: 12 }, webhookRetryDelayMs: 10 });
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', () => {
      const parsed = JSON.parse(body) as { scope: string; data: Record<string, unknown> };
      received.push({ scope: parsed.scope, data: parsed.data });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
});

afterAll(async () => {
  await sandbox.close();
  await new Promise((r) => receiver.close(r));
});

const control = async (path: string, body: unknown = {}) => {
  const res = await fetch(`${sandbox.url}/_control/bigcommerce/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

async function call(hash: string, tok: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${sandbox.url}/bigcommerce/api/stores/${hash}${path}`, {
    method,
    headers: {
      'x-auth-token': tok,
      accept: 'application/json',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  // biome-ignore lint/suspicious/noExplicitAny: test helper over JSON answers
  return { status: res.status, body: (text ? JSON.parse(text) : null) as any };
}

const snapshot = async (hash: string) =>
  (await (await fetch(`${sandbox.url}/_control/bigcommerce/${hash}`)).json()) as ShopSnapshot;

describe('BigCommerce refunds', () => {
  it('quotes and refunds products with their tax, lists every refund of the store, and moves no stock', async () => {
    const hash = 'bcrefunds';
    const tok = (await control(`${hash}/token`)).body.access_token as string;
    await call(hash, tok, 'POST', '/v3/hooks', { scope: 'store/order/refund/created', destination: hookUrl });
    const snap = await snapshot(hash);
    const sku = Object.entries(snap.stock).find(([, q]) => (q['1'] ?? 0) >= 4)?.[0] as string;
    const orders: number[] = [];
    for (let i = 0; i < 3; i++)
      orders.push(Number((await control(`${hash}/orders`, { lines: [{ sku, quantity: 2 }], tax: 200 })).body.orderId));
    const stock = (await snapshot(hash)).stock[sku];
    const [line] = (await call(hash, tok, 'GET', `/v2/orders/${orders[0]}/products`)).body as {
      id: number;
      price_ex_tax: string;
    }[];
    if (!line) throw new Error('no line');
    const unit = Math.round(Number(line.price_ex_tax) * 100);
    const items = [{ item_type: 'PRODUCT', item_id: line.id, quantity: 1 }];
    const quote = await call(hash, tok, 'POST', `/v3/orders/${orders[0]}/payment_actions/refund_quotes`, { items });
    expect(quote.status).toBe(201);
    expect(quote.body.data).toMatchObject({ total_refund_amount: (unit + 100) / 100, total_refund_tax_amount: 1 });
    const method = quote.body.data.refund_methods[0];
    const made = await call(hash, tok, 'POST', `/v3/orders/${orders[0]}/payment_actions/refunds`, {
      items,
      payments: method,
      reason: 'Wrong size',
    });
    expect(made.status).toBe(201);
    expect(made.body.data).toMatchObject({ order_id: orders[0], total_amount: (unit + 100) / 100, total_tax: 1 });
    // BigCommerce's refund puts nothing back on hand.
    expect((await snapshot(hash)).stock[sku]).toEqual(stock);

    // The control panel's refund of the other two orders, whole lines and some shipping.
    for (const id of orders.slice(1)) {
      const res = await control(`${hash}/orders/${id}/return`, { lines: [{ sku, quantity: 2 }], shipping: 300 });
      expect(res.status).toBe(200);
    }
    expect((await control(`${hash}/orders/${orders[1]}/return`, { lines: [{ sku, quantity: 1 }] })).status).toBe(400);

    const all = await call(hash, tok, 'GET', '/v3/orders/payment_actions/refunds?limit=2');
    expect(all.status).toBe(200);
    expect(all.body.data.map((r: { order_id: number }) => r.order_id)).toEqual(orders.slice(0, 2));
    expect(all.body.meta.pagination).toMatchObject({ total: 3, count: 2, per_page: 2, total_pages: 2 });
    const next = await call(hash, tok, 'GET', '/v3/orders/payment_actions/refunds?limit=2&page=2');
    expect(next.body.data).toHaveLength(1);
    expect(next.body.data[0]).toMatchObject({
      order_id: orders[2],
      total_amount: (unit * 2 + 200 + 300) / 100,
      items: [
        { item_type: 'PRODUCT', quantity: 2 },
        { item_type: 'SHIPPING', requested_amount: '3' },
      ],
    });
    const byId = await call(hash, tok, 'GET', `/v3/orders/payment_actions/refunds?id:in=${made.body.data.id}`);
    expect(byId.body.data.map((r: { id: number }) => r.id)).toEqual([made.body.data.id]);
    const byOrder = await call(
      hash,
      tok,
      'GET',
      `/v3/orders/payment_actions/refunds?order_id:in=${orders[1]},${orders[2]}`,
    );
    expect(byOrder.body.data).toHaveLength(2);
    const future = new Date(Date.now() + 60_000).toISOString();
    expect(
      (await call(hash, tok, 'GET', `/v3/orders/payment_actions/refunds?created:min=${future}`)).body.data,
    ).toEqual([]);
    expect((await call(hash, tok, 'GET', '/v3/orders/payment_actions/refunds?created:min=soon')).status).toBe(422);

    await fetch(`${sandbox.url}/_control/deliveries/settle`, { method: 'POST' });
    const refunds = received.filter((r) => r.scope === 'store/order/refund/created');
    expect(refunds.map((r) => r.data)).toEqual(
      orders.map((id, i) => ({ type: 'order', id, refund: { refund_id: made.body.data.id + i } })),
    );
  });
});
