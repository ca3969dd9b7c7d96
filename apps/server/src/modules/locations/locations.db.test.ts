import type { Location, LocationList, ProviderStore } from '@switchyard/contracts';
import type { RunningSandbox } from '@switchyard/sandbox';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../../../test/app.ts';
import { connectSandboxChannel } from '../../../test/channels.ts';
import { createSignedInAccount } from '../../../test/factories.ts';
import { startTestSandbox } from '../../../test/sandbox.ts';
import { trpcOver } from '../../../test/trpc.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import { newId } from '../../lib/ids.ts';
import { subscriptions } from '../billing/billing.tables.ts';
import { ensureDefaultPlans, getPlanByCode } from '../billing/plans.service.ts';
import { inventoryDirty, inventoryLevels } from '../inventory/inventory.tables.ts';
import { applyMovements } from '../inventory/ledger.ts';
import { INVENTORY_PUSH_JOB } from '../inventory/schedule.ts';
import { listings, products, variants } from '../products/products.tables.ts';

type TestApp = Awaited<ReturnType<typeof createTestApp>>;
type Tenant = Awaited<ReturnType<typeof createSignedInAccount>>;

const address = (city: string) => ({ address1: '1 Main St', city, country: 'US' });

/** A variant of the tenant's catalog (straight into the tables: this file is not about the catalog). */
async function createVariant(t: TestApp, tenant: Tenant, sku: string) {
  const productId = newId('prd');
  const variantId = newId('var');
  await t.services.db.insert(products).values({ id: productId, accountId: tenant.accountId, title: `Product ${sku}` });
  await t.services.db.insert(variants).values({ id: variantId, accountId: tenant.accountId, productId, sku });
  return variantId;
}

async function stock(t: TestApp, tenant: Tenant, variantId: string, locationId: string, setTo: number) {
  await t.services.db.transaction((tx) =>
    applyMovements(tx, tenant.accountId, [{ variantId, locationId, setTo, reason: 'count', source: 'manual' }]),
  );
}

