// The shipments module's entries of the tenant-isolation harness (test/isolation.ts). Test code only.
import { randomBytes } from 'node:crypto';
import { SHIPMENT_MESSAGES, type ShipmentList } from '@switchyard/contracts';
import { eq } from 'drizzle-orm';
import { expect } from 'vitest';
import type { IdTakingOperation, OwnRowOperation, World } from '../../../test/isolation.ts';
import { rest, trpc } from '../../../test/isolation.ts';
import { trpcOver } from '../../../test/trpc.ts';
import { newId } from '../../lib/ids.ts';
import { locations } from '../locations/locations.tables.ts';
import { orderAllocations, orders } from '../orders/orders.tables.ts';
import { allocationOfA as allocationOfOrderOfA } from '../routing/routing.isolation.ts';
import { shipmentItems, shipmentPackages, shipments } from './shipments.tables.ts';

const address = { name: 'A', street1: '1 Main St', city: 'Brooklyn', state: 'NY', zip: '11201', country: 'US' };

/** An order of A's with a bought shipment whose tracking code is the marker; the id is the shipment's. */
async function createShipmentOfA(w: World) {
  const marker = `TRK${randomBytes(6).toString('hex')}`;
  const orderId = newId('ord');
  const now = new Date();
  await w.t.services.db.insert(orders).values({
    id: orderId,
    accountId: w.a.accountId,
    externalId: `ext-${marker}`,
    number: `#${marker}`,
    status: 3,
    currency: 'USD',
    placedAt: now,
    providerUpdatedAt: now,
  });
  const id = newId('shp');
  await w.t.services.db.insert(shipments).values({
    id,
    accountId: w.a.accountId,
    orderId,
    status: 'purchased',
    fromAddress: address,
    toAddress: address,
    rates: [
      {
        key: 'USPS:Priority',
        carrier: 'USPS',
        service: 'Priority',
        amount: 900,
        currency: 'USD',
        deliveryDays: 2,
        cheapest: true,
        fastest: true,
      },
    ],
    carrier: 'USPS',
    service: 'Priority',
    trackingCode: marker,
    idempotencyKey: id,
  });
  await w.t.services.db.insert(shipmentPackages).values({
    id: newId('shpk'),
    accountId: w.a.accountId,
    shipmentId: id,
    position: 1,
    weight: 10,
    trackingCode: marker,
    labelUrl: `http://127.0.0.1:9/${marker}.pdf`,
  });
  return { id, marker };
}

/** A store of A's with an address to ship from; the id is its store id (what shipments take), the marker its name. */
async function storeOfA(w: World) {
  const marker = `Store ${randomBytes(6).toString('hex')}`;
  const storeId = `S-${randomBytes(6).toString('hex')}`;
  await w.t.services.db.insert(locations).values({
    id: newId('loc'),
    accountId: w.a.accountId,
    name: marker,
    storeId,
    address: { address1: '2 Main St', city: 'Brooklyn', province: 'NY', zip: '11201', country: 'US' },
  });
  return { id: storeId, marker };
}

/**
 * An open order of B's with a shipping address (so creating a shipment gets as far as the store) and nothing
 * allocated: were A's store found, the answer would be "nothing to ship", not "no such store".
 */
async function orderOfB(w: World) {
  const id = newId('ord');
  const now = new Date();
  await w.t.services.db.insert(orders).values({
    id,
    accountId: w.b.accountId,
    externalId: `ext-${id}`,
    number: `#B-${id}`,
    status: 1,
    currency: 'USD',
    shippingAddress: { name: 'B', address1: '1 Main St', city: 'Brooklyn', zip: '11201', country: 'US' },
    placedAt: now,
    providerUpdatedAt: now,
  });
  return id;
}

/** An open order of A's with one line allocated (1) at a store of A's; the id is the allocation's. */
async function allocationOfA(w: World) {
  const { allocationId, marker } = await allocationOfOrderOfA(w);
  return { id: allocationId, marker };
}

/** A's allocation is still allocated, and no shipment carries it. */
async function allocationIntact(w: World, id: string, marker: string) {
  const [row] = await w.t.services.db.select().from(orderAllocations).where(eq(orderAllocations.id, id));
  expect(row).toMatchObject({ accountId: w.a.accountId, status: 1, quantity: 1, reason: marker });
  expect(await w.t.services.db.select().from(shipmentItems).where(eq(shipmentItems.allocationId, id))).toEqual([]);
}

/** A shipment of B's order with these items, by the route it names: status and message. */
async function createOnOwnOrder(w: World, route: string, orderId: string, allocationId: string) {
  const input = { packages: [{ weight: 4 }], items: [{ allocation_id: allocationId }] };
  if (route === 'shipments.create') {
    const res = await trpcOver(w.t.app, w.b.headers).mutation('shipments.create', { id: orderId, ...input });
    return { status: res.status, message: res.error?.message, body: JSON.stringify(res) };
  }
  const res = await w.t.app.inject({
    method: 'POST',
    url: `/api/v2/orders/${orderId}/shipments`,
    headers: w.b.apiKeyHeaders,
    payload: input,
  });
  return { status: res.statusCode, message: res.json<{ message?: string }>().message, body: res.body };
}

const orderOf = async (w: World, shipmentId: string) =>
  (await w.t.services.db.select({ orderId: shipments.orderId }).from(shipments).where(eq(shipments.id, shipmentId)))[0]
    ?.orderId as string;

