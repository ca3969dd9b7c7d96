// The sync engine end to end against the provider simulators over real HTTP: webhooks in through a relay,
// the ledger, the dirty set, the push job out, reconciliation; with faults, duplicates and races.
import type { ChannelDetail, ChannelSettings } from '@switchyard/contracts';
import type { RunningSandbox } from '@switchyard/sandbox';
import { and, eq, inArray, isNull, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../../../test/app.ts';
import { connectSandboxChannel } from '../../../test/channels.ts';
import { usingServer } from '../../../test/db.ts';
import { createSignedInAccount } from '../../../test/factories.ts';
import { startRelay } from '../../../test/relay.ts';
import { startTestSandbox } from '../../../test/sandbox.ts';
import { trpcOver } from '../../../test/trpc.ts';
import { startJobs } from '../../bootstrap.ts';
import { openDatabase } from '../../db/client.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import { newId } from '../../lib/ids.ts';
import { buffers } from '../buffers/buffers.tables.ts';
import { connectorFor } from '../channels/channels.service.ts';
import { channels, webhookEvents } from '../channels/channels.tables.ts';
import { processWebhookEvent, queueWaitingStockEvents, requeueStrandedEvents } from '../channels/channels.webhooks.ts';
import { locations } from '../locations/locations.tables.ts';
import { listings, products, variants } from '../products/products.tables.ts';
import { syncs } from '../syncs/syncs.tables.ts';
import { loadAvailable } from './available.ts';
import { applyChannelReports } from './inbound.ts';
import { channelStock, inventoryDirty, inventoryLevels, inventoryMovements } from './inventory.tables.ts';
import { applyMovements, type MovementInput, markDirty } from './ledger.ts';
import { runPush } from './push.run.ts';
import { dueChannels, reconcileChannel } from './reconcile.ts';
import { schedulePush } from './schedule.ts';

type TestApp = Awaited<ReturnType<typeof createTestApp>>;
type Tenant = Awaited<ReturnType<typeof createSignedInAccount>>;

let sandbox: RunningSandbox;
let relay: Awaited<ReturnType<typeof startRelay>>;
let t: TestApp;
let queue: JobQueue;
let tenant: Tenant;
const ch: Record<'shopify' | 'bigcommerce' | 'square', ChannelDetail> = {} as never;
const shopName = { shopify: 'engine-shop', bigcommerce: 'engineh6', square: 'Engine Corner Store' };
/** Our locations (the first two Square stores), by index. */
let ours: { id: string; storeId: string; name: string }[] = [];
let skus: string[] = [];
const variantOf = new Map<string, string>();
const variantsListedOn = { shopify: 0, bigcommerce: 0, square: 0 };

const until = async (what: string, check: () => Promise<boolean>, timeoutMs = 30_000) => {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
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
const controlShop = (p: keyof typeof ch) => (p === 'square' ? (ch.square.externalId as string) : shopName[p]);
const tail = (id: string) => id.split('/').pop() as string;

/** What the provider's shop holds for a SKU at our location i (through the channel's location map). */
async function held(p: keyof typeof ch, sku: string, i: number): Promise<number | undefined> {
  const snap = (await control('GET', `${p}/${controlShop(p)}`)) as { stock: Record<string, Record<string, number>> };
  const ext = (await settingsOf(p)).channel.locationMap.find((m) => m.storeId === ours[i]?.storeId && m.feeds);
  if (!ext) return undefined;
  const row = snap.stock[sku] ?? {};
  return row[ext.externalLocationId] ?? row[tail(ext.externalLocationId)];
}

async function settingsOf(p: keyof typeof ch): Promise<ChannelSettings> {
  const [row] = await t.services.db.select().from(channels).where(eq(channels.id, ch[p].id));
  return row?.settings as ChannelSettings;
}

/** Our record of what Square holds of a variant at one of its stores. */
const squareStock = async (variantId: string, store: string) => {
  const [row] = await t.services.db
    .select()
    .from(channelStock)
    .where(
      and(
        eq(channelStock.channelId, ch.square.id),
        eq(channelStock.variantId, variantId),
        eq(channelStock.externalLocationId, store),
      ),
    );
  return row;
};

const level = async (sku: string, i: number) => {
  const [row] = await t.services.db
    .select()
    .from(inventoryLevels)
    .where(
      and(
        eq(inventoryLevels.variantId, variantOf.get(sku) as string),
        eq(inventoryLevels.locationId, ours[i]?.id as string),
      ),
    );
  return row ?? { onHand: 0, reserved: 0 };
};

/** Every channel holds what we compute for it (the ledger is converged out). */
async function converged(skuList = skus): Promise<boolean> {
  const rows = await loadAvailable(t.services.db, tenant.accountId, {
    variantIds: skuList.map((s) => variantOf.get(s) as string),
  });
  const snaps = new Map<string, { stock: Record<string, Record<string, number>> }>();
  for (const p of Object.keys(ch) as (keyof typeof ch)[])
    snaps.set(ch[p].id, (await control('GET', `${p}/${controlShop(p)}`)) as never);
  for (const r of rows) {
    const stock = snaps.get(r.channelId)?.stock[r.sku] ?? {};
    const there = stock[r.externalLocationId] ?? stock[tail(r.externalLocationId)];
    if (there !== r.available) return false;
  }
  return rows.length > 0;
}

/** Our catalog and listings from the shops (matched by SKU), as a catalog import would leave them. */
async function linkCatalog(p: keyof typeof ch) {
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
        variantsListedOn[p] += 1;
      }
    }
    cursor = page.nextCursor;
  } while (cursor);
}

