// Picking after part of a line shipped (issue 15), against the sandbox's carrier over real HTTP and a real database
// (PGlite, and a server with TEST_DATABASE_URL): scans count against the units still to ship, units that left
// are not counted as scanned, and scans of units still in hand carry over a shipment (fulfillment.units.ts).
import type { RunningSandbox } from '@switchyard/sandbox';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../../../test/app.ts';
import { startTestSandbox } from '../../../test/sandbox.ts';
import type { Actor } from '../../trpc/context.ts';
import { locations } from '../locations/locations.tables.ts';
import { ingestOrder } from '../orders/ingest.ts';
import { channelOrder, type OrderWorld, orderWorld } from '../orders/orders.fixtures.ts';
import { orderAllocations } from '../orders/orders.tables.ts';
import { buyShipment } from '../shipments/shipments.buy.ts';
import { createShipment } from '../shipments/shipments.service.ts';
import { listQueue } from './fulfillment.queue.ts';
import { getFulfillmentOrder, scan } from './fulfillment.service.ts';
import { pickingList } from './picking-list.ts';

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
  world = await orderWorld(t.services, ['PCK-A', 'PCK-B'], 10);
  await t.services.db
    .update(locations)
    .set({ address: { address1: '1 Main St', city: 'Brooklyn', province: 'NY', zip: '11201', country: 'US' } })
    .where(eq(locations.accountId, world.accountId));
});

afterAll(async () => {
  await t?.close();
  await sandbox?.close();
});

async function newOrder(lines: Record<string, number>) {
  const order = channelOrder(world, 'shopify', lines, {
    shippingAddress: { name: 'Grace Hopper', address1: '9 Pine St', city: 'Seattle', zip: '98101', country: 'US' },
  });
  const { orderId } = await ingestOrder(t.services, world.channel.shopify, order);
  const [allocation] = await t.services.db.select().from(orderAllocations).where(eq(orderAllocations.orderId, orderId));
  return { orderId, allocationId: allocation?.id as string };
}

async function shipUnits(orderId: string, allocationId: string, quantity: number) {
  const s = await createShipment(t.services, actor(), orderId, {
    packages: [{ weight: 8 }],
    items: [{ allocation_id: allocationId, quantity }],
  });
  await buyShipment(t.services, actor(), orderId, { shipment_id: s.id, rate: s.rates[0]?.key as string });
}

const scanOnce = (id: string, code: string) => scan(t.services, actor(), { id, code, store_id: 'S1' });
const lineOf = async (id: string) => (await getFulfillmentOrder(t.services.db, actor(), id, 'S1')).lines[0];
const queueRow = async (id: string) =>
  (await listQueue(t.services.db, actor(), { filter: { store_id: 'S1', order_ids: id } })).results[0];
const pickingUnits = async (id: string) =>
  (await pickingList(t.services.db, actor(), { store_id: 'S1', order_ids: id })).units;

describe('picking after part of a line shipped', () => {
  it('counts scans against the units still to ship, not the ones that left', async () => {
    const { orderId, allocationId } = await newOrder({ 'PCK-A': 3 });
    expect(await scanOnce(orderId, 'PCK-A')).toMatchObject({ ok: true, message: 'PCK-A: 1 of 3 picked.' });

    // The scanned unit is the one that ships: none of the 2 left is in hand.
    await shipUnits(orderId, allocationId, 1);
    expect(await lineOf(orderId)).toMatchObject({ quantity: 3, toShip: 2, scanned: 0, status: 1 });
    expect(await queueRow(orderId)).toMatchObject({ units: 2, pickedUnits: 0 });
    expect(await pickingUnits(orderId)).toBe(2);

    expect(await scanOnce(orderId, 'PCK-A')).toMatchObject({ ok: true, message: 'PCK-A: 1 of 2 picked.' });
    expect(await pickingUnits(orderId)).toBe(1);
    const last = await scanOnce(orderId, 'PCK-A');
    expect(last).toMatchObject({ ok: true, message: 'PCK-A: 2 of 2 picked.' });
    // Picked once the 2 still to ship are in hand: the step moves on to packing.
    expect(last.order).toMatchObject({ step: 'pack', lines: [{ toShip: 2, scanned: 2, status: 2 }] });
    expect(await scanOnce(orderId, 'PCK-A')).toMatchObject({ ok: false, message: 'PCK-A is already picked in full.' });
    expect(await queueRow(orderId)).toMatchObject({ units: 2, pickedUnits: 2 });
  });

  it('keeps the scans of units still in hand after a shipment; units shipped unscanned never count', async () => {
    const { orderId, allocationId } = await newOrder({ 'PCK-B': 4 });
    await scanOnce(orderId, 'PCK-B');
    await scanOnce(orderId, 'PCK-B');
    // 2 of 4 scanned, 1 ships: the other scanned unit is still in hand.
    await shipUnits(orderId, allocationId, 1);
    expect(await lineOf(orderId)).toMatchObject({ quantity: 4, toShip: 3, scanned: 1, status: 1 });
    expect(await queueRow(orderId)).toMatchObject({ units: 3, pickedUnits: 1 });

    // 1 of 3 in hand, 2 ship (the scanned one and one more): none of the last one is scanned.
    await shipUnits(orderId, allocationId, 2);
    expect(await lineOf(orderId)).toMatchObject({ toShip: 1, scanned: 0, status: 1 });
    expect(await scanOnce(orderId, 'PCK-B')).toMatchObject({ ok: true, message: 'PCK-B: 1 of 1 picked.' });
    expect(await lineOf(orderId)).toMatchObject({ toShip: 1, scanned: 1, status: 2 });

    // The last unit ships: the line is done, all its units count as picked.
    await shipUnits(orderId, allocationId, 1);
    expect(await lineOf(orderId)).toMatchObject({ quantity: 4, toShip: 0, scanned: 4, status: 3 });
  });
});
