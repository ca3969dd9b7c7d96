import { randomUUID } from 'node:crypto';
import {
  DEFAULT_CHANNEL_SETTINGS,
  DEFAULT_FEATURES,
  type ProductDetail,
  type ProductInput,
  type ProductListResult,
  type ProductsBulkResult,
  type ProductsFilter,
  type StockChangeResult,
} from '@switchyard/contracts';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../../../test/app.ts';
import { createSignedInAccount } from '../../../test/factories.ts';
import { trpcOver } from '../../../test/trpc.ts';
import { newId } from '../../lib/ids.ts';
import { buffers } from '../buffers/buffers.tables.ts';
import { channels } from '../channels/channels.tables.ts';
import { channelStock, inventoryDirty, inventoryLevels, inventoryMovements } from '../inventory/inventory.tables.ts';
import { locations } from '../locations/locations.tables.ts';
import { adjustStock } from '../stock/stock.service.ts';
import { listings } from './products.tables.ts';

type TestApp = Awaited<ReturnType<typeof createTestApp>>;
type Tenant = Awaited<ReturnType<typeof createSignedInAccount>>;

const variant = (sku: string, extra: Partial<ProductInput['variants'][number]> = {}) => ({
  sku,
  price: 1000,
  ...extra,
});

describe('products', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  /** A channel of the tenant, live (so stock changes mark it dirty) with one location feeding it. */
  async function addChannel(tenant: Tenant, options: { storeId?: string; safetyStock?: number } = {}) {
    const id = newId('chn');
    await t.services.db.insert(channels).values({
      id,
      accountId: tenant.accountId,
      type: 'shopify',
      name: `Shop ${id}`,
      status: 'connected',
      externalId: `${id}.myshopify.com`,
      features: DEFAULT_FEATURES,
      settings: {
        ...DEFAULT_CHANNEL_SETTINGS,
        channel: {
          ...DEFAULT_CHANNEL_SETTINGS.channel,
          locationMap: options.storeId
            ? [{ externalLocationId: 'gid-loc-1', externalName: 'Warehouse', storeId: options.storeId, feeds: true }]
            : [],
        },
        advanced: { ...DEFAULT_CHANNEL_SETTINGS.advanced, safetyStock: options.safetyStock ?? 0 },
      },
    });
    return id;
  }

  async function addLocation(tenant: Tenant, storeId: string, name = storeId) {
    const id = newId('loc');
    await t.services.db.insert(locations).values({ id, accountId: tenant.accountId, name, storeId });
    return id;
  }

  async function listOn(tenant: Tenant, channelId: string, id: string, status: 0 | 1 | 2 | 3, item = true) {
    await t.services.db.insert(listings).values({
      id: newId('lst'),
      accountId: tenant.accountId,
      channelId,
      variantId: id,
      externalVariantId: `ext-${id}`,
      inventoryItemId: item ? `item-${id}` : null,
      syncStatusCode: status,
    });
  }

  const api = (tenant: Tenant) => trpcOver(t.app, tenant.headers);

  async function create(tenant: Tenant, input: ProductInput & { channelId?: string }) {
    const res = await api(tenant).mutation<ProductDetail>('products.create', input);
    expect(res.error).toBeUndefined();
    return res.data as ProductDetail;
  }

  const count = (tenant: Tenant, variantId: string, locationId: string, n: number) =>
    api(tenant).mutation<StockChangeResult>('inventory.count', {
      variantId,
      locationId,
      count: n,
      requestId: randomUUID(),
    });

  describe('the list and its filters', () => {
    let owner: Tenant;
    let channelId: string;
    const ids: Record<string, string> = {};

    beforeAll(async () => {
      owner = await createSignedInAccount(t.services);
      channelId = await addChannel(owner);
      const s1 = await addLocation(owner, 'S1');
      const s2 = await addLocation(owner, 'S2');
      // Created in this order; the list shows the newest product first.
      const c = await create(owner, {
        title: 'Coffee mug',
        variants: [variant('C-1', { barcode: '0123456789', price: 900 })],
      });
      const b = await create(owner, {
        title: 'Bolt kit',
        brand: 'Bolt',
        variants: [variant('B-1', { title: 'Small' }), variant('B-2', { title: 'Large', compareAtPrice: 500 })],
      });
      const a = await create(owner, {
        title: 'Anvil',
        brand: 'Acme',
        variants: [variant('A-1', { alu: 'ALU-A', compareAtPrice: 1500 })],
      });
      for (const p of [a, b, c]) for (const v of p.variants) ids[v.sku] = v.id;
      await listOn(owner, channelId, ids['A-1'] as string, 1);
      await listOn(owner, channelId, ids['B-1'] as string, 3);
      await listOn(owner, channelId, ids['C-1'] as string, 0);
      await count(owner, ids['A-1'] as string, s1, 5);
      await count(owner, ids['A-1'] as string, s2, 3);
      await count(owner, ids['B-1'] as string, s2, 10);
      await count(owner, ids['C-1'] as string, s1, 2);
    });

    async function skusFor(filter: Partial<ProductsFilter>, page: { currentPage?: number; sizePerPage?: number } = {}) {
      const res = await api(owner).query<ProductListResult>('products.list', { channelId, ...page, filter });
      expect(res.error).toBeUndefined();
      return (res.data as ProductListResult).results.map((r) => r.sku);
    }

    it('lists every variant, newest product first, with its listing on the channel', async () => {
      const res = await api(owner).query<ProductListResult>('products.list', { channelId });
      const data = res.data as ProductListResult;
      expect(data.results.map((r) => r.sku)).toEqual(['A-1', 'B-1', 'B-2', 'C-1']);
      expect(data.pagination).toEqual({ total: 4, limit: 25, currentPage: 1 });
      const [a, , b2] = data.results;
      expect(a).toMatchObject({
        title: 'Anvil',
        brand: 'Acme',
        alu: 'ALU-A',
        variantCount: 1,
        onHand: 8,
        reserved: 0,
        syncStatusCode: 1,
        price: 1000,
        compareAtPrice: 1500,
      });
      expect(a?.listing).toMatchObject({ channelId, syncStatusCode: 1, inventoryItemId: `item-${ids['A-1']}` });
      expect(b2).toMatchObject({ variantTitle: 'Large', variantCount: 2, syncStatusCode: 0, listing: null });
    });

    it('pages', async () => {
      const res = await api(owner).query<ProductListResult>('products.list', {
        channelId,
        currentPage: 2,
        sizePerPage: 3,
      });
      expect(res.data?.results.map((r) => r.sku)).toEqual(['C-1']);
      expect(res.data?.pagination).toEqual({ total: 4, limit: 3, currentPage: 2 });
      expect(await skusFor({}, { currentPage: 3, sizePerPage: 3 })).toEqual([]);
    });

    it('filters by sync status and by sync on/off (no listing counts as 0)', async () => {
      expect(await skusFor({ syncStatusCode: 1 })).toEqual(['A-1']);
      expect(await skusFor({ syncStatusCode: 3 })).toEqual(['B-1']);
      expect(await skusFor({ syncStatusCode: 0 })).toEqual(['B-2', 'C-1']);
      expect(await skusFor({ sync: 'true' })).toEqual(['A-1', 'B-1']);
      expect(await skusFor({ sync: 'false' })).toEqual(['B-2', 'C-1']);
    });

    it('filters by a SKU or ALU list, brands, search, sale and type', async () => {
      expect(await skusFor({ skus: 'a-1, C-1 ,,' })).toEqual(['A-1', 'C-1']);
      expect(await skusFor({ skus: 'ALU-A' })).toEqual([]);
      expect(await skusFor({ skus: 'alu-a', skuOrAlu: 'alu' })).toEqual(['A-1']);
      expect(await skusFor({ brands: 'acme,BOLT' })).toEqual(['A-1', 'B-1', 'B-2']);
      expect(await skusFor({ brands: 'Bolt' })).toEqual(['B-1', 'B-2']);
      expect(await skusFor({ search: 'MUG' })).toEqual(['C-1']);
      expect(await skusFor({ search: '01234' })).toEqual(['C-1']);
      expect(await skusFor({ search: 'large' })).toEqual(['B-2']);
      expect(await skusFor({ search: 'b-' })).toEqual(['B-1', 'B-2']);
      expect(await skusFor({ search: '%' })).toEqual([]);
      expect(await skusFor({ sale: 'true' })).toEqual(['A-1']);
      expect(await skusFor({ sale: 'false' })).toEqual(['B-1', 'B-2', 'C-1']);
      expect(await skusFor({ type: 'simple' })).toEqual(['A-1', 'C-1']);
      expect(await skusFor({ type: 'variants' })).toEqual(['B-1', 'B-2']);
      expect(await skusFor({ type: 'variants', brands: 'bolt', syncStatusCode: 3 })).toEqual(['B-1']);
    });

    it('filters by quantity, summed or at one location', async () => {
      expect(await skusFor({ qtyOperation: '=', qty: 8 })).toEqual(['A-1']);
      expect(await skusFor({ qtyOperation: '>', qty: 5 })).toEqual(['A-1', 'B-1']);
      expect(await skusFor({ qtyOperation: '<', qty: 1 })).toEqual(['B-2']);
      expect(await skusFor({ qtyOperation: '<=', qty: 2 })).toEqual(['B-2', 'C-1']);
      expect(await skusFor({ qtyOperation: '>=', qty: 2, location: 'S1' })).toEqual(['A-1', 'C-1']);
      expect(await skusFor({ qtyOperation: '>', qty: 5, location: 'S2' })).toEqual(['B-1']);
      expect(await skusFor({ qtyOperation: '=', qty: 0, location: 'nowhere' })).toEqual(['A-1', 'B-1', 'B-2', 'C-1']);
      const atS2 = await api(owner).query<ProductListResult>('products.list', {
        channelId,
        filter: { location: 'S2' },
      });
      expect(atS2.data?.results.map((r) => r.onHand)).toEqual([3, 10, 0, 0]);
    });

    it('answers the brands of the catalog', async () => {
      const res = await api(owner).query<string[]>('products.brands');
      expect(res.data).toEqual(['Acme', 'Bolt']);
    });

    it('answers NOT_FOUND for a channel of another account', async () => {
      const other = await createSignedInAccount(t.services);
      const res = await api(other).query('products.list', { channelId });
      expect(res.error?.data.code).toBe('NOT_FOUND');
    });
  });

  describe('create, update, delete', () => {
    let owner: Tenant;
    beforeAll(async () => {
      owner = await createSignedInAccount(t.services);
    });

    it('creates a product with variants, pending listings on the screen’s channel', async () => {
      const channelId = await addChannel(owner);
      const created = await create(owner, {
        title: '  Tea pot ',
        description: 'Holds tea',
        brand: 'Kettle & Co',
        productType: 'Kitchen',
        images: ['https://cdn.test/a.png'],
        variants: [variant('TP-1', { barcode: '', alu: 'TPA', compareAtPrice: 1200 }), variant('TP-2')],
        channelId,
      });
      expect(created).toMatchObject({
        title: 'Tea pot',
        brand: 'Kettle & Co',
        status: 'active',
        images: ['https://cdn.test/a.png'],
      });
      expect(created.variants.map((v) => [v.sku, v.alu, v.barcode, v.position])).toEqual([
        ['TP-1', 'TPA', null, 0],
        ['TP-2', null, null, 1],
      ]);
      expect(
        created.variants.every((v) => v.listings[0]?.syncStatusCode === 2 && v.listings[0].channelId === channelId),
      ).toBe(true);
      const got = await api(owner).query<ProductDetail>('products.get', { id: created.id });
      expect(got.data?.variants).toHaveLength(2);
    });

    it('refuses a SKU another product uses (CONFLICT, REST 409) and a SKU twice in one product', async () => {
      await create(owner, { title: 'First', variants: [variant('DUP-1')] });
      const again = await api(owner).mutation('products.create', { title: 'Second', variants: [variant('DUP-1')] });
      expect(again.error?.data.code).toBe('CONFLICT');
      expect(again.error?.message).toBe('SKU "DUP-1" is already used by another product.');
      const rest = await t.app.inject({
        method: 'POST',
        url: '/api/v1/products',
        headers: owner.headers,
        payload: { title: 'Third', variants: [variant('x-9'), variant('DUP-1')] },
      });
      expect(rest.statusCode).toBe(409);
      expect(rest.json()).toEqual({ code: 409, message: 'SKU "DUP-1" is already used by another product.' });
      const twice = await api(owner).mutation('products.create', {
        title: 'Twice',
        variants: [variant('TW-1'), variant('TW-1')],
      });
      expect(twice.error?.data.code).toBe('BAD_REQUEST');
      expect(twice.error?.message).toContain('SKU is used by another variant of this product');
      // Another account may use the same SKU.
      const other = await createSignedInAccount(t.services);
      expect((await create(other, { title: 'Theirs', variants: [variant('DUP-1')] })).variants[0]?.sku).toBe('DUP-1');
    });

    it('validates the input with clear messages', async () => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/frontend/products',
        headers: owner.headers,
        payload: { title: '', variants: [{ sku: 'V-1', price: 12.5 }], images: ['javascript:alert(1)'] },
      });
      expect(res.statusCode).toBe(400);
      const { message } = res.json<{ message: string }>();
      expect(message).toContain('title: * Required');
      expect(message).toContain('Should be in minor units');
      expect(message).toContain('Should be an http(s) address');
    });

    it('updates fields and the variant list: kept by id, new added, missing deleted, SKUs swapped', async () => {
      const p = await create(owner, {
        title: 'Lamp',
        variants: [variant('L-RED'), variant('L-BLUE'), variant('L-GONE')],
      });
      const [red, blue] = p.variants;
      const res = await api(owner).mutation<ProductDetail>('products.update', {
        id: p.id,
        title: 'Desk lamp',
        brand: 'Glow',
        status: 'draft',
        variants: [
          { id: blue?.id, sku: 'L-RED', price: 2000, title: 'was blue' },
          { id: red?.id, sku: 'L-BLUE', price: 2100 },
          { sku: 'L-GREEN', price: 2200, compareAtPrice: 3000 },
        ],
      });
      expect(res.error).toBeUndefined();
      const updated = res.data as ProductDetail;
      expect(updated).toMatchObject({ title: 'Desk lamp', brand: 'Glow', status: 'draft' });
      expect(updated.variants.map((v) => [v.sku, v.price, v.position])).toEqual([
        ['L-RED', 2000, 0],
        ['L-BLUE', 2100, 1],
        ['L-GREEN', 2200, 2],
      ]);
      expect(updated.variants[0]?.id).toBe(blue?.id);
      expect(updated.variants[1]?.id).toBe(red?.id);

      const conflict = await api(owner).mutation('products.update', {
        id: p.id,
        title: 'Desk lamp',
        variants: [{ id: blue?.id, sku: 'TP-1', price: 1 }],
      });
      expect(conflict.error?.data.code).toBe('CONFLICT');
      const foreign = await api(owner).mutation('products.update', {
        id: p.id,
        title: 'Desk lamp',
        variants: [{ id: 'var_someone_else', sku: 'L-X', price: 1 }],
      });
      expect(foreign.error?.data.code).toBe('BAD_REQUEST');
      // Nothing of the refused updates was written.
      const after = await api(owner).query<ProductDetail>('products.get', { id: p.id });
      expect(after.data?.variants.map((v) => v.sku)).toEqual(['L-RED', 'L-BLUE', 'L-GREEN']);
    });

    it('updates over REST: PUT products/{id} and PUT products (all or none)', async () => {
      const one = await create(owner, { title: 'Cup', variants: [variant('CUP-1')] });
      const two = await create(owner, { title: 'Plate', variants: [variant('PLT-1')] });
      const put = await t.app.inject({
        method: 'PUT',
        url: `/api/frontend/products/${one.id}`,
        headers: owner.headers,
        payload: { title: 'Big cup', variants: [{ id: one.variants[0]?.id, sku: 'CUP-1', price: 450 }] },
      });
      expect(put.statusCode).toBe(200);
      expect(put.json<ProductDetail>().variants[0]?.price).toBe(450);

      const bad = await t.app.inject({
        method: 'PUT',
        url: '/api/frontend/products',
        headers: owner.headers,
        payload: [
          { id: one.id, title: 'Huge cup', variants: [{ id: one.variants[0]?.id, sku: 'CUP-1', price: 1 }] },
          { id: two.id, title: 'Plate', variants: [{ id: two.variants[0]?.id, sku: 'CUP-1', price: 1 }] },
        ],
      });
      expect(bad.statusCode).toBe(409);
      const unchanged = await t.app.inject({ url: `/api/frontend/products/${one.id}`, headers: owner.headers });
      expect(unchanged.json<ProductDetail>().title).toBe('Big cup');

      const good = await t.app.inject({
        method: 'PUT',
        url: '/api/frontend/products',
        headers: owner.headers,
        payload: {
          products: [
            { id: one.id, title: 'Huge cup', variants: [{ id: one.variants[0]?.id, sku: 'CUP-1', price: 1 }] },
            { id: two.id, title: 'Round plate', variants: [{ id: two.variants[0]?.id, sku: 'PLT-1', price: 2 }] },
          ],
        },
      });
      expect(good.statusCode).toBe(200);
      expect(good.json<{ results: ProductDetail[] }>().results.map((p) => p.title)).toEqual([
        'Huge cup',
        'Round plate',
      ]);
    });

    it('deletes one product (tRPC and v1/v2 DELETE product/{id}) and in bulk', async () => {
      const a = await create(owner, { title: 'Del A', variants: [variant('DA-1')] });
      const b = await create(owner, { title: 'Del B', variants: [variant('DB-1')] });
      const c = await create(owner, { title: 'Del C', variants: [variant('DC-1')] });
      const d = await create(owner, { title: 'Del D', variants: [variant('DD-1')] });
      expect((await api(owner).mutation('products.delete', { id: a.id })).data).toEqual({ id: a.id });
      expect((await api(owner).query('products.get', { id: a.id })).error?.data.code).toBe('NOT_FOUND');
      const rest = await t.app.inject({ method: 'DELETE', url: `/api/v2/product/${b.id}`, headers: owner.headers });
      expect(rest.json()).toEqual({ id: b.id });
      const again = await t.app.inject({ method: 'DELETE', url: `/api/v1/product/${b.id}`, headers: owner.headers });
      expect(again.statusCode).toBe(404);
      const bulk = await api(owner).mutation<ProductsBulkResult>('products.bulk', {
        action: 'delete',
        ids: [c.id, d.id, 'prd_unknown'],
      });
      expect(bulk.data).toMatchObject({ action: 'delete', count: 2 });
      expect(bulk.data?.ids.sort()).toEqual([c.id, d.id].sort());
      // The SKU is free again.
      expect((await create(owner, { title: 'Del A again', variants: [variant('DA-1')] })).variants[0]?.sku).toBe(
        'DA-1',
      );
    });
  });

  describe('stock changes and the product view', () => {
    let owner: Tenant;
    let locationId: string;
    let channelId: string;
    let product: ProductDetail;
    let variantId: string;

    beforeAll(async () => {
      owner = await createSignedInAccount(t.services);
      locationId = await addLocation(owner, 'MAIN', 'Main street');
      channelId = await addChannel(owner, { storeId: 'MAIN', safetyStock: 1 });
      product = await create(owner, { title: 'Socks', variants: [variant('SOCK-1')] });
      variantId = product.variants[0]?.id as string;
      await listOn(owner, channelId, variantId, 1);
      await t.services.db
        .insert(buffers)
        .values({ accountId: owner.accountId, sku: 'SOCK-1', locationExternalId: 'MAIN', channelId, qty: 2 });
    });

    const movements = () =>
      t.services.db
        .select()
        .from(inventoryMovements)
        .where(and(eq(inventoryMovements.variantId, variantId), eq(inventoryMovements.locationId, locationId)))
        .orderBy(inventoryMovements.id);

    it('adjusts and counts through the ledger, marking the channel dirty', async () => {
      const adjusted = await api(owner).mutation<StockChangeResult>('inventory.adjust', {
        variantId,
        locationId,
        delta: 7,
        note: 'delivery',
        requestId: randomUUID(),
      });
      expect(adjusted.data).toEqual({ variantId, locationId, onHand: 7, reserved: 0, delta: 7, applied: true });
      const counted = await count(owner, variantId, locationId, 5);
      expect(counted.data).toMatchObject({ onHand: 5, delta: -2, applied: true });
      const rows = await movements();
      expect(rows.map((m) => [m.delta, m.onHandAfter, m.reason, m.source, m.reference, m.userId])).toEqual([
        [7, 7, 'adjustment', 'manual', 'delivery', owner.userId],
        [-2, 5, 'count', 'manual', null, owner.userId],
      ]);
      const dirty = await t.services.db.select().from(inventoryDirty).where(eq(inventoryDirty.variantId, variantId));
      expect(dirty.map((d) => d.channelId)).toEqual([channelId]);
      const zero = await api(owner).mutation('inventory.adjust', {
        variantId,
        locationId,
        delta: 0,
        requestId: randomUUID(),
      });
      expect(zero.error?.message).toContain('Should not be 0');
    });

    it('writes off the stock of a deleted variant or product and keeps its movements', async () => {
      const mugs = await create(owner, { title: 'Mugs', variants: [variant('MUG-1'), variant('MUG-2')] });
      const [one, two] = mugs.variants as [ProductDetail['variants'][number], ProductDetail['variants'][number]];
      for (const [v, delta] of [
        [one, 5],
        [two, 3],
      ] as const)
        await api(owner).mutation('inventory.adjust', {
          variantId: v.id,
          locationId,
          delta,
          requestId: randomUUID(),
        });
      const ledgerOf = async (id: string) =>
        (
          await t.services.db
            .select()
            .from(inventoryMovements)
            .where(eq(inventoryMovements.variantId, id))
            .orderBy(inventoryMovements.id)
        ).map((m) => [m.delta, m.onHandAfter, m.reason, m.reference, m.userId]);

      // MUG-2 leaves the product: its 3 units are written off, its history stays.
      const edited = await api(owner).mutation('products.update', {
        id: mugs.id,
        title: 'Mugs',
        variants: [{ id: one.id, sku: 'MUG-1', price: 1000 }],
      });
      expect(edited.error).toBeUndefined();
      expect(await ledgerOf(two.id)).toEqual([
        [3, 3, 'adjustment', null, owner.userId],
        [-3, 0, 'removed', 'SKU MUG-2 deleted', owner.userId],
      ]);
      // The product goes: so do MUG-1's 5 units, in the ledger.
      expect((await api(owner).mutation('products.delete', { id: mugs.id })).data).toEqual({ id: mugs.id });
      expect(await ledgerOf(one.id)).toEqual([
        [5, 5, 'adjustment', null, owner.userId],
        [-5, 0, 'removed', 'SKU MUG-1 deleted', owner.userId],
      ]);
      const levels = await t.services.db.select().from(inventoryLevels).where(eq(inventoryLevels.variantId, one.id));
      expect(levels).toEqual([]);
    });

    it('applies a double submit once', async () => {
      const before = (await movements()).length;
      const requestId = randomUUID();
      const input = { variantId, locationId, delta: -1, requestId };
      const [first, second] = await Promise.all([
        api(owner).mutation<StockChangeResult>('inventory.adjust', input),
        api(owner).mutation<StockChangeResult>('inventory.adjust', input),
      ]);
      expect([first.data?.applied, second.data?.applied].sort()).toEqual([false, true]);
      const third = await api(owner).mutation<StockChangeResult>('inventory.adjust', input);
      expect(third.data).toMatchObject({ applied: false, delta: 0, onHand: 4 });
      expect((await movements()).length).toBe(before + 1);
    });

    it('counts both of two concurrent adjustments of one level', async () => {
      const [level] = await t.services.db
        .select()
        .from(inventoryLevels)
        .where(and(eq(inventoryLevels.variantId, variantId), eq(inventoryLevels.locationId, locationId)));
      const start = level?.onHand as number;
      const actor = { accountId: owner.accountId, userId: owner.userId };
      await Promise.all([
        adjustStock(t.services, actor, { variantId, locationId, delta: 3, requestId: randomUUID() }),
        adjustStock(t.services, actor, { variantId, locationId, delta: 4, requestId: randomUUID() }),
        adjustStock(t.services, actor, { variantId, locationId, delta: -2, requestId: randomUUID() }),
      ]);
      const [after] = await t.services.db
        .select()
        .from(inventoryLevels)
        .where(and(eq(inventoryLevels.variantId, variantId), eq(inventoryLevels.locationId, locationId)));
      expect(after?.onHand).toBe(start + 5);
      const rows = await movements();
      expect(rows.at(-1)?.onHandAfter).toBe(start + 5);
    });

    it('refuses a variant or location of another account as NOT_FOUND', async () => {
      const other = await createSignedInAccount(t.services);
      const theirLocation = await addLocation(other, 'THEIRS');
      const res = await api(other).mutation('inventory.count', {
        variantId,
        locationId: theirLocation,
        count: 0,
        requestId: randomUUID(),
      });
      expect(res.error?.data.code).toBe('NOT_FOUND');
      const mine = await api(owner).mutation('inventory.count', {
        variantId,
        locationId: theirLocation,
        count: 0,
        requestId: randomUUID(),
      });
      expect(mine.error?.data.code).toBe('NOT_FOUND');
    });

    it('explains each channel’s number with the push formula, and shows movements', async () => {
      const res = await api(owner).query<ProductDetail>('products.get', { id: product.id });
      const detail = res.data as ProductDetail;
      const v = detail.variants[0];
      const onHand = v?.stock[0]?.onHand as number;
      expect(v?.stock).toEqual([
        expect.objectContaining({ locationId, locationName: 'Main street', storeId: 'MAIN', onHand, reserved: 0 }),
      ]);
      expect(v?.available).toEqual([
        expect.objectContaining({
          channelId,
          externalLocationId: 'gid-loc-1',
          externalLocationName: 'Warehouse',
          locationId,
          storeId: 'MAIN',
          onHand,
          reserved: 0,
          buffer: 2,
          safetyStock: 1,
          available: onHand - 3,
          pushedQty: null,
          inSync: false,
        }),
      ]);
      expect(v?.listings).toEqual([expect.objectContaining({ channelId, syncStatusCode: 1 })]);
      expect(detail.movements[0]).toMatchObject({ sku: 'SOCK-1', locationName: 'Main street', source: 'manual' });
      expect(detail.movements.find((m) => m.reason === 'adjustment')?.userEmail).toBe(owner.email);
    });

    it('sync marks the listings pending and the channel dirty', async () => {
      await t.services.db.delete(inventoryDirty).where(eq(inventoryDirty.variantId, variantId));
      const res = await api(owner).mutation<ProductDetail>('products.sync', { id: product.id });
      expect(res.data?.variants[0]?.listings[0]?.syncStatusCode).toBe(2);
      const dirty = await t.services.db.select().from(inventoryDirty).where(eq(inventoryDirty.variantId, variantId));
      expect(dirty.map((d) => d.channelId)).toEqual([channelId]);
      const bulk = await api(owner).mutation<ProductsBulkResult>('products.bulk', {
        action: 'sync',
        ids: [product.id],
        channelId,
      });
      expect(bulk.data).toEqual({ action: 'sync', count: 1, ids: [product.id] });
    });

    it('sync settles a listing whose channel already holds our number (nothing to push) as synced', async () => {
      const detail = (await api(owner).query<ProductDetail>('products.get', { id: product.id })).data as ProductDetail;
      const available = detail.variants[0]?.available[0]?.available as number;
      await t.services.db
        .update(listings)
        .set({ syncStatusCode: 3, lastError: 'was failing' })
        .where(eq(listings.variantId, variantId));
      await t.services.db.insert(channelStock).values({
        accountId: owner.accountId,
        channelId,
        variantId,
        externalLocationId: 'gid-loc-1',
        locationId,
        inventoryItemId: `item-${variantId}`,
        pushedQty: available,
        pushedAt: new Date(),
      });
      const res = await api(owner).mutation<ProductDetail>('products.sync', { id: product.id, channelId });
      expect(res.data?.variants[0]?.listings[0]).toMatchObject({ syncStatusCode: 1, lastError: null });
      expect(res.data?.variants[0]?.available[0]).toMatchObject({ pushedQty: available, inSync: true });
    });
  });
});
