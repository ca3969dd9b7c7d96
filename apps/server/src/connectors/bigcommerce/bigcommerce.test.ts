import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type RunningSandbox, type ShopSnapshot, seedCatalog, seedFrom } from '@switchyard/sandbox';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { memoryLogger, TEST_PROVIDER_SECRETS } from '../../../test/app.ts';
import { startTestSandbox } from '../../../test/sandbox.ts';
import { Config } from '../../config.ts';
import { type ProviderEndpoints, resolveProviders } from '../../providers.ts';
import { providerTransport, type TransportAnswer } from '../http.ts';
import type { ChannelCredentials, InventorySet, ProviderOrder, ProviderProduct } from '../types.ts';
import { bigcommerce, MAX_ADJUSTMENT_ITEMS, verifySignedPayload, WEBHOOK_SCOPES } from './index.ts';

const REDIRECT = 'https://switchyard.example.com/oauth/callback/bigcommerce';
const SEED = 4242;
const PRODUCTS = 300;

let sandbox: RunningSandbox;
let endpoints: ProviderEndpoints;
let receiver: Server;
let receiverUrl: string;
const received: { method: string; url: string; headers: IncomingMessage['headers']; rawBody: Buffer }[] = [];

beforeAll(async () => {
  sandbox = await startTestSandbox({ seed: SEED, products: PRODUCTS });
  endpoints = resolveProviders(Config.parse({ NODE_ENV: 'test' }), sandbox.url, TEST_PROVIDER_SECRETS);
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        rawBody: Buffer.concat(chunks),
      });
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
  vi.restoreAllMocks();
});

/** What a merchant's browser does on BigCommerce's install page: open it, press Install. */
async function install(url: string) {
  const page = await fetch(url);
  expect(page.status).toBe(200);
  const html = await page.text();
  expect(html).toContain('<button type="submit">Install</button>');
  const form = new URLSearchParams();
  for (const [, name, value] of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    form.set(name as string, (value as string).replaceAll('&amp;', '&').replaceAll('&quot;', '"'));
  }
  const action = new URL(/<form method="post" action="([^"]+)"/.exec(html)?.[1] as string, url);
  const res = await fetch(action, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form,
  });
  expect(res.status).toBe(302);
  return new URL(res.headers.get('location') as string);
}

async function connectStore(hash: string) {
  const oauth = bigcommerce.oauth(endpoints);
  const callback = await install(oauth.authorizeUrl({ shop: hash, state: `state-${hash}`, redirectUri: REDIRECT }));
  return oauth.completeAuthorization(Object.fromEntries(callback.searchParams), REDIRECT);
}

function connectorFor(credentials: ChannelCredentials, extra: { timeoutMs?: number; maxRetries?: number } = {}) {
  const { logger, lines } = memoryLogger();
  return { connector: bigcommerce.connect(endpoints, credentials, { logger, ...extra }), logs: lines };
}

/** A store with a token, through the control panel's API account (no browser). */
async function tokenFor(hash: string): Promise<ChannelCredentials> {
  const res = await fetch(`${sandbox.url}/_control/bigcommerce/${hash}/token`, { method: 'POST' });
  const body = (await res.json()) as { access_token: string; scope: string };
  return { accessToken: body.access_token, scope: body.scope, storeHash: hash };
}

async function snapshot(hash: string): Promise<ShopSnapshot> {
  return (await fetch(`${sandbox.url}/_control/bigcommerce/${hash}`)).json() as Promise<ShopSnapshot>;
}

