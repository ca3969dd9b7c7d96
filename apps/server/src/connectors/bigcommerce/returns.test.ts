import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RunningSandbox, ShopSnapshot } from '@switchyard/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryLogger, TEST_PROVIDER_SECRETS } from '../../../test/app.ts';
import { startTestSandbox } from '../../../test/sandbox.ts';
import { Config } from '../../config.ts';
import { type ProviderEndpoints, resolveProviders } from '../../providers.ts';
import type { ChannelCredentials, Connector, ProviderOrder, ProviderReturn } from '../types.ts';
import { bigcommerce } from './index.ts';

const HASH = 'returnstore';
let sandbox: RunningSandbox;
let endpoints: ProviderEndpoints;
let receiver: Server;
let receiverUrl: string;
let connector: Connector;
let credentials: ChannelCredentials;
const received: { url: string; headers: IncomingMessage['headers']; rawBody: Buffer }[] = [];

beforeAll(async () => {
  sandbox = await startTestSandbox({ products: 20 });
  endpoints = resolveProviders(Config.parse({ NODE_ENV: 'test' }), sandbox.url, TEST_PROVIDER_SECRETS);
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ url: req.url ?? '', headers: req.headers, rawBody: Buffer.concat(chunks) });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  const res = await fetch(`${sandbox.url}/_control/bigcommerce/${HASH}/token`, { method: 'POST' });
  const body = (await res.json()) as { access_token: string; scope: string };
  credentials = { accessToken: body.access_token, scope: body.scope, storeHash: HASH };
  connector = bigcommerce.connect(endpoints, credentials, { logger: memoryLogger().logger });
  await connector.subscribeWebhooks(`${receiverUrl}/webhooks/bigcommerce`);
});

afterAll(async () => {
  await sandbox.close();
  await new Promise((r) => receiver.close(r));
});

const snapshot = async () =>
  (await (await fetch(`${sandbox.url}/_control/bigcommerce/${HASH}`)).json()) as ShopSnapshot;

