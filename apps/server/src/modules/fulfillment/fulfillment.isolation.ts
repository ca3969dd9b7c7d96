// The fulfillment module's entries of the tenant-isolation harness (test/isolation.ts). Test code only.
import { randomBytes } from 'node:crypto';
import { inflateSync } from 'node:zlib';
import {
  FULFILLMENT_MESSAGES,
  type FulfillmentCounts,
  type FulfillmentList,
  type PickingList,
} from '@switchyard/contracts';
import { and, eq } from 'drizzle-orm';
import { expect } from 'vitest';
import type { IdTakingOperation, OwnRowOperation, World } from '../../../test/isolation.ts';
import { rest, trpc } from '../../../test/isolation.ts';
import { trpcOver } from '../../../test/trpc.ts';
import { newId } from '../../lib/ids.ts';
import { accountSettings } from '../accounts/accounts.tables.ts';
import { insertVariants } from '../buffers/buffers.fixtures.ts';
import { locations } from '../locations/locations.tables.ts';
import { orderAllocations, orderLines, orders } from '../orders/orders.tables.ts';
import { fulfillmentSteps } from './fulfillment.tables.ts';

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

/**
 * B's own pickup order at B's own store, its line a variant of B's catalog (so a rejection could route it
 * again), for the calls that name A's store on it.
 */
async function ownPickup(w: World) {
  const own = await createPickupOfA({ ...w, a: w.b, b: w.a });
  const [variant] = await insertVariants(w.t.services.db, w.b.accountId, [`SKU-${own.marker}`]);
  await w.t.services.db
    .update(orderAllocations)
    .set({ variantId: variant?.id })
    .where(eq(orderAllocations.id, own.allocationId));
  return own;
}

/** Nothing moved at A's store: its allocation is still allocated (1), nothing scanned or packed there. */
async function storeUntouched(w: World, storeId: string) {
  const db = w.t.services.db;
  const [location] = await db
    .select()
    .from(locations)
    .where(and(eq(locations.accountId, w.a.accountId), eq(locations.storeId, storeId)));
  const allocations = await db
    .select()
    .from(orderAllocations)
    .where(eq(orderAllocations.locationId, location?.id ?? ''));
  expect(allocations.map((a) => a.status)).toEqual([1]);
  const steps = await db
    .select()
    .from(fulfillmentSteps)
    .where(eq(fulfillmentSteps.allocationId, allocations[0]?.id ?? ''));
  expect(steps).toEqual([]);
}

/**
 * A pickup order of A's allocated at a store of B's: a row no flow of ours makes, so that only the account
 * filter keeps it out of B's queue counts and picking list. Answers B's store id beside A's order.
 */
async function pickupOfAAtStoreOfB(w: World) {
  const db = w.t.services.db;
  const theirs = await createPickupOfA(w);
  const locationId = newId('loc');
  const storeOfB = `ST-${randomBytes(4).toString('hex')}`;
  await db.insert(locations).values({ id: locationId, accountId: w.b.accountId, name: 'B store', storeId: storeOfB });
  await db.update(orderAllocations).set({ locationId }).where(eq(orderAllocations.id, theirs.allocationId));
  return { ...theirs, storeOfB };
}

