// Catalog import and publish against the provider simulators over real HTTP: products, variants and
// listings made from a channel's catalog, SKU matching across channels, stock seeded once, Square
// locations, sync_from, publishing to a channel, faults, progress counts, and the REST surface.
import type { CatalogIntegration, CatalogSyncSchedule, ChannelDetail } from '@switchyard/contracts';
import type { RunningSandbox } from '@switchyard/sandbox';
import { and, count, eq, inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../../../test/app.ts';
import { connectSandboxChannel } from '../../../test/channels.ts';
import { createSignedInAccount } from '../../../test/factories.ts';
import { startTestSandbox } from '../../../test/sandbox.ts';
import { startJobs } from '../../bootstrap.ts';
import type { ChannelCredentials } from '../../connectors/types.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import { decryptJson } from '../../lib/crypto.ts';
import { newId } from '../../lib/ids.ts';
import { accountSettings, accounts } from '../accounts/accounts.tables.ts';
import { connectorFor, sealCredentials } from '../channels/channels.service.ts';
import { channels } from '../channels/channels.tables.ts';
import { channelStock, inventoryLevels, inventoryMovements } from '../inventory/inventory.tables.ts';
import { locations } from '../locations/locations.tables.ts';
import { syncItems, syncs } from '../syncs/syncs.tables.ts';
import { CATALOG_SYNC_SETTING, dispatchDailyCatalogSync, localTime, nextDailyRun } from './catalog.schedule.ts';
import { CATALOG_IMPORT_JOB } from './catalog-import.ts';
import { applyPriceRule, applyTitleTemplate, CATALOG_PUBLISH_JOB } from './catalog-publish.ts';
import { listings, products, variants } from './products.tables.ts';

type TestApp = Awaited<ReturnType<typeof createTestApp>>;
type Tenant = Awaited<ReturnType<typeof createSignedInAccount>>;
interface Snapshot {
  locations: { id: string; name: string }[];
  stock: Record<string, Record<string, number>>;
  variants: number;
}

let sandbox: RunningSandbox;
let t: TestApp;
let queue: JobQueue;
let tenant: Tenant;
let square: ChannelDetail;
let shopify: ChannelDetail;
let bigcommerce: ChannelDetail;

beforeAll(async () => {
  sandbox = await startTestSandbox({ products: 10, shopifyPlan: 'plus' });
  t = await createTestApp({ sandboxUrl: sandbox.url });
  queue = await startJobs(t.services, { work: true });
  tenant = await createSignedInAccount(t.services);
});
afterAll(async () => {
  await queue?.stop({ timeoutMs: 2000 });
  await t?.close();
  await sandbox?.close();
});

const control = async <T>(path: string, init?: { method: string; body: unknown }): Promise<T> => {
  const res = await fetch(`${sandbox.url}/_control/${path}`, {
    method: init?.method ?? 'GET',
    ...(init ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(init.body) } : {}),
  });
  if (!res.ok) throw new Error(`control ${path}: ${res.status} ${await res.text()}`);
  return res.json() as Promise<T>;
};

const catalogSync = (channelId: string, body: Record<string, unknown> = {}, headers = tenant.headers) =>
  t.app.inject({ method: 'POST', url: `/api/v1/channels/${channelId}/actions/catalog-sync`, headers, payload: body });

/**
 * Waits for a run to finish and answers it. Each round wakes the catalog workers: imports and publishes are sent
 * without waking them, so each would wait for the worker's next poll (a second) otherwise. The workers still take
 * the jobs from the queue as in production; only the wait for their poll goes.
 */