/** Channel locations i < 2 map to our location i (a Square store) and feed the channel; the rest do not. */
async function mapLocations(p: keyof typeof ch) {
  const settings = await settingsOf(p);
  settings.channel.locationMap = settings.channel.locationMap.map((m, i) => ({
    ...m,
    storeId: i < 2 ? (ours[i]?.storeId as string) : null,
    feeds: i < 2,
  }));
  await t.services.db.update(channels).set({ settings }).where(eq(channels.id, ch[p].id));
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
  }).catch(async (err) => {
    const open = await t.services.db.select().from(webhookEvents).where(isNull(webhookEvents.processedAt));
    const dirty = await t.services.db.select().from(inventoryDirty);
    throw new Error(
      `${err.message}: ${JSON.stringify({ open: open.map((e) => [e.topic, e.error, e.attempts]), dirty })}`,
    );
  });
}

async function withoutSquareWebhooks<T>(run: () => Promise<T>): Promise<T> {
  const url = sandbox.ctx.options.square?.webhookUrl;
  sandbox.ctx.options.square = { ...sandbox.ctx.options.square, webhookUrl: undefined };
  try {
    return await run();
  } finally {
    sandbox.ctx.options.square = { ...sandbox.ctx.options.square, webhookUrl: url };
  }
}

/** A Square `inventory.count.updated` event as stored at intake (not queued): one count at one store. */
const squareCountEvent = (
  id: string,
  count: { inventoryItemId: string; store: string; quantity: number; at: Date },
  receivedAt = new Date(),
) => ({
  id,
  provider: 'square' as const,
  eventId: `evt-${id}`,
  topic: 'inventory.count.updated',
  shopExternalId: ch.square.externalId as string,
  accountId: tenant.accountId,
  channelId: ch.square.id,
  receivedAt,
  payload: {
    data: {
      object: {
        inventory_counts: [
          {
            catalog_object_id: count.inventoryItemId,
            location_id: count.store,
            state: 'IN_STOCK',
            quantity: String(count.quantity),
            calculated_at: count.at.toISOString(),
          },
        ],
      },
    },
  },
});

const syncsOf = (channelId: string) =>
  t.services.db.select().from(syncs).where(eq(syncs.channelId, channelId)).orderBy(syncs.id);

beforeAll(async () => {
  sandbox = await startTestSandbox({ products: 4, seed: 6 });
  relay = await startRelay();
  t = await createTestApp({ sandboxUrl: sandbox.url, env: { PUBLIC_URL: relay.url } });
  relay.attach(t.app);
  sandbox.ctx.options.square = { ...sandbox.ctx.options.square, webhookUrl: `${relay.url}/webhooks/square` };
  queue = await startJobs(t.services, { work: true });
  tenant = await createSignedInAccount(t.services);
  for (const p of ['square', 'shopify', 'bigcommerce'] as const)
    ch[p] = await connectSandboxChannel(t, tenant, p, shopName[p]);

  // Our locations are the first two Square stores.
  const squareMap = (await settingsOf('square')).channel.locationMap;
  ours = squareMap.slice(0, 2).map((m) => ({ id: newId('loc'), storeId: m.externalLocationId, name: m.externalName }));
  await t.services.db.insert(locations).values(ours.map((l) => ({ ...l, accountId: tenant.accountId })));
  for (const p of ['square', 'shopify', 'bigcommerce'] as const) {
    await mapLocations(p);
    await linkCatalog(p);
  }
  // The shops' catalogs overlap (each shop draws its own variants of the merchant's products): the tests
  // use the SKUs all three list.
  const listed = await t.services.db
    .select({ variantId: listings.variantId, n: sql<number>`count(*)::int` })
    .from(listings)
    .where(eq(listings.accountId, tenant.accountId))
    .groupBy(listings.variantId);
  const everywhere = new Set(listed.filter((l) => l.n === 3).map((l) => l.variantId));
  skus = [...variantOf.keys()].filter((sku) => everywhere.has(variantOf.get(sku) as string)).sort();
  expect(skus.length).toBeGreaterThanOrEqual(4);

  // Opening stock: what Square holds (the POS is the stock's origin), then a full push everywhere.
  const movements: MovementInput[] = [];
  for (const sku of skus)
    for (let i = 0; i < ours.length; i++)
      movements.push({
        variantId: variantOf.get(sku) as string,
        locationId: ours[i]?.id as string,
        setTo: ((await held('square', sku, i)) ?? 0) + 5,
        reason: 'import' as const,
        source: 'square',
      });
  const marked = await t.services.db.transaction((tx) => applyMovements(tx, tenant.accountId, movements));
  expect(marked.some((m) => m.applied)).toBe(true);
  await schedulePush(t.services, [ch.square.id, ch.shopify.id, ch.bigcommerce.id]);
  await until('the opening push', () => converged(), 60_000);
}, 120_000);

