// Issue 19: a merchant with a Shopify shop and no Square point of sale makes our locations from the shop's,
// and the shop's stock lands; Square connected afterwards maps its stores onto them (nothing made twice,
// no quantity changed). Against the provider simulators over real HTTP, with the job workers running.
import type {
  ChannelDetail,
  ChannelLocationDrafts,
  ChannelMappingStatus,
  CreatedLocationsFromChannel,
} from '@switchyard/contracts';
import type { RunningSandbox } from '@switchyard/sandbox';
import { and, eq, ne } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../../../test/app.ts';
import { connectSandboxChannel } from '../../../test/channels.ts';
import { createSignedInAccount } from '../../../test/factories.ts';
import { startTestSandbox } from '../../../test/sandbox.ts';
import { trpcOver } from '../../../test/trpc.ts';
import { startJobs } from '../../bootstrap.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import { channels } from '../channels/channels.tables.ts';
import { inventoryLevels, inventoryMovements } from '../inventory/inventory.tables.ts';
import { ORDER_IMPORT_JOB } from '../orders/orders.import.ts';
import { CATALOG_IMPORT_JOB } from '../products/catalog-import.ts';
import { variants } from '../products/products.tables.ts';
import { syncs } from '../syncs/syncs.tables.ts';
import { locations } from './locations.tables.ts';

type TestApp = Awaited<ReturnType<typeof createTestApp>>;
interface Snapshot {
  locations: { id: string; name: string }[];
  stock: Record<string, Record<string, number>>;
  onHand: Record<string, Record<string, number>>;
}

let sandbox: RunningSandbox;
let t: TestApp;
let queue: JobQueue;

beforeAll(async () => {
  sandbox = await startTestSandbox({ products: 6, shopifyPlan: 'plus' });
  t = await createTestApp({ sandboxUrl: sandbox.url });
  queue = await startJobs(t.services, { work: true });
});
afterAll(async () => {
  await queue?.stop({ timeoutMs: 2000 });
  await t?.close();
  await sandbox?.close();
});

const control = async <T>(path: string): Promise<T> => {
  const res = await fetch(`${sandbox.url}/_control/${path}`);
  if (!res.ok) throw new Error(`control ${path}: ${res.status} ${await res.text()}`);
  return res.json() as Promise<T>;
};

/**
 * The import workers woken: a catalog import, and the order pull it queues when it ends, are sent without waking
 * them, so each would wait for the worker's next poll (a second). The workers still take the jobs from the queue
 * as in production; only the wait for their poll goes.
 */
function wakeImports() {
  queue.notify(CATALOG_IMPORT_JOB);
  queue.notify(ORDER_IMPORT_JOB);
}

