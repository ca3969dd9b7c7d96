// A Shopify-only merchant makes its locations from the shop's (issue 19) while the shop has orders waiting, their
// units committed (on hand at Shopify, not available). The first order pull can come before the locations, between
// them and the stock's first import, or after it (ADR 0008, "Older than our knowledge"); all must end alike: our on hand is Shopify's on hand,
// the waiting units reserved (what we offer is what Shopify has available), each allocation placed, and an import
// run again changes nothing. Against the Shopify simulator over real HTTP; each step run directly, in the order
// the case needs (no job worker: nothing runs between them).
import type { ChannelDetail, ChannelLocationDrafts, CreatedLocationsFromChannel } from '@switchyard/contracts';
import type { RunningSandbox } from '@switchyard/sandbox';
import { and, eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp } from '../../../test/app.ts';
import { connectSandboxChannel } from '../../../test/channels.ts';
import { createSignedInAccount } from '../../../test/factories.ts';
import { startTestSandbox } from '../../../test/sandbox.ts';
import { trpcOver } from '../../../test/trpc.ts';
import { ShopifyConnector } from '../../connectors/shopify/connector.ts';
import { type ChannelRow, connectorFor } from '../channels/channels.service.ts';
import { channels } from '../channels/channels.tables.ts';
import { inventoryLevels, inventoryMovements } from '../inventory/inventory.tables.ts';
import { locations } from '../locations/locations.tables.ts';
import { importCatalog } from '../products/catalog-import.ts';
import { variants } from '../products/products.tables.ts';
import { startSync } from '../syncs/syncs.records.ts';
import { invariantViolations } from './orders.fixtures.ts';
import { importOrders } from './orders.import.ts';
import { orderAllocations, orderEvents, orderLines, orders } from './orders.tables.ts';

type TestApp = Awaited<ReturnType<typeof createTestApp>>;
type Tenant = Awaited<ReturnType<typeof createSignedInAccount>>;
interface Snapshot {
  locations: { id: string; name: string }[];
  stock: Record<string, Record<string, number>>;
  onHand: Record<string, Record<string, number>>;
}

let sandbox: RunningSandbox;
let t: TestApp;

beforeAll(async () => {
  sandbox = await startTestSandbox({ products: 6, shopifyPlan: 'plus' });
  t = await createTestApp({ sandboxUrl: sandbox.url });
});
afterAll(async () => {
  await t?.close();
  await sandbox?.close();
});

const snapshot = async (shop: string): Promise<Snapshot> => {
  const res = await fetch(`${sandbox.url}/_control/shopify/${shop}`);
  if (!res.ok) throw new Error(`control ${shop}: ${res.status} ${await res.text()}`);
  return res.json() as Promise<Snapshot>;
};

/** The catalog import's run, straight (its job would do the same): products, then the stock of mapped locations. */
async function runImport(tenant: Tenant, channel: ChannelDetail) {
  const [row] = await t.services.db.select().from(channels).where(eq(channels.id, channel.id));
  const syncId = await startSync(t.services.db, {
    accountId: tenant.accountId,
    channelId: channel.id,
    type: 'catalog_import',
    trigger: 'manual',
  });
  return importCatalog(t.services, row as ChannelRow, connectorFor(t.services, row as ChannelRow), {
    syncId,
    accountId: tenant.accountId,
    channelId: channel.id,
    syncFrom: null,
  });
}

/** The dashboard's offer taken: the shop's locations made ours and mapped (its import is not queued: no queue). */
async function createLocationsFromShop(tenant: Tenant, channel: ChannelDetail) {
  const trpc = trpcOver(t.app, tenant.headers);
  const drafts = await trpc.query<ChannelLocationDrafts>('locations.channelDrafts', { channelId: channel.id });
  const created = await trpc.mutation<CreatedLocationsFromChannel>('locations.createFromChannel', {
    channelId: channel.id,
    locations: drafts.data?.drafts ?? [],
  });
  expect(created.error).toBeUndefined();
  expect(created.data?.locations.length).toBeGreaterThan(0);
}

/** Everything the end state is judged on. */
async function state(tenant: Tenant, shop: string) {
  const db = t.services.db;
  const levels = await db
    .select({
      sku: variants.sku,
      storeId: locations.storeId,
      name: locations.name,
      onHand: inventoryLevels.onHand,
      reserved: inventoryLevels.reserved,
    })
    .from(inventoryLevels)
    .innerJoin(variants, eq(variants.id, inventoryLevels.variantId))
    .innerJoin(locations, eq(locations.id, inventoryLevels.locationId))
    .where(eq(inventoryLevels.accountId, tenant.accountId));
  const ours = await db.select().from(orders).where(eq(orders.accountId, tenant.accountId));
  const ids = ours.map((o) => o.id);
  const lines = ids.length ? await db.select().from(orderLines).where(inArray(orderLines.orderId, ids)) : [];
  const allocations = ids.length
    ? await db.select().from(orderAllocations).where(inArray(orderAllocations.orderId, ids))
    : [];
  const movementCount = (
    await db
      .select({ id: inventoryMovements.id })
      .from(inventoryMovements)
      .where(eq(inventoryMovements.accountId, tenant.accountId))
  ).length;
  return {
    onHand: Object.fromEntries(levels.filter((l) => l.onHand !== 0).map((l) => [`${l.sku} @ ${l.name}`, l.onHand])),
    reserved: levels.reduce((s, l) => s + l.reserved, 0),
    available: levels.reduce((s, l) => s + l.onHand - l.reserved, 0),
    orders: ours,
    lines,
    allocations,
    movementCount,
    shop: await snapshot(shop),
  };
}

