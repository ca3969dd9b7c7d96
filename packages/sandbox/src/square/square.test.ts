import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SANDBOX_APPS } from '../apps.ts';
import type { ShopSnapshot } from '../context.ts';
import { type RunningSandbox, startSandbox } from '../server.ts';

const APP = SANDBOX_APPS.square;
const SIGNATURE_KEY = 'square-test-signature-key';

let sandbox: RunningSandbox;
let receiver: Server;
let receiverUrl: string;
const received: { headers: Record<string, string | string[] | undefined>; body: string }[] = [];

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks/square`;
  sandbox = await startSandbox({
    port: 0,
    shopSize: { products: 30 },
    webhookRetryDelayMs: 10,
    square: { webhookUrl: receiverUrl, signatureKey: SIGNATURE_KEY },
  });
});

afterAll(async () => {
  await sandbox.close();
  await new Promise((r) => receiver.close(r));
});

beforeEach(() => {
  received.length = 0;
  sandbox.ctx.faults.clear();
});

const REDIRECT = 'https://app.example.com/channels/square/callback';
const SCOPES =
  'MERCHANT_PROFILE_READ ITEMS_READ ITEMS_WRITE INVENTORY_READ INVENTORY_WRITE ORDERS_READ ORDERS_WRITE PAYMENTS_READ PAYMENTS_WRITE';

async function authorize(host: '' | '/sandbox' = '', business = 'Test Merchant', scope = SCOPES) {
  const base = `${sandbox.url}/square${host}`;
  const query = new URLSearchParams({
    client_id: APP.applicationId,
    scope,
    session: 'false',
    state: 'st-1',
    redirect_uri: REDIRECT,
  });
  const consent = await fetch(`${base}/oauth2/authorize?${query}`);
  expect(consent.status).toBe(200);
  expect(await consent.text()).toContain('Allow');
  const decision = await fetch(`${base}/oauth2/authorize`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      client_id: APP.applicationId,
      scope,
      state: 'st-1',
      redirect_uri: REDIRECT,
      business,
      decision: 'allow',
    }),
  });
  expect(decision.status).toBe(302);
  const callback = new URL(decision.headers.get('location') as string);
  expect(callback.origin + callback.pathname).toBe(REDIRECT);
  expect(callback.searchParams.get('state')).toBe('st-1');
  const code = callback.searchParams.get('code') as string;
  const token = await post(`${base}/oauth2/token`, {
    client_id: APP.applicationId,
    client_secret: APP.applicationSecret,
    code,
    grant_type: 'authorization_code',
    redirect_uri: REDIRECT,
  });
  expect(token.status).toBe(200);
  return {
    code,
    base,
    ...(token.body as { access_token: string; refresh_token: string; merchant_id: string; expires_at: string }),
  };
}

async function snapshotOf(merchantId: string): Promise<ShopSnapshot> {
  return (await (await fetch(`${sandbox.url}/_control/square/${merchantId}`)).json()) as ShopSnapshot;
}

async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

function api(base: string, token: string) {
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        'square-version': '2025-08-20',
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      body: body ? JSON.stringify(body) : undefined,
    });
    // biome-ignore lint/suspicious/noExplicitAny: test helper over JSON answers
    return { status: res.status, headers: res.headers, body: (await res.json()) as any };
  };
  return {
    get: (path: string) => call('GET', path),
    post: (path: string, body: unknown) => call('POST', path, body),
    put: (path: string, body: unknown) => call('PUT', path, body),
  };
}

describe('Square OAuth', () => {
  it('issues a 30-day token for a consenting seller, once per code', async () => {
    const grant = await authorize();
    expect(grant.merchant_id).toMatch(/^[A-Z0-9]{13}$/);
    const days = (Date.parse(grant.expires_at) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThanOrEqual(30);
    const again = await post(`${grant.base}/oauth2/token`, {
      client_id: APP.applicationId,
      client_secret: APP.applicationSecret,
      code: grant.code,
      grant_type: 'authorization_code',
      redirect_uri: REDIRECT,
    });
    expect(again.status).toBe(401);
    expect((again.body.errors as { code: string }[])[0]?.code).toBe('UNAUTHORIZED');
    // The same business name signs in as the same seller.
    expect((await authorize('', 'Test Merchant')).merchant_id).toBe(grant.merchant_id);
    // The sandbox host keeps its own sellers, and a production token means nothing there.
    const onSandbox = await authorize('/sandbox', 'Test Merchant');
    expect(onSandbox.merchant_id).not.toBe(grant.merchant_id);
    expect((await api(`${sandbox.url}/square/sandbox`, grant.access_token).get('/v2/locations')).status).toBe(401);
    expect((await api(`${sandbox.url}/square/sandbox`, onSandbox.access_token).get('/v2/locations')).status).toBe(200);
  });

  it('refuses unknown applications and bad redirect URLs with an error page', async () => {
    const bad = await fetch(
      `${sandbox.url}/square/oauth2/authorize?client_id=nope&scope=ITEMS_READ&redirect_uri=${encodeURIComponent(REDIRECT)}`,
    );
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('client_id');
    const badRedirect = await fetch(
      `${sandbox.url}/square/oauth2/authorize?client_id=${APP.applicationId}&scope=ITEMS_READ&redirect_uri=javascript:alert(1)`,
    );
    expect(badRedirect.status).toBe(400);
  });

  it('sends a denied seller back with error=access_denied', async () => {
    const res = await fetch(`${sandbox.url}/square/oauth2/authorize`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        client_id: APP.applicationId,
        scope: 'ITEMS_READ',
        state: 's',
        redirect_uri: REDIRECT,
        decision: 'deny',
      }),
    });
    const location = new URL(res.headers.get('location') as string);
    expect(location.searchParams.get('error')).toBe('access_denied');
    expect(location.searchParams.get('code')).toBeNull();
  });

  it('refreshes with the same refresh token, and revocation locks the app out and is announced', async () => {
    const grant = await authorize('', 'Revoked Merchant');
    const refreshed = await post(`${grant.base}/oauth2/token`, {
      client_id: APP.applicationId,
      client_secret: APP.applicationSecret,
      grant_type: 'refresh_token',
      refresh_token: grant.refresh_token,
    });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.refresh_token).toBe(grant.refresh_token);
    expect(refreshed.body.access_token).not.toBe(grant.access_token);
    const revoked = await post(
      `${grant.base}/oauth2/revoke`,
      { client_id: APP.applicationId, merchant_id: grant.merchant_id },
      { authorization: `Client ${APP.applicationSecret}` },
    );
    expect(revoked.body).toEqual({ success: true });
    const me = await api(grant.base, refreshed.body.access_token as string).get('/v2/merchants/me');
    expect(me.status).toBe(401);
    expect(me.body.errors[0].code).toBe('ACCESS_TOKEN_REVOKED');
    await sandbox.ctx.webhooks.settled();
    expect(received.map((r) => JSON.parse(r.body).type)).toContain('oauth.authorization.revoked');
  });

  it('answers an expired token with ACCESS_TOKEN_EXPIRED and a missing scope with INSUFFICIENT_SCOPES', async () => {
    const grant = await authorize('', 'Narrow Merchant', 'MERCHANT_PROFILE_READ');
    const client = api(grant.base, grant.access_token);
    expect((await client.get('/v2/locations')).status).toBe(200);
    const items = await client.get('/v2/catalog/list?types=ITEM');
    expect(items.status).toBe(403);
    expect(items.body.errors[0].code).toBe('INSUFFICIENT_SCOPES');
    await post(`${grant.base}/_sandbox/oauth2/expire`, { access_token: grant.access_token });
    const expired = await client.get('/v2/locations');
    expect(expired.status).toBe(401);
    expect(expired.body.errors[0]).toMatchObject({ category: 'AUTHENTICATION_ERROR', code: 'ACCESS_TOKEN_EXPIRED' });
  });
});

describe('Square API', () => {
  it('lists locations and pages the catalog 100 objects at a time', async () => {
    const grant = await authorize('', 'Catalog Merchant');
    const client = api(grant.base, grant.access_token);
    const locations = await client.get('/v2/locations');
    expect(locations.body.locations).toHaveLength(4);
    expect(locations.headers.get('square-version')).toBe('2025-08-20');
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const res = await client.get(`/v2/catalog/list?types=ITEM_VARIATION${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      expect(res.body.objects.length).toBeLessThanOrEqual(100);
      seen.push(...res.body.objects.map((o: { item_variation_data: { sku: string } }) => o.item_variation_data.sku));
      cursor = res.body.cursor;
      pages++;
    } while (cursor);
    const snapshot = await snapshotOf(grant.merchant_id);
    expect(seen.sort()).toEqual(Object.keys(snapshot.stock).sort());
    expect(pages).toBe(Math.ceil(seen.length / 100));
    const bad = await client.get('/v2/catalog/list?types=ITEM&cursor=garbage');
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].code).toBe('INVALID_CURSOR');
    const sku = seen[0] as string;
    const found = await client.post('/v2/catalog/search', {
      object_types: ['ITEM_VARIATION'],
      query: { exact_query: { attribute_name: 'sku', attribute_value: sku } },
    });
    expect(found.body.objects).toHaveLength(1);
    expect(found.body.objects[0].item_variation_data.sku).toBe(sku);
  });

  it('upserts items with temporary ids, checks versions, and serializes catalog writes per seller', async () => {
    const grant = await authorize('', 'Writer Merchant');
    const client = api(grant.base, grant.access_token);
    const item = {
      type: 'ITEM',
      id: '#mug',
      item_data: {
        name: 'Mug',
        variations: [
          {
            type: 'ITEM_VARIATION',
            id: '#mug-s',
            item_variation_data: {
              item_id: '#mug',
              name: 'Small',
              sku: 'MUG-S',
              pricing_type: 'FIXED_PRICING',
              price_money: { amount: 1200, currency: 'USD' },
            },
          },
        ],
      },
    };
    const created = await client.post('/v2/catalog/object', { idempotency_key: 'c-1', object: item });
    expect(created.status).toBe(200);
    const realId = created.body.catalog_object.id;
    expect(realId).toMatch(/^[A-Z0-9]{24}$/);
    expect(created.body.id_mappings.map((m: { client_object_id: string }) => m.client_object_id).sort()).toEqual([
      '#mug',
      '#mug-s',
    ]);
    expect(created.body.catalog_object.item_data.variations[0].item_variation_data.item_id).toBe(realId);
    const { version } = created.body.catalog_object;
    const stale = await client.post('/v2/catalog/object', {
      idempotency_key: 'c-2',
      object: { type: 'ITEM', id: realId, version: version - 1, item_data: { name: 'Mug 2' } },
    });
    expect(stale.status).toBe(400);
    expect(stale.body.errors[0].code).toBe('VERSION_MISMATCH');
    const fresh = await client.post('/v2/catalog/object', {
      idempotency_key: 'c-3',
      object: { type: 'ITEM', id: realId, version, item_data: { name: 'Mug 2' } },
    });
    expect(fresh.body.catalog_object.item_data.name).toBe('Mug 2');
    expect(fresh.body.catalog_object.version).toBeGreaterThan(version);
    const since = new Date(Date.parse(fresh.body.catalog_object.updated_at) - 1).toISOString();
    const changed = await client.post('/v2/catalog/search', { object_types: ['ITEM'], begin_time: since });
    expect(changed.body.objects.map((o: { id: string }) => o.id)).toEqual([realId]);
    // One batch fails (unknown id), the other still applies.
    const batches = await client.post('/v2/catalog/batch-upsert', {
      idempotency_key: 'c-4',
      batches: [
        { objects: [{ type: 'CATEGORY', id: '#cups', category_data: { name: 'Cups' } }] },
        { objects: [{ type: 'ITEM', id: 'NOSUCHITEM', version: 1, item_data: { name: 'x' } }] },
      ],
    });
    expect(batches.body.objects).toHaveLength(1);
    expect(batches.body.errors[0].code).toBe('NOT_FOUND');
    // Two writes at once: Square takes one and refuses the other with a 429.
    const [a, b] = await Promise.all([
      client.post('/v2/catalog/object', {
        idempotency_key: 'c-5',
        object: { type: 'CATEGORY', id: '#a', category_data: { name: 'A' } },
      }),
      client.post('/v2/catalog/object', {
        idempotency_key: 'c-6',
        object: { type: 'CATEGORY', id: '#b', category_data: { name: 'B' } },
      }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 429]);
    await sandbox.ctx.webhooks.settled();
    const catalogEvents = received.map((r) => JSON.parse(r.body)).filter((e) => e.type === 'catalog.version.updated');
    expect(catalogEvents.length).toBeGreaterThanOrEqual(4);
    expect(catalogEvents[0].data.object.catalog_version.updated_at).toMatch(/^\d{4}-\d{2}-\d{2}T/);
  });

  it('sets counts in batches of at most 100, replays an idempotency key, and announces changed counts', async () => {
    const grant = await authorize('', 'Inventory Merchant');
    const client = api(grant.base, grant.access_token);
    const [location] = (await client.get('/v2/locations')).body.locations;
    const variations = (await client.get('/v2/catalog/list?types=ITEM_VARIATION')).body.objects as { id: string }[];
    const [first, second] = variations as [{ id: string }, { id: string }];
    const current = Number(
      (
        await client.post('/v2/inventory/counts/batch-retrieve', {
          catalog_object_ids: [second.id],
          location_ids: [location.id],
          states: ['IN_STOCK'],
        })
      ).body.counts[0]?.quantity ?? 0,
    );
    const body = {
      idempotency_key: 'inv-1',
      ignore_unchanged_counts: true,
      changes: [
        {
          type: 'PHYSICAL_COUNT',
          physical_count: {
            catalog_object_id: first.id,
            location_id: location.id,
            state: 'IN_STOCK',
            quantity: '53',
            occurred_at: new Date().toISOString(),
          },
        },
        {
          type: 'PHYSICAL_COUNT',
          physical_count: {
            catalog_object_id: second.id,
            location_id: location.id,
            state: 'IN_STOCK',
            quantity: String(current),
            occurred_at: new Date().toISOString(),
          },
        },
      ],
    };
    const res = await client.post('/v2/inventory/changes/batch-create', body);
    expect(res.status).toBe(200);
    expect(res.body.changes).toHaveLength(1); // the unchanged count was dropped
    expect(res.body.counts.find((c: { catalog_object_id: string }) => c.catalog_object_id === first.id).quantity).toBe(
      '53',
    );
    const replay = await client.post('/v2/inventory/changes/batch-create', body);
    expect(replay.body).toEqual(res.body);
    const reused = await client.post('/v2/inventory/changes/batch-create', {
      ...body,
      changes: body.changes.slice(0, 1),
    });
    expect(reused.body.errors[0].code).toBe('IDEMPOTENCY_KEY_REUSED');
    const tooMany = await client.post('/v2/inventory/changes/batch-create', {
      idempotency_key: 'inv-2',
      changes: Array.from({ length: 101 }, () => body.changes[0]),
    });
    expect(tooMany.status).toBe(400);
    const stale = await client.post('/v2/inventory/changes/batch-create', {
      idempotency_key: 'inv-3',
      changes: [
        {
          ...body.changes[0],
          physical_count: {
            ...body.changes[0]?.physical_count,
            occurred_at: new Date(Date.now() - 2 * 86_400_000).toISOString(),
          },
        },
      ],
    });
    expect(stale.body.errors[0].code).toBe('INVALID_TIME');
    await sandbox.ctx.webhooks.settled();
    const events = received
      .map((r) => ({ r, body: JSON.parse(r.body) }))
      .filter((e) => e.body.type === 'inventory.count.updated');
    expect(events).toHaveLength(1);
    const [event] = events;
    expect(event?.body.data.object.inventory_counts).toEqual([
      expect.objectContaining({ catalog_object_id: first.id, quantity: '53', state: 'IN_STOCK' }),
    ]);
    const signature = createHmac('sha256', SIGNATURE_KEY)
      .update(receiverUrl + event?.r.body)
      .digest('base64');
    expect(event?.r.headers['x-square-hmacsha256-signature']).toBe(signature);
    expect(event?.r.headers['square-environment']).toBe('Production');
  });

  it('orders a ledger by occurred_at: a late adjustment lands before a newer count', async () => {
    const grant = await authorize('', 'Ledger Merchant');
    const client = api(grant.base, grant.access_token);
    const [location] = (await client.get('/v2/locations')).body.locations;
    const [variation] = (await client.get('/v2/catalog/list?types=ITEM_VARIATION')).body.objects;
    const at = (ago: number) => new Date(Date.now() - ago).toISOString();
    const ids = { catalog_object_id: variation.id, location_id: location.id };
    await client.post('/v2/inventory/changes/batch-create', {
      idempotency_key: 'l-1',
      changes: [
        {
          type: 'PHYSICAL_COUNT',
          physical_count: { ...ids, state: 'IN_STOCK', quantity: '10', occurred_at: at(1000) },
        },
      ],
    });
    // An offline sale from an hour ago arrives after the count: the count already includes it.
    const late = await client.post('/v2/inventory/changes/batch-create', {
      idempotency_key: 'l-2',
      changes: [
        {
          type: 'ADJUSTMENT',
          adjustment: { ...ids, from_state: 'IN_STOCK', to_state: 'SOLD', quantity: '3', occurred_at: at(3_600_000) },
        },
      ],
    });
    expect(late.body.counts.find((c: { state: string }) => c.state === 'IN_STOCK').quantity).toBe('10');
  });

  it('searches orders by updated_at with the matching sort, and a POS sale shows up and moves stock', async () => {
    const grant = await authorize('', 'Orders Merchant');
    const client = api(grant.base, grant.access_token);
    const locations = (await client.get('/v2/locations')).body.locations.map((l: { id: string }) => l.id);
    const wrongSort = await client.post('/v2/orders/search', {
      location_ids: locations,
      query: {
        filter: { date_time_filter: { updated_at: { start_at: '2020-01-01T00:00:00Z' } } },
        sort: { sort_field: 'CREATED_AT' },
      },
    });
    expect(wrongSort.status).toBe(400);
    const missing = await client.post('/v2/orders/search', { query: {} });
    expect(missing.body.errors[0]).toMatchObject({ code: 'MISSING_REQUIRED_PARAMETER', field: 'location_ids' });
    const since = new Date().toISOString();
    const snapshot = await snapshotOf(grant.merchant_id);
    const sku = Object.keys(snapshot.stock)[0] as string;
    const location = snapshot.locations[1]?.id as string;
    const before = snapshot.stock[sku]?.[location] as number;
    const sale = await post(`${sandbox.url}/_control/square/${grant.merchant_id}/orders`, {
      lines: [{ sku, quantity: 1 }],
      location,
    });
    const search = await client.post('/v2/orders/search', {
      location_ids: locations,
      query: {
        filter: { date_time_filter: { updated_at: { start_at: since } } },
        sort: { sort_field: 'UPDATED_AT', sort_order: 'ASC' },
      },
    });
    expect(search.body.orders.map((o: { id: string }) => o.id)).toEqual([sale.body.orderId]);
    const order = search.body.orders[0];
    expect(order).toMatchObject({ state: 'COMPLETED', location_id: location });
    const payment = await client.get(`/v2/payments/${order.tenders[0].id}`);
    expect(payment.body.payment.receipt_number).toBe(order.tenders[0].id.slice(0, 4));
    const after = await snapshotOf(grant.merchant_id);
    expect(after.stock[sku]?.[location]).toBe(before - 1);
    await sandbox.ctx.webhooks.settled();
    expect(received.map((r) => JSON.parse(r.body).type)).toEqual(
      expect.arrayContaining(['order.created', 'inventory.count.updated']),
    );
  });

  it('refunds a payment up to what was paid; the refund completes shortly after', async () => {
    const grant = await authorize('', 'Refund Merchant');
    const client = api(grant.base, grant.access_token);
    const snapshot = await snapshotOf(grant.merchant_id);
    const sku = Object.keys(snapshot.stock)[0] as string;
    const sale = await post(`${sandbox.url}/_control/square/${grant.merchant_id}/orders`, {
      lines: [{ sku, quantity: 2 }],
    });
    const order = (await client.get(`/v2/orders/${sale.body.orderId}`)).body.order;
    const total = order.total_money.amount;
    const refund = await client.post('/v2/refunds', {
      idempotency_key: 'r-1',
      payment_id: order.tenders[0].id,
      amount_money: { amount: 100, currency: 'USD' },
    });
    expect(refund.body.refund).toMatchObject({ status: 'PENDING', order_id: order.id });
    const tooMuch = await client.post('/v2/refunds', {
      idempotency_key: 'r-2',
      payment_id: order.tenders[0].id,
      amount_money: { amount: total, currency: 'USD' },
    });
    expect(tooMuch.body.errors[0]).toMatchObject({ category: 'REFUND_ERROR', code: 'REFUND_AMOUNT_INVALID' });
    await new Promise((r) => setTimeout(r, 300));
    expect((await client.get(`/v2/refunds/${refund.body.refund.id}`)).body.refund.status).toBe('COMPLETED');
  });

  it('renders injected faults as Square does: 429 RATE_LIMITED with Retry-After, 503, and a dropped connection', async () => {
    const grant = await authorize('', 'Faulty Merchant');
    const client = api(grant.base, grant.access_token);
    sandbox.ctx.faults.set('square', grant.merchant_id, { rate429: 1 });
    const throttled = await client.get('/v2/locations');
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get('retry-after')).toBe('1');
    expect(throttled.body.errors[0]).toMatchObject({ category: 'RATE_LIMIT_ERROR', code: 'RATE_LIMITED' });
    sandbox.ctx.faults.set('square', grant.merchant_id, { rate429: 0, rate5xx: 1 });
    expect((await client.get('/v2/locations')).status).toBe(503);
    sandbox.ctx.faults.set('square', grant.merchant_id, { rate5xx: 0, rateTimeout: 1, timeoutMs: 50 });
    await expect(client.get('/v2/locations')).rejects.toThrow();
  });

  it('limits each seller to its request budget', async () => {
    const grant = await authorize('', 'Busy Merchant');
    const client = api(grant.base, grant.access_token);
    const answers = await Promise.all(Array.from({ length: 60 }, () => client.get('/v2/locations')));
    const limited = answers.filter((a) => a.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    expect(Number(limited[0]?.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // Another seller is not affected.
    const other = await authorize('', 'Quiet Merchant');
    expect((await api(other.base, other.access_token).get('/v2/locations')).status).toBe(200);
  });
});

describe('Square control', () => {
  it('seeds a seller by merchant id, changes stock as the Dashboard would, and resets it', async () => {
    const id = 'CTRLMERCHANT1';
    const seeded = (await post(`${sandbox.url}/_control/square/${id}/reset`, { products: 12, locations: 2 }))
      .body as unknown as ShopSnapshot;
    expect(seeded).toMatchObject({ shop: id, products: 12, orders: 6 });
    expect(seeded.locations).toHaveLength(2);
    const again = (await post(`${sandbox.url}/_control/square/${id}/reset`, { products: 12, locations: 2 }))
      .body as unknown as ShopSnapshot;
    expect(again.stock).toEqual(seeded.stock);
    const sku = Object.keys(seeded.stock)[0] as string;
    const [first, second] = seeded.locations.map((l) => l.id) as [string, string];
    await post(`${sandbox.url}/_control/square/${id}/stock`, { sku, quantity: 12 });
    await post(`${sandbox.url}/_control/square/${id}/stock`, { sku, location: second, delta: 5 });
    await post(`${sandbox.url}/_control/square/${id}/stock`, { sku, location: second, delta: -2 });
    const after = await snapshotOf(id);
    expect(after.stock[sku]).toEqual({ [first]: 12, [second]: (seeded.stock[sku]?.[second] ?? 0) + 3 });
    const unknown = await post(`${sandbox.url}/_control/square/${id}/stock`, { sku: 'NOPE', quantity: 1 });
    expect(unknown.status).toBe(404);
    expect((await fetch(`${sandbox.url}/_control/square/NOSUCHSELLER`)).status).toBe(404);
    expect(
      (
        (await (await fetch(`${sandbox.url}/_control`)).json()) as {
          providers: { provider: string; shops: string[] }[];
        }
      ).providers.find((p) => p.provider === 'square')?.shops,
    ).toContain(id);
  });
});
