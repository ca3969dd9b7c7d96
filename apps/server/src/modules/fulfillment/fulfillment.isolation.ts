// The fulfillment module's entries of the tenant-isolation harness (test/isolation.ts). Test code only.
import { randomBytes } from 'node:crypto';
import type { FulfillmentList, PickingList } from '@switchyard/contracts';
import { and, eq } from 'drizzle-orm';
import { expect } from 'vitest';
import type { IdTakingOperation, OwnRowOperation, World } from '../../../test/isolation.ts';
import { rest, trpc } from '../../../test/isolation.ts';
import { trpcOver } from '../../../test/trpc.ts';
import { newId } from '../../lib/ids.ts';
import { accountSettings } from '../accounts/accounts.tables.ts';
import { locations } from '../locations/locations.tables.ts';
import { orderAllocations, orderLines, orders } from '../orders/orders.tables.ts';

/** A pickup order of A's with a line allocated (1) at a store of A's: every verb would move it. */
async function createPickupOfA(w: World) {
  const marker = `#F-${randomBytes(5).toString('hex')}`;
  const db = w.t.services.db;
  const locationId = newId('loc');
  const storeId = `ST-${randomBytes(4).toString('hex')}`;
  await db.insert(locations).values({ id: locationId, accountId: w.a.accountId, name: `Store ${marker}`, storeId });
  const id = newId('ord');
  const now = new Date();
  await db.insert(orders).values({
    id,
    accountId: w.a.accountId,
    externalId: `ext-${marker}`,
    number: marker,
    status: 1,
    fulfillmentType: 'pickup',
    pickupLocationId: locationId,
    currency: 'USD',
    total: 1234,
    customerEmail: 'a@example.com',
    searchText: marker.toLowerCase(),
    placedAt: now,
    providerUpdatedAt: now,
  });
  const lineId = newId('oli');
  await db.insert(orderLines).values({
    id: lineId,
    accountId: w.a.accountId,
    orderId: id,
    position: 0,
    externalId: 'l1',
    sku: `SKU-${marker}`,
    title: 'Tee',
    quantity: 1,
  });
  const allocationId = newId('oal');
  await db.insert(orderAllocations).values({
    id: allocationId,
    accountId: w.a.accountId,
    orderId: id,
    lineId,
    locationId,
    quantity: 1,
    status: 1,
  });
  return { id, marker, storeId, allocationId };
}

async function stillOpen(w: World, id: string) {
  const [row] = await w.t.services.db.select().from(orders).where(eq(orders.id, id));
  expect(row?.status).toBe(1);
  const allocations = await w.t.services.db.select().from(orderAllocations).where(eq(orderAllocations.orderId, id));
  expect(allocations.map((a) => a.status)).toEqual([1]);
}

const byStore = async (w: World) => {
  const { storeId, marker } = await createPickupOfA(w);
  return { id: storeId, marker };
};

