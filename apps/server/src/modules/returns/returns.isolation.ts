// The returns module's entries of the tenant-isolation harness (test/isolation.ts). Test code only.
import { randomBytes } from 'node:crypto';
import { RETURN_MESSAGES, type Return, type ReturnList } from '@switchyard/contracts';
import { eq } from 'drizzle-orm';
import { expect } from 'vitest';
import type { IdTakingOperation, OwnRowOperation, World } from '../../../test/isolation.ts';
import { trpc } from '../../../test/isolation.ts';
import { trpcOver } from '../../../test/trpc.ts';
import { newId } from '../../lib/ids.ts';
import { insertChannel } from '../buffers/buffers.fixtures.ts';
import { locations } from '../locations/locations.tables.ts';
import { orderLines, orders } from '../orders/orders.tables.ts';
import { returnItems, returns } from './returns.tables.ts';

/** A shipped order of A's with one line (no channel needed); its number is the marker. */
async function shippedOrderOfA(w: World) {
  const marker = `#RA-${randomBytes(5).toString('hex')}`;
  const id = newId('ord');
  const now = new Date();
  await w.t.services.db.insert(orders).values({
    id,
    accountId: w.a.accountId,
    externalId: `ext-${marker}`,
    number: marker,
    status: 3,
    currency: 'USD',
    total: 5000,
    searchText: marker.toLowerCase(),
    placedAt: now,
    providerUpdatedAt: now,
  });
  const lineId = newId('oli');
  await w.t.services.db.insert(orderLines).values({
    id: lineId,
    accountId: w.a.accountId,
    orderId: id,
    position: 0,
    externalId: 'l1',
    sku: `SKU-${marker}`,
    title: 'Tee',
    quantity: 2,
    unitPrice: 2500,
    fulfilledQty: 2,
  });
  return { id, marker, lineId };
}

/** A return of A's in ERROR (so retry would act on it), on a shipped order; its external id is the marker. */
async function returnOfA(w: World) {
  const order = await shippedOrderOfA(w);
  const id = newId('ret');
  const marker = `refund-${randomBytes(5).toString('hex')}`;
  await w.t.services.db.insert(returns).values({
    id,
    accountId: w.a.accountId,
    externalId: marker,
    orderExternalId: `ext-${order.marker}`,
    orderId: order.id,
    status: 'ERROR',
    message: 'SKU is not in your catalog.',
    total: 2500,
    billName: marker,
  });
  await w.t.services.db.insert(returnItems).values({
    id: newId('rti'),
    accountId: w.a.accountId,
    returnId: id,
    position: 0,
    orderLineId: order.lineId,
    sku: `SKU-${order.marker}`,
    qty: 1,
    total: 2500,
  });
  return { id, marker };
}

async function returnIntact(w: World, id: string, marker: string) {
  const res = await trpcOver(w.t.app, w.a.headers).query<Return>('returns.get', { id });
  expect(res.status).toBe(200);
  expect(res.data).toMatchObject({ external_id: marker, status: 'ERROR', bill_name: marker });
}

async function orderUntouched(w: World, id: string) {
  const [row] = await w.t.services.db.select().from(orders).where(eq(orders.id, id));
  expect(row?.status).toBe(3);
  const lines = await w.t.services.db.select().from(orderLines).where(eq(orderLines.orderId, id));
  expect(lines.map((l) => l.refundedQty)).toEqual([0]);
  expect(await w.t.services.db.select().from(returns).where(eq(returns.orderId, id))).toEqual([]);
}

export const returnIdTakingOperations: IdTakingOperation[] = [
  {
    name: 'returns.get',
    create: returnOfA,
    attempt: (w, id) => trpc(w, w.b.headers, 'query', 'returns.get', { id }),
  },
  {
    name: 'returns.retry',
    create: returnOfA,
    attempt: (w, id) => trpc(w, w.b.headers, 'mutation', 'returns.retry', { id }),
    intact: returnIntact,
  },
  {
    name: 'returns.forOrder with A’s order',
    create: shippedOrderOfA,
    attempt: (w, id) => trpc(w, w.b.headers, 'query', 'returns.forOrder', { order_id: id }),
  },
  {
    name: 'returns.create from A’s order',
    create: shippedOrderOfA,
    attempt: async (w, id) => {
      // B names its own location: only the order is A's.
      const locationId = newId('loc');
      await w.t.services.db
        .insert(locations)
        .values({ id: locationId, accountId: w.b.accountId, name: 'B store', storeId: `B-${locationId}` });
      const [line] = await w.t.services.db.select().from(orderLines).where(eq(orderLines.orderId, id));
      return trpc(w, w.b.headers, 'mutation', 'returns.create', {
        order_id: id,
        location_id: locationId,
        lines: [{ line_id: line?.id, qty: 1 }],
      });
    },
    intact: (w, id) => orderUntouched(w, id),
  },
];

