// Routing against a real database (PGlite, and a server with TEST_DATABASE_URL): an imported order is routed by
// the merchant's saved rules and reserved in the same transaction, the decision keeps its version and trace, a
// store's rejection routes the line again without it, a line moves by hand only where there is stock, two
// rejections at once move a line once; dry runs reserve nothing; the SPEC §7 shipping/* calls over HTTP.
import type {
  AllocationList,
  AllocationUpdateResult,
  DryRunResult,
  OrderDetail,
  OrderRoutingDecisions,
  ReplaySummary,
  RoutingRuleSet,
  RoutingVersionList,
} from '@switchyard/contracts';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../../../test/app.ts';
import { trpcOver } from '../../../test/trpc.ts';
import { newId } from '../../lib/ids.ts';
import { applyMovements } from '../inventory/ledger.ts';
import { locations } from '../locations/locations.tables.ts';
import { ingestOrder } from '../orders/ingest.ts';
import { channelOrder, invariantViolations, level, type OrderWorld, orderWorld } from '../orders/orders.fixtures.ts';
import { orderAllocations, orders } from '../orders/orders.tables.ts';

let t: Awaited<ReturnType<typeof createTestApp>>;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

const DEFAULT_RULE = {
  id: 'default',
  name: 'Default',
  isDefault: true,
  strategy: { keepWhole: false, maxShipments: 20 },
};
const NEAREST = { name: 'Nearest, never split', strategy: { nearestFirst: true, maxShipments: 1 } };

const allocationsOf = (orderId: string) =>
  t.services.db.select().from(orderAllocations).where(eq(orderAllocations.orderId, orderId));
const flagged = async (orderId: string) =>
  (await t.services.db.select({ f: orders.flagged }).from(orders).where(eq(orders.id, orderId)))[0]?.f;

/** orderWorld's S1 (New York, priority 0) and S2 (Portland, 1), plus S3 (Seattle, 2) with the same stock. */
async function routingWorld(skus: string[], stock: number) {
  const world = await orderWorld(t.services, skus, stock);
  const db = t.services.db;
  await db
    .update(locations)
    .set({ latitude: 40.71, longitude: -74.0 })
    .where(eq(locations.id, world.location.S1 as string));
  await db
    .update(locations)
    .set({ latitude: 45.52, longitude: -122.68 })
    .where(eq(locations.id, world.location.S2 as string));
  world.location.S3 = newId('loc');
  // Seattle is placed from its postal code (no coordinates typed in).
  await db.insert(locations).values({
    id: world.location.S3,
    accountId: world.accountId,
    name: 'Store S3',
    storeId: 'S3',
    priority: 2,
    address: { zip: '98101', country: 'US' },
  });
  await db.transaction((tx) =>
    applyMovements(
      tx,
      world.accountId,
      skus.map((sku) => ({
        variantId: world.variant[sku] as string,
        locationId: world.location.S3 as string,
        setTo: stock,
        reason: 'count' as const,
        source: 'manual',
      })),
    ),
  );
  return world;
}

const portland = { name: 'Ada', address1: '1 Main St', city: 'Portland', zip: '97205', country: 'US' };