afterAll(async () => {
  if (process.env.H6_DEBUG) {
    const runs = await t.services.db.select().from(syncs).orderBy(syncs.id);
    for (const r of runs)
      console.log(
        r.id,
        r.channelId?.slice(-4),
        r.type,
        r.trigger,
        r.status,
        r.total,
        r.succeeded,
        r.failed,
        r.message,
        r.startedAt?.toISOString(),
        r.finishedAt?.toISOString(),
      );
    const { syncItems } = await import('../syncs/syncs.tables.ts');
    for (const i of await t.services.db.select().from(syncItems)) console.log('item', i.syncId, i.label, i.error);
    for (const l of await t.services.db.select().from(listings))
      if (l.syncStatusCode !== 1)
        console.log('listing', l.channelId.slice(-4), l.variantId, l.syncStatusCode, l.lastError);
    for (const line of t.logs.filter((l) => (l.level as number) >= 40).slice(0, 30))
      console.log('log', JSON.stringify(line).slice(0, 400));
  }
  await queue?.stop({ timeoutMs: 2000 });
  await t?.close();
  await relay?.close();
  await sandbox?.close();
});

/** Once everything is quiet: one level of ours (SKU and location by index), its Square stock row and Square's channel row. */
async function quietSquareLevel(skuIndex: number, locationIndex: number) {
  const sku = skus[skuIndex] as string;
  const variantId = variantOf.get(sku) as string;
  const store = ours[locationIndex]?.storeId as string;
  await quiet();
  const before = (await level(sku, locationIndex)).onHand;
  const stock = await squareStock(variantId, store);
  const [squareRow] = await t.services.db.select().from(channels).where(eq(channels.id, ch.square.id));
  return { sku, variantId, store, before, stock, squareRow };
}

