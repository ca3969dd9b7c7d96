import type { Buffer, BufferList, BufferSkuSuggestion } from '@switchyard/contracts';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp } from '../../../test/app.ts';
import { createSignedInAccount } from '../../../test/factories.ts';
import { trpcOver } from '../../../test/trpc.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import { inventoryDirty } from '../inventory/inventory.tables.ts';
import { INVENTORY_PUSH_JOB } from '../inventory/schedule.ts';
import { insertChannel, insertLocation, insertVariants } from './buffers.fixtures.ts';
import { createBuffer, DUPLICATE_BUFFER, moveBuffersToStore } from './buffers.service.ts';

type TestApp = Awaited<ReturnType<typeof createTestApp>>;
type Tenant = Awaited<ReturnType<typeof createSignedInAccount>>;

describe('dynamic buffers', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  /** An account with two live channels, a pending one, two locations and three listed SKUs. */
  async function shop() {
    const tenant = await createSignedInAccount(t.services);
    const db = t.services.db;
    const north = await insertChannel(db, tenant.accountId, { name: 'North shop' });
    const south = await insertChannel(db, tenant.accountId, { type: 'bigcommerce', name: 'South shop' });
    const pending = await insertChannel(db, tenant.accountId, { status: 'pending' });
    const main = await insertLocation(db, tenant.accountId, 'MAIN-1');
    const annex = await insertLocation(db, tenant.accountId, 'ANNEX-2');
    const [red, blue, green] = await insertVariants(
      db,
      tenant.accountId,
      ['TEE-RED', 'TEE-BLUE', 'CAP_50%'],
      [north.id, south.id],
    );
    if (!red || !blue || !green) throw new Error('no variants');
    return { tenant, north, south, pending, main, annex, red, blue, green };
  }

  const post = (tenant: Tenant, payload: Record<string, unknown>, version = 'v1') =>
    t.app.inject({ method: 'POST', url: `/api/${version}/buffers`, headers: tenant.headers, payload });
  const list = async (tenant: Tenant, query: string, version = 'v1') => {
    const res = await t.app.inject({ url: `/api/${version}/buffers?${query}`, headers: tenant.headers });
    expect(res.statusCode).toBe(200);
    return res.json<BufferList>();
  };
  const dirtyPairs = async (accountId: string) =>
    (await t.services.db.select().from(inventoryDirty).where(eq(inventoryDirty.accountId, accountId)))
      .map((d) => `${d.channelId}:${d.variantId}`)
      .sort();
  const clearDirty = (accountId: string) =>
    t.services.db.delete(inventoryDirty).where(eq(inventoryDirty.accountId, accountId));

  it('creates a buffer through REST (201) and reads it back through REST v1, v2 and tRPC', async () => {
    const s = await shop();
    const res = await post(s.tenant, {
      sku: ' TEE-RED ',
      location_external_id: 'MAIN-1',
      channel_id: s.north.id,
      qty: 3,
    });
    expect(res.statusCode).toBe(201);
    const created = res.json<Buffer>();
    expect(created).toEqual({
      id: expect.any(Number),
      sku: 'TEE-RED',
      location_external_id: 'MAIN-1',
      channel_id: s.north.id,
      qty: 3,
    });
    for (const version of ['v1', 'v2']) {
      const one = await t.app.inject({ url: `/api/${version}/buffers/${created.id}`, headers: s.tenant.headers });
      expect(one.statusCode).toBe(200);
      expect(one.json()).toEqual(created);
    }
    const viaTrpc = await trpcOver(t.app, s.tenant.headers).query<Buffer>('buffers.get', { id: created.id });
    expect(viaTrpc.data).toEqual(created);
  });

  it('sorts by every column both ways, filters by channel and exact SKU, searches SKU or location, and pages', async () => {
    const s = await shop();
    const rows: [string, string, string, number][] = [
      ['TEE-RED', 'MAIN-1', s.north.id, 5],
      ['TEE-BLUE', 'MAIN-1', s.north.id, 1],
      ['CAP_50%', 'ANNEX-2', s.north.id, 9],
      ['TEE-RED', 'ANNEX-2', s.south.id, 2],
      ['TEE-BLUE', 'ANNEX-2', s.south.id, 7],
    ];
    const ids: number[] = [];
    for (const [sku, location_external_id, channel_id, qty] of rows) {
      const res = await post(s.tenant, { sku, location_external_id, channel_id, qty }, 'v2');
      expect(res.statusCode).toBe(201);
      ids.push(res.json<Buffer>().id);
    }

    // Defaults: newest first, 25 a page.
    const all = await list(s.tenant, '');
    expect(all.total).toBe(5);
    expect(all.results.map((b) => b.id)).toEqual([...ids].reverse());

    const qtyAsc = await list(s.tenant, 'sort_by=qty&sort=asc');
    expect(qtyAsc.results.map((b) => b.qty)).toEqual([1, 2, 5, 7, 9]);
    const qtyDesc = await list(s.tenant, 'sort_by=qty&sort=desc');
    expect(qtyDesc.results.map((b) => b.qty)).toEqual([9, 7, 5, 2, 1]);
    // Equal keys fall back to the id, in the same direction.
    const skuAsc = await list(s.tenant, 'sort_by=sku&sort=asc');
    expect(skuAsc.results.map((b) => `${b.sku}#${b.id}`)).toEqual([
      `CAP_50%#${ids[2]}`,
      `TEE-BLUE#${ids[1]}`,
      `TEE-BLUE#${ids[4]}`,
      `TEE-RED#${ids[0]}`,
      `TEE-RED#${ids[3]}`,
    ]);
    const locationDesc = await list(s.tenant, 'sort_by=location_external_id&sort=desc');
    expect(locationDesc.results.map((b) => b.location_external_id)).toEqual([
      'MAIN-1',
      'MAIN-1',
      'ANNEX-2',
      'ANNEX-2',
      'ANNEX-2',
    ]);
    const byChannel = await list(s.tenant, 'sort_by=channel_id&sort=asc');
    const channelIds = byChannel.results.map((b) => b.channel_id);
    expect(channelIds).toEqual([...channelIds].sort());
    expect(new Set(channelIds)).toEqual(new Set([s.north.id, s.south.id]));
    const idAsc = await list(s.tenant, 'sort_by=id&sort=asc');
    expect(idAsc.results.map((b) => b.id)).toEqual(ids);

    const south = await list(s.tenant, `channel_id=${s.south.id}`);
    expect(south.total).toBe(2);
    expect(south.results.every((b) => b.channel_id === s.south.id)).toBe(true);

    // sku is exact; search is "contains" over SKU and location, case-insensitive, with % taken literally.
    expect((await list(s.tenant, 'sku=TEE')).total).toBe(0);
    expect((await list(s.tenant, 'sku=TEE-RED')).total).toBe(2);
    expect((await list(s.tenant, 'search=tee')).total).toBe(4);
    expect((await list(s.tenant, 'search=annex')).total).toBe(3);
    expect((await list(s.tenant, `search=${encodeURIComponent('50%')}`)).results.map((b) => b.sku)).toEqual([
      'CAP_50%',
    ]);
    expect((await list(s.tenant, `search=${encodeURIComponent('E_R')}`)).total).toBe(0);
    expect((await list(s.tenant, `search=blue&channel_id=${s.north.id}`)).results.map((b) => b.id)).toEqual([ids[1]]);

    const page2 = await list(s.tenant, 'limit=2&offset=2&sort_by=qty&sort=asc');
    expect(page2).toEqual({
      results: [expect.objectContaining({ qty: 5 }), expect.objectContaining({ qty: 7 })],
      total: 5,
    });

    // Out-of-range params fall back to their defaults (SPEC §2) rather than failing the list.
    const odd = await list(s.tenant, 'sort_by=price&sort=up&limit=0&offset=-3');
    expect(odd.results.map((b) => b.id)).toEqual([...ids].reverse());

    const viaTrpc = await trpcOver(t.app, s.tenant.headers).query<BufferList>('buffers.list', {
      limit: 2,
      offset: 0,
      sort: 'asc',
      sort_by: 'qty',
      search: 'tee',
    });
    expect(viaTrpc.data).toEqual({
      results: [expect.objectContaining({ qty: 1 }), expect.objectContaining({ qty: 2 })],
      total: 4,
    });

    // Another account sees none of them.
    const other = await createSignedInAccount(t.services);
    expect(await list(other, '')).toEqual({ results: [], total: 0 });
  });

  it('refuses unknown channels as not found, and unknown locations, SKUs and bad quantities with clear messages', async () => {
    const s = await shop();
    const other = await shop();
    const good = { sku: 'TEE-RED', location_external_id: 'MAIN-1', channel_id: s.north.id, qty: 2 };

    const foreignChannel = await post(s.tenant, { ...good, channel_id: other.north.id });
    expect(foreignChannel.statusCode).toBe(404);
    expect(foreignChannel.json()).toEqual({ code: 404, message: 'Channel not found' });
    expect((await post(s.tenant, { ...good, channel_id: 'chn_missing' })).json()).toEqual({
      code: 404,
      message: 'Channel not found',
    });

    const location = await post(s.tenant, { ...good, location_external_id: 'NOWHERE' });
    expect(location.statusCode).toBe(400);
    expect(location.json()).toEqual({ code: 400, message: 'None of your locations has the store id “NOWHERE”.' });
    // Another account's location and SKU are not ours either.
    await insertLocation(t.services.db, other.tenant.accountId, 'THEIRS-9');
    expect((await post(s.tenant, { ...good, location_external_id: 'THEIRS-9' })).statusCode).toBe(400);

    const sku = await post(s.tenant, { ...good, sku: 'NO-SUCH' });
    expect(sku.statusCode).toBe(400);
    expect(sku.json()).toEqual({ code: 400, message: 'No product in your catalog has the SKU “NO-SUCH”.' });
    await insertVariants(t.services.db, other.tenant.accountId, ['THEIR-SKU']);
    expect((await post(s.tenant, { ...good, sku: 'THEIR-SKU' })).statusCode).toBe(400);

    const notANumber = await post(s.tenant, { ...good, qty: 'abc' });
    expect(notANumber.statusCode).toBe(400);
    expect(notANumber.json()).toEqual({ code: 400, message: 'Invalid body: qty: Should be a whole number' });
    const negative = await post(s.tenant, { ...good, qty: -1 });
    expect(negative.statusCode).toBe(400);
    expect(negative.json().message).toContain('Should be 0 or more');
    const fraction = await trpcOver(t.app, s.tenant.headers).mutation('buffers.create', { ...good, qty: 1.5 });
    expect(fraction.error?.data.code).toBe('BAD_REQUEST');
    expect(fraction.error?.message).toContain('Should be a whole number');
    const blank = await post(s.tenant, { ...good, sku: '  ' });
    expect(blank.statusCode).toBe(400);
    expect(blank.json().message).toContain('* Required');

    // A pending channel is the account's own: a buffer can be set up before it connects.
    expect((await post(s.tenant, { ...good, channel_id: s.pending.id })).statusCode).toBe(201);
    expect((await list(s.tenant, '')).total).toBe(1);
  });

  it('refuses a second buffer for the same channel, SKU and location, on create and on update', async () => {
    const s = await shop();
    const good = { sku: 'TEE-RED', location_external_id: 'MAIN-1', channel_id: s.north.id, qty: 2 };
    expect((await post(s.tenant, good)).statusCode).toBe(201);
    const twin = await post(s.tenant, { ...good, qty: 8 });
    expect(twin.statusCode).toBe(409);
    expect(twin.json()).toEqual({ code: 409, message: DUPLICATE_BUFFER });

    const viaTrpc = await trpcOver(t.app, s.tenant.headers).mutation('buffers.create', good);
    expect(viaTrpc.error).toMatchObject({
      message: DUPLICATE_BUFFER,
      data: { code: 'CONFLICT', domainCode: 'CONFLICT' },
    });

    // The same SKU and location on another channel, or at another location, is a buffer of its own.
    const elsewhere = (await post(s.tenant, { ...good, location_external_id: 'ANNEX-2' })).json<Buffer>();
    expect((await post(s.tenant, { ...good, channel_id: s.south.id })).statusCode).toBe(201);

    const moved = await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/buffers/${elsewhere.id}`,
      headers: s.tenant.headers,
      payload: { location_external_id: 'MAIN-1' },
    });
    expect(moved.statusCode).toBe(409);
    expect(moved.json().message).toBe(DUPLICATE_BUFFER);
    // Saving a buffer onto itself is no twin.
    const same = await t.app.inject({
      method: 'PATCH',
      url: `/api/v2/buffers/${elsewhere.id}`,
      headers: s.tenant.headers,
      payload: { ...good, location_external_id: 'ANNEX-2', qty: 4 },
    });
    expect(same.statusCode).toBe(200);
    expect(same.json()).toEqual({ ...elsewhere, qty: 4 });
  });

  it('concurrent creates of one buffer make one row and one conflict', async () => {
    const s = await shop();
    const good = { sku: 'TEE-BLUE', location_external_id: 'ANNEX-2', channel_id: s.south.id, qty: 1 };
    const answers = await Promise.all([post(s.tenant, good), post(s.tenant, good), post(s.tenant, good)]);
    expect(answers.map((a) => a.statusCode).sort()).toEqual([201, 409, 409]);
    expect(answers.filter((a) => a.statusCode === 409).map((a) => a.json().message)).toEqual([
      DUPLICATE_BUFFER,
      DUPLICATE_BUFFER,
    ]);
    expect((await list(s.tenant, '')).total).toBe(1);
  });

  it('updates and deletes through REST and tRPC; a missing id is not found', async () => {
    const s = await shop();
    const created = (
      await post(s.tenant, { sku: 'TEE-RED', location_external_id: 'MAIN-1', channel_id: s.north.id, qty: 2 })
    ).json<Buffer>();
    const api = trpcOver(t.app, s.tenant.headers);

    const patched = await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/buffers/${created.id}`,
      headers: s.tenant.headers,
      payload: { qty: 0 },
    });
    expect(patched.json()).toEqual({ ...created, qty: 0 });
    const moved = await api.mutation<Buffer>('buffers.update', {
      id: created.id,
      sku: 'TEE-BLUE',
      channel_id: s.south.id,
      qty: 6,
    });
    expect(moved.data).toEqual({ ...created, sku: 'TEE-BLUE', channel_id: s.south.id, qty: 6 });
    const badSku = await api.mutation('buffers.update', { id: created.id, sku: 'NOPE' });
    expect(badSku.error?.message).toBe('No product in your catalog has the SKU “NOPE”.');
    const badChannel = await api.mutation('buffers.update', { id: created.id, channel_id: 'chn_nope' });
    expect(badChannel.error?.data.code).toBe('NOT_FOUND');
    expect((await api.query<Buffer>('buffers.get', { id: created.id })).data?.qty).toBe(6);

    const removed = await t.app.inject({
      method: 'DELETE',
      url: `/api/v2/buffers/${created.id}`,
      headers: s.tenant.headers,
    });
    expect(removed.json()).toEqual({ id: created.id });
    for (const res of [
      await t.app.inject({ url: `/api/v1/buffers/${created.id}`, headers: s.tenant.headers }),
      await t.app.inject({ method: 'DELETE', url: `/api/v1/buffers/${created.id}`, headers: s.tenant.headers }),
      await t.app.inject({
        method: 'PATCH',
        url: `/api/v1/buffers/${created.id}`,
        headers: s.tenant.headers,
        payload: { qty: 1 },
      }),
    ]) {
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ code: 404, message: 'Buffer not found' });
    }
    expect((await api.mutation('buffers.delete', { id: created.id })).error?.data.code).toBe('NOT_FOUND');
    const garbage = await t.app.inject({ url: '/api/v1/buffers/abc', headers: s.tenant.headers });
    expect(garbage.statusCode).toBe(400);
    expect((await t.app.inject({ url: `/api/v1/buffers/${created.id}` })).statusCode).toBe(401);
  });

  it('marks exactly the changed channel and SKU dirty on create, update and delete', async () => {
    const s = await shop();
    const api = trpcOver(t.app, s.tenant.headers);
    await clearDirty(s.tenant.accountId);

    const created = await api.mutation<Buffer>('buffers.create', {
      sku: 'TEE-RED',
      location_external_id: 'MAIN-1',
      channel_id: s.north.id,
      qty: 2,
    });
    expect(created.status).toBe(200);
    const id = created.data?.id as number;
    // TEE-RED is listed on both channels, and other SKUs on both: only (north, TEE-RED) moves.
    expect(await dirtyPairs(s.tenant.accountId)).toEqual([`${s.north.id}:${s.red.id}`]);

    await clearDirty(s.tenant.accountId);
    await api.mutation('buffers.update', { id, qty: 5 });
    expect(await dirtyPairs(s.tenant.accountId)).toEqual([`${s.north.id}:${s.red.id}`]);

    // Moving the buffer to another SKU and channel re-pushes both the pair it left and the one it joined.
    await clearDirty(s.tenant.accountId);
    await api.mutation('buffers.update', { id, sku: 'TEE-BLUE', channel_id: s.south.id });
    expect(await dirtyPairs(s.tenant.accountId)).toEqual(
      [`${s.north.id}:${s.red.id}`, `${s.south.id}:${s.blue.id}`].sort(),
    );

    await clearDirty(s.tenant.accountId);
    await api.mutation('buffers.delete', { id });
    expect(await dirtyPairs(s.tenant.accountId)).toEqual([`${s.south.id}:${s.blue.id}`]);

    // A refused change marks nothing.
    await clearDirty(s.tenant.accountId);
    await api.mutation('buffers.create', {
      sku: 'TEE-RED',
      location_external_id: 'NOWHERE',
      channel_id: s.north.id,
      qty: 1,
    });
    expect(await dirtyPairs(s.tenant.accountId)).toEqual([]);

    // A pending channel has nothing to push to.
    await api.mutation('buffers.create', {
      sku: 'TEE-RED',
      location_external_id: 'MAIN-1',
      channel_id: s.pending.id,
      qty: 1,
    });
    expect(await dirtyPairs(s.tenant.accountId)).toEqual([]);
  });

  it('starts a push for the marked channel once the change is committed', async () => {
    const s = await shop();
    // schedulePush: at once where the push workers run, else as a job (JobQueue.run decides).
    const run = vi.fn(async () => undefined);
    const services = { ...t.services, queue: { run } as unknown as JobQueue };
    await createBuffer(services, s.tenant, {
      sku: 'TEE-BLUE',
      location_external_id: 'ANNEX-2',
      channel_id: s.south.id,
      qty: 3,
    });
    expect(run).toHaveBeenCalledTimes(1);
    expect(run).toHaveBeenCalledWith(
      INVENTORY_PUSH_JOB,
      expect.objectContaining({ channelId: s.south.id }),
      expect.objectContaining({ singletonKey: `push:${s.south.id}` }),
    );

    run.mockClear();
    await expect(
      createBuffer(services, s.tenant, {
        sku: 'TEE-BLUE',
        location_external_id: 'ANNEX-2',
        channel_id: s.south.id,
        qty: 4,
      }),
    ).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(run).not.toHaveBeenCalled();
  });
  it('suggests catalog SKUs containing what was typed, those starting with it first, only the account’s own', async () => {
    const s = await shop();
    await insertVariants(t.services.db, s.tenant.accountId, ['RED-HAT', 'BLUE-TEE-RED']);
    // Another shop with the same SKUs: none of its rows come back.
    await shop();
    const api = trpcOver(t.app, s.tenant.headers);
    const red = await api.query<BufferSkuSuggestion[]>('buffers.skus', { search: 'red' });
    expect(red.data?.map((x) => x.sku)).toEqual(['RED-HAT', 'BLUE-TEE-RED', 'TEE-RED']);
    expect(red.data?.[0]?.title).toMatch(/^Product /);
    expect((await api.query<BufferSkuSuggestion[]>('buffers.skus', { search: '50%' })).data).toEqual([
      expect.objectContaining({ sku: 'CAP_50%' }),
    ]);
    expect((await api.query<BufferSkuSuggestion[]>('buffers.skus', { search: 'e_r' })).data).toEqual([]);
    const two = await api.query<BufferSkuSuggestion[]>('buffers.skus', { limit: 2 });
    expect(two.error).toBeUndefined();
    expect(two.data?.map((x) => x.sku)).toEqual(['BLUE-TEE-RED', 'CAP_50%']);
    const all = await api.query<BufferSkuSuggestion[]>('buffers.skus', { limit: 50 });
    expect(all.data).toHaveLength(5);
  });
  it('moves a location’s buffers to its new store id, leaving other stores and accounts alone', async () => {
    const s = await shop();
    const other = await shop();
    const make = (tenant: Tenant, sku: string, location_external_id: string, channel_id: string) =>
      post(tenant, { sku, location_external_id, channel_id, qty: 1 });
    await make(s.tenant, 'TEE-RED', 'MAIN-1', s.north.id);
    await make(s.tenant, 'TEE-BLUE', 'MAIN-1', s.north.id);
    await make(s.tenant, 'TEE-RED', 'ANNEX-2', s.north.id);
    await make(other.tenant, 'TEE-RED', 'MAIN-1', other.north.id);
    // A buffer already under the new id (a deleted location's) keeps its place; its twin stays behind.
    await insertLocation(t.services.db, s.tenant.accountId, 'MAIN-NEW');
    await make(s.tenant, 'TEE-BLUE', 'MAIN-NEW', s.north.id);

    const moved = await t.services.db.transaction((tx) =>
      moveBuffersToStore(tx, s.tenant.accountId, 'MAIN-1', 'MAIN-NEW'),
    );
    expect(moved).toBe(1);
    const byStore = (await list(s.tenant, 'sort_by=id&sort=asc')).results.map(
      (b) => `${b.sku}@${b.location_external_id}`,
    );
    expect(byStore).toEqual(['TEE-RED@MAIN-NEW', 'TEE-BLUE@MAIN-1', 'TEE-RED@ANNEX-2', 'TEE-BLUE@MAIN-NEW']);
    expect((await list(other.tenant, '')).results.map((b) => b.location_external_id)).toEqual(['MAIN-1']);
  });
});