async function finished(syncId: number, timeoutMs = 50_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const [run] = await t.services.db.select().from(syncs).where(eq(syncs.id, syncId));
    if (run?.finishedAt) return run;
    if (Date.now() > until) throw new Error(`sync ${syncId} did not finish: ${JSON.stringify(run)}`);
    queue.notify(CATALOG_IMPORT_JOB);
    queue.notify(CATALOG_PUBLISH_JOB);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function importChannel(channelId: string, body: Record<string, unknown> = {}) {
  const res = await catalogSync(channelId, body);
  expect(res.statusCode, res.body).toBe(202);
  return finished(res.json<{ sync_id: number }>().sync_id);
}

const accountVariants = () => t.services.db.select().from(variants).where(eq(variants.accountId, tenant.accountId));
const listingsOf = (channelId: string) =>
  t.services.db.select().from(listings).where(eq(listings.channelId, channelId));

/** The product holding this SKU, read back through Shopify's API. */
async function shopifyProductWith(sku: string) {
  const [row] = await t.services.db.select().from(channels).where(eq(channels.id, shopify.id));
  const connector = connectorFor(t.services, row as never);
  for (let cursor: string | null = null, first = true; first || cursor; first = false) {
    const page = await connector.listProducts(cursor);
    const found = page.items.find((p) => p.variants.some((v) => v.sku === sku));
    if (found) return found;
    cursor = page.nextCursor;
  }
  return null;
}

describe('catalog import', () => {
  it('imports a Square catalog: locations, products, variants, listings and first stock', async () => {
    // Shopify is connected before Square is imported: Square's stores become ours and Shopify's locations
    // of the same names map to them then.
    shopify = await connectSandboxChannel(t, tenant, 'shopify', 'catalog-shop');
    expect(shopify.settings.channel.locationMap.every((m) => m.storeId === null)).toBe(true);
    square = await connectSandboxChannel(t, tenant, 'square', 'Catalog Square');
    // The catalog alone: the shops' open orders (imported once a catalog is in, issue 13) are orders' tests.
    await t.services.db
      .update(channels)
      .set({ features: sql`${channels.features} || '{"orders": false}'::jsonb` })
      .where(eq(channels.accountId, tenant.accountId));
    const snap = await control<Snapshot>(`square/${square.externalId}`);
    const run = await importChannel(square.id);
    expect(run).toMatchObject({ status: 'succeeded', type: 'catalog_import', trigger: 'manual' });
    expect(run.total).toBe(snap.variants);
    expect(run.processed).toBe(snap.variants);
    expect(run.succeeded).toBe(snap.variants);
    expect(run.failed).toBe(0);

    // Every active Square location became one of ours, its store id the Square location id.
    const ours = await t.services.db.select().from(locations).where(eq(locations.accountId, tenant.accountId));
    expect(ours.map((l) => [l.storeId, l.name]).sort()).toEqual(snap.locations.map((l) => [l.id, l.name]).sort());

    const vs = await accountVariants();
    expect(vs.map((v) => v.sku).sort()).toEqual(Object.keys(snap.stock).sort());
    const ls = await listingsOf(square.id);
    expect(ls).toHaveLength(vs.length);
    expect(ls.every((l) => l.syncStatusCode === 1 && l.externalVariantId && l.inventoryItemId)).toBe(true);
    const [productCount] = await t.services.db
      .select({ n: count() })
      .from(products)
      .where(eq(products.accountId, tenant.accountId));
    expect(productCount?.n).toBeGreaterThan(0);
    expect(productCount?.n).toBeLessThanOrEqual(vs.length);

    // The channel's quantities are our first stock, one import movement per level that holds any.
    const levels = await t.services.db
      .select({ sku: variants.sku, storeId: locations.storeId, onHand: inventoryLevels.onHand })
      .from(inventoryLevels)
      .innerJoin(variants, eq(variants.id, inventoryLevels.variantId))
      .innerJoin(locations, eq(locations.id, inventoryLevels.locationId))
      .where(eq(inventoryLevels.accountId, tenant.accountId));
    const expected = Object.entries(snap.stock).flatMap(([sku, at]) =>
      Object.entries(at)
        .filter(([, q]) => q > 0)
        .map(([storeId, q]) => `${sku}@${storeId}=${q}`),
    );
    expect(levels.map((l) => `${l.sku}@${l.storeId}=${l.onHand}`).sort()).toEqual(expected.sort());
    const movements = await t.services.db
      .select()
      .from(inventoryMovements)
      .where(eq(inventoryMovements.accountId, tenant.accountId));
    expect(movements).toHaveLength(expected.length);
    expect(movements.every((m) => m.reason === 'import' && m.source === 'square')).toBe(true);
    const stockRows = await t.services.db.select().from(channelStock).where(eq(channelStock.channelId, square.id));
    expect(stockRows).toHaveLength(vs.length * snap.locations.length);
    const [shopifyRow] = await t.services.db.select().from(channels).where(eq(channels.id, shopify.id));
    const storeIds = new Set(ours.map((l) => l.storeId));
    expect(shopifyRow?.settings.channel.locationMap.every((m) => m.storeId && storeIds.has(m.storeId))).toBe(true);
    expect(run.message).toContain('added from Square');

    // A second import changes nothing in the ledger and duplicates nothing.
    const again = await importChannel(square.id);
    expect(again.status).toBe('succeeded');
    expect(await accountVariants()).toHaveLength(vs.length);
    expect(
      await t.services.db.select().from(inventoryMovements).where(eq(inventoryMovements.accountId, tenant.accountId)),
    ).toHaveLength(expected.length);
  });

  it('links a second channel with the same SKUs instead of duplicating, reads its stock at mapped locations, keeps ours', async () => {
    const before = await accountVariants();
    const squareSkus = new Set(before.map((v) => v.sku));
    const snap = await control<Snapshot>('shopify/catalog-shop');
    const shopifySkus = Object.keys(snap.stock);
    const movementsBefore = await t.services.db
      .select()
      .from(inventoryMovements)
      .where(eq(inventoryMovements.accountId, tenant.accountId));

    const run = await importChannel(shopify.id);
    expect(run.status).toBe('succeeded');
    expect(run.total).toBe(snap.variants);
    expect(run.succeeded).toBe(snap.variants);

    const after = await accountVariants();
    const union = new Set([...squareSkus, ...shopifySkus]);
    expect(after).toHaveLength(union.size);
    // Shared SKUs kept their variant (same id) and are now listed on both channels.
    const shared = shopifySkus.filter((s) => squareSkus.has(s));
    expect(shared.length).toBeGreaterThan(0);
    const byId = new Map(before.map((v) => [v.sku, v.id]));
    const shopifyListings = await listingsOf(shopify.id);
    expect(shopifyListings).toHaveLength(shopifySkus.length);
    const listedIds = new Set(shopifyListings.map((l) => l.variantId));
    for (const sku of shared) expect(listedIds.has(byId.get(sku) as string)).toBe(true);
    expect(run.message).toContain(`${shopifySkus.length - shared.length} new variant`);

    // Shopify's locations carry the same names as the Square stores: mapped (at the Square import).
    const [row] = await t.services.db.select().from(channels).where(eq(channels.id, shopify.id));
    const map = row?.settings.channel.locationMap ?? [];
    expect(map.length).toBe(snap.locations.length);
    expect(map.every((m) => m.storeId !== null)).toBe(true);

    // What Shopify holds is recorded; levels Square seeded are not overwritten (only never-moved ones seed).
    const stockRows = await t.services.db.select().from(channelStock).where(eq(channelStock.channelId, shopify.id));
    expect(stockRows.length).toBe(shopifySkus.length * snap.locations.length);
    const movementsAfter = await t.services.db
      .select()
      .from(inventoryMovements)
      .where(eq(inventoryMovements.accountId, tenant.accountId));
    const seededBefore = new Set(movementsBefore.map((m) => `${m.variantId}|${m.locationId}`));
    const added = movementsAfter.filter((m) => !movementsBefore.some((b) => b.id === m.id));
    expect(added.every((m) => m.source === 'shopify' && !seededBefore.has(`${m.variantId}|${m.locationId}`))).toBe(
      true,
    );
  });

  it('skips variants without a SKU as failed items, and sync_from imports only what changed since', async () => {
    const connector = connectorFor(
      t.services,
      (await t.services.db.select().from(channels).where(eq(channels.id, shopify.id)))[0] as never,
    );
    const cutoff = new Date(Date.now() - 1000);
    const noSku = await connector.createProduct({ title: 'Mystery Box', variants: [{ sku: '', price: 1500 }] });
    expect(noSku.variants[0]?.sku ?? '').toBe('');
    const [listed] = await listingsOf(shopify.id);
    const changed = await connector.updateProduct(listed?.externalProductId as string, { title: 'Renamed at Shopify' });

    const future = await importChannel(shopify.id, { sync_from: '2999-01-01' });
    expect(future).toMatchObject({ status: 'succeeded', total: 0, processed: 0 });

    const run = await importChannel(shopify.id, { sync_from: cutoff.toISOString() });
    expect(run.status).toBe('partial');
    expect(run.total).toBe(changed.variants.length + noSku.variants.length);
    expect(run.succeeded).toBe(changed.variants.length);
    expect(run.failed).toBe(1);
    const items = await t.services.db.select().from(syncItems).where(eq(syncItems.syncId, run.id));
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ label: 'Mystery Box', error: 'No SKU: cannot match' });
    expect(items[0]?.payload).toMatchObject({ externalProductId: noSku.externalId });

    const bad = await catalogSync(shopify.id, { sync_from: 'yesterday' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: 400 });
    expect(bad.json().message).toContain('ISO date');
  });

  it('completes an import with 20% of provider calls failing, with right progress counts', async () => {
    const bc = await connectSandboxChannel(t, tenant, 'bigcommerce', 'catalogfaulty');
    bigcommerce = bc;
    const snap = await control<Snapshot>(`bigcommerce/${bc.externalId}`);
    await control(`bigcommerce/${bc.externalId}/faults`, {
      method: 'PUT',
      body: { rate429: 0.08, rate5xx: 0.08, rateTimeout: 0.04, timeoutMs: 100 },
    });
    try {
      const res = await catalogSync(bc.id);
      expect(res.statusCode).toBe(202);
      const run = await finished(res.json<{ sync_id: number }>().sync_id, 55_000);
      expect(run.status, run.message ?? '').toBe('succeeded');
      expect(run.total).toBe(snap.variants);
      expect(run.processed).toBe(snap.variants);
      expect(run.succeeded + run.failed).toBe(run.processed);
      const bcListings = await listingsOf(bc.id);
      expect(bcListings).toHaveLength(snap.variants);
    } finally {
      await fetch(`${sandbox.url}/_control/bigcommerce/${bc.externalId}/faults`, { method: 'DELETE' });
    }
  });

  it('fails the run at once and puts the channel in error when the provider refuses our credentials', async () => {
    const bc = await connectSandboxChannel(t, tenant, 'bigcommerce', 'catalogrevoked');
    const [row] = await t.services.db.select().from(channels).where(eq(channels.id, bc.id));
    const credentials = decryptJson<ChannelCredentials>(t.services.credentialsKey, row?.credentials as string, bc.id);
    await t.services.db
      .update(channels)
      .set({ credentials: sealCredentials(t.services, bc.id, { ...credentials, accessToken: 'revoked-token' }) })
      .where(eq(channels.id, bc.id));
    const run = await importChannel(bc.id);
    expect(run.status).toBe('failed');
    expect(run.message).toContain('Re-authorise');
    const [after] = await t.services.db.select().from(channels).where(eq(channels.id, bc.id));
    expect(after?.status).toBe('error');
    await t.services.db.update(channels).set({ status: 'disconnected' }).where(eq(channels.id, bc.id));
  });

  it('refuses a channel with the catalog feature off, and answers a running import instead of a second one', async () => {
    await t.app.inject({
      method: 'PUT',
      url: `/api/v1/channels/${shopify.id}/actions/features`,
      headers: tenant.headers,
      payload: { catalog: false },
    });
    const off = await catalogSync(shopify.id);
    expect(off.statusCode).toBe(409);
    expect(off.json().message).toContain('Catalog sync is switched off');
    await t.app.inject({
      method: 'PUT',
      url: `/api/v1/channels/${shopify.id}/actions/features`,
      headers: tenant.headers,
      payload: { catalog: true },
    });
    const first = await t.app.inject({
      method: 'POST',
      url: `/api/v2/channels/${square.id}/actions/catalog-sync`,
      headers: tenant.headers,
    });
    expect(first.statusCode, first.body).toBe(202);
    const second = await catalogSync(square.id);
    expect(second.json().sync_id).toBe(first.json().sync_id);
    await finished(first.json().sync_id);
  });
});