/**
 * What Shopify holds, level by level, where it can sell some (a level with nothing available seeds nothing), and
 * what it has available there: the end state of either arrival order.
 */
function shopify(snap: Snapshot) {
  const nameOf = new Map(snap.locations.map((l) => [l.id, l.name]));
  const onHand: Record<string, number> = {};
  let available = 0;
  for (const [sku, at] of Object.entries(snap.stock))
    for (const [id, qty] of Object.entries(at)) {
      if (qty <= 0) continue;
      onHand[`${sku} @ ${nameOf.get(id)}`] = snap.onHand[sku]?.[id] ?? 0;
      available += qty;
    }
  return { onHand, available };
}

/** The end both arrival orders must reach. */
async function expectSettled(tenant: Tenant, shop: string) {
  const s = await state(tenant, shop);
  const want = shopify(s.shop);
  // The shop's waiting orders are ours, open, each unit reserved where routing placed it.
  expect(s.orders.length).toBe(3);
  expect(s.orders.every((o) => o.status === 1 && !o.flagged)).toBe(true);
  const open = s.lines.reduce((n, l) => n + l.quantity - l.cancelledQty - l.refundedQty, 0);
  expect(open).toBeGreaterThan(0);
  expect(s.lines.every((l) => l.channelClaimed)).toBe(true);
  expect(s.allocations.map((a) => ({ status: a.status, held: a.reserved === a.quantity }))).toEqual(
    s.allocations.map(() => ({ status: 1, held: true })),
  );
  expect(s.allocations.reduce((n, a) => n + a.reserved, 0)).toBe(open);
  // Our on hand is what Shopify holds (its committed units too); what we can sell is what it has available.
  expect(s.onHand).toEqual(want.onHand);
  expect(Object.values(want.onHand).reduce((a, b) => a + b, 0) - want.available).toBe(open);
  expect(s.reserved).toBe(open);
  expect(s.available).toBe(want.available);
  expect(await invariantViolations(t.services, tenant.accountId)).toEqual([]);
  return s;
}

/**
 * The shop's waiting orders take their units where the shop can still sell some: the world this test needs (the
 * shops are seeded by name). A level with nothing available seeds no stock of ours at all, committed units or not.
 */
async function expectWaitingAtStockedLevels(tenant: Tenant, shop: string) {
  const s = await state(tenant, shop);
  const snap = s.shop;
  const shopLocations = new Set(snap.locations.map((l) => l.id));
  expect(s.lines.length).toBeGreaterThan(0);
  for (const line of s.lines) {
    const at = line.stockLocationExternalId as string;
    expect(shopLocations.has(at), `${line.sku} at ${at}`).toBe(true);
    expect(snap.stock[line.sku as string]?.[at], `${line.sku} available at ${at}`).toBeGreaterThan(0);
  }
}

