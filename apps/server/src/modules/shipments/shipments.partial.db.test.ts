// Part of a line shipped (issue 15), against the sandbox's carrier over real HTTP and a real database (PGlite,
// and a server with TEST_DATABASE_URL): a shipment carries some of a line's units; those leave the store once,
// the rest stays reserved and in the store's queue, and the next shipment ships the rest. Over the two, and the
// channel's later report of the same fulfilment, the sale moves stock exactly once.
import type { RunningSandbox } from '@switchyard/sandbox';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../../../test/app.ts';
import { startTestSandbox } from '../../../test/sandbox.ts';
import type { Actor } from '../../trpc/context.ts';
import { listQueue } from '../fulfillment/fulfillment.queue.ts';
import { inventoryMovements } from '../inventory/inventory.tables.ts';
import { locations } from '../locations/locations.tables.ts';
import { ingestOrder } from '../orders/ingest.ts';
import { channelOrder, invariantViolations, level, type OrderWorld, orderWorld } from '../orders/orders.fixtures.ts';
import { orderAllocations, orderLines, orders } from '../orders/orders.tables.ts';
import { buyShipment } from './shipments.buy.ts';
import { createShipment } from './shipments.service.ts';
import { shipmentItems } from './shipments.tables.ts';

let sandbox: RunningSandbox;
let t: Awaited<ReturnType<typeof createTestApp>>;
let world: OrderWorld;

const actor = (): Actor => ({
  sessionId: 'test',
  userId: 'nobody',
  accountId: world.accountId,
  authorizationLevel: 'user',
  superUserRole: null,
});

beforeAll(async () => {
  sandbox = await startTestSandbox();
  t = await createTestApp({ sandboxUrl: sandbox.url });
  world = await orderWorld(t.services, ['PRT-A', 'PRT-B'], 10);
  await t.services.db
    .update(locations)
    .set({ address: { address1: '1 Main St', city: 'Brooklyn', province: 'NY', zip: '11201', country: 'US' } })
    .where(eq(locations.accountId, world.accountId));
});

afterAll(async () => {
  await t?.close();
  await sandbox?.close();
});

const shipTo = {
  name: 'Grace Hopper',
  address1: '9 Pine St',
  city: 'Seattle',
  province: 'WA',
  zip: '98101',
  country: 'US',
};

async function newOrder(lines: Record<string, number>) {
  const order = channelOrder(world, 'shopify', lines, { shippingAddress: shipTo });
  const { orderId } = await ingestOrder(t.services, world.channel.shopify, order);
  return { orderId, order };
}

const allocationsOf = (orderId: string) =>
  t.services.db.select().from(orderAllocations).where(eq(orderAllocations.orderId, orderId));
const orderRow = async (id: string) => (await t.services.db.select().from(orders).where(eq(orders.id, id)))[0];
const fulfilledOf = async (orderId: string) =>
  (await t.services.db.select().from(orderLines).where(eq(orderLines.orderId, orderId))).map((l) => l.fulfilledQty);
/** The order's net stock movement (on hand), from the ledger. */
const movedOf = async (orderId: string) =>
  (await t.services.db.select().from(inventoryMovements).where(eq(inventoryMovements.reference, orderId))).reduce(
    (n, m) => n + m.delta,
    0,
  );

async function buy(orderId: string, items?: { allocation_id: string; quantity?: number }[]) {
  const s = await createShipment(t.services, actor(), orderId, {
    packages: [{ weight: 8 }],
    ...(items ? { items } : {}),
  });
  return buyShipment(t.services, actor(), orderId, { shipment_id: s.id, rate: s.rates[0]?.key as string });
}

