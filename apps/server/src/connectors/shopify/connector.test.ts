import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RunningSandbox } from '@switchyard/sandbox';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { memoryLogger, TEST_PROVIDER_SECRETS } from '../../../test/app.ts';
import { startTestSandbox } from '../../../test/sandbox.ts';
import { Config } from '../../config.ts';
import { DomainError } from '../../lib/errors.ts';
import { type ProviderEndpoints, resolveProviders } from '../../providers.ts';
import { providerTransport } from '../http.ts';
import type { ChannelCredentials, Connector, InventoryLevel, InventorySet, ProviderProduct } from '../types.ts';
import { shopLimiter } from './client.ts';
import { shopify } from './index.ts';
import { connectShop, controlApi } from './testing.ts';

let sandbox: RunningSandbox;
let endpoints: ProviderEndpoints;
let ctl: ReturnType<typeof controlApi>;

beforeAll(async () => {
  sandbox = await startTestSandbox({ products: 60 });
  endpoints = resolveProviders(
    Config.parse({ NODE_ENV: 'test', DATA_DIR: '/nonexistent' }),
    sandbox.url,
    TEST_PROVIDER_SECRETS,
  );
  ctl = controlApi(sandbox.url);
});

afterAll(async () => {
  await sandbox.close();
});

afterEach(() => {
  sandbox.ctx.faults.clear();
  vi.restoreAllMocks();
});

/**
 * A connected shop. Tests that are not about throttling put the shop on Shopify Plus's bucket (20,000
 * points, 1,000/s) so a full read does not wait on Standard's 50 points a second.
 */
async function connected(
  shop: string,
  options: { timeoutMs?: number; maxRetries?: number; plan?: 'standard' | 'plus' | 'enterprise' } = {},
) {
  const { plan = 'plus', ...connectorOptions } = options;
  await ctl.call(`/shopify/${shop}/plan`, { plan });
  const credentials: ChannelCredentials = await connectShop(endpoints, shop);
  const logs = memoryLogger();
  const connector = shopify.connect(endpoints, credentials, { logger: logs.logger, ...connectorOptions });
  return { connector, credentials, logs: logs.lines };
}

/** A receiver for the shop's webhooks: topic and parsed body of each delivery. */
async function webhookReceiver() {
  const received: { topic: string; body: Record<string, unknown> }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({
        topic: String(req.headers['x-shopify-topic']),
        body: JSON.parse(Buffer.concat(chunks).toString()),
      });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    received,
    close: () => new Promise((r) => server.close(r)),
  };
}

async function allProducts(connector: Connector): Promise<ProviderProduct[]> {
  const out: ProviderProduct[] = [];
  let cursor: string | null = null;
  do {
    const page = await connector.listProducts(cursor);
    out.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor);
  return out;
}

async function allLevels(connector: Connector): Promise<InventoryLevel[]> {
  const out: InventoryLevel[] = [];
  let cursor: string | null = null;
  do {
    const page = await connector.getInventoryLevels({ cursor });
    out.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor);
  return out;
}

/** sku → location → available, as the connector reads it. */
function stockOf(products: ProviderProduct[], levels: InventoryLevel[]) {
  const skuOf = new Map(products.flatMap((p) => p.variants.map((v) => [v.inventoryItemId, v.sku as string])));
  const stock: Record<string, Record<string, number>> = {};
  for (const l of levels) {
    const sku = skuOf.get(l.inventoryItemId) as string;
    stock[sku] ??= {};
    (stock[sku] as Record<string, number>)[l.locationExternalId] = l.available;
  }
  return stock;
}

/** Counts inventorySetQuantities calls and the rows each carried. */
function spyOnInventoryBatches() {
  const sizes: number[] = [];
  const original = providerTransport.send;
  vi.spyOn(providerTransport, 'send').mockImplementation(async (url, init) => {
    const body = init.body ?? '';
    if (body.includes('inventorySetQuantities'))
      sizes.push(
        (JSON.parse(body) as { variables: { input: { quantities: unknown[] } } }).variables.input.quantities.length,
      );
    return original(url, init);
  });
  return sizes;
}

