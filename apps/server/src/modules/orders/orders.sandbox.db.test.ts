// The order core end to end against the provider simulators over real HTTP: orders placed in the sandbox
// shops, their signed order and stock webhooks in through a relay that can hold one kind back (so each
// arrival order is made on purpose), the job queue running in process, pushes out to the other shops.
// Per provider and arrival order: the order is ours with its lines allocated, the ledger counts the sale once,
// the other channels offer the ordered units less. Then cancels at the channel, and redelivered order webhooks.

import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChannelDetail, ChannelSettings } from '@switchyard/contracts';
import type { RunningSandbox } from '@switchyard/sandbox';
import { and, eq, gt, inArray, isNull, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp } from '../../../test/app.ts';
import { connectSandboxChannel } from '../../../test/channels.ts';
import { usingServer } from '../../../test/db.ts';
import { createSignedInAccount } from '../../../test/factories.ts';
import { startTestSandbox } from '../../../test/sandbox.ts';
import { startJobs } from '../../bootstrap.ts';
import { providerTransport } from '../../connectors/http.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import { newId } from '../../lib/ids.ts';
import { connectorFor } from '../channels/channels.service.ts';
import { channels, webhookEvents } from '../channels/channels.tables.ts';
import { processWebhookEvent } from '../channels/channels.webhooks.ts';
import { inventoryDirty, inventoryLevels, inventoryMovements } from '../inventory/inventory.tables.ts';
import { applyMovements, markDirty } from '../inventory/ledger.ts';
import { runPush } from '../inventory/push.run.ts';
import { schedulePush } from '../inventory/schedule.ts';
import { locations } from '../locations/locations.tables.ts';
import { listings, products, variants } from '../products/products.tables.ts';
import { processOrderEvents } from './order-events.ts';
import { invariantViolations } from './orders.fixtures.ts';
import { orderAllocations, orderLines, orders } from './orders.tables.ts';

type Provider = 'shopify' | 'bigcommerce' | 'square';
type Kind = 'order' | 'stock' | 'other';
const PROVIDERS: Provider[] = ['shopify', 'bigcommerce', 'square'];
const OPENING = 20;

