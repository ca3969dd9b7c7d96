// The buffers module's entries of the tenant-isolation harness (test/isolation.ts). Test code only.
import { randomBytes } from 'node:crypto';
import type { Buffer, BufferList, BufferSkuSuggestion } from '@switchyard/contracts';
import { and, eq } from 'drizzle-orm';
import { expect } from 'vitest';
import type { IdTakingOperation, OwnRowOperation, World } from '../../../test/isolation.ts';
import { rest, trpc } from '../../../test/isolation.ts';
import { trpcOver } from '../../../test/trpc.ts';
import { locations } from '../locations/locations.tables.ts';
import { insertChannel, insertLocation, insertVariants } from './buffers.fixtures.ts';
import { buffers } from './buffers.tables.ts';

/** A's buffer; its SKU is the marker. Answers the channel too, for the operations that take a channel id. */
async function createBufferOfA(w: World) {
  const marker = `SKU-${randomBytes(6).toString('hex')}`;
  const db = w.t.services.db;
  const channel = await insertChannel(db, w.a.accountId);
  const location = await insertLocation(db, w.a.accountId);
  await insertVariants(db, w.a.accountId, [marker], [channel.id]);
  const res = await w.t.app.inject({
    method: 'POST',
    url: '/api/v1/buffers',
    headers: w.a.headers,
    payload: { sku: marker, location_external_id: location.storeId, channel_id: channel.id, qty: 4 },
  });
  expect(res.statusCode).toBe(201);
  return { buffer: res.json<Buffer>(), channelId: channel.id, marker };
}

const create = async (w: World) => {
  const { buffer, marker } = await createBufferOfA(w);
  return { id: String(buffer.id), marker };
};

async function bufferIntact(w: World, id: string, marker: string) {
  const res = await w.t.app.inject({ url: `/api/v1/buffers/${id}`, headers: w.a.headers });
  expect(res.statusCode).toBe(200);
  expect(res.json<Buffer>()).toMatchObject({ sku: marker, qty: 4 });
}

const restOperations = (['v1', 'v2'] as const).flatMap((v): IdTakingOperation[] =>
  (['headers', 'apiKeyHeaders'] as const).flatMap((auth): IdTakingOperation[] => {
    const as = auth === 'apiKeyHeaders' ? ' with an API key' : '';
    return [
      {
        name: `GET /api/${v}/buffers/{id}${as}`,
        create,
        attempt: (w, id) => rest(w, w.b[auth], { method: 'GET', url: `/api/${v}/buffers/${id}` }),
      },
      {
        name: `PATCH /api/${v}/buffers/{id}${as}`,
        create,
        attempt: (w, id) =>
          rest(w, w.b[auth], { method: 'PATCH', url: `/api/${v}/buffers/${id}`, payload: { qty: 99 } }),
        intact: bufferIntact,
      },
      {
        name: `DELETE /api/${v}/buffers/{id}${as}`,
        create,
        attempt: (w, id) => rest(w, w.b[auth], { method: 'DELETE', url: `/api/${v}/buffers/${id}` }),
        intact: bufferIntact,
      },
    ];
  }),
);

const B_STORE = 'B-STORE';
const B_SKU = 'B-SKU';

/** B names A's channel in a buffer of B's own (B has the location and SKU): the channel is not found. */
const withChannelOfA = async (w: World) => {
  const { channelId, marker } = await createBufferOfA(w);
  const db = w.t.services.db;
  const [bLocation] = await db
    .select()
    .from(locations)
    .where(and(eq(locations.accountId, w.b.accountId), eq(locations.storeId, B_STORE)));
  if (!bLocation) {
    await insertLocation(db, w.b.accountId, B_STORE);
    await insertVariants(db, w.b.accountId, [B_SKU]);
  }
  return { id: channelId, marker };
};
/** B's own buffer (B's channel, location and SKU), for the changes that name A's channel. */
const ownBuffer = async (w: World) => (await createBufferOfA({ ...w, a: w.b, b: w.a })).buffer;

/** No buffer of B's was moved to A's channel. */
async function noneOfBOn(w: World, channelId: string) {
  const moved = await w.t.services.db
    .select()
    .from(buffers)
    .where(and(eq(buffers.accountId, w.b.accountId), eq(buffers.channelId, channelId)));
  expect(moved).toEqual([]);
}