export const fulfillmentIdTakingOperations: IdTakingOperation[] = [
  {
    name: 'fulfillment.get',
    create: createPickupOfA,
    attempt: (w, id) => trpc(w, w.b.headers, 'query', 'fulfillment.get', { id }),
  },
  {
    name: 'fulfillment.scan',
    create: createPickupOfA,
    attempt: (w, id) => trpc(w, w.b.headers, 'mutation', 'fulfillment.scan', { id, code: 'SKU' }),
    intact: stillOpen,
  },
  {
    name: 'fulfillment.pack',
    create: createPickupOfA,
    attempt: (w, id) => trpc(w, w.b.headers, 'mutation', 'fulfillment.pack', { id }),
    intact: stillOpen,
  },
  {
    name: 'fulfillment.reject',
    create: createPickupOfA,
    attempt: (w, id) =>
      trpc(w, w.b.headers, 'mutation', 'fulfillment.reject', { id, allocation_id: 'oal_x', reason: 'hijacked' }),
    intact: stillOpen,
  },
  {
    name: 'fulfillment.reject of B’s order with A’s allocation_id',
    create: async (w) => {
      const { id, marker, allocationId } = await createPickupOfA(w);
      return { id: allocationId, marker: `${marker}|${id}` };
    },
    attempt: async (w, allocationId) => {
      const own = await createPickupOfA({ ...w, a: w.b, b: w.a });
      return trpc(w, w.b.headers, 'mutation', 'fulfillment.reject', {
        id: own.id,
        allocation_id: allocationId,
        reason: 'hijacked',
      });
    },
    intact: (w, _id, marker) => stillOpen(w, marker.split('|')[1] as string),
  },
  {
    name: 'fulfillment.readyForPickup',
    create: createPickupOfA,
    attempt: (w, id) => trpc(w, w.b.headers, 'mutation', 'fulfillment.readyForPickup', { id }),
    intact: stillOpen,
  },
  {
    name: 'fulfillment.pickedUp',
    create: createPickupOfA,
    attempt: (w, id) => trpc(w, w.b.headers, 'mutation', 'fulfillment.pickedUp', { id }),
    intact: stillOpen,
  },
  ...(['ready-for-pickup', 'picked-up'] as const).flatMap((verb) =>
    (['headers', 'apiKeyHeaders'] as const).map(
      (auth): IdTakingOperation => ({
        name: `POST /api/v2/orders/{id}/fulfillments/${verb}${auth === 'apiKeyHeaders' ? ' with an API key' : ''}`,
        create: createPickupOfA,
        attempt: (w, id) => rest(w, w.b[auth], { method: 'POST', url: `/api/v2/orders/${id}/fulfillments/${verb}` }),
        intact: stillOpen,
      }),
    ),
  ),
  {
    name: 'fulfillment.list with A’s store_id',
    create: byStore,
    attempt: (w, id) => trpc(w, w.b.headers, 'query', 'fulfillment.list', { filter: { store_id: id } }),
  },
  {
    name: 'fulfillment.count with A’s store_id',
    create: byStore,
    attempt: (w, id) => trpc(w, w.b.headers, 'query', 'fulfillment.count', { filter: { store_id: id } }),
  },
  {
    name: 'fulfillment.pickingList with A’s store_id',
    create: byStore,
    attempt: (w, id) => trpc(w, w.b.headers, 'query', 'fulfillment.pickingList', { store_id: id }),
  },
  {
    name: 'GET /api/v2/fulfillment with A’s store_id (API key)',
    create: byStore,
    attempt: (w, id) => rest(w, w.b.apiKeyHeaders, { method: 'GET', url: `/api/v2/fulfillment?store_id=${id}` }),
  },
  {
    name: 'GET /api/v2/fulfillment/count with A’s store_id',
    create: byStore,
    attempt: (w, id) => rest(w, w.b.headers, { method: 'GET', url: `/api/v2/fulfillment/count?store_id=${id}` }),
  },
  {
    name: 'fulfillment.setShippingLocation with A’s store_id',
    create: byStore,
    attempt: (w, id) => trpc(w, w.b.headers, 'mutation', 'fulfillment.setShippingLocation', { store_id: id }),
    // B stored nothing that names A's store.
    async intact(w, id) {
      const rows = await w.t.services.db
        .select({ value: accountSettings.value })
        .from(accountSettings)
        .where(and(eq(accountSettings.accountId, w.b.accountId), eq(accountSettings.key, 'shipping_location')));
      expect(JSON.stringify(rows)).not.toContain(id);
    },
  },
  {
    name: 'GET /api/frontend/fulfillment/picking-list.pdf with A’s store_id',
    create: byStore,
    attempt: (w, id) =>
      rest(w, w.b.headers, { method: 'GET', url: `/api/frontend/fulfillment/picking-list.pdf?store_id=${id}` }),
  },
];

export const fulfillmentOwnRowOperations: OwnRowOperation[] = [
  {
    name: 'fulfillment.list and pickingList by A’s order ids show nothing of A’s',
    async run(w) {
      const { id, marker } = await createPickupOfA(w);
      const api = trpcOver(w.t.app, w.b.headers);
      const list = await api.query<FulfillmentList>('fulfillment.list', { filter: { scope: '', order_ids: id } });
      expect(list.data?.results ?? []).toEqual([]);
      const picking = await api.query<PickingList>('fulfillment.pickingList', { order_ids: id });
      expect(JSON.stringify(picking)).not.toContain(marker);
      const res = await w.t.app.inject({
        url: `/api/v2/fulfillment?scope=&order_ids=${id}`,
        headers: w.b.apiKeyHeaders,
      });
      expect(res.body).not.toContain(marker);
    },
  },
];
