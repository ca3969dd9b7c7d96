// The products and manual stock entries of the tenant-isolation harness (test/isolation.ts). Test code only.
import { randomBytes, randomUUID } from 'node:crypto';
import type { ChannelSummary, ProductDetail, ProductsBulkResult, ProductUpdateInput } from '@switchyard/contracts';
import { eq } from 'drizzle-orm';
import type { InjectOptions } from 'fastify';
import { expect } from 'vitest';
import type { IdTakingOperation, Outcome, OwnRowOperation, World } from '../../../test/isolation.ts';
import { trpcOver } from '../../../test/trpc.ts';
import { newId } from '../../lib/ids.ts';
import { inventoryMovements } from '../inventory/inventory.tables.ts';
import { locations } from '../locations/locations.tables.ts';

const unique = (label: string) => `${label}-${randomBytes(6).toString('hex')}`;

async function rest(w: World, headers: Record<string, string>, options: InjectOptions): Promise<Outcome> {
  const res = await w.t.app.inject({ ...options, headers: { ...options.headers, ...headers } });
  return { status: res.statusCode, body: res.body };
}

async function trpc(w: World, kind: 'query' | 'mutation', path: string, input: unknown): Promise<Outcome> {
  const result = await trpcOver(w.t.app, w.b.headers)[kind](path, input);
  return { status: result.status, body: JSON.stringify(result) };
}

/** A product of A, titled and SKU'd with the marker. */
async function createProduct(w: World) {
  const marker = unique('product');
  const res = await trpcOver(w.t.app, w.a.headers).mutation<ProductDetail>('products.create', {
    title: marker,
    variants: [{ sku: marker, price: 100 }],
  });
  const product = res.data as ProductDetail;
  return { id: product.id, marker, variantId: product.variants[0]?.id as string };
}

async function productIntact(w: World, id: string, marker: string) {
  const res = await trpcOver(w.t.app, w.a.headers).query<ProductDetail>('products.get', { id });
  expect(res.data).toMatchObject({ title: marker, variants: [expect.objectContaining({ sku: marker, price: 100 })] });
  expect(res.data?.variants[0]?.listings).toEqual([]);
}

/** A's product's variant id (its stock must not move). */
async function createVariant(w: World) {
  const { variantId, marker } = await createProduct(w);
  return { id: variantId, marker };
}

async function stockIntact(w: World, variantId: string) {
  const moved = await w.t.services.db
    .select()
    .from(inventoryMovements)
    .where(eq(inventoryMovements.variantId, variantId));
  expect(moved).toEqual([]);
}

/** A location of B, so the stock attempts fail on A's variant only. */
async function locationOfB(w: World) {
  const id = newId('loc');
  await w.t.services.db.insert(locations).values({ id, accountId: w.b.accountId, name: 'B', storeId: unique('b') });
  return id;
}

/** A pending channel of A, named with the marker. */
async function createChannel(w: World) {
  const marker = unique('channel');
  const res = await w.t.app.inject({
    method: 'POST',
    url: '/api/frontend/integration/create',
    headers: w.a.headers,
    payload: { type: 'shopify', name: marker },
  });
  return { id: res.json<ChannelSummary>().id, marker };
}

const input = (id: string) => ({ id, title: 'taken over', variants: [{ sku: unique('x'), price: 1 }] });

