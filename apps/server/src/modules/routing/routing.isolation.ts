// The routing module's entries of the tenant-isolation harness (test/isolation.ts). Test code only.
import { randomBytes } from 'node:crypto';
import { ROUTING_MESSAGES, type RoutingRuleSet } from '@switchyard/contracts';
import { and, eq } from 'drizzle-orm';
import { expect } from 'vitest';
import type { IdTakingOperation, OwnRowOperation, World } from '../../../test/isolation.ts';
import { rest, trpc } from '../../../test/isolation.ts';
import { type TrpcResult, trpcOver } from '../../../test/trpc.ts';
import { newId } from '../../lib/ids.ts';
import { insertChannel } from '../buffers/buffers.fixtures.ts';
import { locations } from '../locations/locations.tables.ts';
import { orderAllocations, orderLines, orders } from '../orders/orders.tables.ts';

interface OfA {
  orderId: string;
  allocationId: string;
  locationId: string;
  marker: string;
}

/** An order of A's with one line allocated at A's store; the order number is the marker. */
export async function allocationOfA(w: World): Promise<OfA> {
  const marker = `#R-${randomBytes(5).toString('hex')}`;
  const db = w.t.services.db;
  const locationId = newId('loc');
  await db
    .insert(locations)
    .values({ id: locationId, accountId: w.a.accountId, name: `Store ${marker}`, storeId: marker });
  const orderId = newId('ord');
  const now = new Date();
  await db.insert(orders).values({
    id: orderId,
    accountId: w.a.accountId,
    externalId: `ext-${marker}`,
    number: marker,
    status: 1,
    currency: 'USD',
    total: 100,
    searchText: marker.toLowerCase(),
    placedAt: now,
    providerUpdatedAt: now,
  });
  const lineId = newId('oli');
  await db.insert(orderLines).values({
    id: lineId,
    accountId: w.a.accountId,
    orderId,
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
    orderId,
    lineId,
    locationId,
    quantity: 1,
    status: 1,
    reserved: 0,
    reason: marker,
  });
  return { orderId, allocationId, locationId, marker };
}

const byAllocation = async (w: World) => {
  const a = await allocationOfA(w);
  return { id: a.allocationId, marker: a.marker };
};
const byOrder = async (w: World) => {
  const a = await allocationOfA(w);
  return { id: a.orderId, marker: a.marker };
};
const byLocation = async (w: World) => {
  const a = await allocationOfA(w);
  return { id: a.locationId, marker: a.marker };
};

async function allocationIntact(w: World, id: string, marker: string) {
  const [row] = await w.t.services.db
    .select()
    .from(orderAllocations)
    .where(and(eq(orderAllocations.id, id), eq(orderAllocations.accountId, w.a.accountId)));
  expect(row).toMatchObject({ status: 1, reason: marker, quantity: 1 });
}

/** B's own allocation (for calls that take A's location with B's line). */
async function allocationOfB(w: World) {
  const swapped = { ...w, a: w.b, b: w.a } as World;
  return allocationOfA(swapped);
}

const frontend = (url: string) => `/api/frontend/shipping/${url}`;