describe('sync engine', () => {
  it('records each push as a sync and marks listings synced', async () => {
    await quiet();
    for (const p of Object.keys(ch) as (keyof typeof ch)[]) {
      const runs = await syncsOf(ch[p].id);
      expect(runs.length).toBeGreaterThan(0);
      expect(runs.every((r) => r.type === 'inventory_push' && r.finishedAt !== null)).toBe(true);
      expect(runs.some((r) => r.status === 'succeeded' && r.succeeded > 0)).toBe(true);
      // Every run's items are counted: handled = total, and the channel says when it last synced (the last run).
      expect(runs.every((r) => r.processed === r.total && r.succeeded + r.failed === r.processed)).toBe(true);
      const [row] = await t.services.db.select().from(channels).where(eq(channels.id, ch[p].id));
      expect(row?.lastSyncAt?.getTime()).toBe(runs.at(-1)?.finishedAt?.getTime());
    }
    const statuses = await t.services.db
      .select({ code: listings.syncStatusCode })
      .from(listings)
      .where(
        and(
          eq(listings.accountId, tenant.accountId),
          inArray(
            listings.variantId,
            skus.map((s) => variantOf.get(s) as string),
          ),
        ),
      );
    expect(statuses).toHaveLength(skus.length * 3);
    expect(statuses.every((s) => s.code === 1)).toBe(true);
  });

  it('a POS sale in Square reaches Shopify and BigCommerce; the echoes of our pushes change nothing', async () => {
    const sku = skus[0] as string;
    const before = (await level(sku, 0)).onHand;
    const movementsBefore = await t.services.db.select().from(inventoryMovements);
    await control('POST', `square/${controlShop('square')}/orders`, {
      lines: [{ sku, quantity: 2 }],
      location: ours[0]?.storeId,
    });
    await until('the sale on Shopify and BigCommerce', async () => {
      return (await held('shopify', sku, 0)) === before - 2 && (await held('bigcommerce', sku, 0)) === before - 2;
    });
    expect((await level(sku, 0)).onHand).toBe(before - 2);
    // Let every echo (Shopify's and BigCommerce's webhooks about our own sets) be delivered and processed.
    await quiet();
    const added = (await t.services.db.select().from(inventoryMovements)).slice(movementsBefore.length);
    // The sale is Square's stock report and its order (issue 13), counted once whichever came first: the order
    // consumes the 2 units; a report taken in before it was reversed by it, one taken after it absorbed.
    expect(added.reduce((sum, m) => sum + m.delta, 0)).toBe(-2);
    expect(added.filter((m) => m.reason === 'order' && m.delta === -2)).toHaveLength(1);
    expect(added.every((m) => m.source === 'square' || m.source === 'order')).toBe(true);
    expect((await level(sku, 0)).onHand).toBe(before - 2);
    // Shopify's echoes of our sets were recognised when they arrived and took no worker's turn.
    const shopifyEvents = await t.services.db
      .select()
      .from(webhookEvents)
      .where(and(eq(webhookEvents.channelId, ch.shopify.id), eq(webhookEvents.topic, 'inventory_levels/update')));
    expect(shopifyEvents.length).toBeGreaterThan(0);
    expect(shopifyEvents.every((e) => e.outcome === 'echo of our push: nothing to do')).toBe(true);
  });

  it('takes the stock events waiting for a channel in one pass, each change once and in order', async () => {
    const sku = skus[2] as string;
    const variantId = variantOf.get(sku) as string;
    await quiet();
    const before = (await level(sku, 1)).onHand;
    const stock = await squareStock(variantId, ours[1]?.storeId as string);
    // Three sales at the store, stored while the workers were busy (received in the reverse order).
    const start = Date.now();
    const ids = [3, 2, 1].map((n) => `whe_batch_${n}_${start}`);
    for (const n of [3, 2, 1]) {
      await t.services.db.insert(webhookEvents).values(
        squareCountEvent(`whe_batch_${n}_${start}`, {
          inventoryItemId: stock?.inventoryItemId as string,
          store: ours[1]?.storeId as string,
          quantity: before - n,
          at: new Date(start + n * 10),
        }),
      );
    }
    const movementsBefore = (await t.services.db.select().from(inventoryMovements)).length;
    await processWebhookEvent(t.services, ids[0] as string);
    const events = await t.services.db.select().from(webhookEvents).where(inArray(webhookEvents.id, ids));
    expect(events.map((e) => e.outcome)).toEqual(
      Array(3).fill('stock: 3 changed, 0 unchanged, 0 ignored (one pass over 3 events)'),
    );
    const added = (await t.services.db.select().from(inventoryMovements)).slice(movementsBefore);
    expect(added.map((m) => m.delta)).toEqual([-1, -1, -1]);
    expect((await level(sku, 1)).onHand).toBe(before - 3);
    // The jobs of the other two find their events done.
    await processWebhookEvent(t.services, ids[1] as string);
    expect((await t.services.db.select().from(inventoryMovements)).length).toBe(movementsBefore + 3);
    await withoutSquareWebhooks(() =>
      control('POST', `square/${controlShop('square')}/stock`, {
        sku,
        location: ours[1]?.storeId,
        quantity: before - 3,
      }),
    );
    await quiet();
    await until('everything converged', () => converged());
  });

  it('takes a burst of stock events in passes of 500 until none wait, and queues again events never taken up', async () => {
    const { sku, store, before, stock } = await quietSquareLevel(3, 0);
    await withoutSquareWebhooks(() =>
      control('POST', `square/${controlShop('square')}/stock`, { sku, location: store, quantity: before - 1 }),
    );
    // 1,201 reports of that one sale (made in the last 1.2 s, after our last push of the level), stored while
    // no job was queued for them.
    await new Promise((r) => setTimeout(r, 1300));
    const start = Date.now();
    const burst = Array.from({ length: 1201 }, (_, n) =>
      squareCountEvent(`whe_burst_${n}_${start}`, {
        inventoryItemId: stock?.inventoryItemId as string,
        store,
        quantity: before - 1,
        at: new Date(start - 1201 + n),
      }),
    );
    for (let i = 0; i < burst.length; i += 400)
      await t.services.db.insert(webhookEvents).values(burst.slice(i, i + 400));
    const movementsBefore = (await t.services.db.select().from(inventoryMovements)).length;
    await processWebhookEvent(t.services, burst[0]?.id as string);
    // The first pass's change starts a push of the channel: what is left waits for it, and its end queues it.
    await until('every event of the burst taken', async () => {
      const [open] = await t.services.db
        .select({ n: sql<number>`count(*)::int` })
        .from(webhookEvents)
        .where(and(sql`${webhookEvents.id} like ${`whe_burst_%_${start}`}`, isNull(webhookEvents.processedAt)));
      return open?.n === 0;
    });
    const added = (await t.services.db.select().from(inventoryMovements)).slice(movementsBefore);
    expect(added.map((m) => m.delta)).toEqual([-1]);

    // A sale whose event was stored ten minutes ago and never queued (its process died in between).
    await withoutSquareWebhooks(() =>
      control('POST', `square/${controlShop('square')}/stock`, { sku, location: store, quantity: before - 2 }),
    );
    const lost = squareCountEvent(
      `whe_lost_${start}`,
      { inventoryItemId: stock?.inventoryItemId as string, store, quantity: before - 2, at: new Date() },
      new Date(Date.now() - 10 * 60_000),
    );
    await t.services.db.insert(webhookEvents).values(lost);
    expect(await requeueStrandedEvents(t.services)).toBeGreaterThanOrEqual(1);
    await until('the stranded sale in the ledger', async () => (await level(sku, 0)).onHand === before - 2);

    // At start-up, a sale stored just now whose pass never ran (the process died first) is taken in at once.
    await withoutSquareWebhooks(() =>
      control('POST', `square/${controlShop('square')}/stock`, { sku, location: store, quantity: before - 3 }),
    );
    await t.services.db.insert(webhookEvents).values(
      squareCountEvent(`whe_waiting_${start}`, {
        inventoryItemId: stock?.inventoryItemId as string,
        store,
        quantity: before - 3,
        at: new Date(),
      }),
    );
    expect(await queueWaitingStockEvents(t.services)).toBeGreaterThanOrEqual(1);
    await until('the waiting sale in the ledger', async () => (await level(sku, 0)).onHand === before - 3, 5000);
    await quiet();
    await until('everything converged', () => converged());
  });

  it("holds a channel's stock events while this process pushes it, and takes them in when the push ends", async () => {
    const { sku, store, before, stock } = await quietSquareLevel(0, 1);
    const other = skus[1] as string;
    // A push to Square that takes a while: Square answers slowly, and it has a level to send.
    await control('PUT', `square/${controlShop('square')}/faults`, { latencyMs: 1500 });
    try {
      await t.services.db.transaction((tx) =>
        applyMovements(tx, tenant.accountId, [
          {
            variantId: variantOf.get(other) as string,
            locationId: ours[0]?.id as string,
            delta: 1,
            reason: 'adjustment',
            source: 'manual',
          },
        ]),
      );
      await markDirty(t.services.db, tenant.accountId, [variantOf.get(other) as string], {
        channelIds: [ch.square.id],
      });
      const pushing = runPush(t.services, ch.square.id);
      // A sale at the store comes in meanwhile (stored, as the webhook route stores it).
      await withoutSquareWebhooks(() =>
        control('POST', `square/${controlShop('square')}/stock`, { sku, location: store, quantity: before - 1 }),
      );
      const id = `whe_during_push_${Date.now()}`;
      await t.services.db.insert(webhookEvents).values(
        squareCountEvent(id, {
          inventoryItemId: stock?.inventoryItemId as string,
          store,
          quantity: before - 1,
          at: new Date(),
        }),
      );
      await processWebhookEvent(t.services, id);
      const [waiting] = await t.services.db.select().from(webhookEvents).where(eq(webhookEvents.id, id));
      expect(waiting?.processedAt).toBeNull();
      await pushing;
      await until('the sale taken in once the push ended', async () => (await level(sku, 1)).onHand === before - 1);
    } finally {
      await control('DELETE', `square/${controlShop('square')}/faults`);
    }
    await quiet();
    await until('everything converged', () => converged());
  });

  // Not a timed test: prints propagation figures when asked (H6_MEASURE=1); the benchmark owns the numbers.
  it.runIf(process.env.H6_MEASURE)(
    'measures POS sale propagation',
    async () => {
      const times: number[] = [];
      for (let n = 0; n < 20; n++) {
        const sku = skus[n % skus.length] as string;
        const i = n % 2;
        const before = (await level(sku, i)).onHand;
        if (before < 2) continue;
        const started = performance.now();
        await control('POST', `square/${controlShop('square')}/orders`, {
          lines: [{ sku, quantity: 1 }],
          location: ours[i]?.storeId,
        });
        await until('propagation', async () => {
          const [a, b] = await Promise.all([held('shopify', sku, i), held('bigcommerce', sku, i)]);
          return a === before - 1 && b === before - 1;
        });
        times.push(performance.now() - started);
      }
      times.sort((a, b) => a - b);
      console.log(
        'propagation ms p50',
        times[Math.floor(times.length / 2)],
        'p95',
        times[Math.floor(times.length * 0.95)],
        times.map(Math.round),
      );
      await quiet();
      const events = await t.services.db
        .select()
        .from(webhookEvents)
        .where(eq(webhookEvents.topic, 'inventory.count.updated'))
        .orderBy(webhookEvents.receivedAt);
      const syncRuns = await t.services.db.select().from(syncs).orderBy(syncs.id);
      console.log(
        'square events: occurred→received, received→processed ms',
        events
          .slice(-6)
          .map((e) => [
            (e.receivedAt?.getTime() ?? 0) - (e.occurredAt?.getTime() ?? 0),
            (e.processedAt?.getTime() ?? 0) - (e.receivedAt?.getTime() ?? 0),
          ]),
        'push durations ms',
        syncRuns.slice(-6).map((r) => (r.finishedAt?.getTime() ?? 0) - (r.startedAt?.getTime() ?? 0)),
      );
    },
    120_000,
  );

  // One retry: this journey has timed out now and then in the full suite (cause not found yet; the failure
  // says what the engine saw).
  it('a stock edit made in Shopify reaches Square', { retry: 1 }, async () => {
    const sku = skus[1] as string;
    const before = (await level(sku, 1)).onHand;
    const ext = (await settingsOf('shopify')).channel.locationMap[1]?.externalLocationId as string;
    await control('POST', `shopify/${controlShop('shopify')}/stock`, {
      sku,
      location: tail(ext),
      quantity: before + 7,
    });
    await until('the edit in Square', async () => (await held('square', sku, 1)) === before + 7).catch(async (err) => {
      // This journey has timed out now and then in the full suite: say what the engine saw when it does.
      const events = await t.services.db.select().from(webhookEvents).where(eq(webhookEvents.channelId, ch.shopify.id));
      const rows = await t.services.db
        .select()
        .from(channelStock)
        .where(eq(channelStock.variantId, variantOf.get(sku) as string));
      const runs = await t.services.db.select().from(syncs).where(eq(syncs.channelId, ch.square.id));
      throw new Error(
        `${(err as Error).message}; on hand ${JSON.stringify(await level(sku, 1))} (was ${before}); last Shopify events ${JSON.stringify(
          events.slice(-3).map((e) => [e.topic, e.outcome, e.error, e.payload, e.receivedAt, e.processedAt]),
        )}; levels ${JSON.stringify(rows)}; last Square runs ${JSON.stringify(runs.slice(-2))}`,
      );
    });
    expect((await level(sku, 1)).onHand).toBe(before + 7);
    await until('everything converged', () => converged());
  });

  it('subtracts dynamic buffers and safety stock from what a channel is sent', async () => {
    const sku = skus[2] as string;
    const onHand = (await level(sku, 0)).onHand;
    await t.services.db.insert(buffers).values({
      accountId: tenant.accountId,
      sku,
      locationExternalId: ours[0]?.storeId as string,
      channelId: ch.bigcommerce.id,
      qty: 2,
    });
    const shopify = await settingsOf('shopify');
    shopify.advanced.safetyStock = 1;
    await t.services.db.update(channels).set({ settings: shopify }).where(eq(channels.id, ch.shopify.id));
    const marked = await markDirty(t.services.db, tenant.accountId, [variantOf.get(sku) as string]);
    await schedulePush(t.services, marked);
    await until('buffered numbers', async () => {
      return (
        (await held('bigcommerce', sku, 0)) === Math.max(0, onHand - 2) &&
        (await held('shopify', sku, 0)) === Math.max(0, onHand - 1) &&
        (await held('square', sku, 0)) === onHand
      );
    });
    const rows = await loadAvailable(t.services.db, tenant.accountId, { variantIds: [variantOf.get(sku) as string] });
    const bc = rows.find((r) => r.channelId === ch.bigcommerce.id && r.locationId === ours[0]?.id);
    expect(bc).toMatchObject({ onHand, buffer: 2, safetyStock: 0, available: Math.max(0, onHand - 2) });
    // A sale in BigCommerce of a buffered SKU (a web order: its units reserved, issue 13) lowers what can be
    // sold by what was sold, not by the buffer.
    await control('POST', `bigcommerce/${controlShop('bigcommerce')}/orders`, {
      lines: [{ sku, quantity: 1 }],
      location: (await settingsOf('bigcommerce')).channel.locationMap[0]?.externalLocationId,
    });
    await until('the BigCommerce sale in the ledger', async () => {
      const now = await level(sku, 0);
      return now.onHand === onHand && now.reserved === 1;
    });
    await until('the sale on Square', async () => (await held('square', sku, 0)) === onHand - 1);
    shopify.advanced.safetyStock = 0;
    await t.services.db.update(channels).set({ settings: shopify }).where(eq(channels.id, ch.shopify.id));
    await t.services.db.delete(buffers).where(eq(buffers.accountId, tenant.accountId));
    await schedulePush(t.services, await markDirty(t.services.db, tenant.accountId, [variantOf.get(sku) as string]));
    await until('everything converged', () => converged());
  });

  it('duplicate and out-of-order reports change nothing twice', async () => {
    const sku = skus[3] as string;
    const variantId = variantOf.get(sku) as string;
    const before = (await level(sku, 0)).onHand;
    const stock = await squareStock(variantId, ours[0]?.storeId as string);
    expect(stock).toBeTruthy();
    const [squareRow] = await t.services.db.select().from(channels).where(eq(channels.id, ch.square.id));
    // The change is made in Square with its webhooks off; its reports are then delivered by hand.
    await withoutSquareWebhooks(() =>
      control('POST', `square/${controlShop('square')}/stock`, {
        sku,
        location: ours[0]?.storeId,
        quantity: before - 3,
      }),
    );
    const report = {
      inventoryItemId: stock?.inventoryItemId as string,
      externalLocationId: ours[0]?.storeId as string,
      quantity: before - 3,
      at: new Date(),
      key: 'evt-dup-1',
    };
    const first = await applyChannelReports(t.services, squareRow as never, [report]);
    expect(first.changed).toBe(1);
    const again = await applyChannelReports(t.services, squareRow as never, [report]);
    expect(again.changed).toBe(0);
    // An older event (delivered late) is not applied over the newer one.
    const late = await applyChannelReports(t.services, squareRow as never, [
      { ...report, quantity: before + 10, at: new Date(Date.now() - 60_000), key: 'evt-late' },
    ]);
    expect(late).toMatchObject({ changed: 0, ignored: 1 });
    expect((await level(sku, 0)).onHand).toBe(before - 3);

    // A webhook delivered twice by the provider is one event.
    const delivered = relay.received.filter((r) => r.url.startsWith('/webhooks/square'));
    const last = delivered.at(-1);
    expect(last).toBeTruthy();
    await quiet();
    const countBefore = (await t.services.db.select().from(inventoryMovements)).length;
    const res = await t.app.inject({
      method: 'POST',
      url: last?.url as string,
      headers: last?.headers as Record<string, string>,
      payload: last?.body,
    });
    expect(res.json()).toMatchObject({ duplicate: true });
    await quiet();
    const added = (await t.services.db.select().from(inventoryMovements)).slice(countBefore);
    expect(added).toEqual([]);
    await until('everything converged', () => converged());
  });

  it('still counts a POS sale that our push overwrote in Square before its report was taken in', async () => {
    const sku = skus[3] as string;
    const variantId = variantOf.get(sku) as string;
    const store = ours[1]?.storeId as string;
    await quiet();
    const before = (await level(sku, 1)).onHand;
    const stock = await squareStock(variantId, store);
    // A sale of two at the store whose webhook is late…
    await withoutSquareWebhooks(() =>
      control('POST', `square/${controlShop('square')}/orders`, { lines: [{ sku, quantity: 2 }], location: store }),
    );
    const soldAt = new Date();
    await new Promise((r) => setTimeout(r, 20));
    // …while a count of +3 here is pushed to Square as an absolute quantity, over the sale.
    const movementsBefore = (await t.services.db.select().from(inventoryMovements)).length;
    await t.services.db.transaction(async (tx) => {
      await applyMovements(tx, tenant.accountId, [
        { variantId, locationId: ours[1]?.id as string, delta: 3, reason: 'adjustment', source: 'manual' },
      ]);
    });
    await schedulePush(t.services, [ch.square.id, ch.shopify.id, ch.bigcommerce.id]);
    await until('the count pushed to Square', async () => (await held('square', sku, 1)) === before + 3);
    // The sale's report arrives now; it is older than the push, but the sale happened.
    const [squareRow] = await t.services.db.select().from(channels).where(eq(channels.id, ch.square.id));
    const late = await applyChannelReports(t.services, squareRow as never, [
      {
        inventoryItemId: stock?.inventoryItemId as string,
        externalLocationId: store,
        quantity: before - 2,
        at: soldAt,
        key: 'evt-overwritten-sale',
      },
    ]);
    expect(late.changed).toBe(1);
    expect((await level(sku, 1)).onHand).toBe(before + 1);
    await quiet();
    const added = (await t.services.db.select().from(inventoryMovements)).slice(movementsBefore);
    expect(added.map((m) => [m.reason, m.delta])).toEqual([
      ['adjustment', 3],
      ['channel', -2],
    ]);
    // Every shop holds the ledger's number again, and the late echo of our +3 push changes nothing.
    await until('everything converged', () => converged());
    expect(await held('square', sku, 1)).toBe(before + 1);
    const echo = await applyChannelReports(t.services, squareRow as never, [
      {
        inventoryItemId: stock?.inventoryItemId as string,
        externalLocationId: store,
        quantity: before + 3,
        at: new Date(soldAt.getTime() + 10),
        key: 'evt-late-echo',
      },
    ]);
    expect(echo.changed).toBe(0);
    expect((await level(sku, 1)).onHand).toBe(before + 1);
  });

  it('counts a sale made just before our send even when it leaves exactly the quantity we send', async () => {
    const { sku, variantId, store, before, stock, squareRow } = await quietSquareLevel(1, 0);
    // A sale of one in Square whose report is late…
    await withoutSquareWebhooks(() =>
      control('POST', `square/${controlShop('square')}/orders`, { lines: [{ sku, quantity: 1 }], location: store }),
    );
    const soldAt = new Date();
    await new Promise((r) => setTimeout(r, 20));
    // …and a safety stock of 1 on Square, so the push sends exactly what the sale left.
    const square = await settingsOf('square');
    square.advanced.safetyStock = 1;
    await t.services.db.update(channels).set({ settings: square }).where(eq(channels.id, ch.square.id));
    await schedulePush(t.services, await markDirty(t.services.db, tenant.accountId, [variantId]));
    await until('the safety stock pushed', async () => {
      const row = await squareStock(variantId, store);
      return row?.pushedQty === before - 1 && row.pendingQty === null;
    });
    const late = await applyChannelReports(t.services, squareRow as never, [
      {
        inventoryItemId: stock?.inventoryItemId as string,
        externalLocationId: store,
        quantity: before - 1,
        at: soldAt,
        key: 'evt-sale-before-send',
      },
    ]);
    expect(late.changed).toBe(1);
    expect((await level(sku, 0)).onHand).toBe(before - 1);
    await until('the sale less the safety stock on Square', async () => (await held('square', sku, 0)) === before - 2);
    square.advanced.safetyStock = 0;
    await t.services.db.update(channels).set({ settings: square }).where(eq(channels.id, ch.square.id));
    await schedulePush(t.services, await markDirty(t.services.db, tenant.accountId, [variantId]));
    await until('everything converged', () => converged());
  });

  it('counts two concurrent adjustments of one level both', async () => {
    const variantId = variantOf.get(skus[0] as string) as string;
    const locationId = ours[1]?.id as string;
    const before = (await level(skus[0] as string, 1)).onHand;
    await Promise.all(
      [3, 4, -2].map((delta) =>
        t.services.db.transaction((tx) =>
          applyMovements(tx, tenant.accountId, [
            { variantId, locationId, delta, reason: 'adjustment', source: 'manual' },
          ]),
        ),
      ),
    );
    expect((await level(skus[0] as string, 1)).onHand).toBe(before + 5);
    await schedulePush(t.services, [ch.square.id, ch.shopify.id, ch.bigcommerce.id]);
    await until('everything converged', () => converged());
  });

  it('reconciliation repairs a change made behind our back (webhooks off)', async () => {
    const sku = skus[1] as string;
    const before = (await level(sku, 0)).onHand;
    await withoutSquareWebhooks(() =>
      control('POST', `square/${controlShop('square')}/stock`, {
        sku,
        location: ours[0]?.storeId,
        quantity: before - 4,
      }),
    );
    await new Promise((r) => setTimeout(r, 300));
    expect((await level(sku, 0)).onHand).toBe(before);
    const outcome = await reconcileChannel(t.services, ch.square.id, 'manual');
    expect(outcome).toMatchObject({ drifted: 1 });
    expect((await level(sku, 0)).onHand).toBe(before - 4);
    const [run] = await t.services.db
      .select()
      .from(syncs)
      .where(eq(syncs.id, outcome?.syncId as number));
    expect(run).toMatchObject({ type: 'reconcile', status: 'succeeded' });
    const [movement] = await t.services.db
      .select()
      .from(inventoryMovements)
      .orderBy(sql`${inventoryMovements.id} desc`)
      .limit(1);
    expect(movement).toMatchObject({ reason: 'reconcile', delta: -4, source: 'square' });
    await until('the repaired number on Shopify', async () => (await held('shopify', sku, 0)) === before - 4);
    // A second run finds nothing to take in.
    expect(await reconcileChannel(t.services, ch.square.id, 'manual')).toMatchObject({ drifted: 0 });
    // Square was just reconciled; every channel is due again once its interval (15 minutes) has passed.
    expect(await dueChannels(t.services)).not.toContain(ch.square.id);
    const later = await dueChannels(t.services, new Date(Date.now() + 16 * 60_000));
    expect(later).toEqual(expect.arrayContaining([ch.square.id, ch.shopify.id, ch.bigcommerce.id]));
  });

  it('a full push completes and converges with 20% of provider calls failing', async () => {
    for (const p of ['shopify', 'bigcommerce'] as const)
      await control('PUT', `${p}/${controlShop(p)}/faults`, {
        rate429: 0.08,
        rate5xx: 0.08,
        rateTimeout: 0.04,
        timeoutMs: 300,
      });
    try {
      // Change every level, then push everything.
      const movements = skus.flatMap((sku) =>
        ours.map((l, i) => ({
          variantId: variantOf.get(sku) as string,
          locationId: l.id,
          delta: i + 1,
          reason: 'adjustment' as const,
          source: 'manual',
        })),
      );
      await t.services.db.transaction((tx) => applyMovements(tx, tenant.accountId, movements));
      await schedulePush(t.services, [ch.square.id]);
      for (const p of ['shopify', 'bigcommerce'] as const) {
        const res = await trpcOver(t.app, tenant.headers).mutation<{ variants: number }>('channels.pushInventory', {
          id: ch[p].id,
        });
        expect(res.data?.variants).toBe(variantsListedOn[p]);
      }
      await until('convergence under faults', () => converged(), 90_000);
    } finally {
      for (const p of ['shopify', 'bigcommerce'] as const) await control('DELETE', `${p}/${controlShop(p)}/faults`);
    }
  }, 120_000);

  it.runIf(usingServer())('pushes a channel from one process at a time when several share the database', async () => {
    await quiet();
    const sku = skus[0] as string;
    const variantId = variantOf.get(sku) as string;
    // Another worker process holds the channel's push.
    const other = await openDatabase({ url: t.services.database.connectionString as string, poolMax: 2 });
    const release = await other.exclusive(`inventory.push:${ch.square.id}`);
    expect(release).not.toBeNull();
    try {
      const before = (await syncsOf(ch.square.id)).length;
      await t.services.db.transaction(async (tx) => {
        await applyMovements(tx, tenant.accountId, [
          { variantId, locationId: ours[0]?.id as string, delta: 1, reason: 'adjustment', source: 'manual' },
        ]);
      });
      await runPush(t.services, ch.square.id);
      // Not pushed here, and still waiting: the level stays dirty for the push queued again.
      expect((await syncsOf(ch.square.id)).length).toBe(before);
      const dirty = await t.services.db
        .select()
        .from(inventoryDirty)
        .where(and(eq(inventoryDirty.channelId, ch.square.id), eq(inventoryDirty.variantId, variantId)));
      expect(dirty).toHaveLength(1);
    } finally {
      await release?.();
      await other.close();
    }
    // Square's push comes from the job queued again; the other channels are pushed as usual.
    await schedulePush(t.services, [ch.shopify.id, ch.bigcommerce.id]);
    await until('everything converged', () => converged());
  });

  it('starts a full push over REST and answers NOT_FOUND for a channel of another account', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/v1/channels/${ch.square.id}/actions/inventory-push`,
      headers: tenant.headers,
    });
    expect(res.statusCode).toBe(202);
    expect(res.json()).toMatchObject({ channelId: ch.square.id, variants: variantsListedOn.square });
    const other = await createSignedInAccount(t.services);
    const denied = await t.app.inject({
      method: 'POST',
      url: `/api/v1/channels/${ch.square.id}/actions/inventory-push`,
      headers: other.headers,
    });
    expect(denied.statusCode).toBe(404);
  });
});
