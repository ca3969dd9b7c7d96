import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ShopSnapshot } from '../context.ts';
import { type RunningSandbox, startSandbox } from '../server.ts';

let sandbox: RunningSandbox;
let receiver: Server;
let hookUrl: string;
const received: { scope: string; data: Record<string, unknown> }[] = [];

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: 7, shopSize: { products: 12 }, webhookRetryDelayMs: 10 });
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
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

const snapshot = async (hash: string) =>
  (await (await fetch(`${sandbox.url}/_control/bigcommerce/${hash}`)).json()) as ShopSnapshot;
const settle = () => fetch(`${sandbox.url}/_control/deliveries/settle`, { method: 'POST' });

describe('BigCommerce storefront orders and cancel', () => {
  it('places a shipped and a pickup order taking stock where BigCommerce does, and a cancel restocks it', async () => {
    const hash = 'bcorders';
    const tok = (await control(`${hash}/token`)).body.access_token as string;
    await call(hash, tok, 'POST', '/v3/hooks', { scope: 'store/order/*', destination: hookUrl });
    await call(hash, tok, 'POST', '/v3/hooks', { scope: 'store/sku/inventory/updated', destination: hookUrl });
    const snap = await snapshot(hash);
    const skus = Object.entries(snap.stock)
      .filter(([, q]) => (q['1'] ?? 0) >= 3 && (q['2'] ?? 0) >= 1)
      .map(([sku]) => sku) as [string, string];

    const placed = await control(`${hash}/orders`, {
      lines: [
        { sku: skus[0], quantity: 2 },
        { sku: skus[1], quantity: 1 },
      ],
      customer: { name: 'Lee Park', email: 'lee@example.com', phone: '555-0101' },
      shippingAddress: {
        name: 'Lee Park',
        company: 'Park & Co',
        address1: '9 Birch Rd',
        address2: 'Unit 4',
        city: 'Eugene',
        province: 'Oregon',
        zip: '97401',
        country: 'US',
      },
      note: 'Ring twice',
      discount: 400,
      tax: 300,
      shipping: 900,
    });
    expect(placed.status).toBe(200);
    const id = placed.body.orderId as string;
    const order = (await call(hash, tok, 'GET', `/v2/orders/${id}`)).body;
    const products = (await call(hash, tok, 'GET', `/v2/orders/${id}/products`)).body as Record<
      string,
      string | number
    >[];
    const gross = products.reduce((s, l) => s + Math.round(Number(l.base_price) * 100) * Number(l.quantity), 0);
    expect(order).toMatchObject({
      status_id: 11,
      customer_message: 'Ring twice',
      discount_amount: '4.0000',
      total_tax: '3.0000',
      shipping_cost_ex_tax: '9.0000',
      total_inc_tax: ((gross - 400 + 300 + 900) / 100).toFixed(4),
      billing_address: {
        first_name: 'Lee',
        last_name: 'Park',
        email: 'lee@example.com',
        phone: '555-0101',
        street_1: '9 Birch Rd',
      },
    });
    expect(products.reduce((s, l) => s + Math.round(Number(l.total_tax) * 100), 0)).toBe(300);
    expect((await call(hash, tok, 'GET', `/v2/orders/${id}/shipping_addresses`)).body).toMatchObject([
      {
        first_name: 'Lee',
        last_name: 'Park',
        company: 'Park & Co',
        street_1: '9 Birch Rd',
        street_2: 'Unit 4',
        city: 'Eugene',
        country_iso2: 'US',
      },
    ]);
    // A shipped storefront order takes its units at the default location.
    let now = await snapshot(hash);
    expect(now.stock[skus[0]]?.['1']).toBe((snap.stock[skus[0]]?.['1'] ?? 0) - 2);
    expect(now.stock[skus[0]]?.['2']).toBe(snap.stock[skus[0]]?.['2']);

    const pickup = await control(`${hash}/orders`, {
      lines: [{ sku: skus[1], quantity: 1 }],
      location: '2',
      fulfillmentType: 'pickup',
    });
    const pickupOrder = (
      await call(
        hash,
        tok,
        'GET',
        `/v2/orders/${pickup.body.orderId}?include=consignments.line_items&consignment_structure=object`,
      )
    ).body;
    expect(pickupOrder.consignments.pickups[0].location.id).toBe(2);
    expect((await snapshot(hash)).stock[skus[1]]?.['2']).toBe((snap.stock[skus[1]]?.['2'] ?? 0) - 1);
    expect((await control(`${hash}/orders`, { lines: [{ sku: skus[1], quantity: 1 }], location: '3' })).status).toBe(
      400,
    );

    // Cancelled through the API: statusUpdated, updated, then the units back at the default location.
    await settle();
    received.length = 0;
    const cancel = await call(hash, tok, 'PUT', `/v2/orders/${id}`, { status_id: 5 });
    expect(cancel.body).toMatchObject({ status_id: 5, status: 'Cancelled' });
    now = await snapshot(hash);
    expect(now.stock[skus[0]]?.['1']).toBe(snap.stock[skus[0]]?.['1']);
    await settle();
    const log = sandbox.ctx.webhooks.log.filter((d) => d.shop === hash).slice(-4);
    expect(log.map((d) => d.topic)).toEqual([
      'store/order/statusUpdated',
      'store/order/updated',
      'store/sku/inventory/updated',
      'store/sku/inventory/updated',
    ]);
    expect(received.find((r) => r.scope === 'store/order/statusUpdated')?.data).toEqual({
      type: 'order',
      id: Number(id),
      status: { previous_status_id: 11, new_status_id: 5 },
    });

    // The merchant cancels the pickup order in the control panel; a second cancel is refused.
    expect((await control(`${hash}/orders/${pickup.body.orderId}/cancel`)).status).toBe(200);
    expect((await snapshot(hash)).stock[skus[1]]?.['2']).toBe(snap.stock[skus[1]]?.['2']);
    expect((await control(`${hash}/orders/${pickup.body.orderId}/cancel`)).status).toBe(400);
    expect((await control(`${hash}/orders/99999/cancel`)).status).toBe(404);
  });
});
