// The orders module's entries of the tenant-isolation harness (test/isolation.ts). Test code only.
import { randomBytes } from 'node:crypto';
import type { OrderDetail, OrderList } from '@switchyard/contracts';
import { eq } from 'drizzle-orm';
import { expect } from 'vitest';
import type { IdTakingOperation, OwnRowOperation, World } from '../../../test/isolation.ts';
import { rest, trpc } from '../../../test/isolation.ts';
import { trpcOver } from '../../../test/trpc.ts';
import { newId } from '../../lib/ids.ts';
import { insertChannel } from '../buffers/buffers.fixtures.ts';
import { orderLines, orders } from './orders.tables.ts';

/** An order of A's (no channel needed); its number is the marker. */
async function createOrderOfA(w: World) {
  const marker = `#A-${randomBytes(5).toString('hex')}`;
  const id = newId('ord');
  const now = new Date();
  await w.t.services.db.insert(orders).values({
    id,
    accountId: w.a.accountId,
    externalId: `ext-${marker}`,
    number: marker,
    status: 1,
    currency: 'USD',
    total: 1234,
    note: marker,
    searchText: marker.toLowerCase(),
    placedAt: now,
    providerUpdatedAt: now,
  });
  await w.t.services.db.insert(orderLines).values({
    id: newId('oli'),
    accountId: w.a.accountId,
    orderId: id,
    position: 0,
    externalId: 'l1',
    sku: `SKU-${marker}`,
    title: 'Tee',
    quantity: 1,
  });
  return { id, marker };
}

async function orderIntact(w: World, id: string, marker: string) {
  const res = await trpcOver(w.t.app, w.a.headers).query<OrderDetail>('orders.get', { id });
  expect(res.status).toBe(200);
  expect(res.data).toMatchObject({ number: marker, note: marker, status: 1 });
  expect(res.data?.timeline).toEqual([]);
}

const reads = (['frontend', 'v1', 'v2'] as const).flatMap((v): IdTakingOperation[] =>
  (v === 'frontend' ? (['headers'] as const) : (['headers', 'apiKeyHeaders'] as const)).map((auth) => ({
    name: `GET /api/${v}/orders/{id}${auth === 'apiKeyHeaders' ? ' with an API key' : ''}`,
    create: createOrderOfA,
    attempt: (w: World, id: string) => rest(w, w.b[auth], { method: 'GET', url: `/api/${v}/orders/${id}` }),
  })),
);

export const orderIdTakingOperations: IdTakingOperation[] = [
  ...reads,
  {
    name: 'POST /api/frontend/orders/{id}',
    create: createOrderOfA,
    attempt: (w, id) =>
      rest(w, w.b.headers, { method: 'POST', url: `/api/frontend/orders/${id}`, payload: { note: 'hijacked' } }),
    intact: orderIntact,
  },
  {
    name: 'PUT /api/frontend/orders/{id}/status',
    create: createOrderOfA,
    attempt: (w, id) =>
      rest(w, w.b.headers, { method: 'PUT', url: `/api/frontend/orders/${id}/status`, payload: { status: 6 } }),
    intact: orderIntact,
  },
  {
    name: 'GET /api/frontend/comment/{id}',
    create: createOrderOfA,
    attempt: (w, id) => rest(w, w.b.headers, { method: 'GET', url: `/api/frontend/comment/${id}` }),
  },
  {
    name: 'POST /api/frontend/comment/add with A’s order',
    create: createOrderOfA,
    attempt: (w, id) =>
      rest(w, w.b.headers, {
        method: 'POST',
        url: '/api/frontend/comment/add',
        payload: { entity_id: id, type: 'order', text: 'hello' },
      }),
    intact: orderIntact,
  },
  {
    name: 'POST /api/frontend/comment/list with A’s order',
    create: createOrderOfA,
    attempt: (w, id) =>
      rest(w, w.b.headers, { method: 'POST', url: '/api/frontend/comment/list', payload: { entity_id: id } }),
  },
  {
    name: 'orders.get',
    create: createOrderOfA,
    attempt: (w, id) => trpc(w, w.b.headers, 'query', 'orders.get', { id }),
  },
  {
    name: 'orders.update',
    create: createOrderOfA,
    attempt: (w, id) => trpc(w, w.b.headers, 'mutation', 'orders.update', { id, note: 'hijacked' }),
    intact: orderIntact,
  },
  {
    name: 'orders.setStatus',
    create: createOrderOfA,
    attempt: (w, id) => trpc(w, w.b.headers, 'mutation', 'orders.setStatus', { id, status: 6 }),
    intact: orderIntact,
  },
  {
    name: 'orders.cancel',
    create: createOrderOfA,
    attempt: (w, id) => trpc(w, w.b.headers, 'mutation', 'orders.cancel', { id }),
    intact: orderIntact,
  },
  {
    name: 'comments.add with A’s order',
    create: createOrderOfA,
    attempt: (w, id) =>
      trpc(w, w.b.headers, 'mutation', 'comments.add', { entity_id: id, type: 'order', text: 'hello' }),
    intact: orderIntact,
  },
  {
    name: 'orders.importNow with A’s channel',
    create: async (w) => {
      const channel = await insertChannel(w.t.services.db, w.a.accountId);
      return { id: channel.id, marker: channel.name };
    },
    attempt: (w, channelId) => trpc(w, w.b.headers, 'mutation', 'orders.importNow', { channelId }),
  },
  {
    name: 'comments.list with A’s order',
    create: createOrderOfA,
    attempt: (w, id) => trpc(w, w.b.headers, 'query', 'comments.list', { entity_id: id }),
  },
];