describe('orders taken in before their location had stock', () => {
  it('order pull first, then the locations and the stock import: the waiting orders are claimed and reserved', {
    timeout: 120_000,
  }, async () => {
    const tenant = await createSignedInAccount(t.services);
    const shop = 'pull-first';
    const channel = await connectSandboxChannel(t, tenant, 'shopify', shop);
    // Connected with no location of ours: the catalog comes in, the stock has nowhere to land.
    await runImport(tenant, channel);
    // The first pull: the shop's 3 waiting orders come in with nowhere to claim or reserve.
    const pulled = await importOrders(t.services, channel.id);
    expect(pulled.created).toBe(3);
    await expectWaitingAtStockedLevels(tenant, shop);
    const before = await state(tenant, shop);
    expect(before.onHand).toEqual({});
    expect(before.lines.some((l) => l.channelClaimed)).toBe(false);
    expect(before.allocations.every((a) => (a.status === 0 || a.status === 4) && a.reserved === 0)).toBe(true);
    expect(before.orders.every((o) => o.flagged)).toBe(true);

    // The merchant makes the shop's locations ours; the import seeds them, and takes the waiting orders in hand.
    await createLocationsFromShop(tenant, channel);
    await runImport(tenant, channel);
    const settled = await expectSettled(tenant, shop);
    // Each order says why its units were counted back on hand and reserved now.
    const events = await t.services.db
      .select()
      .from(orderEvents)
      .where(
        and(
          eq(orderEvents.accountId, tenant.accountId),
          inArray(
            orderEvents.orderId,
            settled.orders.map((o) => o.id),
          ),
        ),
      );
    for (const order of settled.orders) {
      const mine = events.filter((e) => e.orderId === order.id).map((e) => e.message);
      expect(mine.some((m) => /Shopify's stock at .* came in without the \d+ × .* counted back on hand/.test(m))).toBe(
        true,
      );
      expect(mine.some((m) => / reserved at /.test(m))).toBe(true);
    }

    // Run again: nothing moves.
    await runImport(tenant, channel);
    await importOrders(t.services, channel.id);
    const again = await state(tenant, shop);
    expect({ ...again, shop: null }).toEqual({ ...settled, shop: null });
  });

  it('locations first, then the order pull, then the stock import: the expected claims are met and reserved', {
    timeout: 120_000,
  }, async () => {
    const tenant = await createSignedInAccount(t.services);
    const shop = 'arrival-a';
    const channel = await connectSandboxChannel(t, tenant, 'shopify', shop);
    await runImport(tenant, channel);
    await createLocationsFromShop(tenant, channel);
    // The first pull lands between the mapping and the stock: the lines claim (our location is known), but no
    // first read holds their movement yet (left expected) and there is nothing to reserve.
    const pulled = await importOrders(t.services, channel.id);
    expect(pulled.created).toBe(3);
    await expectWaitingAtStockedLevels(tenant, shop);
    const before = await state(tenant, shop);
    expect(before.onHand).toEqual({});
    expect(before.lines.every((l) => l.channelClaimed)).toBe(true);
    expect(before.allocations.every((a) => a.status === 4 && a.reserved === 0)).toBe(true);

    await runImport(tenant, channel);
    const settled = await expectSettled(tenant, shop);
    await runImport(tenant, channel);
    await importOrders(t.services, channel.id);
    const again = await state(tenant, shop);
    expect({ ...again, shop: null }).toEqual({ ...settled, shop: null });
  });

  it('locations and stock first, then the first order pull: the same end', { timeout: 120_000 }, async () => {
    const tenant = await createSignedInAccount(t.services);
    const shop = 'seeded-first';
    const channel = await connectSandboxChannel(t, tenant, 'shopify', shop);
    await runImport(tenant, channel);
    await createLocationsFromShop(tenant, channel);
    await runImport(tenant, channel);
    // Seeded from what Shopify has available: its committed units are not counted yet.
    const seeded = await state(tenant, shop);
    expect(seeded.orders).toEqual([]);
    expect(Object.values(seeded.onHand).reduce((a, b) => a + b, 0)).toBe(shopify(seeded.shop).available);

    const pulled = await importOrders(t.services, channel.id);
    expect(pulled.created).toBe(3);
    await expectWaitingAtStockedLevels(tenant, shop);
    const settled = await expectSettled(tenant, shop);

    await runImport(tenant, channel);
    await importOrders(t.services, channel.id);
    const again = await state(tenant, shop);
    expect({ ...again, shop: null }).toEqual({ ...settled, shop: null });
  });
});

describe('the periodic order pull', () => {
  it('lists what changed by id and time, and reads whole only the orders it does not hold as they are', {
    timeout: 120_000,
  }, async () => {
    const tenant = await createSignedInAccount(t.services);
    const shop = 'stamps-pull';
    const channel = await connectSandboxChannel(t, tenant, 'shopify', shop);
    await runImport(tenant, channel);
    await createLocationsFromShop(tenant, channel);
    await runImport(tenant, channel);
    expect((await importOrders(t.services, channel.id)).created).toBe(3);
    const reads = vi.spyOn(ShopifyConnector.prototype, 'getOrder');
    try {
      // Nothing changed at the shop: the pull lists the orders' stamps and reads none of them whole.
      const quiet = await importOrders(t.services, channel.id);
      expect(quiet).toMatchObject({ created: 0, updated: 0 });
      expect(reads).not.toHaveBeenCalled();

      // One order is cancelled at the shop (its webhook never reaches this app): the next pull reads that one.
      const held = await state(tenant, shop);
      const cancelled = held.orders[0]?.externalId as string;
      const res = await fetch(
        `${sandbox.url}/_control/shopify/${shop}/orders/${encodeURIComponent(cancelled)}/cancel`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ reason: 'customer' }),
        },
      );
      expect(res.status).toBe(200);
      const pulled = await importOrders(t.services, channel.id);
      expect(pulled).toMatchObject({ created: 0, updated: 1 });
      expect(reads.mock.calls.map(([id]) => id)).toEqual([cancelled]);
      const after = await state(tenant, shop);
      expect(after.orders.find((o) => o.externalId === cancelled)?.status).toBe(7);
      expect(await invariantViolations(t.services, tenant.accountId)).toEqual([]);
    } finally {
      reads.mockRestore();
    }
  });
});