describe('routing by the merchant’s rules', () => {
  let world: OrderWorld;
  let api: ReturnType<typeof trpcOver>;
  let routedOrder: string;
  beforeAll(async () => {
    world = await routingWorld(['R-1', 'R-2'], 5);
    api = trpcOver(t.app, world.headers);
  });

  it('routes by the built-in default (version 0) until rules are saved, and records the decision', async () => {
    const rules = await api.query<RoutingRuleSet>('routing.rules');
    expect(rules.data).toMatchObject({ version: 0, rules: [{ id: 'default', isDefault: true }] });
    const { orderId } = await ingestOrder(
      t.services,
      world.channel.shopify,
      channelOrder(world, 'shopify', { 'R-1': 1 }, { shippingAddress: portland, stockMoved: false }),
    );
    expect(await allocationsOf(orderId)).toMatchObject([{ status: 1, locationId: world.location.S1, reserved: 1 }]);
    const decisions = await api.query<OrderRoutingDecisions>('routing.decisions', { orderId });
    expect(decisions.data?.decisions).toHaveLength(1);
    expect(decisions.data?.decisions[0]).toMatchObject({ kind: 'initial', ruleSetVersion: 0 });
    expect(decisions.data?.decisions[0]?.trace.lines[0]?.explanation).toMatch(
      /Store S1 .*first location in priority order/,
    );
  });

  it('saves a rule as a new version with who and when; a stale or invalid save is refused with why', async () => {
    const saved = await api.mutation<RoutingRuleSet>('routing.save', {
      baseVersion: 0,
      rules: [NEAREST, DEFAULT_RULE],
      note: 'Nearest first',
    });
    expect(saved.status).toBe(200);
    expect(saved.data).toMatchObject({
      version: 1,
      note: 'Nearest first',
      rules: [{ name: NEAREST.name }, { id: 'default' }],
    });
    expect(saved.data?.createdBy).toBeTruthy();
    expect(saved.data?.rules[0]?.id).toMatch(/^rule_/);
    const stale = await api.mutation('routing.save', { baseVersion: 0, rules: [DEFAULT_RULE] });
    expect(stale.status).toBe(409);
    expect(stale.error?.message).toMatch(/changed meanwhile \(now version 1\)/);
    const noDefault = await api.mutation('routing.save', { baseVersion: 1, rules: [NEAREST] });
    expect(noDefault.status).toBe(400);
    expect(noDefault.error?.message).toMatch(/exactly one default rule/);
    const badLocation = await api.mutation('routing.save', {
      baseVersion: 1,
      rules: [{ ...NEAREST, strategy: { locationIds: ['loc_not_mine'] } }, DEFAULT_RULE],
    });
    expect(badLocation.status).toBe(400);
    expect(badLocation.error?.message).toMatch(/loc_not_mine is not one of your locations/);
    // A channel condition names the account's channels: its own pass, another's (or none's) is named and refused.
    const badChannel = await api.mutation('routing.save', {
      baseVersion: 1,
      rules: [{ ...NEAREST, conditions: { channelIds: [world.channel.shopify.id, 'chn_not_mine'] } }, DEFAULT_RULE],
    });
    expect(badChannel.status).toBe(400);
    expect(badChannel.error?.message).toBe('Channel chn_not_mine is not one of your channels');
    const versions = await api.query<RoutingVersionList>('routing.versions');
    expect(versions.data).toMatchObject({ total: 1, results: [{ version: 1, live: true, ruleCount: 2 }] });
    const notAVersion = await api.query('routing.version', { version: 'abc' });
    expect(notAVersion.status).toBe(400);
    expect(notAVersion.error?.message).toBe('version: Versions are whole numbers, 0 or more');
  });

  it('routes a new order by that rule: the nearest store, reserved in the same transaction, explained', async () => {
    const before = await level(t.services, world, 'R-1', 'S2');
    const { orderId } = await ingestOrder(
      t.services,
      world.channel.shopify,
      channelOrder(world, 'shopify', { 'R-1': 2, 'R-2': 1 }, { shippingAddress: portland, stockMoved: false }),
    );
    routedOrder = orderId;
    const allocations = await allocationsOf(orderId);
    expect(allocations.map((a) => [a.locationId, a.status, a.reserved]).sort()).toEqual([
      [world.location.S2, 1, 1],
      [world.location.S2, 1, 2],
    ]);
    expect(await level(t.services, world, 'R-1', 'S2')).toEqual({
      onHand: before.onHand,
      reserved: before.reserved + 2,
    });
    const decision = (await api.query<OrderRoutingDecisions>('routing.decisions', { orderId })).data?.decisions[0];
    expect(decision).toMatchObject({ kind: 'initial', ruleSetVersion: 1 });
    expect(decision?.allocationIds.sort()).toEqual(allocations.map((a) => a.id).sort());
    const line = decision?.trace.lines.find((l) => l.sku === 'R-1');
    expect(line?.ruleName).toBe(NEAREST.name);
    expect(line?.candidates.find((c) => c.locationId === world.location.S2)).toMatchObject({ taken: 2, rank: 1 });
    expect(line?.candidates.find((c) => c.locationId === world.location.S3)?.distanceKm).toBeGreaterThan(200);
    expect(line?.explanation).toMatch(/Store S2 \(.*km away\) is the nearest/);
    expect(decision?.trace.destination.note).toMatch(/97205 placed at Portland, OR/);
  });

  it('a store rejects the line: released there and routed to the next nearest, each step on the timeline', async () => {
    const [r1] = (await allocationsOf(routedOrder)).filter((a) => a.quantity === 2);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/frontend/shipping/updateLocationOrderItem',
      headers: world.headers,
      payload: { action: 'reject', id: r1?.id, reason: 'Box crushed', location_id: world.location.S2 },
    });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json<AllocationUpdateResult>();
    expect(body.flagged).toBe(false);
    expect(body.allocations).toMatchObject([{ id: r1?.id, locationId: world.location.S3, status: 1, quantity: 2 }]);
    expect(body.decision).toMatchObject({ kind: 'reroute', trace: { withoutLocationIds: [world.location.S2] } });
    expect(await level(t.services, world, 'R-1', 'S2')).toMatchObject({ reserved: 0 });
    expect(await level(t.services, world, 'R-1', 'S3')).toMatchObject({ reserved: 2 });
    const detail = await api.query<OrderDetail>('orders.get', { id: routedOrder });
    const messages = detail.data?.timeline.map((e) => e.message) ?? [];
    expect(messages).toContain('Store S2 rejected 2 × R-1: Box crushed');
    expect(messages.some((m) => /2 × R-1 reserved at Store S3/.test(m))).toBe(true);
    expect(await invariantViolations(t.services, world.accountId)).toEqual([]);
  });

  it('a line no store is left for stays rejected and flags the order; a hand move checks the stock', async () => {
    const [r1] = (await allocationsOf(routedOrder)).filter((a) => a.quantity === 2);
    // Seattle says it is short: New York is left, and far, but nothing limits distance.
    const short = await api.mutation<AllocationUpdateResult>('routing.reject', {
      allocationId: r1?.id,
      status: 4,
      reason: 'Shelf empty',
    });
    expect(short.data?.allocations[0]).toMatchObject({ locationId: world.location.S1, status: 1 });
    const none = await api.mutation<AllocationUpdateResult>('routing.reject', {
      allocationId: r1?.id,
      reason: 'Closed today',
    });
    expect(none.data?.flagged).toBe(true);
    expect(none.data?.allocations[0]).toMatchObject({ status: 5 });
    expect(none.data?.allocations[0]?.reason).toMatch(/Closed today/);
    expect(await flagged(routedOrder)).toBe(true);
    // Portland has 5 − 0 of R-1 now; a move asking for more than a store has is refused with the numbers.
    await t.services.db.transaction((tx) =>
      applyMovements(tx, world.accountId, [
        {
          variantId: world.variant['R-1'] as string,
          locationId: world.location.S2 as string,
          setTo: 1,
          reason: 'count',
          source: 'manual',
        },
      ]),
    );
    const refused = await api.mutation('routing.reassign', { allocationId: r1?.id, locationId: world.location.S2 });
    expect(refused.status).toBe(409);
    expect(refused.error?.message).toBe('Store S2 has 1 available, 2 needed');
    const moved = await api.mutation<AllocationUpdateResult>('routing.reassign', {
      allocationId: r1?.id,
      locationId: world.location.S3,
      reason: 'Found it',
    });
    expect(moved.status).toBe(200);
    expect(moved.data).toMatchObject({ flagged: false, allocations: [{ status: 1, locationId: world.location.S3 }] });
    expect(moved.data?.decision).toMatchObject({ kind: 'reassign' });
    expect(await flagged(routedOrder)).toBe(false);
    expect(await invariantViolations(t.services, world.accountId)).toEqual([]);
  });

  it('answers bad input with 400 and a clear message, and unknown ids with 404', async () => {
    const noReason = await t.app.inject({
      method: 'POST',
      url: '/api/frontend/shipping/updateLocationOrderItem',
      headers: world.headers,
      payload: { action: 'reject', id: 'oal_x', reason: ' ' },
    });
    expect(noReason.statusCode).toBe(400);
    expect(noReason.body).toMatch(/Say why the store cannot fulfil the line/);
    const missing = await t.app.inject({
      method: 'POST',
      url: '/api/frontend/shipping/getOrderItemAllocation',
      headers: world.headers,
      payload: { id: 'oal_missing' },
    });
    expect(missing.statusCode).toBe(404);
    const list = await t.app.inject({
      method: 'POST',
      url: '/api/frontend/shipping/listOrderItemAllocations',
      headers: world.headers,
      payload: { order_id: routedOrder },
    });
    expect(list.statusCode).toBe(200);
    const badStatus = await t.app.inject({
      method: 'POST',
      url: '/api/frontend/shipping/listOrderItemAllocations',
      headers: world.headers,
      payload: { status: 'abc' },
    });
    expect(badStatus.statusCode).toBe(400);
    expect(badStatus.json()).toEqual({
      code: 400,
      message: 'Invalid body: status: status must be a whole number from 0 to 5',
    });
    // An empty status filter is "any status", as a missing one is (a form's blank select), over REST and tRPC.
    const anyStatus = await t.app.inject({
      method: 'POST',
      url: '/api/frontend/shipping/listOrderItemAllocations',
      headers: world.headers,
      payload: { order_id: routedOrder, status: '' },
    });
    expect(anyStatus.statusCode).toBe(200);
    expect(anyStatus.json<AllocationList>().total).toBe(list.json<AllocationList>().total);
    const anyOverTrpc = await api.query<AllocationList>('routing.allocations', { order_id: routedOrder, status: '' });
    expect(anyOverTrpc.status).toBe(200);
    expect(anyOverTrpc.data?.total).toBe(list.json<AllocationList>().total);
    const textOverTrpc = await api.query('routing.allocations', { status: 'abc' });
    expect(textOverTrpc.status).toBe(400);
    expect(textOverTrpc.error?.message).toMatch(/status must be a whole number from 0 to 5/);
    expect(
      list
        .json<AllocationList>()
        .results.map((r) => r.sku)
        .sort(),
    ).toEqual(['R-1', 'R-2']);
  });

  it('dry-runs a typed-in order and an existing one against a draft, reserving nothing', async () => {
    const before = await level(t.services, world, 'R-2', 'S3');
    const seattle = await api.mutation<DryRunResult>('routing.dryRun', {
      ruleSet: { source: 'draft', rules: [{ id: 'n', ...NEAREST }, DEFAULT_RULE] },
      order: { hypothetical: { postalCode: '98101', lines: [{ sku: 'R-2', quantity: 1 }] } },
    });
    expect(seattle.status).toBe(200);
    expect(seattle.data?.trace.lines[0]?.chosen).toMatchObject([{ locationId: world.location.S3 }]);
    expect(seattle.data?.trace.summary).toMatch(/Draft rules/);
    expect(await level(t.services, world, 'R-2', 'S3')).toEqual(before);
    const existing = await api.mutation<DryRunResult>('routing.dryRun', {
      ruleSet: { source: 'version', version: 0 },
      order: { orderId: routedOrder },
    });
    expect(existing.data?.current?.length).toBeGreaterThan(0);
    // Version 0 sends R-2 to S1 (priority), counting the order's own reservation at S2 as its own.
    expect(existing.data?.trace.lines.find((l) => l.sku === 'R-2')?.chosen[0]?.locationId).toBe(world.location.S1);
    const unknown = await api.mutation('routing.dryRun', {
      ruleSet: { source: 'live' },
      order: { hypothetical: { lines: [{ sku: 'NOPE', quantity: 1 }] } },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.error?.message).toBe('SKU NOPE is not in the catalog');
  });

  it('replays a draft over the last orders and compares it with what happened', async () => {
    const res = await api.mutation<ReplaySummary>('routing.replay', {
      ruleSet: {
        source: 'draft',
        rules: [{ id: 'ny', name: 'New York only', strategy: { locationIds: [world.location.S1] } }, DEFAULT_RULE],
      },
      limit: 100,
    });
    expect(res.status).toBe(200);
    expect(res.data?.orders).toBe(2);
    expect(res.data?.draft.avgDistanceKm).toBeGreaterThan(3000);
    expect(res.data?.actual.avgDistanceKm).toBeLessThan(res.data?.draft.avgDistanceKm ?? 0);
    expect(res.data?.changedOrders).toBe(1);
    expect(res.data?.examples[0]?.draft).toEqual(['Store S1']);
  });
});