export const orderOwnRowOperations: OwnRowOperation[] = [
  {
    name: 'orders.list and GET orders filtered by A’s channel_id show nothing of A’s',
    async run(w) {
      const channel = await insertChannel(w.t.services.db, w.a.accountId);
      const { id, marker } = await createOrderOfA(w);
      await w.t.services.db.update(orders).set({ channelId: channel.id }).where(eq(orders.id, id));
      const list = await trpcOver(w.t.app, w.b.headers).query<OrderList>('orders.list', {
        status: -1,
        channel_id: channel.id,
      });
      expect(list.status).toBe(200);
      expect(JSON.stringify(list.data)).not.toContain(marker);
      for (const v of ['frontend', 'v1', 'v2']) {
        const res = await w.t.app.inject({
          url: `/api/${v}/orders?status=-1&channel_id=${channel.id}`,
          headers: v === 'frontend' ? w.b.headers : w.b.apiKeyHeaders,
        });
        expect(res.statusCode).toBe(200);
        expect(res.body).not.toContain(marker);
        expect(res.body).not.toContain(channel.name);
      }
    },
  },
  {
    name: 'GET orders/count filtered by A’s channel_id counts nothing',
    async run(w) {
      const channel = await insertChannel(w.t.services.db, w.a.accountId);
      const { id } = await createOrderOfA(w);
      await w.t.services.db.update(orders).set({ channelId: channel.id, flagged: true }).where(eq(orders.id, id));
      for (const v of ['frontend', 'v1', 'v2']) {
        const res = await w.t.app.inject({
          url: `/api/${v}/orders/count?channel_id=${channel.id}`,
          headers: v === 'frontend' ? w.b.headers : w.b.apiKeyHeaders,
        });
        expect(res.statusCode, v).toBe(200);
        expect(res.json(), v).toEqual({ total: 0, byStatus: {}, flagged: 0 });
      }
    },
  },
  {
    name: 'orders.count filtered by A’s channel_id counts nothing',
    async run(w) {
      const channel = await insertChannel(w.t.services.db, w.a.accountId);
      const { id } = await createOrderOfA(w);
      await w.t.services.db.update(orders).set({ channelId: channel.id, flagged: true }).where(eq(orders.id, id));
      const res = await trpcOver(w.t.app, w.b.headers).query('orders.count', { channel_id: channel.id });
      expect(res.status).toBe(200);
      expect(res.data).toEqual({ total: 0, byStatus: {}, flagged: 0 });
    },
  },
  {
    name: 'orders.list, orders.count and GET orders show only B’s orders, even searched by A’s number',
    async run(w) {
      const api = trpcOver(w.t.app, w.b.headers);
      // B may have orders of its own (other entries of the harness make them): A's new one must not add to them.
      const before = await api.query<{ total: number }>('orders.count', { status: -1 });
      const { marker } = await createOrderOfA(w);
      const list = await api.query<OrderList>('orders.list', { status: -1, search: marker });
      expect(list.data).toMatchObject({ results: [], total: 0 });
      const count = await api.query<{ total: number }>('orders.count', { status: -1 });
      expect(count.data?.total).toBe(before.data?.total);
      for (const v of ['frontend', 'v1', 'v2']) {
        const res = await w.t.app.inject({
          url: `/api/${v}/orders?status=-1&search=${encodeURIComponent(marker)}`,
          headers: v === 'frontend' ? w.b.headers : w.b.apiKeyHeaders,
        });
        expect(res.statusCode).toBe(200);
        expect(res.body).not.toContain(marker);
      }
    },
  },
];