describe('Shopify connector: catalog and stock', () => {
  let connector: Connector;
  beforeAll(async () => {
    ({ connector } = await connected('catalog-demo'));
  });

  it('lists the shop’s locations with their addresses', async () => {
    const snap = await ctl.snapshot('catalog-demo');
    const locations = await connector.listLocations();
    expect(locations.map((l) => [l.externalId, l.name]).sort()).toEqual(
      snap.locations.map((l) => [l.id, l.name]).sort(),
    );
    expect(locations.every((l) => l.active && l.address?.city && l.address.country === 'US')).toBe(true);
  });

  it('reads the whole catalog page by page, money in minor units', async () => {
    const snap = await ctl.snapshot('catalog-demo');
    const products = await allProducts(connector);
    expect(products).toHaveLength(snap.products);
    const variants = products.flatMap((p) => p.variants);
    expect(variants).toHaveLength(snap.variants);
    expect(new Set(variants.map((v) => v.sku))).toEqual(new Set(Object.keys(snap.stock)));
    for (const v of variants) {
      expect(Number.isInteger(v.price)).toBe(true);
      expect(v.price % 100).toBe(99); // the seed's prices end in .99
      expect(v.inventoryItemId).toMatch(/^gid:\/\/shopify\/InventoryItem\/\d+$/);
      expect(v.barcode).toMatch(/^\d{13}$/);
    }
    expect(products.every((p) => p.status === 'active' && p.brand && p.productType)).toBe(true);
  });

  it('reads every inventory level, and they match what the shop holds', async () => {
    const snap = await ctl.snapshot('catalog-demo');
    const products = await allProducts(connector);
    const levels = await allLevels(connector);
    expect(levels.length).toBe(snap.variants * snap.locations.length);
    expect(stockOf(products, levels)).toEqual(snap.stock);
    const one = snap.locations[1]?.id as string;
    const only = await connector.getInventoryLevels({ cursor: null, locationExternalIds: [one] });
    expect(only.items.every((l) => l.locationExternalId === one)).toBe(true);
  });

  it('sets stock in batches of 250 with compare-and-set, reporting stale rows as mismatches', async () => {
    const snap = await ctl.snapshot('catalog-demo');
    const products = await allProducts(connector);
    const levels = await allLevels(connector);
    const skuOf = new Map(products.flatMap((p) => p.variants.map((v) => [v.inventoryItemId, v.sku as string])));
    const changes: InventorySet[] = levels.slice(0, 300).map((l, i) => ({
      inventoryItemId: l.inventoryItemId,
      locationExternalId: l.locationExternalId,
      quantity: 100 + i,
      compareQuantity: i === 7 ? l.available + 5 : l.available,
    }));
    const sizes = spyOnInventoryBatches();
    const result = await connector.setInventory(changes);
    expect(Math.max(...sizes)).toBe(250);
    expect(sizes[0]).toBe(250);
    expect(result.failed).toEqual([
      {
        change: changes[7],
        reason: expect.stringContaining('Shopify holds'),
        mismatch: true,
        held: { available: (levels[7] as InventoryLevel).available, at: expect.any(Date) },
      },
    ]);
    expect(result.applied).toHaveLength(299);
    const after = await ctl.snapshot('catalog-demo');
    for (const [i, c] of changes.entries()) {
      const sku = skuOf.get(c.inventoryItemId) as string;
      const expected = i === 7 ? snap.stock[sku]?.[c.locationExternalId] : 100 + i;
      expect(after.stock[sku]?.[c.locationExternalId]).toBe(expected);
    }
  });

  it('sends a keyed stock set once: the same changes with the same key get the first answer, not a second set', async () => {
    const levels = (await allLevels(connector)).slice(10, 14);
    const [a, b, c, d] = levels as [InventoryLevel, InventoryLevel, InventoryLevel, InventoryLevel];
    const level = (l: InventoryLevel) => ({
      inventoryItemId: l.inventoryItemId,
      locationExternalId: l.locationExternalId,
    });
    const holds = async () => (await connector.readInventory(levels.map(level))).map((l) => l.available);
    // Compare-and-set rows (one stale) and an unconditional one, in one keyed call.
    const changes: InventorySet[] = [
      { ...level(a), quantity: a.available + 4, compareQuantity: a.available },
      { ...level(b), quantity: b.available + 4, compareQuantity: b.available + 1 },
      { ...level(c), quantity: 40, compareQuantity: null },
    ];
    const sizes = spyOnInventoryBatches();
    const first = await connector.setInventory(changes, { idempotencyKey: 'push-key-1' });
    expect(first.applied).toEqual([changes[0], changes[2]]);
    expect(first.failed).toEqual([
      {
        change: changes[1],
        reason: expect.stringContaining('Shopify holds'),
        mismatch: true,
        held: { available: b.available, at: expect.any(Date) },
      },
    ]);
    const after = await holds();
    expect(after).toEqual([a.available + 4, b.available, 40, d.available]);
    // Someone sets one level in Shopify; our call is repeated (its answer was lost), rows in another order.
    await connector.setInventory([{ ...level(c), quantity: 41, compareQuantity: null }]);
    const again = await connector.setInventory([...changes].reverse(), { idempotencyKey: 'push-key-1' });
    expect(new Set(again.applied)).toEqual(new Set([changes[0], changes[2]]));
    expect(again.failed.map((f) => f.change)).toEqual([changes[1]]);
    // Shopify answered from the first calls: nothing was set again (41 stays), and no row was sent twice as new.
    expect(await holds()).toEqual([a.available + 4, b.available, 41, d.available]);
    // A new key is a new call: compared with what Shopify holds, it lands.
    const next = await connector.setInventory([{ ...level(d), quantity: 9, compareQuantity: d.available }], {
      idempotencyKey: 'push-key-2',
    });
    expect(next.failed).toEqual([]);
    expect((await holds())[3]).toBe(9);
    expect(sizes.length).toBeGreaterThanOrEqual(5);
  });

  it('sets stock unconditionally without compareQuantity', async () => {
    const [level] = await allLevels(connector);
    if (!level) throw new Error('no levels');
    const result = await connector.setInventory([{ ...level, quantity: 3, compareQuantity: null }]);
    expect(result).toEqual({ applied: [{ ...level, quantity: 3, compareQuantity: null }], failed: [] });
    const again = await connector.getInventoryLevels({ cursor: null, locationExternalIds: [level.locationExternalId] });
    expect(again.items.find((l) => l.inventoryItemId === level.inventoryItemId)?.available).toBe(3);
  });

  it('creates a product with many variants and updates prices, details and new variants', async () => {
    const created = await connector.createProduct({
      title: 'Switchyard Test Jacket',
      brand: 'Northwind',
      productType: 'Apparel',
      description: '<p>Warm.</p>',
      images: ['https://cdn.example.com/jacket.jpg'],
      variants: Array.from({ length: 20 }, (_, i) => ({
        sku: `JKT-${i}`,
        title: `Size ${i}`,
        price: 12999,
        compareAtPrice: i === 0 ? 15999 : null,
        barcode: i === 0 ? '0840000999996' : null,
      })),
    });
    expect(created.title).toBe('Switchyard Test Jacket');
    expect(created.brand).toBe('Northwind');
    expect(created.images).toEqual(['https://cdn.example.com/jacket.jpg']);
    expect(created.variants.map((v) => v.sku)).toEqual(Array.from({ length: 20 }, (_, i) => `JKT-${i}`));
    expect(created.variants[0]).toMatchObject({ price: 12999, compareAtPrice: 15999, barcode: '0840000999996' });

    const updated = await connector.updateProduct(created.externalId, {
      title: 'Switchyard Test Jacket II',
      variants: [
        { sku: 'JKT-0', price: 9900, compareAtPrice: null },
        { sku: 'JKT-NEW', title: 'Size 99', price: 14900 },
      ],
    });
    expect(updated.title).toBe('Switchyard Test Jacket II');
    expect(updated.variants.find((v) => v.sku === 'JKT-0')).toMatchObject({ price: 9900, compareAtPrice: null });
    expect(updated.variants.find((v) => v.sku === 'JKT-NEW')).toMatchObject({ price: 14900, title: 'Size 99' });
    expect(updated.variants).toHaveLength(21);
    const snap = await ctl.snapshot('catalog-demo');
    expect(Object.keys(snap.stock['JKT-NEW'] ?? {})).toHaveLength(snap.locations.length);
  });
  it('adds variants to a product made in Shopify with its own options (Size, Color)', async () => {
    const products = await allProducts(connector);
    const jacket = products.find((p) => p.variants.some((v) => (v.title ?? '').split(' / ').length === 2));
    if (!jacket) throw new Error('no two-option product in the seed');
    const [size, color] = (jacket.variants[0]?.title ?? '').split(' / ') as [string, string];
    const updated = await connector.updateProduct(jacket.externalId, {
      variants: [
        // A title naming both options, in a new combination, becomes those values.
        { sku: 'TWO-OPT-1', title: `${size} / Plum`, price: 5000 },
        // One that names no values gets a new value of the first option; one that names a combination the
        // product has, a first value of its own.
        { sku: 'TWO-OPT-2', title: 'Gift edition', price: 5100 },
        { sku: 'TWO-OPT-3', title: `${size} / ${color}`, price: 5200 },
      ],
    });
    const added = new Map(updated.variants.map((v) => [v.sku, v.title]));
    expect(added.get('TWO-OPT-1')).toBe(`${size} / Plum`);
    expect(added.get('TWO-OPT-2')).toBe(`Gift edition / ${color}`);
    expect(added.get('TWO-OPT-3')).toBe(`${size} (TWO-OPT-3) / ${color}`);
    expect(updated.variants).toHaveLength(jacket.variants.length + 3);
  });
});