export const bufferIdTakingOperations: IdTakingOperation[] = [
  ...restOperations,
  {
    name: 'POST /api/v1/buffers with A’s channel_id',
    create: withChannelOfA,
    attempt: (w, channelId) =>
      rest(w, w.b.apiKeyHeaders, {
        method: 'POST',
        url: '/api/v1/buffers',
        payload: { sku: B_SKU, location_external_id: B_STORE, channel_id: channelId, qty: 1 },
      }),
  },
  {
    name: 'POST /api/v2/buffers with A’s channel_id',
    create: withChannelOfA,
    attempt: (w, channelId) =>
      rest(w, w.b.apiKeyHeaders, {
        method: 'POST',
        url: '/api/v2/buffers',
        payload: { sku: B_SKU, location_external_id: B_STORE, channel_id: channelId, qty: 1 },
      }),
  },
  ...(['v1', 'v2'] as const).map(
    (v): IdTakingOperation => ({
      name: `PATCH /api/${v}/buffers/{id} of B’s buffer to A’s channel_id`,
      create: withChannelOfA,
      attempt: async (w, channelId) =>
        rest(w, w.b.apiKeyHeaders, {
          method: 'PATCH',
          url: `/api/${v}/buffers/${(await ownBuffer(w)).id}`,
          payload: { channel_id: channelId },
        }),
      intact: (w, channelId) => noneOfBOn(w, channelId),
    }),
  ),
  {
    name: 'buffers.get',
    create,
    attempt: (w, id) => trpc(w, w.b.headers, 'query', 'buffers.get', { id: Number(id) }),
  },
  {
    name: 'buffers.update',
    create,
    attempt: (w, id) => trpc(w, w.b.headers, 'mutation', 'buffers.update', { id: Number(id), qty: 99 }),
    intact: bufferIntact,
  },
  {
    name: 'buffers.delete',
    create,
    attempt: (w, id) => trpc(w, w.b.headers, 'mutation', 'buffers.delete', { id: Number(id) }),
    intact: bufferIntact,
  },
  {
    name: 'buffers.update of B’s buffer to A’s channel_id',
    create: withChannelOfA,
    attempt: async (w, channelId) =>
      trpc(w, w.b.headers, 'mutation', 'buffers.update', { id: (await ownBuffer(w)).id, channel_id: channelId }),
    intact: (w, channelId) => noneOfBOn(w, channelId),
  },
  {
    name: 'buffers.create with A’s channel_id',
    create: withChannelOfA,
    attempt: (w, channelId) =>
      trpc(w, w.b.headers, 'mutation', 'buffers.create', {
        sku: B_SKU,
        location_external_id: B_STORE,
        channel_id: channelId,
        qty: 1,
      }),
  },
];

export const bufferOwnRowOperations: OwnRowOperation[] = [
  {
    name: 'buffers.list and GET buffers show only B’s buffers, even filtered by A’s channel',
    async run(w) {
      const { buffer, channelId, marker } = await createBufferOfA(w);
      const list = await trpcOver(w.t.app, w.b.headers).query<BufferList>('buffers.list', { limit: 200 });
      expect(list.status).toBe(200);
      expect(JSON.stringify(list.data)).not.toContain(marker);
      for (const v of ['v1', 'v2']) {
        const res = await w.t.app.inject({
          url: `/api/${v}/buffers?channel_id=${channelId}&search=${marker}`,
          headers: w.b.apiKeyHeaders,
        });
        expect(res.statusCode).toBe(200);
        expect(res.json<BufferList>()).toEqual({ results: [], total: 0 });
      }
      await bufferIntact(w, String(buffer.id), marker);
    },
  },
  {
    name: 'buffers.list filtered by A’s channel_id finds nothing',
    async run(w) {
      const { buffer, channelId, marker } = await createBufferOfA(w);
      const list = await trpcOver(w.t.app, w.b.headers).query<BufferList>('buffers.list', { channel_id: channelId });
      expect(list.status).toBe(200);
      expect(list.data).toEqual({ results: [], total: 0 });
      await bufferIntact(w, String(buffer.id), marker);
    },
  },
  {
    name: 'buffers.skus suggests only B’s catalog',
    async run(w) {
      const { marker } = await createBufferOfA(w);
      const res = await trpcOver(w.t.app, w.b.headers).query<BufferSkuSuggestion[]>('buffers.skus', {
        search: marker,
        limit: 50,
      });
      expect(res.status).toBe(200);
      expect(res.data).toEqual([]);
    },
  },
];