async function control(hash: string, path: string, body: unknown) {
  const res = await fetch(`${sandbox.url}/_control/bigcommerce/${hash}/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  return res.json() as Promise<Record<string, unknown>>;
}

async function allProducts(connector: ReturnType<typeof connectorFor>['connector']) {
  const products: ProviderProduct[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const page = await connector.listProducts(cursor);
    products.push(...page.items);
    cursor = page.nextCursor;
    pages++;
  } while (cursor);
  return { products, pages };
}

async function allLevels(connector: ReturnType<typeof connectorFor>['connector']) {
  const levels = new Map<string, number>();
  let cursor: string | null = null;
  do {
    const page = await connector.getInventoryLevels({ cursor });
    for (const l of page.items) levels.set(`${l.inventoryItemId}@${l.locationExternalId}`, l.available);
    cursor = page.nextCursor;
  } while (cursor);
  return levels;
}

describe('OAuth (single-click app install)', () => {
  it('installs through the consent page and the credentials work', async () => {
    const authorized = await connectStore('oauthstore1');
    expect(authorized.externalId).toBe('oauthstore1');
    expect(authorized.name).toContain('oauthstore1');
    expect(authorized.credentials).toMatchObject({
      storeHash: 'oauthstore1',
      scope: expect.stringContaining('store_inventory'),
    });
    const { connector, logs } = connectorFor(authorized.credentials);
    const shop = await connector.getShop();
    expect(shop).toMatchObject({ externalId: 'oauthstore1', currency: 'USD', timezone: 'America/Los_Angeles' });
    expect(JSON.stringify(logs)).not.toContain(authorized.credentials.accessToken);
  });

  it('sends back our state with the code, scope, context and account uuid', async () => {
    const oauth = bigcommerce.oauth(endpoints);
    const callback = await install(
      oauth.authorizeUrl({ shop: 'oauthstore2', state: 'signed-state', redirectUri: REDIRECT }),
    );
    expect(`${callback.origin}${callback.pathname}`).toBe(REDIRECT);
    expect(callback.searchParams.get('state')).toBe('signed-state');
    expect(callback.searchParams.get('context')).toBe('stores/oauthstore2');
    expect(callback.searchParams.get('code')).toMatch(/^[a-f0-9]{24}$/);
    expect(callback.searchParams.get('account_uuid')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('refuses a callback whose store was swapped, a reused code and a code for another redirect URI', async () => {
    const oauth = bigcommerce.oauth(endpoints);
    const url = oauth.authorizeUrl({ shop: 'oauthstore3', state: 's', redirectUri: REDIRECT });
    const swapped = Object.fromEntries((await install(url)).searchParams);
    await expect(
      oauth.completeAuthorization({ ...swapped, context: 'stores/victimstore' }, REDIRECT),
    ).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
    });
    // The code was spent by the refused attempt too: codes are single-use.
    await expect(oauth.completeAuthorization(swapped, REDIRECT)).rejects.toMatchObject({ code: 'UNAUTHORIZED' });

    const good = Object.fromEntries((await install(url)).searchParams);
    await expect(oauth.completeAuthorization(good, 'https://evil.example.com/cb')).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
    });
    const fresh = Object.fromEntries((await install(url)).searchParams);
    await oauth.completeAuthorization(fresh, REDIRECT);
    await expect(oauth.completeAuthorization(fresh, REDIRECT)).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
  });

  it('refuses a callback without code or store context, and a cancelled install', async () => {
    const oauth = bigcommerce.oauth(endpoints);
    await expect(oauth.completeAuthorization({ scope: 'x', context: 'stores/abc' }, REDIRECT)).rejects.toMatchObject({
      code: 'VALIDATION',
    });
    await expect(
      oauth.completeAuthorization({ code: 'x', scope: 'x', context: 'abc' }, REDIRECT),
    ).rejects.toMatchObject({
      code: 'VALIDATION',
    });
    await expect(oauth.completeAuthorization({ error: 'access_denied', state: 's' }, REDIRECT)).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
    });
  });

  it('completes an install while the store’s API is failing, retrying the code exchange', async () => {
    const oauth = bigcommerce.oauth(endpoints);
    const callback = await install(oauth.authorizeUrl({ shop: 'shakystore', state: 's', redirectUri: REDIRECT }));
    sandbox.ctx.faults.set('bigcommerce', 'shakystore', { rate429: 0.25, rate5xx: 0.25, timeoutMs: 200 });
    const sendSpy = vi.spyOn(providerTransport, 'send');
    const authorized = await oauth.completeAuthorization(Object.fromEntries(callback.searchParams), REDIRECT);
    expect(authorized.externalId).toBe('shakystore');
    const exchanges = sendSpy.mock.calls.filter(([url]) => String(url).endsWith('/oauth2/token'));
    expect(exchanges.length).toBeGreaterThan(1);
  });

  it('shows an error page for an unknown app instead of a consent page', async () => {
    const bad = { ...endpoints, bigcommerce: { ...endpoints.bigcommerce, clientId: 'not-our-app' } };
    const res = await fetch(bigcommerce.oauth(bad).authorizeUrl({ shop: 'x1', state: 's', redirectUri: REDIRECT }));
    expect(res.status).toBe(404);
    expect(await res.text()).not.toContain('Install</button>');
  });

  it('verifies the load and uninstall callbacks’ signed_payload_jwt', async () => {
    await connectStore('jwtstore');
    received.length = 0;
    // The app's uninstall callback, as registered in BigCommerce's Developer Portal.
    sandbox.ctx.options.bigcommerce = {
      ...sandbox.ctx.options.bigcommerce,
      uninstallUrl: `${receiverUrl}/bigcommerce/uninstall`,
    };
    const res = await control('jwtstore', 'uninstall', { url: `${receiverUrl}/elsewhere` });
    expect(res).toMatchObject({ ok: true, callbackStatus: 200 });
    // The address a control call names is not fetched: only the registered callback is called.
    expect(received.some((r) => r.url.startsWith('/elsewhere'))).toBe(false);
    const call = received.find((r) => r.url.startsWith('/bigcommerce/uninstall'));
    expect(call?.method).toBe('GET');
    const jwt = new URL(call?.url as string, receiverUrl).searchParams.get('signed_payload_jwt') as string;
    await expect(verifySignedPayload(endpoints, jwt)).resolves.toMatchObject({
      storeHash: 'jwtstore',
      user: { id: 24654 },
    });

    const [head, body, sig] = jwt.split('.');
    const claims = JSON.parse(Buffer.from(body as string, 'base64url').toString());
    const forged = `${head}.${Buffer.from(JSON.stringify({ ...claims, sub: 'stores/other' })).toString('base64url')}.${sig}`;
    await expect(verifySignedPayload(endpoints, forged)).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    const otherApp = { ...endpoints, bigcommerce: { ...endpoints.bigcommerce, clientId: 'another-app' } };
    await expect(verifySignedPayload(otherApp, jwt)).rejects.toMatchObject({ code: 'UNAUTHORIZED' });

    // Uninstalled: the token no longer works.
    const { connector } = connectorFor({ accessToken: 'revoked', storeHash: 'jwtstore' });
    await expect(connector.getShop()).rejects.toMatchObject({ status: 401 });
  });
});

describe('catalog, locations and inventory', () => {
  const catalog = seedCatalog({ seed: (SEED ^ seedFrom('catalogstore')) >>> 0, products: PRODUCTS });

  it('lists the four locations', async () => {
    const { connector } = connectorFor(await tokenFor('catalogstore'));
    const locations = await connector.listLocations();
    expect(locations.map((l) => l.name)).toEqual(catalog.locations.map((l) => l.name));
    expect(locations[0]).toMatchObject({ externalId: '1', active: true, address: { city: 'Portland', country: 'US' } });
  });

  it('reads the whole catalog in pages of 250 with SKUs, barcodes, prices and brands as seeded', async () => {
    const { connector } = connectorFor(await tokenFor('catalogstore'));
    const { products, pages } = await allProducts(connector);
    expect(pages).toBe(2);
    expect(products).toHaveLength(PRODUCTS);
    const variants = products.flatMap((p) => p.variants);
    const seeded = catalog.products.flatMap((p) => p.variants);
    expect(variants.map((v) => v.sku).sort()).toEqual(seeded.map((v) => v.sku).sort());
    const first = catalog.products[0];
    const mapped = products.find((p) => p.title === first?.title && p.variants[0]?.sku === first?.variants[0]?.sku);
    expect(mapped).toMatchObject({ brand: first?.vendor, status: 'active' });
    const bySku = new Map(variants.map((v) => [v.sku, v]));
    for (const v of seeded.slice(0, 50)) {
      expect(bySku.get(v.sku)).toMatchObject({ barcode: v.barcode, price: v.price, compareAtPrice: v.compareAtPrice });
    }
  });

  it('reads inventory levels that match what the store holds', async () => {
    const { connector } = connectorFor(await tokenFor('catalogstore'));
    const [{ products }, levels, snap] = await Promise.all([
      allProducts(connector),
      allLevels(connector),
      snapshot('catalogstore'),
    ]);
    const skuOf = new Map(products.flatMap((p) => p.variants.map((v) => [v.inventoryItemId, v.sku])));
    expect(levels.size).toBe(snap.variants * snap.locations.length);
    for (const [key, available] of levels) {
      const [item, location] = key.split('@');
      expect(snap.stock[skuOf.get(item as string) as string]?.[location as string]).toBe(available);
    }
    const one = await connector.getInventoryLevels({ cursor: null, locationExternalIds: ['2'] });
    expect(new Set(one.items.map((l) => l.locationExternalId))).toEqual(new Set(['2']));
  });

  it('sets every level in batches of 2000 and reads them back', async () => {
    const { connector } = connectorFor(await tokenFor('pushstore'));
    const levels = await allLevels(connector);
    const changes: InventorySet[] = [...levels.keys()].map((key, i) => {
      const [inventoryItemId, locationExternalId] = key.split('@') as [string, string];
      return { inventoryItemId, locationExternalId, quantity: (i * 7) % 50 };
    });
    expect(changes.length).toBeGreaterThan(MAX_ADJUSTMENT_ITEMS);
    const sendSpy = vi.spyOn(providerTransport, 'send');
    const result = await connector.setInventory(changes);
    const puts = sendSpy.mock.calls.filter(([url]) => String(url).includes('/adjustments/absolute'));
    expect(puts).toHaveLength(Math.ceil(changes.length / MAX_ADJUSTMENT_ITEMS));
    expect(result.failed).toEqual([]);
    expect(result.applied).toHaveLength(changes.length);
    const after = await allLevels(connector);
    for (const c of changes) expect(after.get(`${c.inventoryItemId}@${c.locationExternalId}`)).toBe(c.quantity);
  });

  it('sets aside the rows BigCommerce refuses and applies the rest', async () => {
    const { connector } = connectorFor(await tokenFor('pushstore2'));
    const levels = [...(await allLevels(connector)).keys()].slice(0, 3).map((k) => k.split('@') as [string, string]);
    const [a, b] = levels as [[string, string], [string, string]];
    const result = await connector.setInventory([
      { inventoryItemId: a[0], locationExternalId: a[1], quantity: 11 },
      { inventoryItemId: b[0], locationExternalId: '99', quantity: 5 },
      { inventoryItemId: b[0], locationExternalId: b[1], quantity: -1 },
      { inventoryItemId: b[0], locationExternalId: b[1], quantity: 12 },
    ]);
    expect(result.applied.map((c) => c.quantity)).toEqual([11, 12]);
    expect(result.failed.map((f) => [f.change.locationExternalId, f.change.quantity, f.mismatch])).toEqual([
      [b[1], -1, false],
      ['99', 5, false],
    ]);
    expect(result.failed[1]?.reason).toContain('Location with id 99');
    const after = await allLevels(connector);
    expect(after.get(`${a[0]}@${a[1]}`)).toBe(11);
    expect(after.get(`${b[0]}@${b[1]}`)).toBe(12);
  });

  it('creates and updates a product with its variants', async () => {
    const { connector } = connectorFor(await tokenFor('productstore'));
    const created = await connector.createProduct({
      title: 'Switchyard Test Jacket',
      brand: 'Brand New Co',
      description: 'Warm.',
      variants: [
        { sku: 'NEW-JACKET-S', barcode: '0840009999991', title: 'S', price: 12900, compareAtPrice: 15900 },
        { sku: 'NEW-JACKET-M', title: 'M', price: 12900 },
      ],
    });
    expect(created).toMatchObject({ title: 'Switchyard Test Jacket', brand: 'Brand New Co', status: 'active' });
    expect(created.variants.map((v) => [v.sku, v.price, v.compareAtPrice, v.barcode])).toEqual([
      ['NEW-JACKET-S', 12900, 15900, '0840009999991'],
      ['NEW-JACKET-M', 12900, null, null],
    ]);
    await expect(
      connector.createProduct({ title: 'Another', variants: [{ sku: 'NEW-JACKET-S', price: 100 }] }),
    ).rejects.toMatchObject({ code: 'CONFLICT' });

    const updated = await connector.updateProduct(created.externalId, {
      title: 'Switchyard Test Jacket II',
      variants: [
        { sku: 'NEW-JACKET-S', price: 9900, compareAtPrice: null },
        { sku: 'NEW-JACKET-L', title: 'L', price: 13900 },
      ],
    });
    expect(updated.title).toBe('Switchyard Test Jacket II');
    expect(updated.variants.map((v) => [v.sku, v.price, v.compareAtPrice])).toEqual([
      ['NEW-JACKET-S', 9900, null],
      ['NEW-JACKET-M', 12900, null],
      ['NEW-JACKET-L', 13900, null],
    ]);
  });
});

describe('orders, fulfillment and refunds', () => {
  it('lists orders changed since a cursor, with lines and the shipping address', async () => {
    const { connector } = connectorFor(await tokenFor('orderstore'));
    const sendSpy = vi.spyOn(providerTransport, 'send');
    const history = await connector.listOrders({ cursor: null });
    // One request for the page: lines and addresses come with the orders (include=consignments.line_items).
    expect(sendSpy.mock.calls).toHaveLength(1);
    expect(history.items.length).toBe(6);
    expect(history.items.every((o) => o.lines.length > 0 && o.lines.every((l) => l.sku && l.quantity > 0))).toBe(true);
    const pickup = history.items.find((o) => o.fulfillmentType === 'pickup');
    expect(pickup).toMatchObject({ locationExternalId: '2', shippingAddress: null });
    expect(
      history.items.filter((o) => o.fulfillmentType === 'ship' && o.shippingAddress?.city === 'Portland'),
    ).toHaveLength(5);
    expect(history.nextCursor).toBeNull();
    const updatedAts = history.items.map((o) => o.updatedAt);
    expect([...updatedAts].sort()).toEqual(updatedAts);

    const since = new Date(Date.now() - 1000).toISOString();
    const snap = await snapshot('orderstore');
    const sku = Object.keys(snap.stock)[0] as string;
    const before = snap.stock[sku]?.['1'] as number;
    const { orderId } = (await control('orderstore', 'orders', { lines: [{ sku, quantity: 2 }] })) as {
      orderId: string;
    };
    const fresh = await connector.listOrders({ cursor: null, since });
    expect(fresh.items.map((o) => o.externalId)).toEqual([orderId]);
    const order = fresh.items[0];
    expect(order).toMatchObject({
      name: orderId,
      currency: 'USD',
      financialStatus: 'paid',
      fulfillmentStatus: 'unfulfilled',
      cancelled: false,
      fulfillmentType: 'ship',
      customer: { name: 'Jordan Reyes', email: 'jordan.reyes@example.com' },
      shippingAddress: { city: 'Portland', country: 'US' },
      lines: [{ sku, quantity: 2 }],
    });
    expect(order?.total).toBe((order?.lines[0]?.price ?? 0) * 2 + 800);
    expect((await snapshot('orderstore')).stock[sku]?.['1']).toBe(before - 2);

    // Nothing changed since now: BigCommerce answers 204 and that is an empty page.
    const none = await connector.listOrders({ cursor: null, since: new Date(Date.now() + 5000).toISOString() });
    expect(none).toEqual({ items: [], nextCursor: null });
  });

  it('pages through more than 250 changed orders without losing one that changes mid-way', {
    timeout: 60_000,
  }, async () => {
    const hash = 'busyorderstore';
    const { connector } = connectorFor(await tokenFor(hash));
    const since = new Date(Date.now() - 1000).toISOString();
    const skus = Object.keys((await snapshot(hash)).stock);
    const placed: string[] = [];
    for (let i = 0; i < 260; i += 20) {
      const batch = await Promise.all(
        Array.from({ length: 20 }, (_, j) =>
          control(hash, 'orders', { lines: [{ sku: skus[(i + j) % skus.length], quantity: 1 }] }),
        ),
      );
      placed.push(...batch.map((b) => String(b.orderId)));
    }
    const first = await connector.listOrders({ cursor: null, since });
    expect(first.items).toHaveLength(250);
    expect(first.nextCursor).not.toBeNull();
    // An order on the first page changes before the next page is read: it moves to the end of the list.
    const moved = first.items[3] as ProviderOrder;
    await connector.createFulfillment({
      orderExternalId: moved.externalId,
      lines: [{ lineExternalId: moved.lines[0]?.externalId as string, quantity: 1 }],
    });
    const seen = new Set(first.items.map((o) => o.externalId));
    let cursor = first.nextCursor;
    while (cursor) {
      const page = await connector.listOrders({ cursor });
      for (const o of page.items) seen.add(o.externalId);
      cursor = page.nextCursor;
    }
    expect(placed.filter((id) => !seen.has(id))).toEqual([]);
  });

  it('ships an order in parts, moving it to Partially Shipped then Shipped', async () => {
    const { connector } = connectorFor(await tokenFor('shipstore'));
    const snap = await snapshot('shipstore');
    const [sku1, sku2] = Object.keys(snap.stock) as [string, string];
    const { orderId } = (await control('shipstore', 'orders', {
      lines: [
        { sku: sku1, quantity: 2 },
        { sku: sku2, quantity: 1 },
      ],
    })) as { orderId: string };
    const since = new Date(Date.now() - 2000).toISOString();
    const order = (await connector.listOrders({ cursor: null, since })).items.find((o) => o.externalId === orderId);
    const [l1, l2] = order?.lines ?? [];
    const first = await connector.createFulfillment({
      orderExternalId: orderId,
      lines: [{ lineExternalId: l1?.externalId as string, quantity: 1 }],
      tracking: { company: 'UPS', number: '1Z999', url: 'https://ups.example/1Z999' },
    });
    expect(first.externalId).toMatch(/^\d+$/);
    let now = (await connector.listOrders({ cursor: null, since })).items.find((o) => o.externalId === orderId);
    expect(now?.fulfillmentStatus).toBe('partial');
    await expect(
      connector.createFulfillment({
        orderExternalId: orderId,
        lines: [{ lineExternalId: l1?.externalId as string, quantity: 5 }],
      }),
    ).rejects.toMatchObject({ code: 'VALIDATION' });
    await connector.createFulfillment({
      orderExternalId: orderId,
      lines: [
        { lineExternalId: l1?.externalId as string, quantity: 1 },
        { lineExternalId: l2?.externalId as string, quantity: 1 },
      ],
      tracking: { company: 'DHL Express', number: 'JD014600' },
    });
    now = (await connector.listOrders({ cursor: null, since })).items.find((o) => o.externalId === orderId);
    expect(now?.fulfillmentStatus).toBe('fulfilled');
  });

  it('refunds lines, then a custom amount, and refuses more than was paid', async () => {
    const { connector } = connectorFor(await tokenFor('refundstore'));
    const sku = Object.keys((await snapshot('refundstore')).stock)[3] as string;
    const { orderId } = (await control('refundstore', 'orders', { lines: [{ sku, quantity: 3 }] })) as {
      orderId: string;
    };
    const since = new Date(Date.now() - 2000).toISOString();
    const order = (await connector.listOrders({ cursor: null, since })).items.find((o) => o.externalId === orderId);
    const line = order?.lines[0];
    const unit = line?.price as number;
    const first = await connector.refund({
      orderExternalId: orderId,
      amount: unit,
      currency: 'USD',
      lines: [{ lineExternalId: line?.externalId as string, quantity: 1 }],
      reason: 'Damaged',
    });
    expect(first.externalId).toMatch(/^\d+$/);
    let now = (await connector.listOrders({ cursor: null, since })).items.find((o) => o.externalId === orderId);
    expect(now?.financialStatus).toBe('partially_refunded');

    await connector.refund({ orderExternalId: orderId, amount: 500, currency: 'USD', reason: 'Goodwill' });
    await expect(
      connector.refund({
        orderExternalId: orderId,
        amount: (order?.total as number) - unit - 500 + 1,
        currency: 'USD',
      }),
    ).rejects.toMatchObject({ code: 'VALIDATION' });
    await connector.refund({
      orderExternalId: orderId,
      amount: (order?.total as number) - unit - 500,
      currency: 'USD',
    });
    now = (await connector.listOrders({ cursor: null, since })).items.find((o) => o.externalId === orderId);
    expect(now?.financialStatus).toBe('refunded');
  });
});

describe('order import and cancel', () => {
  it('maps a storefront order in full with the location BigCommerce took its units at, and cancels it there', async () => {
    const { connector } = connectorFor(await tokenFor('cancelstore'));
    const snap = await snapshot('cancelstore');
    const skus = Object.entries(snap.stock)
      .filter(([, q]) => (q['1'] ?? 0) >= 2 && (q['3'] ?? 0) >= 1)
      .map(([sku]) => sku) as [string, string];
    const { orderId } = (await control('cancelstore', 'orders', {
      lines: [
        { sku: skus[0], quantity: 2 },
        { sku: skus[1], quantity: 1 },
      ],
      customer: { name: 'Ana Lima', email: 'ana@example.com', phone: '555-0142' },
      shippingAddress: {
        name: 'Ana Lima',
        address1: '5 Cedar Ct',
        city: 'Boise',
        province: 'Idaho',
        zip: '83702',
        country: 'US',
      },
      note: 'Back door',
      discount: 100,
      tax: 220,
      shipping: 650,
    })) as { orderId: string };
    const order = await connector.getOrder?.(orderId);
    if (!order) throw new Error('order missing');
    const gross = order.lines.reduce((s, l) => s + l.price * l.quantity, 0);
    expect(order).toMatchObject({
      externalId: orderId,
      name: orderId,
      subtotal: gross - 100,
      shippingTotal: 650,
      discountTotal: 100,
      taxTotal: 220,
      total: gross - 100 + 650 + 220,
      cancelled: false,
      fulfillmentType: 'ship',
      locationExternalId: null,
      customer: { name: 'Ana Lima', email: 'ana@example.com', phone: '555-0142' },
      shippingAddress: {
        name: 'Ana Lima',
        address1: '5 Cedar Ct',
        city: 'Boise',
        province: 'Idaho',
        zip: '83702',
        country: 'US',
      },
      billingAddress: { address1: '5 Cedar Ct', phone: '555-0142' },
      note: 'Back door',
      adminUrl: null,
    });
    expect(order.lines.reduce((s, l) => s + (l.tax ?? 0), 0)).toBe(220);
    expect(order.lines.reduce((s, l) => s + (l.discount ?? 0), 0)).toBe(100);
    expect(order.lines.map((l) => [l.sku, l.stockLocationExternalId, l.fulfilledQuantity])).toEqual([
      [skus[0], '1', 0],
      [skus[1], '1', 0],
    ]);
    expect(await connector.getOrder?.('999999')).toBeNull();
    expect(
      bigcommerce.orderWebhook?.('store/order/statusUpdated', { data: { type: 'order', id: Number(orderId) } }),
    ).toEqual({
      externalId: orderId,
    });
    // As stored: the event's payload is the body's `data` (webhooks.parse).
    expect(bigcommerce.orderWebhook?.('store/order/created', { type: 'order', id: Number(orderId) })).toEqual({
      externalId: orderId,
    });
    expect(bigcommerce.orderWebhook?.('store/sku/inventory/updated', { data: { type: 'sku', id: 1 } })).toBeNull();

    // A pickup order takes its units at the pickup location.
    const pickup = (await control('cancelstore', 'orders', {
      lines: [{ sku: skus[1], quantity: 1 }],
      location: '3',
      fulfillmentType: 'pickup',
    })) as { orderId: string };
    expect(await connector.getOrder?.(pickup.orderId)).toMatchObject({
      fulfillmentType: 'pickup',
      locationExternalId: '3',
      shippingAddress: null,
      lines: [{ stockLocationExternalId: '3' }],
    });

    // Cancel: BigCommerce puts the units back where it took them; again is harmless.
    expect(await connector.cancelOrder?.({ externalId: orderId, reason: 'customer' })).toEqual({ ok: true });
    expect(await connector.cancelOrder?.({ externalId: pickup.orderId })).toEqual({ ok: true });
    expect(await connector.cancelOrder?.({ externalId: pickup.orderId })).toEqual({ ok: true });
    const after = await snapshot('cancelstore');
    expect([after.stock[skus[0]]?.['1'], after.stock[skus[1]]?.['3']]).toEqual([
      snap.stock[skus[0]]?.['1'],
      snap.stock[skus[1]]?.['3'],
    ]);
    expect(await connector.getOrder?.(orderId)).toMatchObject({
      cancelled: true,
      fulfillmentStatus: 'cancelled',
      lines: [{ cancelledQuantity: 2 }, { cancelledQuantity: 1 }],
    });
    await expect(connector.cancelOrder?.({ externalId: '999999' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('orders read together', () => {
  it('reads a burst of orders in one request per 250 ids, each as getOrder reads it, and unknown ids as null', async () => {
    const { connector } = connectorFor(await tokenFor('batchstore'));
    const snap = await snapshot('batchstore');
    const skus = Object.entries(snap.stock)
      .filter(([, q]) => (q['1'] ?? 0) >= 3 && (q['3'] ?? 0) >= 1)
      .map(([sku]) => sku);
    const placed: string[] = [];
    for (let i = 0; i < 3; i++) {
      const { orderId } = (await control('batchstore', 'orders', {
        lines: [{ sku: skus[i % skus.length] as string, quantity: 1 }],
        ...(i === 1 ? { location: '3', fulfillmentType: 'pickup' } : {}),
      })) as { orderId: string };
      placed.push(orderId);
    }
    const sendSpy = vi.spyOn(providerTransport, 'send');
    const read = await connector.getOrders?.([placed[2] as string, placed[0] as string, placed[1] as string, 'x1']);
    // One list request for the three (their ids are within 250 of each other), none for the id that is not one.
    expect(sendSpy.mock.calls.map(([url]) => new URL(String(url)).pathname.replace(/.*\/v2/, '/v2'))).toEqual([
      '/v2/orders',
    ]);
    sendSpy.mockRestore();
    expect([...(read?.keys() ?? [])].sort()).toEqual([...placed, 'x1'].sort());
    expect(read?.get('x1')).toBeNull();
    for (const id of placed) expect(read?.get(id)).toEqual(await connector.getOrder?.(id));
    expect(read?.get(placed[1] as string)).toMatchObject({ fulfillmentType: 'pickup', locationExternalId: '3' });

    // An id the list leaves out (no such order) is read on its own after it, and is null as getOrder says.
    const spy = vi.spyOn(providerTransport, 'send');
    const paths = () => spy.mock.calls.map(([url]) => new URL(String(url)).pathname.replace(/.*\/v2/, '/v2'));
    const missing = String(Number(placed[2]) + 1);
    const again = await connector.getOrders?.([placed[0] as string, missing]);
    expect(paths()).toEqual(['/v2/orders', `/v2/orders/${missing}`]);
    expect(again?.get(missing)).toBeNull();
    expect(again?.get(placed[0] as string)).toMatchObject({ externalId: placed[0], lines: [{ quantity: 1 }] });
    // Ids far apart are not read as a range full of other orders: each on its own.
    spy.mockClear();
    const far = String(Number(placed[0]) + 200);
    await connector.getOrders?.([placed[0] as string, far]);
    expect(paths()).toEqual([`/v2/orders/${placed[0]}`, `/v2/orders/${far}`]);
    spy.mockRestore();
  });
});

describe('webhooks', () => {
  it('subscribes once per scope, and deliveries verify while forged ones do not', async () => {
    const hash = 'hookstore';
    const credentials = await tokenFor(hash);
    const { connector } = connectorFor(credentials);
    const callback = `${receiverUrl}/webhooks/bigcommerce`;
    await connector.subscribeWebhooks(`${receiverUrl}/old-address`);
    await connector.subscribeWebhooks(callback);
    await connector.subscribeWebhooks(callback);
    const hooks = (await (
      await fetch(`${endpoints.bigcommerce.apiUrl}/stores/${hash}/v3/hooks`, {
        headers: { 'x-auth-token': credentials.accessToken, accept: 'application/json' },
      })
    ).json()) as { data: { scope: string; destination: string }[] };
    expect(hooks.data.map((h) => h.scope).sort()).toEqual([...WEBHOOK_SCOPES].sort());
    expect(new Set(hooks.data.map((h) => h.destination))).toEqual(new Set([callback]));

    received.length = 0;
    const sku = Object.keys((await snapshot(hash)).stock)[0] as string;
    // Seeded stock is at most 40, so 41 is a change.
    await control(hash, 'stock', { sku, location: '2', quantity: 41 });
    const { orderId } = (await control(hash, 'orders', { lines: [{ sku, quantity: 1 }] })) as { orderId: string };
    await fetch(`${sandbox.url}/_control/deliveries/settle`, { method: 'POST' });
    const verifier = bigcommerce.webhooks(endpoints);
    const deliveries = received.filter((r) => r.url === '/webhooks/bigcommerce');
    const events = deliveries.map((d) => {
      const req = { rawBody: d.rawBody, headers: d.headers, url: `${receiverUrl}${d.url}` };
      expect(verifier.verify(req)).toBe(true);
      return verifier.parse(req);
    });
    // One location-aware event per stock change (the variant-level one is not subscribed: it says less).
    // Deliveries are concurrent, so their order of arrival is not fixed.
    expect(events).toHaveLength(3);
    expect(events.map((e) => [e.topic, e.payload])).toEqual(
      expect.arrayContaining([
        ['store/channel/1/inventory/product/stock_changed', expect.objectContaining({ location_id: 2 })],
        ['store/order/created', { type: 'order', id: Number(orderId) }],
        ['store/channel/1/inventory/product/stock_changed', expect.objectContaining({ location_id: 1 })],
      ]),
    );
    expect(events.every((e) => e.shopExternalId === hash && e.provider === 'bigcommerce')).toBe(true);
    expect(new Set(events.map((e) => e.eventId)).size).toBe(3);

    const d = deliveries[0] as (typeof deliveries)[number];
    const forgedBody = Buffer.from(d.rawBody.toString().replace('"scope"', '"scope" '));
    expect(verifier.verify({ rawBody: forgedBody, headers: d.headers, url: '' })).toBe(false);
    const wrongKey = bigcommerce.webhooks({
      ...endpoints,
      bigcommerce: { ...endpoints.bigcommerce, clientSecret: 'guess' },
    });
    expect(wrongKey.verify({ rawBody: d.rawBody, headers: d.headers, url: '' })).toBe(false);
    expect(
      verifier.verify({ rawBody: d.rawBody, headers: { ...d.headers, 'webhook-signature': undefined }, url: '' }),
    ).toBe(false);
  });

  it('refuses a correctly signed delivery that is too old to be fresh', async () => {
    const verifier = bigcommerce.webhooks(endpoints);
    const { createHmac } = await import('node:crypto');
    const body = Buffer.from(
      '{"scope":"store/order/created","hash":"h","producer":"stores/x","created_at":1,"data":{}}',
    );
    const sign = (ts: number) =>
      `v1,${createHmac('sha256', endpoints.bigcommerce.clientSecret).update(`msg_1.${ts}.${body}`).digest('base64')}`;
    const now = Math.floor(Date.now() / 1000);
    const headers = (ts: number) => ({
      'webhook-id': 'msg_1',
      'webhook-timestamp': String(ts),
      'webhook-signature': sign(ts),
    });
    expect(verifier.verify({ rawBody: body, headers: headers(now), url: '' })).toBe(true);
    expect(verifier.verify({ rawBody: body, headers: headers(now - 600), url: '' })).toBe(false);
  });
});

/**
 * For the tests about lost answers (what is created, and how often), not about backoff: the random part of every
 * retry's wait (providerRequest's full jitter, createOnce's) is pinned at a fifth of its range. Retries still wait
 * and still back off, but a run of faults on one call no longer sits out up to 4 s of random waits. Math.random
 * serves only backoff jitter in the connectors and the simulator (whose faults are drawn from a seeded generator).
 */
const pinBackoffJitter = () => vi.spyOn(Math, 'random').mockReturnValue(0.2);

describe('resilience', () => {
  it('reads the catalog and pushes all inventory correctly through 429s, 5xx and timeouts', {
    timeout: 120_000,
  }, async () => {
    const hash = 'faultystore';
    const credentials = await tokenFor(hash);
    const expected = await allProducts(connectorFor(credentials).connector);
    const levels = await allLevels(connectorFor(credentials).connector);
    sandbox.ctx.faults.set('bigcommerce', hash, { rate429: 0.05, rate5xx: 0.15, rateTimeout: 0.2, timeoutMs: 100 });
    const { connector, logs } = connectorFor(credentials, { timeoutMs: 400, maxRetries: 12 });

    const { products } = await allProducts(connector);
    expect(products).toEqual(expected.products);

    const changes: InventorySet[] = [...levels.keys()].map((key, i) => {
      const [inventoryItemId, locationExternalId] = key.split('@') as [string, string];
      return { inventoryItemId, locationExternalId, quantity: (i * 3) % 41 };
    });
    const result = await connector.setInventory(changes);
    expect(result.failed).toEqual([]);
    sandbox.ctx.faults.clear();
    const after = await allLevels(connectorFor(credentials).connector);
    for (const c of changes) expect(after.get(`${c.inventoryItemId}@${c.locationExternalId}`)).toBe(c.quantity);
    // The faults really happened and were retried: seeded draws put a 5xx, a dropped connection and a 429 among
    // the first calls of every run, at rates low enough that backoff and Retry-After waits do not pile up.
    expect(logs.filter((l) => l.msg === 'provider call failed; retrying').length).toBeGreaterThan(0);
    const statuses = logs.map((l) => Number(l.status)).filter((s) => s > 0);
    expect(statuses).toContain(429);
    expect(statuses.some((s) => s >= 500)).toBe(true);
    expect(logs.some((l) => /timed out|network error/.test(String(l.msg)))).toBe(true);
    expect(JSON.stringify(logs)).not.toContain(credentials.accessToken);
  });

  it('creates exactly one product, shipment and refund when answers are lost on the way back', {
    timeout: 120_000,
  }, async () => {
    const hash = 'lostanswers';
    const credentials = await tokenFor(hash);
    const sku = Object.keys((await snapshot(hash)).stock)[0] as string;
    const { orderId } = (await control(hash, 'orders', { lines: [{ sku, quantity: 2 }] })) as { orderId: string };
    const since = new Date(Date.now() - 2000).toISOString();
    const plain = connectorFor(credentials).connector;
    const order = (await plain.listOrders({ cursor: null, since })).items.find((o) => o.externalId === orderId);
    const line = order?.lines[0];
    sandbox.ctx.faults.set('bigcommerce', hash, { rate429: 0.05, rate5xx: 0.05, rateTimeout: 0.3, timeoutMs: 100 });
    const { connector } = connectorFor(credentials, { timeoutMs: 400, maxRetries: 12 });
    const sendSpy = vi.spyOn(providerTransport, 'send');
    const jitter = pinBackoffJitter();

    const product = await connector.createProduct({
      title: 'Lost Answer Lamp',
      variants: [{ sku: 'LOST-LAMP', price: 4500 }],
    });
    await connector.createFulfillment({
      orderExternalId: orderId,
      lines: [{ lineExternalId: line?.externalId as string, quantity: 1 }],
      tracking: { company: 'USPS', number: 'LOST1' },
    });
    await connector.refund({
      orderExternalId: orderId,
      amount: line?.price as number,
      currency: 'USD',
      lines: [{ lineExternalId: line?.externalId as string, quantity: 1 }],
    });
    jitter.mockRestore();
    sandbox.ctx.faults.clear();

    // biome-ignore lint/suspicious/noExplicitAny: raw provider JSON, checked field by field below
    const get = async (path: string): Promise<any> => {
      const res = await fetch(`${endpoints.bigcommerce.apiUrl}/stores/${hash}${path}`, {
        headers: { 'x-auth-token': credentials.accessToken, accept: 'application/json' },
      });
      return res.status === 204 ? [] : res.json();
    };
    const lamps = (await get('/v3/catalog/variants?sku=LOST-LAMP')).data;
    expect(lamps.map((v: { product_id: number }) => String(v.product_id))).toEqual([product.externalId]);
    expect(await get(`/v2/orders/${orderId}/shipments`)).toHaveLength(1);
    expect((await get(`/v3/orders/${orderId}/payment_actions/refunds`)).data).toHaveLength(1);
    // Some writes were sent more than once (their first answer was lost or refused), yet each happened once.
    const writes = sendSpy.mock.calls
      .filter(([, init]) => init?.method === 'POST')
      .map(([url]) => new URL(String(url)).pathname);
    expect(writes.length).toBeGreaterThan(new Set(writes).size);
  });

  it('subscribes every scope exactly once when answers are lost', { timeout: 120_000 }, async () => {
    const hash = 'losthooks';
    const credentials = await tokenFor(hash);
    sandbox.ctx.faults.set('bigcommerce', hash, { rate429: 0.05, rate5xx: 0.05, rateTimeout: 0.3, timeoutMs: 100 });
    const { connector } = connectorFor(credentials, { timeoutMs: 400, maxRetries: 12 });
    const sendSpy = vi.spyOn(providerTransport, 'send');
    const jitter = pinBackoffJitter();
    await connector.subscribeWebhooks(`${receiverUrl}/webhooks/bigcommerce`);
    jitter.mockRestore();
    sandbox.ctx.faults.clear();
    const hooks = (await (
      await fetch(`${endpoints.bigcommerce.apiUrl}/stores/${hash}/v3/hooks?limit=250`, {
        headers: { 'x-auth-token': credentials.accessToken, accept: 'application/json' },
      })
    ).json()) as { data: { scope: string }[] };
    expect(hooks.data.map((h) => h.scope).sort()).toEqual([...WEBHOOK_SCOPES].sort());
    const posts = sendSpy.mock.calls.filter(
      ([url, init]) => String(url).endsWith('/v3/hooks') && init?.method === 'POST',
    );
    expect(posts.length).toBeGreaterThan(WEBHOOK_SCOPES.length);
    // At least one answer was really lost: the retry met the hook its first attempt had made.
    const answers = await Promise.all(
      sendSpy.mock.results.map(async (result, i) => {
        const [url, init] = sendSpy.mock.calls[i] ?? [];
        if (!String(url).endsWith('/v3/hooks') || init?.method !== 'POST') return null;
        const res = await Promise.resolve(result.value as Promise<TransportAnswer>).catch(() => null);
        return res?.status ?? null;
      }),
    );
    expect(answers).toContain(422);
  });

  it('slows down on the store’s X-Rate-Limit signals instead of running into 429s', { timeout: 30_000 }, async () => {
    const hash = 'busystore';
    const credentials = await tokenFor(hash);
    sandbox.ctx.options.bigcommerce = { rateLimitQuota: 10, rateLimitWindowMs: 500 };
    try {
      const { connector } = connectorFor(credentials);
      const sendSpy = vi.spyOn(providerTransport, 'send');
      const started = Date.now();
      const shops = await Promise.all(Array.from({ length: 25 }, () => connector.getShop()));
      expect(shops).toHaveLength(25);
      const statuses = await Promise.all(
        sendSpy.mock.results.map(async (r) => ((await r.value) as TransportAnswer).status),
      );
      // Every call went through the transport (so the check below looked at them), and none met a 429.
      expect(statuses.length).toBeGreaterThanOrEqual(25);
      expect(statuses.filter((s) => s === 429)).toEqual([]);
      // 25 requests at 10 per half-second window need at least two window resets.
      expect(Date.now() - started).toBeGreaterThanOrEqual(750);
    } finally {
      sandbox.ctx.options.bigcommerce = undefined;
    }
  });

  it('waits out a 429 for as long as BigCommerce says, then succeeds', { timeout: 30_000 }, async () => {
    const hash = 'spentstore';
    const credentials = await tokenFor(hash);
    sandbox.ctx.options.bigcommerce = { rateLimitQuota: 3, rateLimitWindowMs: 1000 };
    try {
      // Another app on the same store spends the shared quota.
      for (let i = 0; i < 3; i++) {
        await fetch(`${endpoints.bigcommerce.apiUrl}/stores/${hash}/v2/store`, {
          headers: { 'x-auth-token': credentials.accessToken },
        });
      }
      const { connector } = connectorFor(credentials);
      const started = Date.now();
      await expect(connector.getShop()).resolves.toMatchObject({ externalId: hash });
      expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    } finally {
      sandbox.ctx.options.bigcommerce = undefined;
    }
  });
});