describe('Shopify connector: orders', () => {
  let connector: Connector;
  beforeAll(async () => {
    ({ connector } = await connected('orders-demo'));
  });

  it('lists orders since a time across pages, then fulfils one with tracking and refunds part of it', async () => {
    const snap = await ctl.snapshot('orders-demo');
    const skus = Object.entries(snap.stock)
      .filter(([, q]) => Object.values(q).every((n) => n >= 2))
      .map(([sku]) => sku);
    const since = new Date(Date.now() - 1500).toISOString();
    const placed: string[] = [];
    for (let i = 0; i < 10; i++) {
      const { orderId } = (await ctl.call('/shopify/orders-demo/orders', {
        lines: [
          { sku: skus[i], quantity: 1 },
          { sku: skus[i + 10], quantity: 2 },
        ],
      })) as { orderId: string };
      placed.push(orderId);
    }
    const orders = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = await connector.listOrders({ cursor, since });
      orders.push(...page.items);
      cursor = page.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(2);
    expect(orders.map((o) => o.externalId).sort()).toEqual([...placed].sort());
    const order = orders.find((o) => o.externalId === placed[0]);
    if (!order) throw new Error('order missing');
    expect(order).toMatchObject({
      currency: 'USD',
      financialStatus: 'paid',
      fulfillmentStatus: 'unfulfilled',
      cancelled: false,
      fulfillmentType: 'ship',
      customer: { name: expect.any(String), email: expect.stringContaining('@') },
    });
    expect(order.lines.map((l) => [l.sku, l.quantity])).toEqual([
      [skus[0], 1],
      [skus[10], 2],
    ]);
    expect(order.total).toBe(order.lines.reduce((s, l) => s + l.price * l.quantity, 0) + 599);

    const fulfillment = await connector.createFulfillment({
      orderExternalId: order.externalId,
      lines: order.lines.map((l) => ({ lineExternalId: l.externalId, quantity: l.quantity })),
      tracking: { company: 'UPS', number: '1Z999AA10123456784' },
    });
    expect(fulfillment.externalId).toMatch(/^gid:\/\/shopify\/Fulfillment\//);
    await expect(
      connector.createFulfillment({
        orderExternalId: order.externalId,
        lines: [{ lineExternalId: order.lines[0]?.externalId as string, quantity: 1 }],
      }),
    ).rejects.toBeInstanceOf(DomainError);

    const refund = await connector.refund({
      orderExternalId: order.externalId,
      amount: 500,
      currency: 'USD',
      reason: 'Scuffed box',
      lines: [{ lineExternalId: order.lines[1]?.externalId as string, quantity: 1 }],
    });
    expect(refund.externalId).toMatch(/^gid:\/\/shopify\/Refund\//);
    await expect(
      connector.refund({ orderExternalId: order.externalId, amount: 10_000_000, currency: 'USD' }),
    ).rejects.toThrow(/refundable/);

    const later = [];
    cursor = null;
    do {
      const page = await connector.listOrders({ cursor, since });
      later.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor);
    const after = later.find((o) => o.externalId === order.externalId);
    expect(after).toMatchObject({ financialStatus: 'partially_refunded', fulfillmentStatus: 'fulfilled' });

    // Without lines, everything still open on the order ships.
    await connector.createFulfillment({ orderExternalId: placed[1] as string, lines: [] });
    const whole = [];
    cursor = null;
    do {
      const page = await connector.listOrders({ cursor, since });
      whole.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor);
    expect(whole.find((o) => o.externalId === placed[1])?.fulfillmentStatus).toBe('fulfilled');
    expect(whole.find((o) => o.externalId === placed[2])?.fulfillmentStatus).toBe('unfulfilled');
  });
});

describe('Shopify connector: order import and cancel', () => {
  it('maps a web order in full, reads it again, takes its webhook, and cancels it with a restock at Shopify', async () => {
    const { connector } = await connected('orders-full');
    const snap = await ctl.snapshot('orders-full');
    const store = snap.locations[2]?.id as string;
    const skus = Object.entries(snap.stock)
      .filter(([, q]) => (q[store] ?? 0) >= 2)
      .map(([sku]) => sku);
    const hooks = await webhookReceiver();
    await connector.subscribeWebhooks(hooks.url);
    const { orderId } = (await ctl.call('/shopify/orders-full/orders', {
      lines: [
        { sku: skus[0], quantity: 2 },
        { sku: skus[1], quantity: 1 },
      ],
      location: store,
      customer: { name: 'Sam Ortiz', email: 'sam@example.com', phone: '+15035550100' },
      shippingAddress: {
        name: 'Sam Ortiz',
        address1: '1 Pine St',
        city: 'Bend',
        province: 'OR',
        zip: '97701',
        country: 'US',
      },
      note: 'Gift wrap',
      tags: ['gift'],
      discount: 200,
      tax: 150,
      shipping: 500,
    })) as { orderId: string };
    const order = await connector.getOrder?.(orderId);
    if (!order) throw new Error('order missing');
    expect(order).toMatchObject({
      externalId: orderId,
      name: expect.stringMatching(/^#\d+$/),
      currency: 'USD',
      shippingTotal: 500,
      discountTotal: 200,
      taxTotal: 150,
      financialStatus: 'paid',
      fulfillmentStatus: 'unfulfilled',
      cancelled: false,
      fulfillmentType: 'ship',
      locationExternalId: null,
      customer: { name: 'Sam Ortiz', email: 'sam@example.com', phone: '+15035550100' },
      shippingAddress: {
        name: 'Sam Ortiz',
        address1: '1 Pine St',
        city: 'Bend',
        province: 'OR',
        zip: '97701',
        country: 'US',
      },
      billingAddress: { address1: '1 Pine St' },
      note: 'Gift wrap',
      tags: ['gift'],
      adminUrl: `${endpoints.shopify.shopUrl('orders-full')}/admin/orders/${orderId.split('/').pop()}`,
    });
    const gross = order.lines.reduce((s, l) => s + l.price * l.quantity, 0);
    expect(order.subtotal).toBe(gross - 200);
    expect(order.total).toBe(gross - 200 + 150 + 500);
    expect(order.lines.reduce((s, l) => s + (l.discount ?? 0), 0)).toBe(200);
    expect(order.lines.reduce((s, l) => s + (l.tax ?? 0), 0)).toBe(150);
    // Shopify committed the lines' units at the fulfillment order's location.
    expect(order.lines.map((l) => [l.sku, l.quantity, l.stockLocationExternalId, l.fulfilledQuantity])).toEqual([
      [skus[0], 2, store, 0],
      [skus[1], 1, store, 0],
    ]);
    expect(await connector.getOrder?.('gid://shopify/Order/1')).toBeNull();

    // The orders/create payload is the order: the module maps it, except where Shopify committed the units.
    await sandbox.ctx.webhooks.settled();
    const payload = hooks.received.find((r) => r.topic === 'orders/create' && r.body.admin_graphql_api_id === orderId);
    const hook = shopify.orderWebhook?.('orders/create', payload?.body);
    expect(hook).toEqual({
      order: expect.objectContaining({ externalId: orderId, name: order.name, total: order.total }),
    });
    if (!hook || !('order' in hook)) throw new Error('no order');
    const { adminUrl: _a, lines: hookLines, ...fromHook } = hook.order;
    const { adminUrl: _b, lines, ...fromRead } = order;
    expect(fromHook).toEqual(fromRead);
    expect(hookLines).toEqual(lines.map(({ stockLocationExternalId: _s, ...l }) => l));
    expect(hookLines[0]?.stockLocationExternalId).toBeUndefined();
    expect(shopify.orderWebhook?.('inventory_levels/update', {})).toBeNull();

    // Cancel: Shopify restocks the committed units where they were, and a second cancel is a no-op.
    const before = (await ctl.snapshot('orders-full')).stock[skus[0] as string]?.[store] as number;
    expect(await connector.cancelOrder?.({ externalId: orderId, reason: 'customer' })).toEqual({ ok: true });
    expect((await ctl.snapshot('orders-full')).stock[skus[0] as string]?.[store]).toBe(before + 2);
    expect(await connector.cancelOrder?.({ externalId: orderId, reason: 'customer' })).toEqual({ ok: true });
    expect(await connector.getOrder?.(orderId)).toMatchObject({
      cancelled: true,
      cancelReason: 'customer',
      financialStatus: 'refunded',
      lines: [
        { cancelledQuantity: 2, fulfilledQuantity: 0, stockLocationExternalId: store },
        { cancelledQuantity: 1, fulfilledQuantity: 0, stockLocationExternalId: store },
      ],
    });
    await expect(connector.cancelOrder?.({ externalId: 'gid://shopify/Order/1' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });

    // A pickup order names its store; an order Shopify has fulfilled cannot be cancelled.
    const pickup = (await ctl.call('/shopify/orders-full/orders', {
      lines: [{ sku: skus[2], quantity: 1 }],
      location: store,
      fulfillmentType: 'pickup',
    })) as { orderId: string };
    expect(await connector.getOrder?.(pickup.orderId)).toMatchObject({
      fulfillmentType: 'pickup',
      locationExternalId: store,
      shippingAddress: null,
      shippingTotal: 0,
      lines: [{ stockLocationExternalId: store }],
    });

    // Read together (a pass's orders): one query for both, each as getOrder reads it; unknown ids are null.
    const send = vi.spyOn(providerTransport, 'send');
    const together = await connector.getOrders?.([pickup.orderId, 'gid://shopify/Order/1', orderId, 'nope']);
    expect(send).toHaveBeenCalledTimes(1);
    send.mockRestore();
    expect(together).toEqual(
      new Map([
        [pickup.orderId, await connector.getOrder?.(pickup.orderId)],
        ['gid://shopify/Order/1', null],
        [orderId, await connector.getOrder?.(orderId)],
        ['nope', null],
      ]),
    );

    await connector.createFulfillment({ orderExternalId: pickup.orderId, lines: [] });
    expect((await connector.getOrder?.(pickup.orderId))?.lines[0]?.fulfilledQuantity).toBe(1);
    await expect(connector.cancelOrder?.({ externalId: pickup.orderId })).rejects.toMatchObject({
      code: 'INVALID_STATE',
    });

    // orders/cancelled carries the cancelled order.
    await sandbox.ctx.webhooks.settled();
    const cancelled = hooks.received.find((r) => r.topic === 'orders/cancelled');
    expect(shopify.orderWebhook?.('orders/cancelled', cancelled?.body)).toMatchObject({
      order: { externalId: orderId, cancelled: true, cancelReason: 'customer', financialStatus: 'refunded' },
    });
    await hooks.close();
  });
});

describe('Shopify connector: answers lost after Shopify applied a change', () => {
  it('counts a stock set whose answer was lost as applied, but a level someone else set to our quantity as a mismatch', async () => {
    const { connector } = await connected('set-dropped-demo');
    const products = await allProducts(connector);
    const levels = await allLevels(connector);
    const skuOf = new Map(products.flatMap((p) => p.variants.map((v) => [v.inventoryItemId, v.sku as string])));
    const [ours, theirs] = levels as [InventoryLevel, InventoryLevel];

    // Shopify applies our set, then the connection drops: the retry reads stale, and the read-back shows it landed.
    await ctl.call('/shopify/set-dropped-demo/drop-after-apply', { count: 1 });
    const mine = { ...ours, quantity: ours.available + 4, compareQuantity: ours.available };
    expect(await connector.setInventory([mine])).toEqual({ applied: [mine], failed: [] });

    // A merchant adds one in Shopify's admin just before our set of exactly that quantity arrives: not ours.
    await ctl.call('/shopify/set-dropped-demo/stock', {
      sku: skuOf.get(theirs.inventoryItemId),
      location: theirs.locationExternalId,
      delta: 1,
    });
    const set = { ...theirs, quantity: theirs.available + 1, compareQuantity: theirs.available };
    expect(await connector.setInventory([set])).toEqual({
      applied: [],
      failed: [
        {
          change: set,
          reason: `Shopify holds ${theirs.available + 1}, not ${theirs.available}`,
          mismatch: true,
          held: { available: theirs.available + 1, at: expect.any(Date) },
        },
      ],
    });
  });

  it('does not fulfil or refund twice when the connection drops after the mutation went through', async () => {
    const { connector, logs } = await connected('dropped-demo');
    const snap = await ctl.snapshot('dropped-demo');
    const sku = Object.entries(snap.stock).find(([, q]) => Object.values(q).every((n) => n >= 1))?.[0] as string;
    const since = new Date(Date.now() - 1000).toISOString();
    const { orderId } = (await ctl.call('/shopify/dropped-demo/orders', { lines: [{ sku, quantity: 1 }] })) as {
      orderId: string;
    };
    const order = (await connector.listOrders({ cursor: null, since })).items.find((o) => o.externalId === orderId);
    if (!order) throw new Error('order missing');

    await ctl.call('/shopify/dropped-demo/drop-after-apply', { count: 1 });
    const fulfillment = await connector.createFulfillment({
      orderExternalId: orderId,
      lines: [{ lineExternalId: order.lines[0]?.externalId as string, quantity: 1 }],
    });
    await ctl.call('/shopify/dropped-demo/drop-after-apply', { count: 1 });
    const refund = await connector.refund({ orderExternalId: orderId, amount: 250, currency: 'USD' });
    expect(logs.filter((l) => l.msg === 'mutation outcome unknown; checking before sending it again')).toHaveLength(2);

    const res = await fetch(`${endpoints.shopify.shopUrl('dropped-demo')}/admin/api/2025-01/graphql.json`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-shopify-access-token': (await connectShop(endpoints, 'dropped-demo')).accessToken,
      },
      body: JSON.stringify({
        query:
          'query($id: ID!) { order(id: $id) { fulfillments { id } refunds { id } totalRefundedSet { shopMoney { amount } } } }',
        variables: { id: orderId },
      }),
    });
    const held = (
      (await res.json()) as {
        data: {
          order: {
            fulfillments: { id: string }[];
            refunds: { id: string }[];
            totalRefundedSet: { shopMoney: { amount: string } };
          };
        };
      }
    ).data.order;
    expect(held.fulfillments.map((f) => f.id)).toEqual([fulfillment.externalId]);
    expect(held.refunds.map((r) => r.id)).toEqual([refund.externalId]);
    expect(held.totalRefundedSet.shopMoney.amount).toBe('2.50');
  });
});

describe('Shopify connector: resilience', () => {
  it('reads the full catalog and pushes the full inventory through 429s, 5xx and timeouts', async () => {
    // Each injected THROTTLED answer stands for another app that spent the shop's whole bucket; the reads then
    // wait for it to refill, page after page. On Enterprise's bucket (2,000 points a second, a plan Shopify has)
    // they wait half as long as on Plus's; the faults, their order and the retries are the same.
    const { connector, credentials, logs } = await connected('flaky-demo', {
      timeoutMs: 450,
      maxRetries: 12,
      plan: 'enterprise',
    });
    const cleanProducts = await allProducts(connector);
    const cleanLevels = await allLevels(connector);

    await ctl.call(
      '/shopify/flaky-demo/faults',
      { rate429: 0.2, rate5xx: 0.2, rateTimeout: 0.2, timeoutMs: 300 },
      'PUT',
    );
    const products = await allProducts(connector);
    expect(products).toEqual(cleanProducts);
    const levels = await allLevels(connector);
    expect(levels).toEqual(cleanLevels);

    const changes: InventorySet[] = levels.map((l, i) => ({
      inventoryItemId: l.inventoryItemId,
      locationExternalId: l.locationExternalId,
      quantity: (i * 7) % 50,
      compareQuantity: l.available,
    }));
    const result = await connector.setInventory(changes);
    expect(result.failed).toEqual([]);
    expect(result.applied).toHaveLength(changes.length);

    await ctl.call('/shopify/flaky-demo/faults', undefined, 'DELETE');
    expect(stockOf(products, await allLevels(connector))).toEqual((await ctl.snapshot('flaky-demo')).stock);
    const expected: Record<string, Record<string, number>> = {};
    const skuOf = new Map(products.flatMap((p) => p.variants.map((v) => [v.inventoryItemId, v.sku as string])));
    for (const c of changes) {
      const sku = skuOf.get(c.inventoryItemId) as string;
      expected[sku] ??= {};
      (expected[sku] as Record<string, number>)[c.locationExternalId] = c.quantity;
    }
    expect((await ctl.snapshot('flaky-demo')).stock).toEqual(expected);

    const retries = logs.filter(
      (l) => l.msg === 'provider call failed; retrying' || String(l.msg).includes('timed out'),
    );
    expect(retries.length).toBeGreaterThan(5);
    expect(JSON.stringify(logs)).not.toContain(credentials.accessToken);
  }, 180_000);

  it('slows down on Shopify’s throttle signals instead of failing', async () => {
    const { connector, logs } = await connected('throttled-demo', { plan: 'standard' });
    await connector.getInventoryLevels({ cursor: null });
    // The limiter follows the shop's bucket: an expensive read leaves it short by what the read cost.
    expect(shopLimiter('throttled-demo').available()).toBeLessThan(800);
    await ctl.call('/shopify/throttled-demo/faults', { rate429: 0.3 }, 'PUT');
    const started = Date.now();
    const results = [];
    // Two reads meet two THROTTLED answers (the sandbox's fault draws are seeded), a second's wait each.
    for (let i = 0; i < 2; i++) results.push(await connector.listLocations());
    expect(results.every((r) => r.length === 4)).toBe(true);
    const throttled = logs.filter((l) => l.msg === 'provider call failed; retrying' && l.status === 200);
    expect(throttled.length).toBeGreaterThan(0);
    // Each THROTTLED answer says how long to wait, and the calls waited at least that.
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });
});
