import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RunningSandbox, ShopSnapshot } from '@switchyard/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryLogger, TEST_PROVIDER_SECRETS } from '../../../test/app.ts';
import { startTestSandbox } from '../../../test/sandbox.ts';
import { Config } from '../../config.ts';
import { type ProviderEndpoints, resolveProviders } from '../../providers.ts';
import type { AuthorizedChannel, Connector, ProviderOrder, ProviderReturn } from '../types.ts';
import { square } from './index.ts';

const REDIRECT = 'https://switchyard.example.com/channels/square/callback';

let sandbox: RunningSandbox;
let endpoints: ProviderEndpoints;
let receiver: Server;
let webhookUrl: string;
let seller: AuthorizedChannel;
let connector: Connector;
let shop: ShopSnapshot;
const deliveries: { headers: Record<string, string | string[] | undefined>; rawBody: Buffer }[] = [];

beforeAll(async () => {
  sandbox = await startTestSandbox({ products: 20 });
  endpoints = resolveProviders(Config.parse({ NODE_ENV: 'test' }), sandbox.url, TEST_PROVIDER_SECRETS);
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      deliveries.push({ headers: req.headers, rawBody: Buffer.concat(chunks) });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  webhookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks/square`;
  sandbox.ctx.options.square = { ...sandbox.ctx.options.square, webhookUrl };
  // The seller's consent page: keep its form, name the business, allow.
  const oauth = square.oauth(endpoints);
  const url = oauth.authorizeUrl({ state: 'state-returns', redirectUri: REDIRECT, environment: 'production' });
  const page = await (await fetch(url)).text();
  const form = new URLSearchParams();
  for (const [, name, value] of page.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g))
    form.set(name as string, (value as string).replaceAll('&amp;', '&').replaceAll('&quot;', '"'));
  form.set('business', 'Returns Row');
  form.set('decision', 'allow');
  const action = new URL(/<form method="post" action="([^"]+)"/.exec(page)?.[1] as string, url);
  const allowed = await fetch(action, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form,
  });
  const callback = new URL(allowed.headers.get('location') as string);
  seller = await oauth.completeAuthorization(Object.fromEntries(callback.searchParams), REDIRECT);
  connector = square.connect(endpoints, seller.credentials, { logger: memoryLogger().logger });
  shop = (await (await fetch(`${sandbox.url}/_control/square/${seller.externalId}`)).json()) as ShopSnapshot;
});

afterAll(async () => {
  await sandbox.close();
  await new Promise((r) => receiver.close(r));
});

async function control(path: string, body: unknown) {
  const res = await fetch(`${sandbox.url}/_control/square/${seller.externalId}/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const stockOf = async (sku: string, location: string) =>
  ((await (await fetch(`${sandbox.url}/_control/square/${seller.externalId}`)).json()) as ShopSnapshot).stock[sku]?.[
    location
  ] ?? 0;

async function posSale(quantity: number, location: string) {
  const sku = Object.entries(shop.stock).find(([, q]) => (q[location] ?? 0) >= quantity)?.[0] as string;
  const { body } = await control('orders', { lines: [{ sku, quantity }], location });
  return { sku, orderId: body.orderId as string };
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

describe('Square connector: POS returns and refunds', () => {
  it('reads a return made at another store’s register, restocked there by Square, from its verified refund webhook', async () => {
    const since = new Date(Date.now() - 1000).toISOString();
    const [saleStore, returnStore] = shop.locations.map((l) => l.id) as [string, string];
    const { sku, orderId } = await posSale(2, saleStore);
    const sale = (await connector.getOrder?.(orderId)) as ProviderOrder;
    const line = sale.lines[0] as ProviderOrder['lines'][number];
    const before = await stockOf(sku, returnStore);
    deliveries.length = 0;
    const made = await control(`orders/${orderId}/return`, { lines: [{ sku, quantity: 1 }], location: returnStore });
    expect(made.status).toBe(200);
    const returnOrderId = made.body.orderId as string;
    // Square's register put the unit back at the store where it was returned.
    expect(await stockOf(sku, returnStore)).toBe(before + 1);

    // The card refund settles a little later (refund.updated); read the return once it has.
    await expect
      .poll(() => deliveries.some((d) => JSON.parse(d.rawBody.toString()).type === 'refund.updated'))
      .toBe(true);
    await sandbox.ctx.webhooks.settled();
    const verifier = square.webhooks(endpoints);
    const events = deliveries.map((d) => {
      const req = { rawBody: d.rawBody, headers: d.headers, url: webhookUrl };
      expect(verifier.verify(req)).toBe(true);
      return verifier.parse(req);
    });
    expect(events.map((e) => e.topic)).toEqual(
      expect.arrayContaining(['order.created', 'inventory.count.updated', 'refund.created', 'order.updated']),
    );
    const created = events.find((e) => e.topic === 'refund.created');
    if (!created) throw new Error('no refund.created');
    const said = square.returnWebhook?.(created.topic, created.payload);
    if (!said || !('externalId' in said)) throw new Error('refund.created not read');
    const ret = await connector.getReturn?.(said.externalId);
    expect(ret).toMatchObject({
      externalId: returnOrderId,
      orderExternalId: orderId,
      status: 'completed',
      receiptNumber: sale.name,
      currency: 'USD',
      total: line.price,
      adjustment: 0,
      items: [
        {
          lineExternalId: line.externalId,
          sku,
          quantity: 1,
          total: line.price,
          restock: true,
          channelRestocked: true,
          locationExternalId: returnStore,
        },
      ],
    });
    // The return order is a return, not a sale to import.
    expect(await connector.getOrder?.(returnOrderId)).toBeNull();
    expect(await connector.getReturn?.(returnOrderId)).toEqual(ret);
    const listed = await allReturns(since);
    expect(listed.filter((r) => r.externalId === returnOrderId)).toEqual([ret]);
    expect(listed.some((r) => r.externalId === said.externalId)).toBe(false);
    const orders = await connector.listOrders({ cursor: null, since });
    expect(orders.items.map((o) => o.externalId)).not.toContain(returnOrderId);

    // No more can come back than was sold, and the register restocks what it takes back.
    expect((await control(`orders/${orderId}/return`, { lines: [{ sku, quantity: 2 }] })).status).toBe(400);
    expect((await control(`orders/${orderId}/return`, { lines: [{ sku, quantity: 1, restock: false }] })).status).toBe(
      400,
    );
  });

  it('refunds money once per key through RefundPayment and lists it as a return without items', async () => {
    const since = new Date(Date.now() - 1000).toISOString();
    const { orderId } = await posSale(1, shop.locations[0]?.id as string);
    const input = {
      orderExternalId: orderId,
      amount: 300,
      currency: 'USD',
      reason: 'Scratched',
      idempotencyKey: 'r-1',
    };
    const made = await connector.refund(input);
    expect(made.externalId).toContain('_');
    expect(made.ret).toMatchObject({ externalId: made.externalId, orderExternalId: orderId, total: 300, items: [] });
    expect((await connector.refund(input)).externalId).toBe(made.externalId);
    const listed = (await allReturns(since)).filter((r) => r.orderExternalId === orderId);
    expect(listed.map((r) => [r.externalId, r.total])).toEqual([[made.externalId, 300]]);
    const read = await connector.getReturn?.(made.externalId);
    expect(read).toMatchObject({ externalId: made.externalId, total: 300, adjustment: 300 });
    expect(await connector.getReturn?.('nope_nope')).toBeNull();
    expect(square.returnWebhook?.('order.updated', {})).toBeNull();
  });

  it('refunds once per key through 429s, 5xx and timeouts', { timeout: 60_000 }, async () => {
    const { orderId } = await posSale(1, shop.locations[0]?.id as string);
    const { logger, lines } = memoryLogger();
    const shaky = square.connect(endpoints, seller.credentials, { logger, timeoutMs: 400, maxRetries: 12 });
    // Draws are seeded per seller, so these rates land the same faults on every run: the first refund meets a 429
    // and a 503, the second (same key) a dropped connection. The checks at the end fail if one stops landing.
    sandbox.ctx.faults.set('square', seller.externalId, {
      rate429: 0.05,
      rate5xx: 0.05,
      rateTimeout: 0.1,
      timeoutMs: 100,
    });
    const made = await shaky.refund({
      orderExternalId: orderId,
      amount: 200,
      currency: 'USD',
      idempotencyKey: 'shaky-1',
    });
    const again = await shaky.refund({
      orderExternalId: orderId,
      amount: 200,
      currency: 'USD',
      idempotencyKey: 'shaky-1',
    });
    sandbox.ctx.faults.clear();
    const statuses = lines.map((l) => l.status).filter(Boolean);
    expect(statuses).toContain(429);
    expect(statuses).toContain(503);
    expect(lines.some((l) => /timed out|network error/.test(String(l.msg)))).toBe(true);
    expect(again.externalId).toBe(made.externalId);
    const listed = (await allReturns(new Date(Date.now() - 60_000).toISOString())).filter(
      (r) => r.orderExternalId === orderId,
    );
    expect(listed.map((r) => r.externalId)).toEqual([made.externalId]);
  });
});