export const productIdTakingOperations: IdTakingOperation[] = [
  {
    name: 'products.get',
    create: createProduct,
    attempt: (w, id) => trpc(w, 'query', 'products.get', { id }),
  },
  {
    name: 'products.update',
    create: createProduct,
    attempt: (w, id) => trpc(w, 'mutation', 'products.update', input(id)),
    intact: productIntact,
  },
  {
    name: 'products.delete',
    create: createProduct,
    attempt: (w, id) => trpc(w, 'mutation', 'products.delete', { id }),
    intact: productIntact,
  },
  {
    name: 'products.sync',
    create: createProduct,
    attempt: (w, id) => trpc(w, 'mutation', 'products.sync', { id }),
    intact: productIntact,
  },
  {
    name: 'products.sync of B’s product on A’s channel',
    create: createChannel,
    async attempt(w, channelId) {
      const own = await createProduct({ ...w, a: w.b, b: w.a });
      return trpc(w, 'mutation', 'products.sync', { id: own.id, channelId });
    },
  },
  {
    name: 'products.list with A’s channel',
    create: createChannel,
    attempt: (w, channelId) => trpc(w, 'query', 'products.list', { channelId }),
  },
  {
    name: 'products.create on A’s channel',
    create: createChannel,
    attempt: (w, channelId) =>
      trpc(w, 'mutation', 'products.create', { title: 'mine', variants: [{ sku: unique('b'), price: 1 }], channelId }),
  },
  {
    name: 'products.bulk sync on A’s channel',
    create: createChannel,
    async attempt(w, channelId) {
      const own = await trpcOver(w.t.app, w.b.headers).mutation<ProductDetail>('products.create', {
        title: 'mine',
        variants: [{ sku: unique('b'), price: 1 }],
      });
      return trpc(w, 'mutation', 'products.bulk', { action: 'sync', ids: [own.data?.id], channelId });
    },
  },
  {
    name: 'inventory.adjust of A’s variant',
    create: createVariant,
    attempt: async (w, variantId) =>
      trpc(w, 'mutation', 'inventory.adjust', {
        variantId,
        locationId: await locationOfB(w),
        delta: 5,
        requestId: randomUUID(),
      }),
    intact: (w, id) => stockIntact(w, id),
  },
  {
    name: 'inventory.count of A’s variant',
    create: createVariant,
    attempt: async (w, variantId) =>
      trpc(w, 'mutation', 'inventory.count', {
        variantId,
        locationId: await locationOfB(w),
        count: 5,
        requestId: randomUUID(),
      }),
    intact: (w, id) => stockIntact(w, id),
  },
  ...(['adjust', 'count'] as const).map(
    (verb): IdTakingOperation => ({
      name: `inventory.${verb} of B’s variant at A’s location`,
      create: async (w) => {
        const id = newId('loc');
        const marker = unique('a-store');
        await w.t.services.db.insert(locations).values({ id, accountId: w.a.accountId, name: marker, storeId: marker });
        return { id, marker };
      },
      attempt: async (w, locationId) => {
        const own = await createVariant({ ...w, a: w.b, b: w.a });
        return trpc(w, 'mutation', `inventory.${verb}`, {
          variantId: own.id,
          locationId,
          ...(verb === 'adjust' ? { delta: 5 } : { count: 5 }),
          requestId: randomUUID(),
        });
      },
      async intact(w, locationId) {
        const moved = await w.t.services.db
          .select()
          .from(inventoryMovements)
          .where(eq(inventoryMovements.locationId, locationId));
        expect(moved).toEqual([]);
      },
    }),
  ),
  {
    name: 'GET /api/frontend/products/{id}',
    create: createProduct,
    attempt: (w, id) => rest(w, w.b.headers, { method: 'GET', url: `/api/frontend/products/${id}` }),
  },
  {
    name: 'PUT /api/frontend/products/{id}',
    create: createProduct,
    attempt: (w, id) =>
      rest(w, w.b.headers, {
        method: 'PUT',
        url: `/api/frontend/products/${id}`,
        payload: { ...input(id), id: undefined },
      }),
    intact: productIntact,
  },
  {
    name: 'PUT /api/frontend/products',
    create: createProduct,
    attempt: (w, id) =>
      rest(w, w.b.headers, { method: 'PUT', url: '/api/frontend/products', payload: { products: [input(id)] } }),
    intact: productIntact,
  },
  {
    name: 'POST /api/frontend/products on A’s channel',
    create: createChannel,
    attempt: (w, channelId) =>
      rest(w, w.b.headers, {
        method: 'POST',
        url: '/api/frontend/products',
        payload: { title: 'mine', variants: [{ sku: unique('b'), price: 1 }], channelId },
      }),
  },
  ...(['v1', 'v2'] as const).flatMap((v): IdTakingOperation[] => [
    {
      name: `DELETE /api/${v}/product/{id}`,
      create: createProduct,
      attempt: (w, id) => rest(w, w.b.headers, { method: 'DELETE', url: `/api/${v}/product/${id}` }),
      intact: productIntact,
    },
    {
      name: `DELETE /api/${v}/product/{id} with an API key`,
      create: createProduct,
      attempt: (w, id) => rest(w, w.b.apiKeyHeaders, { method: 'DELETE', url: `/api/${v}/product/${id}` }),
      intact: productIntact,
    },
    {
      name: `POST /api/${v}/products on A’s channel with an API key`,
      create: createChannel,
      attempt: (w, channelId) =>
        rest(w, w.b.apiKeyHeaders, {
          method: 'POST',
          url: `/api/${v}/products`,
          payload: { title: 'mine', variants: [{ sku: unique('b'), price: 1 }], channelId },
        }),
    },
  ]),
];