describe('re-routing under concurrency', () => {
  it('two rejections of one line at once move it once; the ledger holds', async () => {
    const world = await routingWorld(['C-1'], 3);
    const api = trpcOver(t.app, world.headers);
    const { orderId } = await ingestOrder(
      t.services,
      world.channel.bigcommerce,
      channelOrder(world, 'bigcommerce', { 'C-1': 2 }, { shippingAddress: portland, stockMoved: false }),
    );
    const [a] = await allocationsOf(orderId);
    expect(a?.locationId).toBe(world.location.S1);
    const results = await Promise.all(
      [0, 1].map(() =>
        api.mutation<AllocationUpdateResult>('routing.reject', {
          allocationId: a?.id,
          reason: 'Cannot find it',
          locationId: world.location.S1,
        }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(results.find((r) => r.status === 409)?.error?.message).toMatch(/no longer at that store/);
    const now = await allocationsOf(orderId);
    expect(now).toHaveLength(1);
    expect(now[0]).toMatchObject({ status: 1, locationId: world.location.S2, reserved: 2 });
    expect(await level(t.services, world, 'C-1', 'S1')).toMatchObject({ reserved: 0 });
    expect(await level(t.services, world, 'C-1', 'S2')).toMatchObject({ reserved: 2 });
    expect(await invariantViolations(t.services, world.accountId)).toEqual([]);
  });

  it('a pickup goes to its store whole, or is flagged; a rejection cannot move it elsewhere', async () => {
    const world = await routingWorld(['P-1'], 2);
    const { orderId } = await ingestOrder(
      t.services,
      world.channel.square,
      channelOrder(world, 'square', { 'P-1': 2 }, { fulfillmentType: 'pickup', store: 'S2', stockMoved: false }),
    );
    const [a] = await allocationsOf(orderId);
    expect(a).toMatchObject({ status: 1, locationId: world.location.S2 });
    const big = await ingestOrder(
      t.services,
      world.channel.square,
      channelOrder(world, 'square', { 'P-1': 3 }, { fulfillmentType: 'pickup', store: 'S1', stockMoved: false }),
    );
    expect(await allocationsOf(big.orderId)).toMatchObject([{ status: 4, locationId: null, reserved: 0 }]);
    expect(await flagged(big.orderId)).toBe(true);
    const api = trpcOver(t.app, world.headers);
    const res = await api.mutation<AllocationUpdateResult>('routing.reject', {
      allocationId: a?.id,
      reason: 'No staff',
    });
    expect(res.data?.flagged).toBe(true);
    expect(res.data?.decision?.trace.lines[0]?.explanation).toMatch(/cannot move to another store/);
  });
});