async function shipmentsIntact(w: World, id: string, marker: string) {
  const orderId = await orderOf(w, id);
  const res = await trpcOver(w.t.app, w.a.headers).query<ShipmentList>('shipments.list', { id: orderId });
  expect(res.status).toBe(200);
  expect(res.data?.results.map((s) => [s.id, s.status, s.trackingCode])).toEqual([[id, 'purchased', marker]]);
}

export const shipmentIdTakingOperations: IdTakingOperation[] = [
  ...(['headers', 'apiKeyHeaders'] as const).map(
    (auth): IdTakingOperation => ({
      name: `GET /api/v2/orders/{id}/shipments${auth === 'apiKeyHeaders' ? ' with an API key' : ''}`,
      create: createShipmentOfA,
      attempt: async (w, id) =>
        rest(w, w.b[auth], { method: 'GET', url: `/api/v2/orders/${await orderOf(w, id)}/shipments` }),
    }),
  ),
  {
    name: 'POST /api/v2/orders/{id}/shipments',
    create: createShipmentOfA,
    attempt: async (w, id) =>
      rest(w, w.b.apiKeyHeaders, {
        method: 'POST',
        url: `/api/v2/orders/${await orderOf(w, id)}/shipments`,
        payload: { packages: [{ weight: 10 }] },
      }),
    intact: shipmentsIntact,
  },
  {
    name: 'POST /api/v2/orders/{id}/shipments with A’s store_id',
    create: storeOfA,
    attempt: async (w, storeId) =>
      rest(w, w.b.apiKeyHeaders, {
        method: 'POST',
        url: `/api/v2/orders/${await orderOfB(w)}/shipments`,
        payload: { packages: [{ weight: 10 }], store_id: storeId },
      }),
  },
  {
    name: 'POST /api/v2/orders/{id}/shipments/buy',
    create: createShipmentOfA,
    attempt: async (w, id) =>
      rest(w, w.b.headers, {
        method: 'POST',
        url: `/api/v2/orders/${await orderOf(w, id)}/shipments/buy`,
        payload: { shipment_id: id, rate: 'USPS:Priority' },
      }),
    intact: shipmentsIntact,
  },
  {
    name: 'POST /api/frontend/shipping/getShippingLabel',
    create: createShipmentOfA,
    attempt: (w, id) =>
      rest(w, w.b.headers, {
        method: 'POST',
        url: '/api/frontend/shipping/getShippingLabel',
        payload: { shipment_id: id },
      }),
  },
  {
    name: 'shipments.list',
    create: createShipmentOfA,
    attempt: async (w, id) => trpc(w, w.b.headers, 'query', 'shipments.list', { id: await orderOf(w, id) }),
  },
  {
    name: 'shipments.create',
    create: createShipmentOfA,
    attempt: async (w, id) =>
      trpc(w, w.b.headers, 'mutation', 'shipments.create', { id: await orderOf(w, id), packages: [{ weight: 4 }] }),
    intact: shipmentsIntact,
  },
  {
    name: 'shipments.create with A’s store_id',
    create: storeOfA,
    attempt: async (w, storeId) =>
      trpc(w, w.b.headers, 'mutation', 'shipments.create', {
        id: await orderOfB(w),
        packages: [{ weight: 4 }],
        store_id: storeId,
      }),
  },
  {
    name: 'shipments.buy',
    create: createShipmentOfA,
    attempt: async (w, id) =>
      trpc(w, w.b.headers, 'mutation', 'shipments.buy', {
        id: await orderOf(w, id),
        shipment_id: id,
        rate: 'USPS:Priority',
      }),
    intact: shipmentsIntact,
  },
  {
    name: 'shipments.buy of A’s shipment through B’s order',
    create: createShipmentOfA,
    attempt: async (w, id) => {
      const own = await createShipmentOfA({ ...w, a: w.b, b: w.a });
      return trpc(w, w.b.headers, 'mutation', 'shipments.buy', {
        id: await orderOf(w, own.id),
        shipment_id: id,
        rate: 'USPS:Priority',
      });
    },
    intact: shipmentsIntact,
  },
  ...(['headers', 'apiKeyHeaders'] as const).map(
    (auth): IdTakingOperation => ({
      name: `POST /api/v2/orders/{id}/shipments/buy of A’s shipment through B’s order${auth === 'apiKeyHeaders' ? ' with an API key' : ''}`,
      create: createShipmentOfA,
      attempt: async (w, id) => {
        const own = await createShipmentOfA({ ...w, a: w.b, b: w.a });
        return rest(w, w.b[auth], {
          method: 'POST',
          url: `/api/v2/orders/${await orderOf(w, own.id)}/shipments/buy`,
          payload: { shipment_id: id, rate: 'USPS:Priority' },
        });
      },
      intact: shipmentsIntact,
    }),
  ),
];

export const shipmentOwnRowOperations: OwnRowOperation[] = [
  ...(['shipments.create', 'POST /api/v2/orders/{id}/shipments'] as const).map(
    (route): OwnRowOperation => ({
      name: `${route} of B’s order naming A’s allocation answers as an allocation that is not open`,
      async run(w) {
        const theirs = await allocationOfA(w);
        const res = await createOnOwnOrder(w, route, await orderOfB(w), theirs.id);
        const unknown = await createOnOwnOrder(w, route, await orderOfB(w), newId('oal'));
        expect(unknown.status).toBe(400);
        expect(unknown.message).toBe(SHIPMENT_MESSAGES.itemNotOpen);
        expect([res.status, res.message], res.body).toEqual([unknown.status, unknown.message]);
        expect(res.body).not.toContain(theirs.marker);
        await allocationIntact(w, theirs.id, theirs.marker);
      },
    }),
  ),
];