export const routingIdTakingOperations: IdTakingOperation[] = [
  {
    name: 'POST /api/frontend/shipping/getOrderItemAllocation',
    create: byAllocation,
    attempt: (w, id) =>
      rest(w, w.b.headers, { method: 'POST', url: frontend('getOrderItemAllocation'), payload: { id } }),
  },
  {
    name: 'POST /api/frontend/shipping/listOrderItemAllocations with A’s order',
    create: byOrder,
    attempt: (w, id) =>
      rest(w, w.b.headers, { method: 'POST', url: frontend('listOrderItemAllocations'), payload: { order_id: id } }),
  },
  {
    name: 'POST /api/frontend/shipping/listOrderItemAllocations with A’s location',
    create: byLocation,
    attempt: (w, id) =>
      rest(w, w.b.headers, { method: 'POST', url: frontend('listOrderItemAllocations'), payload: { location_id: id } }),
  },
  {
    name: 'POST /api/frontend/shipping/updateLocationOrderItem reject',
    create: byAllocation,
    attempt: (w, id) =>
      rest(w, w.b.headers, {
        method: 'POST',
        url: frontend('updateLocationOrderItem'),
        payload: { action: 'reject', id, reason: 'hijacked' },
      }),
    intact: allocationIntact,
  },
  {
    name: 'POST /api/frontend/shipping/updateLocationOrderItem reassign',
    create: byAllocation,
    attempt: async (w, id) => {
      const own = await allocationOfB(w);
      return rest(w, w.b.headers, {
        method: 'POST',
        url: frontend('updateLocationOrderItem'),
        payload: { action: 'reassign', id, location_id: own.locationId },
      });
    },
    intact: allocationIntact,
  },
  {
    name: 'POST /api/frontend/shipping/updateLocationOrderItem reassign to A’s location',
    create: byLocation,
    attempt: async (w, locationId) => {
      const own = await allocationOfB(w);
      return rest(w, w.b.headers, {
        method: 'POST',
        url: frontend('updateLocationOrderItem'),
        payload: { action: 'reassign', id: own.allocationId, location_id: locationId },
      });
    },
  },
  {
    name: 'POST /api/frontend/shipping/updateLocationOrderItem short',
    create: byAllocation,
    attempt: (w, id) =>
      rest(w, w.b.headers, {
        method: 'POST',
        url: frontend('updateLocationOrderItem'),
        payload: { action: 'short', id, reason: 'hijacked' },
      }),
    intact: allocationIntact,
  },
  {
    name: 'routing.allocation',
    create: byAllocation,
    attempt: (w, id) => trpc(w, w.b.headers, 'query', 'routing.allocation', { id }),
  },
  {
    name: 'routing.allocations with A’s order',
    create: byOrder,
    attempt: (w, id) => trpc(w, w.b.headers, 'query', 'routing.allocations', { order_id: id }),
  },
  {
    name: 'routing.allocations with A’s location',
    create: byLocation,
    attempt: (w, id) => trpc(w, w.b.headers, 'query', 'routing.allocations', { location_id: id }),
  },
  {
    name: 'routing.reject',
    create: byAllocation,
    attempt: (w, id) => trpc(w, w.b.headers, 'mutation', 'routing.reject', { allocationId: id, reason: 'hijacked' }),
    intact: allocationIntact,
  },
  {
    name: 'routing.reassign',
    create: byAllocation,
    attempt: async (w, id) => {
      const own = await allocationOfB(w);
      return trpc(w, w.b.headers, 'mutation', 'routing.reassign', { allocationId: id, locationId: own.locationId });
    },
    intact: allocationIntact,
  },
  {
    name: 'routing.reassign of B’s line to A’s location',
    create: byLocation,
    attempt: async (w, locationId) => {
      const own = await allocationOfB(w);
      return trpc(w, w.b.headers, 'mutation', 'routing.reassign', { allocationId: own.allocationId, locationId });
    },
  },
  {
    name: 'routing.decisions',
    create: byOrder,
    attempt: (w, id) => trpc(w, w.b.headers, 'query', 'routing.decisions', { orderId: id }),
  },
  {
    name: 'routing.dryRun with A’s order',
    create: byOrder,
    attempt: (w, id) =>
      trpc(w, w.b.headers, 'mutation', 'routing.dryRun', { ruleSet: { source: 'live' }, order: { orderId: id } }),
  },
  {
    name: 'routing.dryRun with A’s channel',
    create: async (w) => {
      const channel = await insertChannel(w.t.services.db, w.a.accountId);
      return { id: channel.id, marker: channel.name };
    },
    attempt: async (w, channelId) => {
      const own = await allocationOfB(w);
      return trpc(w, w.b.headers, 'mutation', 'routing.dryRun', {
        ruleSet: { source: 'live' },
        order: { hypothetical: { channelId, lines: [{ sku: `SKU-${own.marker}`, quantity: 1 }] } },
      });
    },
  },
  {
    name: 'routing.dryRun with A’s pickupLocationId',
    create: byLocation,
    attempt: async (w, pickupLocationId) => {
      const own = await allocationOfB(w);
      return trpc(w, w.b.headers, 'mutation', 'routing.dryRun', {
        ruleSet: { source: 'live' },
        order: {
          hypothetical: {
            fulfillmentType: 'pickup',
            pickupLocationId,
            lines: [{ sku: `SKU-${own.marker}`, quantity: 1 }],
          },
        },
      });
    },
  },
];

/** A store's refusal of B's own line, naming a location, by the route it names: status and message. */
async function rejectOwn(w: World, route: string, allocationId: string, locationId: string) {
  if (route === 'routing.reject') {
    const res = await trpcOver(w.t.app, w.b.headers).mutation('routing.reject', {
      allocationId,
      locationId,
      reason: 'not here',
    });
    return { status: res.status, message: res.error?.message, body: JSON.stringify(res) };
  }
  const res = await w.t.app.inject({
    method: 'POST',
    url: frontend('updateLocationOrderItem'),
    headers: w.b.headers,
    payload: { action: 'reject', id: allocationId, location_id: locationId, reason: 'not here' },
  });
  return { status: res.statusCode, message: res.json<{ message?: string }>().message, body: res.body };
}