describe('locations', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const post = (tenant: Tenant, payload: Record<string, unknown>, version = 'v1') =>
    t.app.inject({ method: 'POST', url: `/api/${version}/locations`, headers: tenant.headers, payload });
  const list = async (tenant: Tenant, query = '', version = 'v1') => {
    const res = await t.app.inject({ url: `/api/${version}/locations${query}`, headers: tenant.headers });
    expect(res.statusCode).toBe(200);
    return res.json<LocationList>();
  };

  it('lists by store id ascending by default, searches name, store id and city, and pages with a total', async () => {
    const owner = await createSignedInAccount(t.services);
    for (const [name, store_id, city] of [
      ['Pier 39', 'S-300', 'San Francisco'],
      ['Main Street', 'S-100', 'Portland'],
      ['Warehouse', 'W-1', 'Reno'],
      ['Harbor', 'S-200', 'Portland'],
    ] as const) {
      const res = await post(owner, { name, store_id, address: address(city) });
      expect(res.statusCode).toBe(201);
    }
    const all = await list(owner);
    expect(all.total).toBe(4);
    expect(all.results.map((l) => l.store_id)).toEqual(['S-100', 'S-200', 'S-300', 'W-1']);
    expect(all.results[0]).toMatchObject({
      name: 'Main Street',
      enabled: true,
      ships: true,
      pickup: false,
      priority: 0,
      address: { address1: '1 Main St', city: 'Portland', country: 'US' },
    });
    expect(typeof all.results[0]?.created_at).toBe('string');

    // The SPEC's own query, and the same list on v2.
    expect((await list(owner, '?sort=store_id&order=ASC')).results.map((l) => l.store_id)).toEqual([
      'S-100',
      'S-200',
      'S-300',
      'W-1',
    ]);
    expect((await list(owner, '?sort=name&order=DESC', 'v2')).results.map((l) => l.name)).toEqual([
      'Warehouse',
      'Pier 39',
      'Main Street',
      'Harbor',
    ]);

    const portland = await list(owner, '?sort=store_id&order=ASC&search=portland');
    expect(portland).toMatchObject({ total: 2 });
    expect(portland.results.map((l) => l.name)).toEqual(['Main Street', 'Harbor']);
    expect((await list(owner, '?search=w-')).results.map((l) => l.name)).toEqual(['Warehouse']);
    expect((await list(owner, '?search=PIER')).results.map((l) => l.name)).toEqual(['Pier 39']);
    // LIKE's wildcards are searched as text.
    expect((await list(owner, `?search=${encodeURIComponent('%')}`)).total).toBe(0);

    const page = await list(owner, '?limit=2&offset=2');
    expect(page.total).toBe(4);
    expect(page.results.map((l) => l.store_id)).toEqual(['S-300', 'W-1']);

    // Another account sees none of them.
    expect(await list(await createSignedInAccount(t.services))).toEqual({ results: [], total: 0 });
  });

  it('creates, reads, updates and deletes through tRPC', async () => {
    const owner = await createSignedInAccount(t.services);
    const api = trpcOver(t.app, owner.headers);
    const created = await api.mutation<Location>('locations.create', {
      name: '  Downtown ',
      store_id: 'DT-1',
      pickup: true,
      priority: 5,
      address: { city: 'Boston', zip: '', phone: '+1 555 0100' },
    });
    expect(created.status).toBe(200);
    expect(created.data).toMatchObject({
      name: 'Downtown',
      store_id: 'DT-1',
      enabled: true,
      ships: true,
      pickup: true,
      priority: 5,
      address: { city: 'Boston', zip: null, phone: '+1 555 0100' },
    });
    const id = created.data?.id as string;
    expect(id).toMatch(/^loc_/);
    expect((await api.query<Location>('locations.get', { id })).data?.created_at).toBeInstanceOf(Date);

    const updated = await api.mutation<Location>('locations.update', { id, ships: false, name: 'Downtown Boston' });
    expect(updated.data).toMatchObject({ name: 'Downtown Boston', ships: false, pickup: true, store_id: 'DT-1' });
    const listed = await api.query<LocationList>('locations.list', { search: 'boston' });
    expect(listed.data?.results.map((l) => l.id)).toEqual([id]);

    expect((await api.mutation('locations.delete', { id })).data).toEqual({ id });
    const gone = await api.query('locations.get', { id });
    expect(gone.error?.data.code).toBe('NOT_FOUND');
  });

  it('refuses an invalid body with the field named', async () => {
    const owner = await createSignedInAccount(t.services);
    const res = await post(owner, { name: '', store_id: 'X', priority: 5000 });
    expect(res.statusCode).toBe(400);
    expect(res.json<{ code: number; message: string }>()).toMatchObject({ code: 400 });
    expect(res.json().message).toContain('name');
    const missing = await post(owner, { name: 'No store' });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().message).toContain('store_id');
  });

  it('stores an enabled sent as an empty string as false (SPEC §5), on REST and tRPC', async () => {
    const owner = await createSignedInAccount(t.services);
    const { id } = (await post(owner, { name: 'Outlet', store_id: 'OUT-1' })).json<Location>();
    const patched = await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/locations/${id}`,
      headers: owner.headers,
      payload: { enabled: '' },
    });
    expect(patched.statusCode).toBe(200);
    expect(patched.json<Location>()).toMatchObject({ enabled: false, name: 'Outlet', store_id: 'OUT-1' });
    expect((await list(owner)).results[0]?.enabled).toBe(false);

    const api = trpcOver(t.app, owner.headers);
    expect((await api.mutation<Location>('locations.update', { id, enabled: true })).data?.enabled).toBe(true);
    expect((await api.mutation<Location>('locations.update', { id, enabled: '' })).data?.enabled).toBe(false);
    const created = await post(owner, { name: 'Closed', store_id: 'OUT-2', enabled: '' }, 'v2');
    expect(created.json<Location>().enabled).toBe(false);
  });

  it('refuses a second location with the same store id, on create and on update', async () => {
    const owner = await createSignedInAccount(t.services);
    await post(owner, { name: 'First', store_id: 'SAME' });
    const second = await post(owner, { name: 'Second', store_id: 'SAME' });
    expect(second.statusCode).toBe(409);
    expect(second.json()).toEqual({
      code: 409,
      message: 'Another location already has store id “SAME”. Each location needs its own store.',
    });
    const other = (await post(owner, { name: 'Other', store_id: 'OTHER' })).json<Location>();
    const moved = await trpcOver(t.app, owner.headers).mutation('locations.update', { id: other.id, store_id: 'SAME' });
    expect(moved.error).toMatchObject({ data: { code: 'CONFLICT', domainCode: 'CONFLICT' } });
    // Keeping its own store id is no conflict; another account may use the same id.
    expect(
      (await trpcOver(t.app, owner.headers).mutation('locations.update', { id: other.id, store_id: 'OTHER' })).status,
    ).toBe(200);
    expect((await post(await createSignedInAccount(t.services), { name: 'Theirs', store_id: 'SAME' })).statusCode).toBe(
      201,
    );
  });

  it('refuses to delete a location that holds stock, and deletes it with its zero levels once counted out', async () => {
    const owner = await createSignedInAccount(t.services);
    const location = (await post(owner, { name: 'Harbor', store_id: 'H-1' })).json<Location>();
    const [a, b] = [await createVariant(t, owner, 'SKU-A'), await createVariant(t, owner, 'SKU-B')];
    await stock(t, owner, a, location.id, 4);
    await stock(t, owner, b, location.id, 0);
    await t.services.db.transaction((tx) =>
      applyMovements(tx, owner.accountId, [
        { variantId: b, locationId: location.id, reservedDelta: 1, reason: 'order', source: 'test' },
      ]),
    );
    const del = () =>
      t.app.inject({ method: 'DELETE', url: `/api/v1/locations/${location.id}`, headers: owner.headers });
    const refused = await del();
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toEqual({
      code: 409,
      message:
        'Harbor still holds stock of 2 variants (4 on hand, 1 reserved). Move or count it to zero before deleting the location, or disable the location instead.',
    });
    expect((await list(owner)).total).toBe(1);

    await stock(t, owner, a, location.id, 0);
    await t.services.db.transaction((tx) =>
      applyMovements(tx, owner.accountId, [
        { variantId: b, locationId: location.id, reservedDelta: -1, reason: 'order', source: 'test' },
      ]),
    );
    const levels = () =>
      t.services.db.select().from(inventoryLevels).where(eq(inventoryLevels.locationId, location.id));
    expect(await levels()).toHaveLength(2);
    const deleted = await del();
    expect(deleted.statusCode).toBe(200);
    expect(deleted.json()).toEqual({ id: location.id });
    expect(await levels()).toEqual([]);
    expect((await del()).statusCode).toBe(404);
  });

  it('refuses the location past the plan’s limit with the limit named', async () => {
    const owner = await createSignedInAccount(t.services);
    await ensureDefaultPlans(t.services.db);
    const starter = await getPlanByCode(t.services.db, 'starter');
    expect(starter?.limits.locations).toBe(1);
    await t.services.db.insert(subscriptions).values({
      id: newId('sub'),
      accountId: owner.accountId,
      mode: 'sandbox',
      stripeSubscriptionId: newId('sub_test'),
      stripeCustomerId: newId('cus_test'),
      planId: starter?.id as string,
      interval: 'month',
      status: 'active',
    });
    const first = await post(owner, { name: 'Only store', store_id: 'ONE' });
    expect(first.statusCode).toBe(201);
    const second = await post(owner, { name: 'Second store', store_id: 'TWO' });
    expect(second.statusCode).toBe(402);
    expect(second.json()).toEqual({
      code: 402,
      message: 'Your Starter plan includes 1 location. Upgrade your plan (/settings/account) to add more.',
    });
    const viaTrpc = await trpcOver(t.app, owner.headers).mutation('locations.create', {
      name: 'Third',
      store_id: 'THREE',
    });
    expect(viaTrpc.error?.data.domainCode).toBe('PLAN_LIMIT');
    // The billing overview counts them.
    const overview = await trpcOver(t.app, owner.headers).query<{ usage: { locations: number } }>(
      'billing.getOverview',
    );
    expect(overview.data?.usage.locations).toBe(1);

    await t.app.inject({ method: 'DELETE', url: `/api/v1/locations/${first.json().id}`, headers: owner.headers });
    expect((await post(owner, { name: 'Second store', store_id: 'TWO' })).statusCode).toBe(201);
  });
});

describe('locations with a Square point of sale', () => {
  let sandbox: RunningSandbox;
  let t: TestApp;
  let owner: Tenant;
  let stores: ProviderStore[];
  let squareId: string;
  const sent: { name: string; data: unknown }[] = [];

  beforeAll(async () => {
    sandbox = await startTestSandbox({ products: 2 });
    t = await createTestApp({ sandboxUrl: sandbox.url });
    owner = await createSignedInAccount(t.services);
    squareId = (await connectSandboxChannel(t, owner, 'square', 'Locations Test Co')).id;
    const res = await t.app.inject({ url: '/api/v1/wrappers/square/stores', headers: owner.headers });
    stores = res.json<{ stores: ProviderStore[] }>().stores;
    // Captures what schedulePush queues; the push job itself is the sync engine's, tested there.
    t.services.queue = {
      send: async (name: string, data: unknown) => {
        sent.push({ name, data });
        return null;
      },
      run: async (name: string, data: object) => {
        sent.push({ name, data });
      },
    } as Pick<JobQueue, 'send' | 'run'> as JobQueue;
  });
  afterAll(async () => {
    await t?.close();
    await sandbox?.close();
  });

  it('takes only a store id the connected Square lists', async () => {
    expect(stores.length).toBeGreaterThan(0);
    const store = stores[0] as ProviderStore;
    const wrong = await t.app.inject({
      method: 'POST',
      url: '/api/v1/locations',
      headers: owner.headers,
      payload: { name: 'Made up', store_id: 'NOT-A-STORE' },
    });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().message).toContain('“NOT-A-STORE” is not one of your Square stores');
    expect(wrong.json().message).toContain(`${store.name} (${store.id})`);

    const right = await trpcOver(t.app, owner.headers).mutation<Location>('locations.create', {
      name: store.name,
      store_id: store.id,
    });
    expect(right.data?.store_id).toBe(store.id);
    const moved = await trpcOver(t.app, owner.headers).mutation('locations.update', {
      id: right.data?.id,
      store_id: 'NOT-A-STORE',
    });
    expect(moved.error?.data.domainCode).toBe('VALIDATION');
    // Changing other fields does not ask Square again, and keeps the store.
    const renamed = await trpcOver(t.app, owner.headers).mutation<Location>('locations.update', {
      id: right.data?.id,
      name: 'Renamed',
    });
    expect(renamed.data).toMatchObject({ name: 'Renamed', store_id: store.id });
  });

  it('marks every variant stocked there dirty and schedules a push when enabled changes', async () => {
    const store = stores[1] ?? (stores[0] as ProviderStore);
    const existing = (
      await t.app.inject({ url: `/api/v1/locations?search=${encodeURIComponent(store.id)}`, headers: owner.headers })
    ).json<LocationList>().results[0];
    const location =
      existing ??
      (
        await t.app.inject({
          method: 'POST',
          url: '/api/v1/locations',
          headers: owner.headers,
          payload: { name: 'Dirty test', store_id: store.id },
        })
      ).json<Location>();
    const stocked = await createVariant(t, owner, 'DIRTY-1');
    const elsewhere = await createVariant(t, owner, 'DIRTY-2');
    for (const [variantId, item] of [
      [stocked, 'ITEM-1'],
      [elsewhere, 'ITEM-2'],
    ] as const) {
      await t.services.db.insert(listings).values({
        id: newId('lst'),
        accountId: owner.accountId,
        channelId: squareId,
        variantId,
        inventoryItemId: item,
        syncStatusCode: 1,
      });
    }
    await stock(t, owner, stocked, location.id, 3);
    const dirty = () =>
      t.services.db
        .select({ variantId: inventoryDirty.variantId })
        .from(inventoryDirty)
        .where(and(eq(inventoryDirty.accountId, owner.accountId), eq(inventoryDirty.channelId, squareId)));
    expect(await dirty()).toEqual([{ variantId: stocked }]);
    await t.services.db.delete(inventoryDirty).where(eq(inventoryDirty.accountId, owner.accountId));
    sent.length = 0;

    // A rename moves no stock.
    await trpcOver(t.app, owner.headers).mutation('locations.update', { id: location.id, name: 'Still here' });
    expect(await dirty()).toEqual([]);
    expect(sent).toEqual([]);

    const off = await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/locations/${location.id}`,
      headers: owner.headers,
      payload: { enabled: '' },
    });
    expect(off.json<Location>().enabled).toBe(false);
    expect(await dirty()).toEqual([{ variantId: stocked }]);
    expect(sent).toEqual([{ name: INVENTORY_PUSH_JOB, data: expect.objectContaining({ channelId: squareId }) }]);
  });
});
