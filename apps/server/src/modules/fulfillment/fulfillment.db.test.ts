// A store's queue and its work against a real database (PGlite, and a server with TEST_DATABASE_URL): scopes and
// counts per store with the SPEC §2 filters, scanning (a wrong item says so), packing, rejecting a line, and the
// pickup verbs (status 4 then 5, the e-mail in the outbox, the units out of on hand once, even when the
// channel later reports the same fulfilment).

import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../../../test/app.ts';
import { DomainError } from '../../lib/errors.ts';
import type { Actor } from '../../trpc/context.ts';
import { accountSettings } from '../accounts/accounts.tables.ts';
import { mailMessages } from '../mail/mail.tables.ts';
import { ingestOrder } from '../orders/ingest.ts';
import { channelOrder, invariantViolations, level, type OrderWorld, orderWorld } from '../orders/orders.fixtures.ts';
import { orderAllocations, orderEvents, orderLines, orders } from '../orders/orders.tables.ts';
import { variants } from '../products/products.tables.ts';
import { pickedUp, readyForPickup } from './fulfillment.pickup.ts';
import { countQueue, listQueue, listStores } from './fulfillment.queue.ts';
import { getFulfillmentOrder, pack, reject, scan } from './fulfillment.service.ts';
import { pickingList, pickingListPdf } from './picking-list.ts';

let t: Awaited<ReturnType<typeof createTestApp>>;
let world: OrderWorld;
let actor: Actor;
beforeAll(async () => {
  t = await createTestApp();
  world = await orderWorld(t.services, ['TEE-1', 'TEE-2', 'CAP-1'], 20);
  actor = {
    sessionId: 'test',
    userId: 'test',
    accountId: world.accountId,
    authorizationLevel: 'user',
    superUserRole: null,
  };
  await t.services.db
    .update(variants)
    .set({ barcode: '0123456789012' })
    .where(eq(variants.id, world.variant['TEE-1'] as string));
});
afterAll(async () => {
  await t?.close();
});

const order = (lines: Record<string, number>, options: Parameters<typeof channelOrder>[3] = {}) =>
  ingestOrder(t.services, world.channel.shopify, channelOrder(world, 'shopify', lines, options));
const pickupAt = (store: string, type: 'pickup' | 'curbside_pickup' = 'pickup') => ({
  fulfillmentType: type,
  store,
  locationExternalId: `ext-${store}`,
  customer: { name: 'Grace Hopper', email: 'grace@example.com' },
});
const orderRow = async (id: string) => (await t.services.db.select().from(orders).where(eq(orders.id, id)))[0];