/** The text a pdfkit PDF shows (its standard fonts write each line as hex strings in a TJ array). */
function pdfText(pdf: Buffer): string {
  const lines: string[] = [];
  for (const [, stream] of pdf.toString('latin1').matchAll(/stream\r?\n([\s\S]*?)\r?\nendstream/g)) {
    let content: string;
    try {
      content = inflateSync(Buffer.from(stream ?? '', 'latin1')).toString('latin1');
    } catch {
      continue; // not a compressed content stream (a font, an image)
    }
    for (const [, array] of content.matchAll(/\[([^\]]*)\]\s*TJ/g)) {
      const parts = [...(array ?? '').matchAll(/<([0-9a-f]*)>/gi)];
      lines.push(parts.map(([, hex]) => Buffer.from(hex ?? '', 'hex').toString('latin1')).join(''));
    }
  }
  return lines.join('\n');
}

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
  ...(['get', 'scan', 'pack'] as const).map(
    (verb): IdTakingOperation => ({
      name: `fulfillment.${verb} of B’s order with A’s store_id`,
      create: byStore,
      attempt: async (w, storeId) => {
        const own = await ownPickup(w);
        return trpc(w, w.b.headers, verb === 'get' ? 'query' : 'mutation', `fulfillment.${verb}`, {
          id: own.id,
          store_id: storeId,
          ...(verb === 'scan' ? { code: `SKU-${own.marker}` } : {}),
        });
      },
      intact: (w, storeId) => storeUntouched(w, storeId),
    }),
  ),
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
  {
    // An own-row entry, not an id-taking one: B's own line with A's store. The store is resolved before anything
    // changes, so B's line stays allocated where it was.
    name: 'fulfillment.reject of B’s line with A’s store_id answers as a store that does not exist',
    async run(w) {
      const theirs = await byStore(w);
      const attempt = async (storeId: string) => {
        const own = await ownPickup(w);
        const answer = await trpcOver(w.t.app, w.b.headers).mutation('fulfillment.reject', {
          id: own.id,
          store_id: storeId,
          allocation_id: own.allocationId,
          reason: 'not here',
        });
        const [line] = await w.t.services.db
          .select({ status: orderAllocations.status })
          .from(orderAllocations)
          .where(eq(orderAllocations.id, own.allocationId));
        expect(line?.status).toBe(1);
        return answer;
      };
      const res = await attempt(theirs.id);
      const unknown = await attempt(`ST-${randomBytes(4).toString('hex')}`);
      expect(unknown.status).toBe(404);
      expect(res.status, JSON.stringify(res)).toBe(unknown.status);
      expect(res.error?.message).toBe(FULFILLMENT_MESSAGES.storeNotFound(theirs.id));
      expect(JSON.stringify(res)).not.toContain(theirs.marker);
      await storeUntouched(w, theirs.id);
    },
  },
  {
    name: 'fulfillment.count and GET /api/v2/fulfillment/count by A’s order id count nothing',
    async run(w) {
      const theirs = await pickupOfAAtStoreOfB(w);
      const filter = { store_id: theirs.storeOfB, order_ids: `${newId('ord')},${theirs.id}` };
      const zero = { toShip: 0, pickup: 0, shipped: 0, cancelled: 0, flagged: 0, all: 0 };
      const count = await trpcOver(w.t.app, w.b.headers).query<FulfillmentCounts>('fulfillment.count', { filter });
      expect(count.status).toBe(200);
      expect(count.data?.counts).toEqual(zero);
      for (const headers of [w.b.headers, w.b.apiKeyHeaders]) {
        const res = await w.t.app.inject({
          url: `/api/v2/fulfillment/count?store_id=${filter.store_id}&order_ids=${filter.order_ids}`,
          headers,
        });
        expect(res.statusCode).toBe(200);
        expect(res.json<FulfillmentCounts>().counts).toEqual(zero);
      }
      await stillOpen(w, theirs.id);
    },
  },
  {
    name: 'GET /api/frontend/fulfillment/picking-list.pdf by A’s order id lists nothing',
    async run(w) {
      const theirs = await pickupOfAAtStoreOfB(w);
      const res = await w.t.app.inject({
        url: `/api/frontend/fulfillment/picking-list.pdf?store_id=${theirs.storeOfB}&order_ids=${newId('ord')},${theirs.id}`,
        headers: w.b.headers,
      });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('application/pdf');
      const text = pdfText(res.rawPayload);
      expect(text).toContain('0 orders · 0 units');
      expect(text).toContain('Nothing to pick.');
      expect(text).not.toContain(theirs.marker);
      await stillOpen(w, theirs.id);
    },
  },
];