describe('catalog publish', () => {
  it('creates on the channel the products it lacks, with the title template and price rule', async () => {
    // A product of ours no channel has.
    const productId = newId('prd');
    await t.services.db.insert(products).values({
      id: productId,
      accountId: tenant.accountId,
      title: 'Harbor Lantern',
      brand: 'Lumen Goods',
      productType: 'Home',
      description: 'A lantern.',
    });
    await t.services.db.insert(variants).values([
      { id: newId('var'), accountId: tenant.accountId, productId, sku: 'PUB-LANTERN-S', title: 'Small', price: 2000 },
      { id: newId('var'), accountId: tenant.accountId, productId, sku: 'PUB-LANTERN-L', title: 'Large', price: 3000 },
    ]);
    const put = await t.app.inject({
      method: 'PUT',
      url: `/api/frontend/catalogIntegrations/${shopify.id}`,
      headers: tenant.headers,
      payload: {
        settings: { product: { titleTemplate: '{brand} {title}', priceRule: { kind: 'percent', value: 10 } } },
      },
    });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json<CatalogIntegration>().settings.product).toMatchObject({
      titleTemplate: '{brand} {title}',
      priceRule: { kind: 'percent', value: 10 },
      publishMissing: false,
    });

    const unlisted = await accountVariants();
    const listedOnShopify = new Set((await listingsOf(shopify.id)).map((l) => l.variantId));
    const missing = unlisted.filter((v) => !listedOnShopify.has(v.id));
    expect(missing.length).toBeGreaterThanOrEqual(2);

    const res = await t.app.inject({
      method: 'POST',
      url: `/api/v2/channels/${shopify.id}/actions/catalog-publish`,
      headers: tenant.headers,
      payload: {},
    });
    expect(res.statusCode, res.body).toBe(202);
    const run = await finished(res.json<{ sync_id: number }>().sync_id);
    // Our catalog's variants the shop lacks: the new product's, and variants of products Shopify lists
    // with fewer variants than Square (the seeds differ per shop). Each is published or a failed item.
    expect(run.type).toBe('catalog_publish');
    expect(run.total).toBe(missing.length);
    expect(run.processed).toBe(missing.length);
    expect(run.succeeded + run.failed).toBe(missing.length);
    const failedItems = await t.services.db.select().from(syncItems).where(eq(syncItems.syncId, run.id));
    expect(failedItems).toHaveLength(run.failed);
    expect(failedItems.every((i) => typeof i.payload.productId === 'string' && i.variantId)).toBe(true);
    const failedIds = new Set(failedItems.map((i) => i.variantId));
    const published = missing.filter((v) => !failedIds.has(v.id));
    expect(published.map((v) => v.sku)).toEqual(expect.arrayContaining(['PUB-LANTERN-S', 'PUB-LANTERN-L']));

    // The shop holds them now, and each is listed with the channel's ids.
    const snap = await control<Snapshot>('shopify/catalog-shop');
    for (const v of published) expect(Object.keys(snap.stock)).toContain(v.sku);
    const now = await t.services.db
      .select()
      .from(listings)
      .where(
        and(
          eq(listings.channelId, shopify.id),
          inArray(
            listings.variantId,
            published.map((v) => v.id),
          ),
        ),
      );
    expect(now).toHaveLength(published.length);
    expect(now.every((l) => l.syncStatusCode === 1 && l.externalProductId && l.inventoryItemId)).toBe(true);

    // Read back through Shopify's API: title from the template, prices with the rule.
    const found = await shopifyProductWith('PUB-LANTERN-S');
    expect(found?.title).toBe('Lumen Goods Harbor Lantern');
    expect(found?.variants.map((v) => [v.sku, v.price]).sort()).toEqual([
      ['PUB-LANTERN-L', 3300],
      ['PUB-LANTERN-S', 2200],
    ]);

    // What was published is not published again: a second run only tries what failed.
    const again = await t.app.inject({
      method: 'POST',
      url: `/api/v1/channels/${shopify.id}/actions/catalog-publish`,
      headers: tenant.headers,
    });
    expect(again.statusCode, again.body).toBe(202);
    const second = await finished(again.json<{ sync_id: number }>().sync_id);
    expect(second.total).toBe(run.failed);
    expect(second.succeeded).toBe(0);
  });

  it('sends an edit of a listed product to the channel: title by the template, prices by the rule', async () => {
    const [lantern] = await t.services.db
      .select()
      .from(products)
      .where(and(eq(products.accountId, tenant.accountId), eq(products.title, 'Harbor Lantern')));
    const ours = await t.services.db
      .select()
      .from(variants)
      .where(eq(variants.productId, lantern?.id as string));
    const res = await t.app.inject({
      method: 'PUT',
      url: `/api/frontend/products/${lantern?.id}`,
      headers: tenant.headers,
      payload: {
        title: 'Harbor Storm Lantern',
        brand: 'Lumen Goods',
        productType: 'Home',
        description: 'A lantern for storms.',
        variants: ours.map((v) => ({ id: v.id, sku: v.sku, title: v.title, price: v.price + 500 })),
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    let refresh: typeof syncs.$inferSelect | undefined;
    for (let i = 0; i < 100 && !refresh; i++) {
      [refresh] = await t.services.db
        .select()
        .from(syncs)
        .where(
          and(
            eq(syncs.channelId, shopify.id),
            eq(syncs.type, 'catalog_publish'),
            sql`${syncs.options} ->> 'refresh' = 'true'`,
          ),
        );
      if (!refresh) await new Promise((r) => setTimeout(r, 100));
    }
    expect(refresh?.trigger).toBe('change');
    const run = await finished(refresh?.id as number);
    expect(run).toMatchObject({ status: 'succeeded', total: 2, succeeded: 2 });
    expect(run.message).toBe(`Updated 2 variants at ${shopify.name} (0 new products).`);

    const at = await shopifyProductWith('PUB-LANTERN-S');
    expect(at?.title).toBe('Lumen Goods Harbor Storm Lantern');
    expect(at?.variants.map((v) => [v.sku, v.price]).sort()).toEqual([
      ['PUB-LANTERN-L', 3850],
      ['PUB-LANTERN-S', 2750],
    ]);
    // Square does not list the lantern: nothing was queued for it.
    const squareRuns = await t.services.db
      .select()
      .from(syncs)
      .where(and(eq(syncs.channelId, square.id), eq(syncs.type, 'catalog_publish')));
    expect(squareRuns).toEqual([]);
  });

  it('publishes after an import when the channel’s product settings say publishMissing', async () => {
    const put = await t.app.inject({
      method: 'PUT',
      url: `/api/frontend/catalogIntegrations/${bigcommerce.id}`,
      headers: tenant.headers,
      payload: { settings: { product: { publishMissing: true } } },
    });
    expect(put.statusCode, put.body).toBe(200);
    const listedOnBc = new Set((await listingsOf(bigcommerce.id)).map((l) => l.variantId));
    const missing = (await accountVariants()).filter((v) => !listedOnBc.has(v.id));
    expect(missing.length).toBeGreaterThan(0);
    const imported = await importChannel(bigcommerce.id);
    expect(imported.status).toBe('succeeded');
    let publishRun: typeof syncs.$inferSelect | undefined;
    for (let i = 0; i < 100 && !publishRun; i++) {
      [publishRun] = await t.services.db
        .select()
        .from(syncs)
        .where(and(eq(syncs.channelId, bigcommerce.id), eq(syncs.type, 'catalog_publish')));
      if (!publishRun) await new Promise((r) => setTimeout(r, 100));
    }
    expect(publishRun?.trigger).toBe('manual');
    const run = await finished(publishRun?.id as number, 55_000);
    expect(run.total).toBe(missing.length);
    expect(run.processed).toBe(missing.length);
    expect(run.succeeded).toBeGreaterThan(0);
    const snap = await control<Snapshot>(`bigcommerce/${bigcommerce.externalId}`);
    const nowListed = await listingsOf(bigcommerce.id);
    const published = missing.filter((v) => nowListed.some((l) => l.variantId === v.id));
    expect(published).toHaveLength(run.succeeded);
    for (const v of published) expect(Object.keys(snap.stock)).toContain(v.sku);
  });

  it('title template and price rule', () => {
    expect(applyTitleTemplate('{brand} - {title}', { title: 'Mug', brand: null, variant: '' })).toBe('Mug');
    expect(applyTitleTemplate('{title} {variant}', { title: 'Mug', brand: 'X', variant: 'Large' })).toBe('Mug Large');
    expect(applyPriceRule(1999, { kind: 'percent', value: -10 })).toBe(1799);
    expect(applyPriceRule(1000, { kind: 'amount', value: -1500 })).toBe(0);
    expect(applyPriceRule(1000, { kind: 'none', value: 50 })).toBe(1000);
  });
});

describe('catalog integrations and the daily sync', () => {
  it('lists the channels as catalog integrations with listing counts and last import', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/frontend/catalogIntegrations',
      headers: tenant.headers,
    });
    expect(res.statusCode).toBe(200);
    const { results, total } = res.json<{ results: CatalogIntegration[]; total: number }>();
    expect(total).toBe(results.length);
    const sq = results.find((r) => r.id === square.id);
    expect(sq).toMatchObject({
      type: 'square',
      status: 'connected',
      catalogEnabled: true,
      lastImportStatus: 'succeeded',
    });
    expect(sq?.listingCount).toBe((await listingsOf(square.id)).length);
    expect(sq?.lastImportAt).toBeTruthy();
    const bad = await t.app.inject({
      method: 'PUT',
      url: `/api/frontend/catalogIntegrations/${square.id}`,
      headers: tenant.headers,
      payload: { settings: { product: { titleTemplate: ' ' } } },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toContain('Required');
  });

  it('stores the daily hour and imports every connected catalog channel once in that local hour', async () => {
    await t.services.db.update(accounts).set({ timezone: 'Asia/Kolkata' }).where(eq(accounts.id, tenant.accountId));
    const bad = await t.app.inject({
      method: 'POST',
      url: '/api/frontend/catalogSync',
      headers: tenant.headers,
      payload: { hour: 24 },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toContain('0 to 23');

    const res = await t.app.inject({
      method: 'POST',
      url: '/api/frontend/catalogSync',
      headers: tenant.headers,
      payload: { hour: 6 },
    });
    expect(res.statusCode, res.body).toBe(200);
    const schedule = res.json<CatalogSyncSchedule>();
    expect(schedule).toMatchObject({ hour: 6, timezone: 'Asia/Kolkata' });
    expect(localTime(new Date(schedule.nextRunAt as unknown as string), 'Asia/Kolkata').hour).toBe(6);
    const schedules = await queue.boss.getSchedules();
    expect(schedules.map((s) => s.name)).toContain('catalog.daily');

    // 06:30 in Kolkata is 01:00 UTC.
    const at = new Date('2026-11-24T01:00:00Z');
    expect(localTime(at, 'Asia/Kolkata')).toMatchObject({ date: '2026-11-24', hour: 6 });
    const queued = await dispatchDailyCatalogSync(t.services, at);
    const live = (await t.services.db.select().from(channels).where(eq(channels.accountId, tenant.accountId))).filter(
      (c) => c.status === 'connected',
    );
    expect(queued).toHaveLength(live.length);
    const runs = await t.services.db.select().from(syncs).where(inArray(syncs.id, queued));
    expect(runs.every((r) => r.trigger === 'schedule' && r.type === 'catalog_import')).toBe(true);
    // The same day is not run twice, and another hour runs nothing.
    expect(await dispatchDailyCatalogSync(t.services, new Date('2026-11-24T01:15:00Z'))).toEqual([]);
    expect(await dispatchDailyCatalogSync(t.services, new Date('2026-11-24T05:00:00Z'))).toEqual([]);
    const [stored] = await t.services.db
      .select()
      .from(accountSettings)
      .where(and(eq(accountSettings.accountId, tenant.accountId), eq(accountSettings.key, CATALOG_SYNC_SETTING)));
    expect(stored?.value).toMatchObject({ hour: 6, lastRunDate: '2026-11-24' });
    expect(nextDailyRun(6, 'Asia/Kolkata', '2026-11-24', at)?.toISOString()).toBe('2026-11-25T00:30:00.000Z');
    for (const id of queued) await finished(id);
  });
});