describe('the queue of a store', () => {
  let ship: string;
  let pickup: string;
  let curbside: string;
  let atS2: string;
  beforeAll(async () => {
    ship = (await order({ 'TEE-1': 2, 'CAP-1': 1 })).orderId;
    pickup = (await order({ 'TEE-2': 1 }, pickupAt('S1'))).orderId;
    curbside = (await order({ 'CAP-1': 1 }, pickupAt('S1', 'curbside_pickup'))).orderId;
    atS2 = (await order({ 'TEE-2': 1 }, pickupAt('S2'))).orderId;
  });

  it('defaults to the stored shipping location, else the first store that ships', async () => {
    expect((await listStores(t.services.db, actor)).defaultStoreId).toBe('S1');
    await t.services.db
      .insert(accountSettings)
      .values({ accountId: world.accountId, key: 'shipping_location', value: { store_id: 'S2' } });
    expect((await listStores(t.services.db, actor)).defaultStoreId).toBe('S2');
    const list = await listQueue(t.services.db, actor, { filter: { scope: 'pickup' } });
    expect(list.store?.storeId).toBe('S2');
    expect(list.results.map((r) => r.id)).toEqual([atS2]);
    await t.services.db.delete(accountSettings).where(eq(accountSettings.accountId, world.accountId));
  });

  it('holds each scope of the store, with counts per scope, and tells curbside from in-store pickup', async () => {
    const toShip = await listQueue(t.services.db, actor, { filter: { store_id: 'S1' } });
    expect(toShip.results.map((r) => r.id)).toContain(ship);
    expect(toShip.results.map((r) => r.id)).not.toContain(pickup);
    const item = toShip.results.find((r) => r.id === ship);
    expect(item).toMatchObject({ units: 3, pickedUnits: 0, fulfillmentType: 'ship' });
    expect(item?.skus.sort()).toEqual(['CAP-1', 'TEE-1']);
    const pickups = await listQueue(t.services.db, actor, { filter: { store_id: 'S1', scope: 'pickup' } });
    expect(new Map(pickups.results.map((r) => [r.id, r.fulfillmentType]))).toEqual(
      new Map([
        [curbside, 'curbside_pickup'],
        [pickup, 'pickup'],
      ]),
    );
    const counts = await countQueue(t.services.db, actor, { filter: { store_id: 'S1' } });
    expect(counts.counts).toMatchObject({ toShip: 1, pickup: 2, shipped: 0, cancelled: 0, flagged: 0 });
    // The "All" tab (the empty scope) is counted too, as many as its list holds.
    const all = await listQueue(t.services.db, actor, { filter: { store_id: 'S1', scope: '' } });
    expect(all.results.map((r) => r.id).sort()).toEqual([ship, pickup, curbside].sort());
    expect(counts.counts.all).toBe(3);
    expect(counts.capped).toEqual([]);
    const atS2Counts = await countQueue(t.services.db, actor, { store_id: 'S2' });
    expect(atS2Counts.counts).toMatchObject({ pickup: 1, all: 1 });
    expect((await countQueue(t.services.db, actor, { store_id: 'S1', skus: 'CAP-1' })).counts.all).toBe(2);
  });

  it('filters by SKUs and order ids, sorts and pages', async () => {
    const bySku = await listQueue(t.services.db, actor, { filter: { store_id: 'S1', scope: '', skus: 'CAP-1' } });
    expect(bySku.results.map((r) => r.id).sort()).toEqual([ship, curbside].sort());
    const number = (await orderRow(pickup))?.number as string;
    const byId = await listQueue(t.services.db, actor, {
      filter: { store_id: 'S1', scope: '', order_ids: `${number}` },
    });
    expect(byId.results.map((r) => r.id)).toEqual([pickup]);
    const flat = await listQueue(t.services.db, actor, { scope: 'pickup', store_id: 'S1', sort: 'id', order: 'asc' });
    expect(flat.results.map((r) => r.id)).toEqual([pickup, curbside].sort());
    const page = await listQueue(t.services.db, actor, {
      filter: { store_id: 'S1', scope: 'pickup' },
      limit: 1,
      offset: 1,
    });
    expect(page).toMatchObject({ total: 2, limit: 1, offset: 1 });
    expect(page.results).toHaveLength(1);
    await expect(listQueue(t.services.db, actor, { filter: { store_id: 'NOPE' } })).rejects.toThrow(
      'No location has store id NOPE.',
    );
  });

  it('scans each unit by barcode or SKU, says so of a wrong item, then packs', async () => {
    const wrong = await scan(t.services, actor, { id: ship, code: 'TEE-2' });
    expect(wrong).toMatchObject({ ok: false, message: 'Wrong item: TEE-2 is not on this order.' });
    expect(wrong.order.step).toBe('pick');
    await expect(pack(t.services, actor, { id: ship })).rejects.toThrow('Pick every line before packing.');
    expect(await scan(t.services, actor, { id: ship, code: '0123456789012' })).toMatchObject({
      ok: true,
      message: 'TEE-1: 1 of 2 picked.',
    });
    expect((await scan(t.services, actor, { id: ship, code: 'tee-1' })).message).toBe('TEE-1: 2 of 2 picked.');
    expect(await scan(t.services, actor, { id: ship, code: 'TEE-1' })).toMatchObject({
      ok: false,
      message: 'TEE-1 is already picked in full.',
    });
    const last = await scan(t.services, actor, { id: ship, code: 'CAP-1' });
    expect(last.order.step).toBe('pack');
    expect(last.order.lines.map((l) => l.status)).toEqual([2, 2]);
    const packed = await pack(t.services, actor, { id: ship });
    expect(packed).toMatchObject({ step: 'ship', packed: true });
    const list = await listQueue(t.services.db, actor, { filter: { store_id: 'S1', order_ids: ship } });
    expect(list.results[0]).toMatchObject({ units: 3, pickedUnits: 3, packed: true });
  });

  it('the picking list groups the units to pick by SKU with the orders they serve, and prints', async () => {
    const list = await pickingList(t.services.db, actor, { store_id: 'S1', sort: 'asc' });
    // The shipping order is picked already: only the pickups are left to pick.
    expect(list.rows.map((r) => [r.sku, r.units, r.orders.map((o) => o.id)])).toEqual([
      ['CAP-1', 1, [curbside]],
      ['TEE-2', 1, [pickup]],
    ]);
    expect(list).toMatchObject({ orders: 2, units: 2 });
    const pdf = await pickingListPdf(list);
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
  });

  it('rejecting a line releases it here and routing moves it to another store; rejected everywhere, it is flagged', async () => {
    const { orderId } = await order({ 'TEE-2': 2 });
    const [s1Before, s2Before] = [
      await level(t.services, world, 'TEE-2'),
      await level(t.services, world, 'TEE-2', 'S2'),
    ];
    const detail = await getFulfillmentOrder(t.services.db, actor, orderId);
    expect(detail.store?.storeId).toBe('S1');
    const line = detail.lines[0];
    await expect(
      reject(t.services, actor, { id: orderId, allocation_id: line?.allocationId as string, reason: ' ' }),
    ).rejects.toThrow('Say why the line is rejected.');
    // A store that is not one of ours is refused before anything changes: the line stays where it was.
    await expect(
      reject(t.services, actor, {
        id: orderId,
        store_id: 'NOPE',
        allocation_id: line?.allocationId as string,
        reason: 'Damaged on the shelf',
      }),
    ).rejects.toThrow('NOPE');
    expect((await getFulfillmentOrder(t.services.db, actor, orderId)).lines[0]).toMatchObject({ status: 1 });
    expect(await level(t.services, world, 'TEE-2')).toEqual(s1Before);
    await scan(t.services, actor, { id: orderId, code: 'TEE-2' });
    await reject(t.services, actor, {
      id: orderId,
      allocation_id: line?.allocationId as string,
      reason: 'Damaged on the shelf',
    });
    // Routing took the line to S2 (the only other store): reserved moved from S1 to S2.
    expect(await level(t.services, world, 'TEE-2')).toEqual({
      onHand: s1Before.onHand,
      reserved: s1Before.reserved - 2,
    });
    expect(await level(t.services, world, 'TEE-2', 'S2')).toEqual({
      onHand: s2Before.onHand,
      reserved: s2Before.reserved + 2,
    });
    const atS2 = await getFulfillmentOrder(t.services.db, actor, orderId, 'S2');
    expect(atS2.lines[0]).toMatchObject({ status: 1, scanned: 0 });
    expect(atS2.lines[0]?.reason).toContain('Damaged on the shelf');
    expect((await listQueue(t.services.db, actor, { filter: { store_id: 'S2' } })).results.map((r) => r.id)).toContain(
      orderId,
    );
    // S2 cannot fill it either: no store is left, the line stays rejected and the order is flagged.
    const rejected = await reject(t.services, actor, {
      id: orderId,
      store_id: 'S2',
      allocation_id: line?.allocationId as string,
      reason: 'Not on the shelf',
    });
    expect(rejected.lines[0]).toMatchObject({ status: 5 });
    expect(rejected.flagged).toBe(true);
    expect(await level(t.services, world, 'TEE-2', 'S2')).toEqual(s2Before);
    const flagged = await listQueue(t.services.db, actor, { filter: { store_id: 'S2', scope: 'flagged' } });
    expect(flagged.results.map((r) => r.id)).toContain(orderId);
    expect(await invariantViolations(t.services, world.accountId)).toEqual([]);
  });

  it('another account cannot see or work the order', async () => {
    const other = await orderWorld(t.services, ['TEE-1'], 1);
    const stranger: Actor = { ...actor, accountId: other.accountId };
    await expect(getFulfillmentOrder(t.services.db, stranger, ship)).rejects.toThrow('Order not found');
    await expect(scan(t.services, stranger, { id: ship, code: 'TEE-1' })).rejects.toBeInstanceOf(DomainError);
    await expect(readyForPickup(t.services, stranger, pickup)).rejects.toThrow('Order not found');
  });
});