async function control(path: string, body: unknown) {
  const res = await fetch(`${sandbox.url}/_control/bigcommerce/${HASH}/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`control ${path}: ${res.status} ${await res.text()}`);
  return res.json() as Promise<Record<string, unknown>>;
}

async function placed(quantity: number, tax = 0): Promise<ProviderOrder> {
  const snap = await snapshot();
  const sku = Object.entries(snap.stock).find(([, q]) => (q['1'] ?? 0) >= quantity)?.[0] as string;
  const { orderId } = (await control('orders', { lines: [{ sku, quantity }], tax })) as { orderId: string };
  return (await connector.getOrder?.(orderId)) as ProviderOrder;
}

async function allReturns(since: string) {
  const out: ProviderReturn[] = [];
  let cursor: string | null = null;
  do {
    const page = await connector.listReturns({ cursor, since });
    out.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor);
  return out;
}

describe('BigCommerce connector: returns and refunds', () => {
  it('refunds lines with tax and shipping once per key, and reads the refund back as a return to restock', async () => {
    const since = new Date(Date.now() - 1500).toISOString();
    const order = await placed(2, 300);
    const line = order.lines[0] as ProviderOrder['lines'][number];
    const stockBefore = (await snapshot()).stock[line.sku as string];
    const input = {
      orderExternalId: order.externalId,
      amount: line.price + 150 + 400,
      currency: 'USD',
      reason: 'Wrong size',
      lines: [{ lineExternalId: line.externalId, quantity: 1, restock: true, locationExternalId: '2' }],
      shipping: 400,
      idempotencyKey: 'ret-42',
    };
    const made = await connector.refund(input);
    expect(made.externalId).toMatch(/^\d+$/);
    expect(made.ret).toMatchObject({
      externalId: made.externalId,
      orderExternalId: order.externalId,
      status: 'completed',
      currency: 'USD',
      total: line.price + 150 + 400,
      tax: 150,
      adjustment: 400,
      items: [
        {
          lineExternalId: line.externalId,
          sku: line.sku,
          quantity: 1,
          total: line.price + 150,
          restock: true,
          channelRestocked: false,
          // Where BigCommerce took the units: its default location.
          locationExternalId: '1',
        },
      ],
    });
    // BigCommerce's refund moves no stock: the restock is Switchyard's to push.
    expect((await snapshot()).stock[line.sku as string]).toEqual(stockBefore);

    const again = await connector.refund(input);
    expect(again.externalId).toBe(made.externalId);
    const listed = (await allReturns(since)).filter((r) => r.orderExternalId === order.externalId);
    expect(listed).toEqual([made.ret]);
    expect(await connector.getReturn?.(made.externalId)).toEqual(made.ret);
    expect(await connector.getReturn?.('999999')).toBeNull();
  });

  it('refunds a goodwill amount on the order as a whole, with no lines to restock', async () => {
    const order = await placed(1);
    const made = await connector.refund({ orderExternalId: order.externalId, amount: 250, currency: 'USD' });
    expect(made.ret).toMatchObject({ total: 250, adjustment: 250, items: [] });
  });

  it('takes a refund the merchant makes in the control panel from its verified store/order/refund/created', async () => {
    const order = await placed(2);
    const line = order.lines[0] as ProviderOrder['lines'][number];
    received.length = 0;
    await control(`orders/${order.externalId}/return`, { lines: [{ sku: line.sku, quantity: 2 }] });
    await sandbox.ctx.webhooks.settled();
    const verifier = bigcommerce.webhooks(endpoints);
    const events = received.map((d) => {
      const req = { rawBody: d.rawBody, headers: d.headers, url: `${receiverUrl}${d.url}` };
      expect(verifier.verify(req)).toBe(true);
      return verifier.parse(req);
    });
    const event = events.find((e) => e.topic === 'store/order/refund/created');
    if (!event) throw new Error('no store/order/refund/created');
    const said = bigcommerce.returnWebhook?.(event.topic, event.payload);
    if (!said || !('externalId' in said)) throw new Error('the refund webhook was not read');
    expect(said.orderExternalId).toBe(order.externalId);
    const ret = await connector.getReturn?.(said.externalId);
    expect(ret).toMatchObject({
      orderExternalId: order.externalId,
      total: line.price * 2,
      items: [{ lineExternalId: line.externalId, quantity: 2, restock: true, locationExternalId: '1' }],
    });
    expect(bigcommerce.returnWebhook?.('store/order/updated', event.payload)).toBeNull();
  });

  it('makes one refund per key and lists every refund through 429s, 5xx and lost answers', {
    timeout: 60_000,
  }, async () => {
    const since = new Date(Date.now() - 1000).toISOString();
    const orders = [await placed(1), await placed(1)];
    const shaky = bigcommerce.connect(endpoints, credentials, {
      logger: memoryLogger().logger,
      timeoutMs: 400,
      maxRetries: 12,
    });
    sandbox.ctx.faults.set('bigcommerce', HASH, { rate429: 0.1, rate5xx: 0.1, rateTimeout: 0.25, timeoutMs: 300 });
    const made = [];
    for (const [i, order] of orders.entries()) {
      const line = order.lines[0] as ProviderOrder['lines'][number];
      made.push(
        await shaky.refund({
          orderExternalId: order.externalId,
          amount: line.price,
          currency: 'USD',
          lines: [{ lineExternalId: line.externalId, quantity: 1, restock: true }],
          idempotencyKey: `shaky-${i}`,
        }),
      );
    }
    const listed: ProviderReturn[] = [];
    let cursor: string | null = null;
    do {
      const page = await shaky.listReturns({ cursor, since });
      listed.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor);
    sandbox.ctx.faults.clear();
    for (const [i, order] of orders.entries()) {
      const mine = (await allReturns(since)).filter((r) => r.orderExternalId === order.externalId);
      expect(mine.map((r) => r.externalId)).toEqual([made[i]?.externalId]);
      expect(listed.filter((r) => r.orderExternalId === order.externalId).map((r) => r.externalId)).toEqual([
        made[i]?.externalId,
      ]);
    }
  });
});