interface Relayed {
  provider: Provider;
  kind: Kind;
  topic: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/**
 * A real address for the app driven with inject(): each webhook the sandbox posts is classified (provider,
 * order or stock topic) and handed to the app, or, while `hold` matches it, answered 200 and kept until
 * `release` hands the kept ones to the app in the order they came.
 */
async function startHoldingRelay() {
  let app: FastifyInstance | undefined;
  let hold: ((r: Relayed) => boolean) | null = null;
  const kept: Relayed[] = [];
  const received: Relayed[] = [];
  const hand = async (r: Relayed) => {
    const out = await (app as FastifyInstance).inject({
      method: 'POST',
      url: r.url,
      headers: r.headers as Record<string, string>,
      payload: r.body,
    });
    return out;
  };
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    if (!app) {
      res.writeHead(503).end();
      return;
    }
    const { host: _host, 'content-length': _length, ...headers } = req.headers;
    const provider = (req.url ?? '').split('?')[0]?.split('/')[2] as Provider;
    let topic = String(headers['x-shopify-topic'] ?? '');
    if (!topic) {
      try {
        const json = JSON.parse(body.toString('utf8')) as { scope?: string; type?: string };
        topic = json.scope ?? json.type ?? '';
      } catch {}
    }
    const kind: Kind = topic.includes('inventory') ? 'stock' : topic.includes('order') ? 'order' : 'other';
    const relayed: Relayed = { provider, kind, topic, url: req.url ?? '/', headers, body };
    received.push(relayed);
    if (hold?.(relayed)) {
      kept.push(relayed);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
      return;
    }
    const out = await hand(relayed);
    res.writeHead(out.statusCode, { 'content-type': String(out.headers['content-type'] ?? 'text/plain') });
    res.end(out.rawPayload);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    attach(target: FastifyInstance) {
      app = target;
    },
    hold(provider: Provider, kind: Kind) {
      hold = (r) => r.provider === provider && r.kind === kind;
    },
    /** Stops holding and hands what was kept to the app, one after the other; answers how many. */
    async release() {
      hold = null;
      const out = kept.splice(0);
      for (const r of out) expect((await hand(r)).statusCode).toBe(200);
      return out.length;
    },
    hand,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let sandbox: RunningSandbox;
let relay: Awaited<ReturnType<typeof startHoldingRelay>>;
let t: Awaited<ReturnType<typeof createTestApp>>;
let queue: JobQueue;
let tenant: Awaited<ReturnType<typeof createSignedInAccount>>;
const ch = {} as Record<Provider, ChannelDetail>;
const shopName: Record<Provider, string> = {
  shopify: 'orders-shop',
  bigcommerce: 'ordersh13',
  square: 'Orders Corner Store',
};
/** Our locations: the first two Square stores. */
let ours: { id: string; storeId: string; name: string }[] = [];
let skus: string[] = [];
const variantOf = new Map<string, string>();
let nextSku = 0;

const until = async (what: string, check: () => Promise<boolean>, timeoutMs = 30_000) => {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

const control = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${sandbox.url}/_control/${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
  return res.json();
};
const controlShop = (p: Provider) => (p === 'square' ? (ch.square.externalId as string) : shopName[p]);
const tail = (id: string) => id.split('/').pop() as string;

async function settingsOf(p: Provider): Promise<ChannelSettings> {
  const [row] = await t.services.db.select().from(channels).where(eq(channels.id, ch[p].id));
  return row?.settings as ChannelSettings;
}

/** The channel location that feeds our location i. */
async function channelLocation(p: Provider, i: number): Promise<string> {
  const m = (await settingsOf(p)).channel.locationMap.find((l) => l.storeId === ours[i]?.storeId && l.feeds);
  return m?.externalLocationId as string;
}

/** What each shop offers of a SKU at our location i. */
async function offered(sku: string, i: number): Promise<Record<Provider, number | undefined>> {
  const out = {} as Record<Provider, number | undefined>;
  for (const p of PROVIDERS) {
    const snap = (await control('GET', `${p}/${controlShop(p)}`)) as { stock: Record<string, Record<string, number>> };
    const ext = await channelLocation(p, i);
    const row = snap.stock[sku] ?? {};
    out[p] = row[ext] ?? row[tail(ext)];
  }
  return out;
}

const level = async (sku: string, i: number) => {
  const [row] = await t.services.db
    .select({ onHand: inventoryLevels.onHand, reserved: inventoryLevels.reserved })
    .from(inventoryLevels)
    .where(
      and(
        eq(inventoryLevels.variantId, variantOf.get(sku) as string),
        eq(inventoryLevels.locationId, ours[i]?.id as string),
      ),
    );
  return row ?? { onHand: 0, reserved: 0 };
};

const lastMovement = async () => {
  const [row] = await t.services.db
    .select({ id: sql<number>`coalesce(max(${inventoryMovements.id}), 0)::int` })
    .from(inventoryMovements);
  return row?.id ?? 0;
};

/** The sum of the movements of a SKU (every location) since `mark`: on hand and reserved. */
async function movedSince(mark: number, sku: string) {
  const [row] = await t.services.db
    .select({
      delta: sql<number>`coalesce(sum(${inventoryMovements.delta}), 0)::int`,
      reserved: sql<number>`coalesce(sum(${inventoryMovements.reservedDelta}), 0)::int`,
    })
    .from(inventoryMovements)
    .where(and(eq(inventoryMovements.variantId, variantOf.get(sku) as string), gt(inventoryMovements.id, mark)));
  return row;
}

async function orderOf(p: Provider, externalId: string) {
  const rows = await t.services.db
    .select()
    .from(orders)
    .where(and(eq(orders.channelId, ch[p].id), inArray(orders.externalId, [externalId, tail(externalId)])));
  expect(rows).toHaveLength(1);
  const order = rows[0] as typeof orders.$inferSelect;
  const lines = await t.services.db.select().from(orderLines).where(eq(orderLines.orderId, order.id));
  const allocations = await t.services.db.select().from(orderAllocations).where(eq(orderAllocations.orderId, order.id));
  return { order, lines, allocations };
}

/** Every webhook delivered and processed, nothing left to push. */
async function quiet() {
  await control('POST', 'deliveries/settle');
  await until('webhooks processed and pushes done', async () => {
    const [open] = await t.services.db
      .select({ n: sql<number>`count(*)::int` })
      .from(webhookEvents)
      .where(isNull(webhookEvents.processedAt));
    const [dirty] = await t.services.db.select({ n: sql<number>`count(*)::int` }).from(inventoryDirty);
    return open?.n === 0 && dirty?.n === 0;
  });
  // A push's own webhooks (the echoes) may go out as it ends.
  await control('POST', 'deliveries/settle');
}

/** Our catalog and listings from the shops (matched by SKU), as a catalog import would leave them. */
async function linkCatalog(p: Provider) {
  const [row] = await t.services.db.select().from(channels).where(eq(channels.id, ch[p].id));
  const connector = connectorFor(t.services, row as never);
  let cursor: string | null = null;
  do {
    const page = await connector.listProducts(cursor);
    for (const product of page.items) {
      for (const v of product.variants) {
        if (!v.sku) continue;
        let variantId = variantOf.get(v.sku);
        if (!variantId) {
          const productId = newId('prd');
          await t.services.db
            .insert(products)
            .values({ id: productId, accountId: tenant.accountId, title: product.title });
          variantId = newId('var');
          await t.services.db
            .insert(variants)
            .values({ id: variantId, accountId: tenant.accountId, productId, sku: v.sku, title: v.title });
          variantOf.set(v.sku, variantId);
        }
        await t.services.db.insert(listings).values({
          id: newId('lst'),
          accountId: tenant.accountId,
          channelId: ch[p].id,
          variantId,
          externalProductId: product.externalId,
          externalVariantId: v.externalId,
          inventoryItemId: v.inventoryItemId,
        });
      }
    }
    cursor = page.nextCursor;
  } while (cursor);
}

beforeAll(async () => {
  sandbox = await startTestSandbox({ products: 9, seed: 13 });
  relay = await startHoldingRelay();
  t = await createTestApp({ sandboxUrl: sandbox.url, env: { PUBLIC_URL: relay.url } });
  relay.attach(t.app);
  sandbox.ctx.options.square = { ...sandbox.ctx.options.square, webhookUrl: `${relay.url}/webhooks/square` };
  queue = await startJobs(t.services, { work: true });
  tenant = await createSignedInAccount(t.services);
  for (const p of ['square', 'shopify', 'bigcommerce'] as const)
    ch[p] = await connectSandboxChannel(t, tenant, p, shopName[p]);

  // Our locations are the first two Square stores (the first ships first); each shop's first two locations
  // feed them, the rest nothing.
  const squareMap = (await settingsOf('square')).channel.locationMap;
  ours = squareMap.slice(0, 2).map((m) => ({ id: newId('loc'), storeId: m.externalLocationId, name: m.externalName }));
  await t.services.db
    .insert(locations)
    .values(ours.map((l, i) => ({ ...l, accountId: tenant.accountId, priority: i, pickup: true })));
  for (const p of PROVIDERS) {
    const settings = await settingsOf(p);
    settings.channel.locationMap = settings.channel.locationMap.map((m, i) => ({
      ...m,
      storeId: i < 2 ? (ours[i]?.storeId as string) : null,
      feeds: i < 2,
    }));
    await t.services.db.update(channels).set({ settings }).where(eq(channels.id, ch[p].id));
    await linkCatalog(p);
  }
  const listed = await t.services.db
    .select({ variantId: listings.variantId, n: sql<number>`count(*)::int` })
    .from(listings)
    .where(eq(listings.accountId, tenant.accountId))
    .groupBy(listings.variantId);
  const everywhere = new Set(listed.filter((l) => l.n === 3).map((l) => l.variantId));
  skus = [...variantOf.keys()].filter((sku) => everywhere.has(variantOf.get(sku) as string)).sort();
  expect(skus.length).toBeGreaterThanOrEqual(8);

  // Opening stock: 20 of each SKU at both locations, pushed everywhere.
  await t.services.db.transaction((tx) =>
    applyMovements(
      tx,
      tenant.accountId,
      skus.flatMap((sku) =>
        ours.map((l) => ({
          variantId: variantOf.get(sku) as string,
          locationId: l.id,
          setTo: OPENING,
          reason: 'import' as const,
          source: 'test',
        })),
      ),
    ),
  );
  await schedulePush(
    t.services,
    PROVIDERS.map((p) => ch[p].id),
  );
  await until(
    'the opening push',
    async () => {
      for (const sku of skus)
        for (const i of [0, 1]) if (Object.values(await offered(sku, i)).some((q) => q !== OPENING)) return false;
      return true;
    },
    60_000,
  );
  await quiet();
}, 120_000);

afterAll(async () => {
  if (process.env.ORDERS_DEBUG) {
    for (const e of await t.services.db.select().from(webhookEvents).orderBy(webhookEvents.receivedAt))
      console.log(e.provider, e.topic, e.outcome, e.error);
    const { channelStockClaims } = await import('../inventory/inventory.tables.ts');
    const skuOf = new Map([...variantOf].map(([s, v]) => [v, s]));
    for (const m of await t.services.db.select().from(inventoryMovements).orderBy(inventoryMovements.id))
      if (m.reason !== 'import')
        console.log(
          'mv',
          m.id,
          skuOf.get(m.variantId),
          ours.findIndex((l) => l.id === m.locationId),
          m.delta,
          m.reservedDelta,
          m.reason,
          m.source,
          m.idempotencyKey,
          m.createdAt.toISOString(),
        );
    for (const c of await t.services.db.select().from(channelStockClaims).orderBy(channelStockClaims.id))
      console.log(
        'claim',
        c.id,
        skuOf.get(c.variantId),
        c.channelId === ch.shopify.id ? 'shopify' : c.channelId === ch.square.id ? 'square' : 'bc',
        c.kind,
        c.qty,
        c.remaining,
        c.at.toISOString(),
        c.key,
        c.createdAt.toISOString(),
      );
  }
  await queue?.stop({ timeoutMs: 2000 });
  await t?.close();
  await relay?.close();
  await sandbox?.close();
});

interface Sale {
  provider: Provider;
  what: string;
  /** Our location the sale takes its units at. */
  at: number;
  /** A POS sale complete at its store: on hand drops; otherwise units are reserved. */
  pos: boolean;
  body: (sku: string) => Promise<Record<string, unknown>>;
}

const QTY = 2;
const SALES: Sale[] = [
  {
    provider: 'shopify',
    what: 'web order',
    at: 0,
    pos: false,
    body: async (sku) => ({
      lines: [{ sku, quantity: QTY }],
      location: await channelLocation('shopify', 0),
      customer: { name: 'Ada Lovelace', email: 'ada@example.com' },
    }),
  },
  {
    provider: 'bigcommerce',
    what: 'web order',
    at: 0,
    pos: false,
    body: async (sku) => ({
      lines: [{ sku, quantity: QTY }],
      customer: { name: 'Grace Hopper', email: 'g@example.com' },
    }),
  },
  {
    provider: 'square',
    what: 'POS sale',
    at: 0,
    pos: true,
    body: async (sku) => ({ lines: [{ sku, quantity: QTY }], location: ours[0]?.storeId }),
  },
  {
    provider: 'square',
    what: 'pickup order',
    at: 1,
    pos: false,
    body: async (sku) => ({
      lines: [{ sku, quantity: QTY }],
      location: ours[1]?.storeId,
      fulfillmentType: 'pickup',
      customer: { name: 'Katherine Johnson', email: 'kj@example.com' },
    }),
  },
];

/** Orders left open by the tests, for the cancels: provider → (external id, SKU, our location). */
const placed = new Map<string, { provider: Provider; externalId: string; sku: string; at: number }>();

describe.each(SALES)('$provider $what', (sale) => {
  it.each(['order', 'stock'] as const)(
    '%s webhook first: the order is ours, counted once, offered less elsewhere',
    async (first) => {
      const sku = skus[nextSku++ % skus.length] as string;
      const i = sale.at;
      await quiet();
      const before = await level(sku, i);
      const shopsBefore = await offered(sku, i);
      const mark = await lastMovement();

      relay.hold(sale.provider, first === 'order' ? 'stock' : 'order');
      const { orderId } = (await control(
        'POST',
        `${sale.provider}/${controlShop(sale.provider)}/orders`,
        await sale.body(sku),
      )) as {
        orderId: string;
      };
      await quiet();
      if (first === 'stock') {
        // The channel's report alone: counted as a change at the channel (and pushed), no order yet.
        expect(await level(sku, i)).toEqual({ onHand: before.onHand - QTY, reserved: before.reserved });
      } else {
        expect((await orderOf(sale.provider, orderId)).order).toBeTruthy();
      }
      expect(await relay.release()).toBeGreaterThan(0);
      await quiet();

      const { order, lines, allocations } = await orderOf(sale.provider, orderId);
      expect(order.status).toBe(sale.pos ? 3 : 1);
      expect(order.flagged).toBe(false);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({ sku, quantity: QTY, variantId: variantOf.get(sku) });
      expect(allocations).toHaveLength(1);
      expect(allocations[0]).toMatchObject(
        sale.pos
          ? { status: 3, quantity: QTY, reserved: 0, locationId: ours[i]?.id }
          : { status: 1, quantity: QTY, reserved: QTY, locationId: ours[i]?.id },
      );
      // Counted once: on hand drops only for a POS sale, reserved holds a web or pickup order's units.
      expect(await level(sku, i)).toEqual(
        sale.pos
          ? { onHand: before.onHand - QTY, reserved: before.reserved }
          : { onHand: before.onHand, reserved: before.reserved + QTY },
      );
      expect(await level(sku, 1 - i)).toEqual({ onHand: OPENING, reserved: 0 });
      expect(await movedSince(mark, sku)).toEqual(
        sale.pos ? { delta: -QTY, reserved: 0 } : { delta: 0, reserved: QTY },
      );
      // Every shop offers the ordered units less at that location (the channel of the order took them itself).
      const shops = await offered(sku, i);
      for (const p of PROVIDERS) expect({ p, q: shops[p] }).toEqual({ p, q: (shopsBefore[p] as number) - QTY });
      expect(await invariantViolations(t.services, tenant.accountId)).toEqual([]);
      if (!sale.pos && first === 'order')
        placed.set(`${sale.provider}:${sale.what}`, { provider: sale.provider, externalId: orderId, sku, at: i });
    },
  );
});

describe('the dirty set on a server', () => {
  // PostgreSQL runs transactions side by side (PGlite one at a time): an order's import that marks a variant
  // before a push starts and commits while it runs must leave its mark for the next run.
  it.skipIf(!usingServer())('keeps a mark committed while a push runs for the next run', async () => {
    await quiet();
    const [a, b] = [variantOf.get(skus[0] as string) as string, variantOf.get(skus[1] as string) as string];
    await control('PUT', `shopify/${shopName.shopify}/faults`, { latencyMs: 800 });
    try {
      // Something to send, so the push waits on Shopify.
      const now = await level(skus[0] as string, 0);
      await t.services.db.transaction((tx) =>
        applyMovements(tx, tenant.accountId, [
          { variantId: a, locationId: ours[0]?.id as string, setTo: now.onHand + 1, reason: 'count', source: 'test' },
        ]),
      );
      let release = () => {};
      const gate = new Promise<void>((r) => {
        release = r;
      });
      let marked = () => {};
      const markedP = new Promise<void>((r) => {
        marked = r;
      });
      const open = t.services.db.transaction(async (tx) => {
        await markDirty(tx, tenant.accountId, [b], { channelIds: [ch.shopify.id] });
        marked();
        await gate;
      });
      await markedP;
      const push = runPush(t.services, ch.shopify.id);
      await new Promise((r) => setTimeout(r, 400));
      release();
      await open;
      await push;
      const left = await t.services.db
        .select()
        .from(inventoryDirty)
        .where(and(eq(inventoryDirty.channelId, ch.shopify.id), eq(inventoryDirty.variantId, b)));
      expect(left).toHaveLength(1);
    } finally {
      await control('DELETE', `shopify/${shopName.shopify}/faults`);
    }
    await schedulePush(
      t.services,
      PROVIDERS.map((p) => ch[p].id),
    );
    await quiet();
  });
});

describe('at the channel, after the order', () => {
  it.each([
    ['shopify', 'web order'],
    ['bigcommerce', 'web order'],
    ['square', 'pickup order'],
  ] as const)('a stock edit in %s after a %s is counted, not taken for the order', async (provider, what) => {
    const o = placed.get(`${provider}:${what}`);
    if (!o) throw new Error('the order test did not run');
    await quiet();
    const before = await level(o.sku, o.at);
    const shopsBefore = await offered(o.sku, o.at);
    const mark = await lastMovement();
    await control('POST', `${provider}/${controlShop(provider)}/stock`, {
      sku: o.sku,
      location: await channelLocation(provider, o.at),
      delta: -1,
    });
    await quiet();
    expect(await level(o.sku, o.at)).toEqual({ onHand: before.onHand - 1, reserved: before.reserved });
    expect(await movedSince(mark, o.sku)).toEqual({ delta: -1, reserved: 0 });
    const shops = await offered(o.sku, o.at);
    for (const p of PROVIDERS) expect({ p, q: shops[p] }).toEqual({ p, q: (shopsBefore[p] as number) - 1 });
  });

  // Shopify's cancel also sends its refund (refunds/create): taken in as a return before the order's cancel, it
  // once left the cancel no units to claim and the restock was counted (issue 13; orders.db.test.ts forces it).
  it.each([
    ['shopify', 'web order'],
    ['bigcommerce', 'web order'],
    ['square', 'pickup order'],
  ] as const)(
    'a %s %s cancelled there releases its units; the restock is not counted again',
    async (provider, what) => {
      const o = placed.get(`${provider}:${what}`);
      if (!o) throw new Error('the order test did not run');
      await quiet();
      const before = await level(o.sku, o.at);
      const shopsBefore = await offered(o.sku, o.at);
      const mark = await lastMovement();
      await control(
        'POST',
        `${provider}/${controlShop(provider)}/orders/${encodeURIComponent(o.externalId)}/cancel`,
        {},
      );
      await quiet();
      const { order, allocations } = await orderOf(provider, o.externalId);
      expect(order.status).toBe(7);
      expect(allocations.map((a) => a.reserved)).toEqual([0]);
      expect(await level(o.sku, o.at)).toEqual({ onHand: before.onHand, reserved: before.reserved - QTY });
      expect(await movedSince(mark, o.sku)).toEqual({ delta: 0, reserved: -QTY });
      const shops = await offered(o.sku, o.at);
      for (const p of PROVIDERS) expect({ p, q: shops[p] }).toEqual({ p, q: (shopsBefore[p] as number) + QTY });
      expect(await invariantViolations(t.services, tenant.accountId)).toEqual([]);
    },
  );

  it('a redelivered order webhook changes nothing, on each provider', async () => {
    // Square's seller cancel (the test before) sends its refund's last order.updated about 200 ms after the rest:
    // that late update, not a redelivery, moved an order on once (CI, PostgreSQL). Wait it out before the snapshot.
    await quiet();
    await new Promise((r) => setTimeout(r, 1000));
    await quiet();
    const mark = await lastMovement();
    const levelsBefore = await t.services.db
      .select()
      .from(inventoryLevels)
      .orderBy(inventoryLevels.variantId, inventoryLevels.locationId);
    const ordersBefore = await t.services.db.select().from(orders).orderBy(orders.id);
    for (const p of PROVIDERS) {
      const delivered = relay.received.filter((r) => r.provider === p && r.kind === 'order');
      expect(delivered.length).toBeGreaterThan(0);
      // The same delivery again (a provider retrying): stored once.
      for (const r of delivered)
        expect((await relay.hand(r)).json()).toMatchObject({ received: true, duplicate: true });
      // The same order report under a new event id: taken in again, and found older or unchanged.
      const stored = await t.services.db
        .select()
        .from(webhookEvents)
        .where(and(eq(webhookEvents.channelId, ch[p].id), sql`${webhookEvents.outcome} like 'order %'`));
      expect(stored.length).toBeGreaterThan(0);
      for (const e of stored) {
        const id = newId('whe');
        await t.services.db.insert(webhookEvents).values({
          ...e,
          id,
          eventId: `${e.eventId}:again`,
          processedAt: null,
          outcome: null,
          attempts: 0,
          receivedAt: new Date(),
        });
        await processWebhookEvent(t.services, id);
        const [again] = await t.services.db.select().from(webhookEvents).where(eq(webhookEvents.id, id));
        expect(again?.outcome).toMatch(/: (unchanged|older)$/);
      }
    }
    await quiet();
    expect(await lastMovement()).toBe(mark);
    expect(
      await t.services.db.select().from(inventoryLevels).orderBy(inventoryLevels.variantId, inventoryLevels.locationId),
    ).toEqual(levelsBefore);
    const ordersAfter = await t.services.db.select().from(orders).orderBy(orders.id);
    expect(ordersAfter.map((o) => [o.id, o.status, o.providerUpdatedAt.getTime()])).toEqual(
      ordersBefore.map((o) => [o.id, o.status, o.providerUpdatedAt.getTime()]),
    );
  });

  it('takes a burst of order webhooks in one pass per channel, each order read and taken in once', async () => {
    await quiet();
    for (const p of PROVIDERS) {
      // Every order event this channel sent so far, delivered again at once under new event ids (four copies
      // each, as a provider retrying a backlog would): one pass takes them all.
      const stored = await t.services.db
        .select()
        .from(webhookEvents)
        .where(and(eq(webhookEvents.channelId, ch[p].id), sql`${webhookEvents.outcome} like 'order %'`));
      const copies = stored.flatMap((e) =>
        [1, 2, 3, 4].map((n) => ({
          ...e,
          id: newId('whe'),
          eventId: `${e.eventId}:burst${n}`,
          processedAt: null,
          outcome: null,
          attempts: 0,
          receivedAt: new Date(),
        })),
      );
      await t.services.db.insert(webhookEvents).values(copies);
      const reads = vi.spyOn(providerTransport, 'send');
      await processOrderEvents(t.services, ch[p].id);
      const calls = reads.mock.calls.length;
      reads.mockRestore();
      const after = await t.services.db
        .select()
        .from(webhookEvents)
        .where(
          inArray(
            webhookEvents.id,
            copies.map((c) => c.id),
          ),
        );
      expect(after.every((e) => e.processedAt && e.attempts === 1 && e.error === null)).toBe(true);
      // The copies of one order share one outcome: the order was read once and taken in once for all of them.
      const byOrder = new Map<string, Set<string>>();
      for (const e of after) {
        const name = /^order (\S+):/.exec(e.outcome ?? '')?.[1] ?? e.outcome ?? '';
        byOrder.set(name, (byOrder.get(name) ?? new Set()).add(e.outcome ?? ''));
      }
      expect(byOrder.size).toBeGreaterThan(0);
      // Each order read once (BigCommerce: the order, its products and its addresses; one call elsewhere), not
      // once per copy: fewer calls than copies of any one order's events.
      expect({ p, calls }).toEqual({ p, calls: expect.toSatisfy((n: number) => n > 0 && n < 4 * byOrder.size) });
      for (const [name, outcomes] of byOrder) {
        expect({ p, name, outcomes: [...outcomes] }).toEqual({
          p,
          name,
          outcomes: [expect.stringMatching(/: unchanged$/)],
        });
      }
    }
    expect(await invariantViolations(t.services, tenant.accountId)).toEqual([]);
  });
});