describe('part of a line shipped', () => {
  it('ships 2 of 3 units, keeps the last reserved and in the queue, then ships it: stock moves once', async () => {
    const before = await level(t.services, world, 'PRT-A');
    const { orderId, order } = await newOrder({ 'PRT-A': 3 });
    const [allocation] = await allocationsOf(orderId);
    expect(allocation).toMatchObject({ quantity: 3, reserved: 3, status: 1 });
    const id = allocation?.id as string;

    const first = await buy(orderId, [{ allocation_id: id, quantity: 2 }]);
    expect(first.items.map((i) => i.quantity)).toEqual([2]);
    expect(await level(t.services, world, 'PRT-A')).toEqual({
      onHand: before.onHand - 2,
      reserved: before.reserved + 1,
    });
    expect(await allocationsOf(orderId)).toMatchObject([{ id, quantity: 3, reserved: 1, status: 1 }]);
    expect(await fulfilledOf(orderId)).toEqual([2]);
    expect((await orderRow(orderId))?.status).toBe(2);
    // Still the store's work: the last unit is to ship.
    const queue = await listQueue(t.services.db, actor(), { filter: { store_id: 'S1', order_ids: orderId } });
    expect(queue.results.map((r) => [r.id, r.units])).toEqual([[orderId, 1]]);

    // More than is left is refused with the count; nothing moves.
    await expect(
      createShipment(t.services, actor(), orderId, {
        packages: [{ weight: 8 }],
        items: [{ allocation_id: id, quantity: 2 }],
      }),
    ).rejects.toMatchObject({ code: 'VALIDATION', message: 'PRT-A: only 1 unit is left to ship on that line.' });

    // The next shipment ships the rest by default.
    const second = await buy(orderId);
    expect(second.items.map((i) => [i.allocationId, i.quantity])).toEqual([[id, 1]]);
    expect(await level(t.services, world, 'PRT-A')).toEqual({ onHand: before.onHand - 3, reserved: before.reserved });
    expect(await allocationsOf(orderId)).toMatchObject([{ id, reserved: 0, status: 3 }]);
    expect(await fulfilledOf(orderId)).toEqual([3]);
    expect((await orderRow(orderId))?.status).toBe(3);
    expect(await movedOf(orderId)).toBe(-3);
    await expect(createShipment(t.services, actor(), orderId, { packages: [{ weight: 8 }] })).rejects.toMatchObject({
      code: 'VALIDATION',
    });

    // The channel then reports the three units fulfilled (our two write-backs): nothing more leaves the store.
    const row = await orderRow(orderId);
    await ingestOrder(t.services, world.channel.shopify, {
      ...order,
      externalId: row?.externalId as string,
      updatedAt: new Date(Date.now() + 60_000).toISOString(),
      fulfillmentStatus: 'fulfilled',
      lines: order.lines.map((l) => ({ ...l, fulfilledQuantity: l.quantity })),
    });
    expect(await level(t.services, world, 'PRT-A')).toEqual({ onHand: before.onHand - 3, reserved: before.reserved });
    expect(await movedOf(orderId)).toBe(-3);
    expect(await invariantViolations(t.services, world.accountId)).toEqual([]);
  });

  it('a shipment bought for part of a line leaves the rest free for another shipment, and each item once', async () => {
    const { orderId } = await newOrder({ 'PRT-A': 2, 'PRT-B': 1 });
    const allocations = await allocationsOf(orderId);
    const a = allocations.find((x) => x.quantity === 2)?.id as string;
    const b = allocations.find((x) => x.quantity === 1)?.id as string;
    await expect(
      createShipment(t.services, actor(), orderId, {
        packages: [{ weight: 8 }],
        items: [
          { allocation_id: a, quantity: 1 },
          { allocation_id: a, quantity: 1 },
        ],
      }),
    ).rejects.toMatchObject({ code: 'VALIDATION', message: 'Name each line of the shipment once.' });
    const first = await buy(orderId, [
      { allocation_id: a, quantity: 1 },
      { allocation_id: b, quantity: 1 },
    ]);
    // Settled once bought: the items hold no units, so the rest of the line can be rated and bought again.
    expect(
      (await t.services.db.select().from(shipmentItems).where(eq(shipmentItems.shipmentId, first.id))).map(
        (i) => i.active,
      ),
    ).toEqual([0, 0]);
    const rest = await createShipment(t.services, actor(), orderId, { packages: [{ weight: 8 }] });
    expect(rest.items.map((i) => [i.allocationId, i.quantity])).toEqual([[a, 1]]);
    await buyShipment(t.services, actor(), orderId, { shipment_id: rest.id, rate: rest.rates[0]?.key as string });
    expect(await fulfilledOf(orderId).then((q) => q.sort())).toEqual([1, 2]);
    expect((await orderRow(orderId))?.status).toBe(3);
    expect(await movedOf(orderId)).toBe(-3);
    expect(await invariantViolations(t.services, world.accountId)).toEqual([]);
  });
});
