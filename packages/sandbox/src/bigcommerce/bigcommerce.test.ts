import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_APPS } from '../apps.ts';
import type { ShopSnapshot } from '../context.ts';
import { type RunningSandbox, startSandbox } from '../server.ts';

const { clientId, clientSecret } = SANDBOX_APPS.bigcommerce;
const REDIRECT = 'https://app.example.com/auth';

let sandbox: RunningSandbox;
let receiver: Server;
let receiverUrl: string;
const received: { method: string; url: string; headers: IncomingMessage['headers']; body: string }[] = [];

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: 7, shopSize: { products: 40 }, webhookRetryDelayMs: 10 });
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', () => {
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await sandbox.close();
  await new Promise((r) => receiver.close(r));
});

afterEach(() => {
  sandbox.ctx.faults.clear();
  sandbox.ctx.options.bigcommerce = undefined;
});

const login = (path: string) => `${sandbox.url}/bigcommerce/login${path}`;
const api = (hash: string, path: string) => `${sandbox.url}/bigcommerce/api/stores/${hash}${path}`;

async function token(hash: string, scope?: string): Promise<string> {
  const res = await fetch(`${sandbox.url}/_control/bigcommerce/${hash}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(scope ? { scope } : {}),
  });
  return ((await res.json()) as { access_token: string }).access_token;
}

async function call(hash: string, tok: string, method: string, path: string, body?: unknown) {
  const res = await fetch(api(hash, path), {
    method,
    headers: {
      'x-auth-token': tok,
      accept: 'application/json',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

async function snapshot(hash: string): Promise<ShopSnapshot> {
  return (await fetch(`${sandbox.url}/_control/bigcommerce/${hash}`)).json() as Promise<ShopSnapshot>;
}

async function settle() {
  await fetch(`${sandbox.url}/_control/deliveries/settle`, { method: 'POST' });
}

describe('app install (login.bigcommerce.com)', () => {
  const installUrl = (query: Record<string, string>) =>
    `${login(`/app/${clientId}/install`)}?${new URLSearchParams(query)}`;

  it('shows a consent page naming the store and scopes, and redirects with code, scope, context and state', async () => {
    const page = await fetch(
      installUrl({
        context: 'stores/abc123',
        redirect_uri: REDIRECT,
        state: 'xyz',
        scope: 'store_v2_orders store_inventory',
      }),
    );
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('abc123');
    expect(html).toContain('Orders: modify');
    expect(html).toContain('Inventory: modify');
    const res = await fetch(login(`/app/${clientId}/install`), {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        context: 'stores/abc123',
        redirect_uri: REDIRECT,
        state: 'xyz',
        scope: 'store_v2_orders store_inventory',
      }),
    });
    expect(res.status).toBe(302);
    const to = new URL(res.headers.get('location') as string);
    expect(`${to.origin}${to.pathname}`).toBe(REDIRECT);
    expect(to.searchParams.get('scope')).toBe('store_v2_orders store_inventory');
    expect(to.searchParams.get('context')).toBe('stores/abc123');
    expect(to.searchParams.get('state')).toBe('xyz');

    const exchange = (overrides: Record<string, string> = {}) =>
      fetch(login('/oauth2/token'), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          client_id: clientId,
          client_secret: clientSecret,
          code: to.searchParams.get('code'),
          scope: to.searchParams.get('scope'),
          grant_type: 'authorization_code',
          redirect_uri: REDIRECT,
          context: 'stores/abc123',
          ...overrides,
        }),
      });
    expect((await exchange({ client_secret: 'wrong' })).status).toBe(401);
    const ok = await exchange();
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({
      access_token: expect.stringMatching(/^[a-f0-9]{32}$/),
      scope: 'store_v2_orders store_inventory',
      user: { id: expect.any(Number), username: expect.any(String), email: expect.any(String) },
      owner: { id: expect.any(Number), username: expect.any(String), email: expect.any(String) },
      context: 'stores/abc123',
      account_uuid: to.searchParams.get('account_uuid'),
    });
    const again = await exchange();
    expect(again.status).toBe(400);
  });

  it('refuses an unknown app, a missing store and a bad redirect URI', async () => {
    const unknown = await fetch(
      `${login('/app/nope/install')}?${new URLSearchParams({ context: 'stores/abc', redirect_uri: REDIRECT })}`,
    );
    expect(unknown.status).toBe(404);
    expect((await fetch(installUrl({ redirect_uri: REDIRECT }))).status).toBe(400);
    expect((await fetch(installUrl({ context: 'stores/abc', redirect_uri: 'javascript:alert(1)' }))).status).toBe(400);
    expect(
      (await fetch(installUrl({ context: 'stores/abc', redirect_uri: REDIRECT, scope: 'store_everything' }))).status,
    ).toBe(400);
  });

  it('opens an installed app with a signed_payload_jwt the client secret verifies', async () => {
    await token('loadstore');
    sandbox.ctx.options.bigcommerce = { loadUrl: 'https://app.example.com/load' };
    const res = await fetch(login(`/stores/loadstore/app/${clientId}/load`), { redirect: 'manual' });
    expect(res.status).toBe(302);
    const jwt = new URL(res.headers.get('location') as string).searchParams.get('signed_payload_jwt') as string;
    const [head, body, sig] = jwt.split('.') as [string, string, string];
    expect(createHmac('sha256', clientSecret).update(`${head}.${body}`).digest('base64url')).toBe(sig);
    const claims = JSON.parse(Buffer.from(body, 'base64url').toString());
    expect(claims).toMatchObject({ aud: clientId, iss: 'bc', sub: 'stores/loadstore', user: { id: 24654 } });
    expect(claims.exp - claims.nbf).toBe(24 * 3600 + 5);
    expect((await fetch(login(`/stores/nostore/app/${clientId}/load`), { redirect: 'manual' })).status).toBe(404);
  });
});

describe('API transport', () => {
  it('answers 401 in each version’s shape without a valid token, with rate headers', async () => {
    const v3 = await call('authstore', 'bad', 'GET', '/v3/catalog/products');
    expect(v3.status).toBe(401);
    expect(v3.body).toMatchObject({
      status: 401,
      title: expect.any(String),
      type: expect.stringContaining('bigcommerce'),
    });
    expect(v3.headers.get('x-rate-limit-requests-quota')).toBe('150');
    const v2 = await call('authstore', 'bad', 'GET', '/v2/orders');
    expect(v2.status).toBe(401);
    expect(v2.body).toEqual([{ status: 401, message: expect.any(String) }]);
  });

  it('answers an unknown path with 404 in each version’s shape', async () => {
    const tok = await token('notfoundstore');
    const v3 = await call('notfoundstore', tok, 'GET', '/v3/catalog/nothing-here');
    expect(v3.status).toBe(404);
    expect(v3.body).toMatchObject({ status: 404, title: 'Not Found' });
    expect(v3.headers.get('x-rate-limit-requests-quota')).toBe('150');
    const v2 = await call('notfoundstore', tok, 'GET', '/v2/nothing-here');
    expect(v2.body).toEqual([{ status: 404, message: expect.any(String) }]);
    expect((await fetch(`${sandbox.url}/_control`)).ok).toBe(true);
    const shops = (
      (await (await fetch(`${sandbox.url}/_control`)).json()) as { providers: { provider: string; shops: string[] }[] }
    ).providers.find((p) => p.provider === 'bigcommerce')?.shops;
    expect(shops).not.toContain('');
    expect(shops).not.toContain('undefined');
  });

  it('enforces scopes: read-only tokens read but do not write', async () => {
    const tok = await token('scopestore', 'store_v2_products_read_only store_inventory_read_only');
    expect((await call('scopestore', tok, 'GET', '/v3/catalog/products')).status).toBe(200);
    const write = await call('scopestore', tok, 'PUT', '/v3/inventory/adjustments/absolute', {
      items: [{ location_id: 1, variant_id: 101, quantity: 1 }],
    });
    expect(write.status).toBe(403);
    expect((await call('scopestore', tok, 'GET', '/v2/orders')).status).toBe(403);
  });

  it('counts requests per store in a fixed window and answers 429 with X-Retry-After when spent', async () => {
    sandbox.ctx.options.bigcommerce = { rateLimitQuota: 3, rateLimitWindowMs: 800 };
    const tok = await token('ratestore');
    const first = await call('ratestore', tok, 'GET', '/v2/store');
    expect(first.headers.get('x-rate-limit-requests-left')).toBe('2');
    expect(first.headers.get('x-rate-limit-time-window-ms')).toBe('800');
    expect(Number(first.headers.get('x-rate-limit-time-reset-ms'))).toBeLessThanOrEqual(800);
    await call('ratestore', tok, 'GET', '/v2/store');
    await call('ratestore', tok, 'GET', '/v2/store');
    const spent = await call('ratestore', tok, 'GET', '/v2/store');
    expect(spent.status).toBe(429);
    expect(spent.headers.get('x-rate-limit-requests-left')).toBe('0');
    expect(spent.headers.get('x-retry-after')).toBe('1');
    // Another store has its own quota.
    expect((await call('otherratestore', await token('otherratestore'), 'GET', '/v2/store')).status).toBe(200);
    await new Promise((r) => setTimeout(r, Number(spent.headers.get('x-rate-limit-time-reset-ms')) + 20));
    expect((await call('ratestore', tok, 'GET', '/v2/store')).status).toBe(200);
  });

  it('gives a store the quota of its plan', async () => {
    const tok = await token('prostore');
    const plan = async (body: unknown) =>
      fetch(`${sandbox.url}/_control/bigcommerce/prostore/plan`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect(await (await plan({ plan: 'pro' })).json()).toEqual({ plan: 'pro', quota: 450, windowMs: 30_000 });
    const res = await call('prostore', tok, 'GET', '/v2/store');
    expect(res.headers.get('x-rate-limit-requests-quota')).toBe('450');
    expect(res.headers.get('x-rate-limit-requests-left')).toBe('449');
    expect((await plan({ plan: 'gold' })).status).toBe(400);
    await plan({ quota: 2, windowMs: 5000 });
    await call('prostore', tok, 'GET', '/v2/store');
    await call('prostore', tok, 'GET', '/v2/store');
    expect((await call('prostore', tok, 'GET', '/v2/store')).status).toBe(429);
  });

  it('injects throttles, errors and timeouts', async () => {
    const tok = await token('faultstore');
    sandbox.ctx.faults.set('bigcommerce', 'faultstore', { rate429: 1 });
    const throttled = await call('faultstore', tok, 'GET', '/v3/catalog/products');
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get('x-rate-limit-requests-left')).toBe('0');
    sandbox.ctx.faults.set('bigcommerce', 'faultstore', { rate429: 0, rate5xx: 1 });
    expect([500, 503]).toContain((await call('faultstore', tok, 'GET', '/v3/catalog/products')).status);
    sandbox.ctx.faults.set('bigcommerce', 'faultstore', { rate5xx: 0, rateTimeout: 1, timeoutMs: 100 });
    const started = Date.now();
    await expect(call('faultstore', tok, 'GET', '/v3/catalog/products')).rejects.toThrow();
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
  });
});

describe('catalog and inventory', () => {
  it('pages products with V3 meta and refuses a limit over 250', async () => {
    const tok = await token('pagestore');
    const page = await call('pagestore', tok, 'GET', '/v3/catalog/products?limit=5&page=3&include=variants');
    expect(page.status).toBe(200);
    expect(page.body.data).toHaveLength(5);
    expect(page.body.meta.pagination).toEqual({
      total: 40,
      count: 5,
      per_page: 5,
      current_page: 3,
      total_pages: 8,
      links: { previous: '?limit=5&page=2', current: '?limit=5&page=3', next: '?limit=5&page=4' },
    });
    expect(page.body.data[0].variants[0]).toMatchObject({
      sku: expect.stringMatching(/^SY-\d{5}-\d{2}$/),
      upc: expect.any(String),
    });
    expect(page.body.data[0].date_modified).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/);
    expect((await call('pagestore', tok, 'GET', '/v3/catalog/products?limit=251')).status).toBe(413);
  });

  it('sets stock absolutely (with webhooks), refuses bad rows atomically, and caps a request at 2000 items', async () => {
    const hash = 'stockstore';
    const tok = await token(hash);
    await call(hash, tok, 'POST', '/v3/hooks', { scope: 'store/sku/inventory/*', destination: `${receiverUrl}/hooks` });
    const items = await call(hash, tok, 'GET', '/v3/inventory/items?limit=2&location_id:in=2');
    const [a, b] = items.body.data as { identity: { variant_id: number; sku: string } }[];
    expect(items.body.data[0].locations).toHaveLength(1);

    received.length = 0;
    const ok = await call(hash, tok, 'PUT', '/v3/inventory/adjustments/absolute', {
      reason: 'count',
      items: [
        { location_id: 2, variant_id: a?.identity.variant_id, quantity: 33 },
        { location_id: 2, sku: b?.identity.sku, quantity: 44 },
      ],
    });
    expect(ok.status).toBe(200);
    expect(ok.body.transaction_id).toEqual(expect.any(String));
    const snap = await snapshot(hash);
    expect(snap.stock[a?.identity.sku as string]?.['2']).toBe(33);
    expect(snap.stock[b?.identity.sku as string]?.['2']).toBe(44);
    await settle();
    const hooks = received.filter((r) => r.url === '/hooks').map((r) => JSON.parse(r.body));
    expect(hooks.map((h) => h.scope)).toEqual(['store/sku/inventory/updated', 'store/sku/inventory/updated']);
    expect(hooks[0]).toMatchObject({
      producer: `stores/${hash}`,
      data: { type: 'sku', inventory: { method: 'absolute' } },
    });

    const bad = await call(hash, tok, 'PUT', '/v3/inventory/adjustments/absolute', {
      items: [
        { location_id: 2, variant_id: a?.identity.variant_id, quantity: 1 },
        { location_id: 77, variant_id: a?.identity.variant_id, quantity: 1 },
      ],
    });
    expect(bad.status).toBe(422);
    expect(bad.body.title).toContain('Location with id 77');
    expect((await snapshot(hash)).stock[a?.identity.sku as string]?.['2']).toBe(33);

    const tooMany = Array.from({ length: 2001 }, () => ({
      location_id: 1,
      variant_id: a?.identity.variant_id,
      quantity: 1,
    }));
    expect((await call(hash, tok, 'PUT', '/v3/inventory/adjustments/absolute', { items: tooMany })).status).toBe(413);
    const twoIds = await call(hash, tok, 'POST', '/v3/inventory/adjustments/relative', {
      items: [{ location_id: 1, variant_id: a?.identity.variant_id, sku: a?.identity.sku, quantity: 1 }],
    });
    expect(twoIds.status).toBe(422);
  });

  it('requires an absolute adjustment before a relative one for a new variant', async () => {
    const hash = 'newvariantstore';
    const tok = await token(hash);
    const created = await call(hash, tok, 'POST', '/v3/catalog/products', {
      name: 'Fresh Thing',
      type: 'physical',
      weight: 1,
      price: 10,
      variants: [{ sku: 'FRESH-1', option_values: [{ option_display_name: 'Size', label: 'One' }] }],
    });
    expect(created.status).toBe(200);
    const variantId = created.body.data.variants[0].id;
    const relative = (quantity: number) =>
      call(hash, tok, 'POST', '/v3/inventory/adjustments/relative', {
        items: [{ location_id: 1, variant_id: variantId, quantity }],
      });
    const first = await relative(2);
    expect(first.status).toBe(422);
    expect(first.body.title).toContain('requires absolute adjustment before relative');
    await call(hash, tok, 'PUT', '/v3/inventory/adjustments/absolute', {
      items: [{ location_id: 1, variant_id: variantId, quantity: 5 }],
    });
    expect((await relative(-2)).status).toBe(200);
    expect((await snapshot(hash)).stock['FRESH-1']?.['1']).toBe(3);
    const dup = await call(hash, tok, 'POST', '/v3/catalog/products', {
      name: 'Other',
      type: 'physical',
      weight: 1,
      price: 1,
      sku: 'FRESH-1',
    });
    expect(dup.status).toBe(409);
    const missing = await call(hash, tok, 'POST', '/v3/catalog/products', {
      name: 'No price',
      type: 'physical',
      weight: 1,
    });
    expect(missing.status).toBe(422);
    expect(missing.body.errors).toEqual({ price: 'error.path.missing' });
  });
});

describe('orders, shipments, refunds and webhooks', () => {
  it('lists V2 orders as a bare array with RFC 2822 dates, filtered by date, and 204 when none', async () => {
    const hash = 'v2store';
    const tok = await token(hash);
    const all = await call(hash, tok, 'GET', '/v2/orders');
    expect(Array.isArray(all.body)).toBe(true);
    expect(all.body.length).toBe(6);
    expect(all.body[0].date_created).toMatch(/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d \+0000$/);
    expect(all.body[0].products.url).toBe(`${api(hash, `/v2/orders/${all.body[0].id}/products`)}`);
    const withLines = await call(
      hash,
      tok,
      'GET',
      '/v2/orders?include=consignments.line_items&consignment_structure=object',
    );
    const pickup = withLines.body.find((o: { status_id: number }) => o.status_id === 8);
    expect(pickup.consignments.shipping).toEqual([]);
    expect(pickup.consignments.pickups[0].location).toMatchObject({ id: 2, name: 'Warehouse' });
    expect(pickup.consignments.pickups[0].line_items[0]).toMatchObject({
      order_id: pickup.id,
      sku: expect.any(String),
    });
    const shipped = withLines.body.find((o: { status_id: number }) => o.status_id !== 8);
    expect(shipped.consignments.shipping[0]).toMatchObject({ city: 'Portland' });
    expect(shipped.consignments.shipping[0].line_items[0]).toMatchObject({ order_id: shipped.id });
    const legacy = await call(hash, tok, 'GET', `/v2/orders/${shipped.id}?include=consignments`);
    expect(legacy.body.consignments[0].shipping[0].line_items[0].resource).toBe(`/orders/${shipped.id}/products`);
    const later = await call(
      hash,
      tok,
      'GET',
      `/v2/orders?min_date_modified=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`,
    );
    expect(later.status).toBe(204);
    expect(later.body).toBeNull();
    expect((await call(hash, tok, 'GET', '/v2/orders?page=99')).status).toBe(204);
    // An id range, both ends included.
    const ids = (all.body as { id: number }[]).map((o) => o.id).sort((a, b) => a - b);
    const range = await call(hash, tok, 'GET', `/v2/orders?min_id=${ids[1]}&max_id=${ids[3]}`);
    expect(range.body.map((o: { id: number }) => o.id)).toEqual(ids.slice(1, 4));
  });

  it('a storefront order takes stock, sends signed webhooks, ships, and refunds against a quote', async () => {
    const hash = 'salestore';
    const tok = await token(hash);
    const hook = await call(hash, tok, 'POST', '/v3/hooks', {
      scope: 'store/order/*',
      destination: `${receiverUrl}/orders`,
      headers: { 'X-Custom': 'yes' },
    });
    expect(hook.body.data).toMatchObject({
      scope: 'store/order/*',
      is_active: true,
      client_id: clientId,
      store_hash: hash,
    });
    const dup = await call(hash, tok, 'POST', '/v3/hooks', {
      scope: 'store/order/*',
      destination: `${receiverUrl}/orders`,
    });
    expect(dup.status).toBe(422);

    const snap = await snapshot(hash);
    const sku = Object.keys(snap.stock)[0] as string;
    const before = snap.stock[sku]?.['1'] as number;
    received.length = 0;
    const placed = await fetch(`${sandbox.url}/_control/bigcommerce/${hash}/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ lines: [{ sku, quantity: 2 }] }),
    });
    const { orderId } = (await placed.json()) as { orderId: string };
    expect((await snapshot(hash)).stock[sku]?.['1']).toBe(before - 2);
    await settle();
    const created = received.find((r) => r.url === '/orders');
    expect(created?.headers['x-custom']).toBe('yes');
    const body = created?.body as string;
    expect(JSON.parse(body)).toMatchObject({
      scope: 'store/order/created',
      data: { type: 'order', id: Number(orderId) },
      hash: expect.stringMatching(/^[a-f0-9]{40}$/),
    });
    const id = created?.headers['webhook-id'] as string;
    const ts = created?.headers['webhook-timestamp'] as string;
    const expected = createHmac('sha256', clientSecret).update(`${id}.${ts}.${body}`).digest('base64');
    expect(created?.headers['webhook-signature']).toBe(`v1,${expected}`);

    const lines = await call(hash, tok, 'GET', `/v2/orders/${orderId}/products`);
    const line = lines.body[0];
    expect((await call(hash, tok, 'GET', `/v2/orders/${orderId}/shipments`)).status).toBe(204);
    const over = await call(hash, tok, 'POST', `/v2/orders/${orderId}/shipments`, {
      order_address_id: line.order_address_id,
      items: [{ order_product_id: line.id, quantity: 3 }],
    });
    expect(over.status).toBe(400);
    expect(over.body).toEqual([{ status: 400, message: expect.stringContaining('remain to ship') }]);
    const shipped = await call(hash, tok, 'POST', `/v2/orders/${orderId}/shipments`, {
      order_address_id: line.order_address_id,
      tracking_number: 'T1',
      shipping_provider: 'usps',
      items: [{ order_product_id: line.id, quantity: 1 }],
    });
    expect(shipped.status).toBe(201);
    expect((await call(hash, tok, 'GET', `/v2/orders/${orderId}`)).body).toMatchObject({
      status_id: 3,
      status: 'Partially Shipped',
      items_shipped: 1,
    });

    const items = [{ item_type: 'PRODUCT', item_id: line.id, quantity: 1 }];
    const quote = await call(hash, tok, 'POST', `/v3/orders/${orderId}/payment_actions/refund_quotes`, { items });
    expect(quote.status).toBe(201);
    const amount = quote.body.data.total_refund_amount;
    expect(amount).toBe(Number(line.price_inc_tax));
    const storeCredit = await call(hash, tok, 'POST', `/v3/orders/${orderId}/payment_actions/refunds`, {
      items,
      payments: [{ provider_id: 'storecredit', amount, offline: false }],
    });
    expect(storeCredit.status).toBe(422);
    expect(storeCredit.body).toEqual({
      data: [{ status: 422, title: 'Unable to provide store credit for a guest customer.', type: expect.any(String) }],
    });
    const wrongAmount = await call(hash, tok, 'POST', `/v3/orders/${orderId}/payment_actions/refunds`, {
      items,
      payments: [{ provider_id: 'braintree', amount: amount + 1, offline: false }],
    });
    expect(wrongAmount.status).toBe(422);
    const refund = await call(hash, tok, 'POST', `/v3/orders/${orderId}/payment_actions/refunds`, {
      items,
      payments: [{ provider_id: 'braintree', amount, offline: false }],
    });
    expect(refund.status).toBe(201);
    expect(refund.body.data).toMatchObject({ order_id: Number(orderId), total_amount: amount });
    const order = (await call(hash, tok, 'GET', `/v2/orders/${orderId}`)).body;
    expect(order).toMatchObject({ status_id: 14, payment_status: 'partially refunded' });
    expect(Number(order.refunded_amount)).toBe(amount);
  });

  it('deactivates a hook whose delivery failed its last retry until the app reactivates it', async () => {
    const hash = 'deadhookstore';
    const tok = await token(hash);
    const hook = await call(hash, tok, 'POST', '/v3/hooks', {
      scope: 'store/sku/inventory/updated',
      destination: 'http://127.0.0.1:9/gone',
    });
    const sku = Object.keys((await snapshot(hash)).stock)[0] as string;
    await fetch(`${sandbox.url}/_control/bigcommerce/${hash}/stock`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ sku, delta: 1 }),
    });
    await settle();
    const listed = await call(hash, tok, 'GET', '/v3/hooks?is_active=false');
    expect(listed.body.data.map((h: { id: number }) => h.id)).toEqual([hook.body.data.id]);
    const again = await call(hash, tok, 'PUT', `/v3/hooks/${hook.body.data.id}`, { is_active: true });
    expect(again.body.data.is_active).toBe(true);
  });

  it('uninstalling sends store/app/uninstalled and the uninstall callback, and revokes the token', async () => {
    const hash = 'leavestore';
    const tok = await token(hash);
    await call(hash, tok, 'POST', '/v3/hooks', { scope: 'store/app/uninstalled', destination: `${receiverUrl}/bye` });
    received.length = 0;
    sandbox.ctx.options.bigcommerce = { ...sandbox.ctx.options.bigcommerce, uninstallUrl: `${receiverUrl}/uninstall` };
    const res = await fetch(`${sandbox.url}/_control/bigcommerce/${hash}/uninstall`, { method: 'POST' });
    expect(await res.json()).toEqual({ ok: true, callbackStatus: 200 });
    await settle();
    expect(received.find((r) => r.url === '/bye')?.body).toContain('"scope":"store/app/uninstalled"');
    expect(received.find((r) => r.url.startsWith('/uninstall?signed_payload_jwt='))?.method).toBe('GET');
    expect((await call(hash, tok, 'GET', '/v2/store')).status).toBe(401);
  });

  it('lets the merchant uninstall from the control panel’s My Apps page', async () => {
    const hash = 'panelstore';
    const tok = await token(hash);
    sandbox.ctx.options.bigcommerce = { uninstallUrl: `${receiverUrl}/panel-uninstall` };
    const page = await (await fetch(login(`/stores/${hash}/apps`))).text();
    const action = /<form method="post" action="([^"]+)"/.exec(page)?.[1] as string;
    expect(action).toBe(`apps/${clientId}/uninstall`);
    received.length = 0;
    const res = await fetch(new URL(action, login(`/stores/${hash}/apps`)), { method: 'POST', redirect: 'manual' });
    expect(res.status).toBe(303);
    expect(new URL(res.headers.get('location') as string, res.url).pathname).toBe(
      `/bigcommerce/login/stores/${hash}/apps`,
    );
    expect(received.some((r) => r.url.startsWith('/panel-uninstall?signed_payload_jwt='))).toBe(true);
    expect((await call(hash, tok, 'GET', '/v2/store')).status).toBe(401);
    expect(await (await fetch(login(`/stores/${hash}/apps`))).text()).toContain('No apps are installed.');
  });

  it('resets a store to the same seeded catalog', async () => {
    const a = await fetch(`${sandbox.url}/_control/bigcommerce/resetstore/reset`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    const first = (await a.json()) as ShopSnapshot;
    const sku = Object.keys(first.stock)[0] as string;
    await fetch(`${sandbox.url}/_control/bigcommerce/resetstore/stock`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ sku, delta: 5 }),
    });
    expect((await snapshot('resetstore')).stock[sku]?.['1']).toBe((first.stock[sku]?.['1'] as number) + 5);
    const b = await fetch(`${sandbox.url}/_control/bigcommerce/resetstore/reset`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(await b.json()).toEqual(first);
    expect(first).toMatchObject({ products: 40, locations: [{ id: '1' }, { id: '2' }, { id: '3' }, { id: '4' }] });
  });
});