export const returnOwnRowOperations: OwnRowOperation[] = [
  {
    name: 'returns.create to A’s location as the return store answers as a store that does not exist',
    async run(w) {
      const marker = `Store ${randomBytes(5).toString('hex')}`;
      const locationOfA = newId('loc');
      await w.t.services.db
        .insert(locations)
        .values({ id: locationOfA, accountId: w.a.accountId, name: marker, storeId: marker });
      // B's own shipped order: only the return store is A's.
      const own = await shippedOrderOfA({ ...w, a: w.b, b: w.a });
      const attempt = (locationId: string) =>
        trpcOver(w.t.app, w.b.headers).mutation<Return>('returns.create', {
          order_id: own.id,
          location_id: locationId,
          lines: [{ line_id: own.lineId, qty: 1 }],
        });
      const res = await attempt(locationOfA);
      const unknown = await attempt(newId('loc'));
      expect(unknown.error?.message).toBe(RETURN_MESSAGES.storeNotFound);
      expect(res.status, JSON.stringify(res)).toBe(unknown.status);
      expect(res.error?.message).toBe(unknown.error?.message);
      expect(JSON.stringify(res)).not.toContain(marker);
      await orderUntouched(w, own.id);
    },
  },
  {
    name: 'returns.create of B’s order naming A’s line answers as a line not in the order',
    async run(w) {
      const theirs = await shippedOrderOfA(w);
      // B's own shipped order and return store: only the line is A's.
      const own = await shippedOrderOfA({ ...w, a: w.b, b: w.a });
      const locationId = newId('loc');
      await w.t.services.db
        .insert(locations)
        .values({ id: locationId, accountId: w.b.accountId, name: 'B store', storeId: `B-${locationId}` });
      const attempt = (lineId: string) =>
        trpcOver(w.t.app, w.b.headers).mutation<Return>('returns.create', {
          order_id: own.id,
          location_id: locationId,
          lines: [{ line_id: lineId, qty: 1 }],
        });
      const res = await attempt(theirs.lineId);
      const unknown = await attempt(newId('oli'));
      expect(unknown.error?.message).toBe(RETURN_MESSAGES.lineNotInOrder);
      expect(res.status, JSON.stringify(res)).toBe(unknown.status);
      expect(res.error?.message).toBe(unknown.error?.message);
      expect(JSON.stringify(res)).not.toContain(theirs.marker);
      await orderUntouched(w, theirs.id);
      await orderUntouched(w, own.id);
    },
  },
  {
    name: 'returns.list and v2 GET returns filtered by A’s channel_id find nothing',
    async run(w) {
      const channel = await insertChannel(w.t.services.db, w.a.accountId);
      const { id, marker } = await returnOfA(w);
      await w.t.services.db.update(returns).set({ channelId: channel.id }).where(eq(returns.id, id));
      const list = await trpcOver(w.t.app, w.b.headers).query<ReturnList>('returns.list', { channel_id: channel.id });
      expect(list.status).toBe(200);
      expect(list.data).toMatchObject({ results: [], total: 0 });
      const res = await w.t.app.inject({ url: `/api/v2/returns?channel_id=${channel.id}`, headers: w.b.apiKeyHeaders });
      expect(res.statusCode).toBe(200);
      expect(res.body).not.toContain(marker);
      expect(JSON.parse(res.body)).toMatchObject({ results: [], total: 0 });
    },
  },
  {
    name: 'returns.list and v2 GET returns show only B’s returns, even searched by A’s return id',
    async run(w) {
      const { marker } = await returnOfA(w);
      const list = await trpcOver(w.t.app, w.b.headers).query<ReturnList>('returns.list', { external_id: marker });
      expect(list.data).toMatchObject({ results: [], total: 0 });
      const all = await trpcOver(w.t.app, w.b.headers).query<ReturnList>('returns.list', {});
      expect(JSON.stringify(all.data)).not.toContain(marker);
      const res = await w.t.app.inject({
        url: `/api/v2/returns?external_id=${encodeURIComponent(marker)}`,
        headers: w.b.apiKeyHeaders,
      });
      expect(res.statusCode).toBe(200);
      expect(res.body).not.toContain(marker);
      expect(JSON.parse(res.body)).toMatchObject({ results: [], total: 0 });
    },
  },
];