describe('pickup and curbside', () => {
  it('ready for pickup e-mails the customer; picked up moves the units out of on hand once', async () => {
    const before = await level(t.services, world, 'TEE-1');
    const { orderId } = await order({ 'TEE-1': 3 }, pickupAt('S1', 'curbside_pickup'));
    expect(await level(t.services, world, 'TEE-1')).toEqual({ onHand: before.onHand, reserved: before.reserved + 3 });
    await expect(pickedUp(t.services, actor, 'ord_nope')).rejects.toThrow('Order not found');

    const ready = await readyForPickup(t.services, actor, orderId);
    expect(ready).toMatchObject({ status: 4, canPickUp: true, canReadyForPickup: false });
    expect(ready.lines.map((l) => l.status)).toEqual([2]);
    const mails = await t.services.db.select().from(mailMessages).where(eq(mailMessages.to, 'grace@example.com'));
    const readyMail = mails.find((m) => m.template === 'pickup_ready');
    expect(readyMail?.subject).toMatch(/is ready for pickup$/);
    expect(readyMail?.text).toContain('curbside pickup at Store S1');
    // A second click changes nothing and sends nothing.
    await readyForPickup(t.services, actor, orderId);
    expect(
      (await t.services.db.select().from(mailMessages).where(eq(mailMessages.template, 'pickup_ready'))).filter(
        (m) => m.to === 'grace@example.com',
      ),
    ).toHaveLength(1);

    const done = await pickedUp(t.services, actor, orderId);
    expect(done).toMatchObject({ status: 5, step: 'done', canPickUp: false });
    expect(done.lines.map((l) => l.status)).toEqual([3]);
    expect(await level(t.services, world, 'TEE-1')).toEqual({ onHand: before.onHand - 3, reserved: before.reserved });
    await pickedUp(t.services, actor, orderId);
    expect(await level(t.services, world, 'TEE-1')).toEqual({ onHand: before.onHand - 3, reserved: before.reserved });
    expect(
      (await t.services.db.select().from(mailMessages).where(eq(mailMessages.template, 'picked_up'))).length,
    ).toBeGreaterThan(0);

    // The channel then reports the same fulfilment (Shopify fulfilled the pickup fulfillment order): nothing
    // more leaves the store.
    const row = await orderRow(orderId);
    const ours = await t.services.db.select().from(orderLines).where(eq(orderLines.orderId, orderId));
    const later = channelOrder(world, 'shopify', { 'TEE-1': 3 }, { ...pickupAt('S1', 'curbside_pickup') });
    await ingestOrder(t.services, world.channel.shopify, {
      ...later,
      externalId: row?.externalId as string,
      createdAt: row?.placedAt.toISOString() as string,
      updatedAt: new Date(Date.now() + 1000).toISOString(),
      fulfillmentStatus: 'fulfilled',
      lines: later.lines.map((l) => ({ ...l, externalId: ours[0]?.externalId as string, fulfilledQuantity: 3 })),
    });
    expect(await level(t.services, world, 'TEE-1')).toEqual({ onHand: before.onHand - 3, reserved: before.reserved });
    expect((await orderRow(orderId))?.status).toBe(5);
    const timeline = await t.services.db
      .select()
      .from(orderEvents)
      .where(and(eq(orderEvents.orderId, orderId), eq(orderEvents.kind, 'status')));
    expect(timeline.map((e) => e.toStatus)).toEqual([4, 5]);
    expect(await invariantViolations(t.services, world.accountId)).toEqual([]);
  });

  it('refuses a shipping order and a cancelled one, with the reason', async () => {
    const { orderId } = await order({ 'CAP-1': 1 });
    await expect(readyForPickup(t.services, actor, orderId)).rejects.toThrow(
      'Only pickup and curbside orders go ready for pickup.',
    );
    // "Picked up" on a shipping order names that verb, not ready for pickup.
    await expect(pickedUp(t.services, actor, orderId)).rejects.toThrow(
      'Only pickup and curbside orders are picked up.',
    );
    const cancelled = (await order({ 'CAP-1': 1 }, { ...pickupAt('S1'), cancelled: true })).orderId;
    await expect(pickedUp(t.services, actor, cancelled)).rejects.toThrow(
      'An order that is cancelled cannot be picked up.',
    );
    const allocations = await t.services.db
      .select()
      .from(orderAllocations)
      .where(eq(orderAllocations.orderId, cancelled));
    expect(allocations.every((a) => a.reserved === 0)).toBe(true);
  });
});