/** An update of B's product, by the route it names, answered as status and message. */
async function updateOwnProduct(
  w: World,
  route: 'products.update' | 'PUT /api/frontend/products/{id}' | 'PUT /api/frontend/products',
  body: ProductUpdateInput,
) {
  if (route === 'products.update') {
    const res = await trpcOver(w.t.app, w.b.headers).mutation('products.update', body);
    return { status: res.status, message: res.error?.message, body: JSON.stringify(res) };
  }
  const res = await w.t.app.inject({
    method: 'PUT',
    url: route === 'PUT /api/frontend/products' ? '/api/frontend/products' : `/api/frontend/products/${body.id}`,
    headers: w.b.headers,
    payload: route === 'PUT /api/frontend/products' ? { products: [body] } : { ...body, id: undefined },
  });
  return { status: res.statusCode, message: res.json<{ message?: string }>().message, body: res.body };
}

export const productOwnRowOperations: OwnRowOperation[] = [
  ...(['products.update', 'PUT /api/frontend/products/{id}', 'PUT /api/frontend/products'] as const).map(
    (route): OwnRowOperation => ({
      name: `${route} of B’s product naming A’s variant answers as a variant that does not exist`,
      async run(w) {
        const theirs = await createProduct(w);
        const own = await createProduct({ ...w, a: w.b, b: w.a });
        const sku = unique('b');
        const naming = (variantId: string) => ({
          id: own.id,
          title: 'B’s own',
          variants: [{ id: variantId, sku, price: 1 }],
        });
        const res = await updateOwnProduct(w, route, naming(theirs.variantId));
        const unknown = await updateOwnProduct(w, route, naming(newId('var')));
        expect(unknown.status).toBe(400);
        expect([res.status, res.message], res.body).toEqual([unknown.status, unknown.message]);
        expect(res.body).not.toContain(theirs.marker);
        await productIntact(w, theirs.id, theirs.marker);
        await productIntact({ ...w, a: w.b, b: w.a }, own.id, own.marker);
      },
    }),
  ),
  {
    name: 'products.bulk with A’s ids acts on none of them',
    async run(w) {
      const { id, marker } = await createProduct(w);
      for (const action of ['sync', 'delete'] as const) {
        const res = await trpcOver(w.t.app, w.b.headers).mutation<ProductsBulkResult>('products.bulk', {
          action,
          ids: [id],
        });
        expect(res.data).toEqual({ action, count: 0, ids: [] });
      }
      await productIntact(w, id, marker);
    },
  },
  {
    name: 'products.list and products.brands show only B’s catalog; SKUs are per account',
    async run(w) {
      const { marker } = await createProduct(w);
      await trpcOver(w.t.app, w.a.headers).mutation('products.create', {
        title: unique('branded'),
        brand: marker,
        variants: [{ sku: unique('s'), price: 1 }],
      });
      const channel = await w.t.app.inject({
        method: 'POST',
        url: '/api/frontend/integration/create',
        headers: w.b.headers,
        payload: { type: 'bigcommerce' },
      });
      const list = await trpcOver(w.t.app, w.b.headers).query('products.list', {
        channelId: channel.json<ChannelSummary>().id,
        filter: { search: marker },
      });
      expect(JSON.stringify(list)).not.toContain(marker);
      const brands = await trpcOver(w.t.app, w.b.headers).query<string[]>('products.brands');
      expect(brands.data).not.toContain(marker);
      // The same SKU in B's catalog is no conflict.
      const mine = await trpcOver(w.t.app, w.b.headers).mutation<ProductDetail>('products.create', {
        title: 'B’s own',
        variants: [{ sku: marker, price: 1 }],
      });
      expect(mine.data?.variants[0]?.sku).toBe(marker);
    },
  },
];