/** A draft rule set of one default rule preferring these locations. */
const preferring = (locationIds: string[]) => [{ name: 'Default', isDefault: true, strategy: { locationIds } }];

/** A draft rule set whose first rule applies to orders from these channels. */
const fromChannels = (channelIds: string[]) => [
  { name: 'From these channels', conditions: { channelIds }, strategy: {} },
  { name: 'Default', isDefault: true },
];

/** The rule-set calls that take rules, each as B with B's own order or live version. */
const withRules: Record<string, (w: World, rules: unknown[]) => Promise<TrpcResult>> = {
  'routing.dryRun': async (w, rules) =>
    trpcOver(w.t.app, w.b.headers).mutation('routing.dryRun', {
      ruleSet: { source: 'draft', rules },
      order: { orderId: (await allocationOfB(w)).orderId },
    }),
  'routing.replay': (w, rules) =>
    trpcOver(w.t.app, w.b.headers).mutation('routing.replay', { ruleSet: { source: 'draft', rules }, limit: 10 }),
  'routing.save': async (w, rules) =>
    trpcOver(w.t.app, w.b.headers).mutation('routing.save', { baseVersion: (await liveOfB(w)).version, rules }),
};

async function liveOfB(w: World) {
  return (await trpcOver(w.t.app, w.b.headers).query<RoutingRuleSet>('routing.rules')).data as RoutingRuleSet;
}

export const routingOwnRowOperations: OwnRowOperation[] = [
  ...(['routing.reject', 'POST /api/frontend/shipping/updateLocationOrderItem reject'] as const).map(
    (route): OwnRowOperation => ({
      name: `${route} of B’s line with A’s location answers as a location that does not exist`,
      async run(w) {
        const theirs = await allocationOfA(w);
        const own = await allocationOfB(w);
        const res = await rejectOwn(w, route, own.allocationId, theirs.locationId);
        const unknown = await rejectOwn(w, route, own.allocationId, newId('loc'));
        expect(unknown.status).toBe(409);
        expect([res.status, res.message], res.body).toEqual([unknown.status, unknown.message]);
        expect(res.body).not.toContain(theirs.marker);
        await allocationIntact({ ...w, a: w.b, b: w.a }, own.allocationId, own.marker);
        await allocationIntact(w, theirs.allocationId, theirs.marker);
      },
    }),
  ),
  ...Object.entries(withRules).map(
    ([route, call]): OwnRowOperation => ({
      name: `${route} with rules naming A’s location answers as a location that does not exist`,
      async run(w) {
        const theirs = await allocationOfA(w);
        const before = await liveOfB(w);
        const unknownId = newId('loc');
        const res = await call(w, preferring([theirs.locationId]));
        const unknown = await call(w, preferring([unknownId]));
        expect(unknown.status).toBe(400);
        expect(unknown.error?.message).toBe(ROUTING_MESSAGES.unknownLocation(unknownId));
        expect(res.status, JSON.stringify(res)).toBe(unknown.status);
        expect(res.error?.message).toBe(ROUTING_MESSAGES.unknownLocation(theirs.locationId));
        expect(JSON.stringify(res)).not.toContain(theirs.marker);
        // Nothing was saved: B's live rules are the ones before.
        expect(await liveOfB(w)).toEqual(before);
      },
    }),
  ),
  ...Object.entries(withRules).map(
    ([route, call]): OwnRowOperation => ({
      name: `${route} with a rule for orders from A’s channel answers as a channel that does not exist`,
      async run(w) {
        const theirs = await insertChannel(w.t.services.db, w.a.accountId);
        const before = await liveOfB(w);
        const unknownId = newId('chn');
        const res = await call(w, fromChannels([theirs.id]));
        const unknown = await call(w, fromChannels([unknownId]));
        expect(unknown.status).toBe(400);
        expect(unknown.error?.message).toBe(ROUTING_MESSAGES.unknownChannel(unknownId));
        expect(res.status, JSON.stringify(res)).toBe(unknown.status);
        expect(res.error?.message).toBe(ROUTING_MESSAGES.unknownChannel(theirs.id));
        expect(JSON.stringify(res)).not.toContain(theirs.name);
        expect(await liveOfB(w)).toEqual(before);
      },
    }),
  ),
];