async function finished(syncId: number) {
  const until = Date.now() + 50_000;
  for (;;) {
    const [run] = await t.services.db.select().from(syncs).where(eq(syncs.id, syncId));
    if (run?.finishedAt) return run;
    if (Date.now() > until) throw new Error(`sync ${syncId} did not finish: ${JSON.stringify(run)}`);
    wakeImports();
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Our on hand per "SKU @ location name", levels that hold stock only. */
async function onHand(accountId: string) {
  const rows = await t.services.db
    .select({ sku: variants.sku, name: locations.name, onHand: inventoryLevels.onHand })
    .from(inventoryLevels)
    .innerJoin(variants, eq(variants.id, inventoryLevels.variantId))
    .innerJoin(locations, eq(locations.id, inventoryLevels.locationId))
    .where(eq(inventoryLevels.accountId, accountId));
  return Object.fromEntries(rows.filter((r) => r.onHand !== 0).map((r) => [`${r.sku} @ ${r.name}`, r.onHand]));
}

describe('locations from a channel', () => {
  it('makes a Shopify-only merchant locations from the shop, takes its stock, and Square later adds none', {
    timeout: 120_000,
  }, async () => {
    const tenant = await createSignedInAccount(t.services);
    const trpc = trpcOver(t.app, tenant.headers);
    const shop = `own-${Date.now().toString(36)}`;
    const shopify: ChannelDetail = await connectSandboxChannel(t, tenant, 'shopify', shop);
    const snap = await control<Snapshot>(`shopify/${shop}`);
    const locationCount = snap.locations.length;

    // No location of ours: the shop's stock has nowhere to land, and the import says so.
    const before = await trpc.query<ChannelMappingStatus[]>('locations.mappingStatus');
    expect(before.data).toEqual([
      { channelId: shopify.id, type: 'shopify', name: shopify.name, mapped: 0, unmapped: locationCount, offer: true },
    ]);
    const queued = await t.app.inject({
      method: 'POST',
      url: `/api/v1/channels/${shopify.id}/actions/catalog-sync`,
      headers: tenant.headers,
      payload: {},
    });
    const zeroRun = await finished(queued.json<{ sync_id: number }>().sync_id);
    expect(zeroRun.message).toContain(`Stock at ${locationCount} Shopify locations was not imported: map them`);
    expect(await onHand(tenant.accountId)).toEqual({});
    // Its first order pull, queued when the import ended: the shop's waiting orders come in with nowhere to
    // reserve (waited for, so that they come before the stock here; orders.seeded.db.test.ts takes every order).
    const pullDone = Date.now() + 50_000;
    for (;;) {
      const pulls = await t.services.db.select().from(syncs).where(eq(syncs.channelId, shopify.id));
      if (pulls.some((r) => r.type === 'order_import' && r.finishedAt)) break;
      if (Date.now() > pullDone) throw new Error(`no order pull finished: ${JSON.stringify(pulls)}`);
      wakeImports();
      await new Promise((r) => setTimeout(r, 100));
    }

    // The offer: the shop's locations with their addresses, whether they ship or serve pickup, and store ids.
    const drafts = await trpc.query<ChannelLocationDrafts>('locations.channelDrafts', { channelId: shopify.id });
    expect(drafts.data?.drafts.map((d) => d.name).sort()).toEqual(snap.locations.map((l) => l.name).sort());
    const warehouse = drafts.data?.drafts.find((d) => d.name === 'Warehouse');
    expect(warehouse).toMatchObject({ store_id: 'warehouse', ships: true, pickup: false });
    expect(warehouse?.address).toMatchObject({ address1: '400 Industrial Way', city: 'Portland', country: 'US' });
    expect(drafts.data?.drafts.find((d) => d.name === 'Downtown Store')).toMatchObject({
      store_id: 'downtown-store',
      pickup: true,
    });

    // One click, with one store id edited by the merchant: locations made, mapped, and an import queued.
    const edited = (drafts.data?.drafts ?? []).map((d) => (d.name === 'Warehouse' ? { ...d, store_id: 'WH-1' } : d));
    const created = await trpc.mutation<CreatedLocationsFromChannel>('locations.createFromChannel', {
      channelId: shopify.id,
      locations: edited,
    });
    expect(created.error).toBeUndefined();
    expect(created.data?.locations.map((l) => l.store_id)).toContain('WH-1');
    const run = await finished(created.data?.syncId as number);
    expect(run.status).toBe('succeeded');
    expect(run.message).not.toContain('was not imported');

    // On hand is the shop's on hand, level by level, where it has some available (a level with none seeds
    // nothing): its waiting orders' committed units too, reserved for them (ADR 0008, "Older than our knowledge").
    const nameOf = new Map(snap.locations.map((l) => [String(l.id), l.name]));
    const shopStock = Object.fromEntries(
      Object.entries(snap.stock).flatMap(([sku, at]) =>
        Object.entries(at)
          .filter(([, qty]) => qty > 0)
          .map(([id]) => [`${sku} @ ${nameOf.get(id)}`, snap.onHand[sku]?.[id]]),
      ),
    );
    expect(Object.keys(shopStock).length).toBeGreaterThan(0);
    const stocked = await onHand(tenant.accountId);
    expect(stocked).toEqual(shopStock);
    const after = await trpc.query<ChannelMappingStatus[]>('locations.mappingStatus');
    expect(after.data?.[0]).toMatchObject({ mapped: locationCount, unmapped: 0, offer: false });

    // A store id already in use is refused and nothing is made.
    const again = await trpc.mutation('locations.createFromChannel', {
      channelId: shopify.id,
      locations: [{ ...edited[0], store_id: 'WH-1' }],
    });
    expect(again.error?.data.code).toBe('CONFLICT');

    // Square connected afterwards: its stores (same names) map onto these locations.
    const square = await connectSandboxChannel(t, tenant, 'square', `Own Square ${shop}`);
    // Stock movements other than orders' reservations (the order pulls the imports queue may reserve meanwhile).
    const stockMoves = () =>
      t.services.db
        .select({ id: inventoryMovements.id })
        .from(inventoryMovements)
        .where(and(eq(inventoryMovements.accountId, tenant.accountId), ne(inventoryMovements.reason, 'order')));
    const movements = await stockMoves();
    const squareRun = await t.app.inject({
      method: 'POST',
      url: `/api/v1/channels/${square.id}/actions/catalog-sync`,
      headers: tenant.headers,
      payload: {},
    });
    const squareDone = await finished(squareRun.json<{ sync_id: number }>().sync_id);
    expect(squareDone.status).toBe('succeeded');
    expect(squareDone.message).toContain(`${locationCount} Square stores matched to your locations by name.`);
    const ours = await t.services.db.select().from(locations).where(eq(locations.accountId, tenant.accountId));
    expect(ours).toHaveLength(locationCount);
    expect(await onHand(tenant.accountId)).toEqual(stocked);
    expect(await stockMoves()).toHaveLength(movements.length);
    const [squareRow] = await t.services.db.select().from(channels).where(eq(channels.id, square.id));
    const storeIds = new Set(ours.map((l) => l.storeId));
    expect(squareRow?.settings.channel.locationMap.every((m) => m.storeId && storeIds.has(m.storeId))).toBe(true);
  });
});
