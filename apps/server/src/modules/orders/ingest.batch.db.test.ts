// Orders taken in several per transaction (ingestOrders, the order-events pass): the same end as taking each in
// alone; one bad order fails alone; a crash mid-batch leaves nothing of it, and taking the batch again takes all,
// each sale counted once. PGlite, and PostgreSQL with TEST_DATABASE_URL.
import { and, eq, inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../../../test/app.ts';
import type { ProviderOrder as ChannelOrder } from '../../connectors/types.ts';
import { channelStockClaims, inventoryMovements } from '../inventory/inventory.tables.ts';
import { rowsOf } from '../inventory/ledger.ts';
import { metricFacts } from '../metrics/metrics.tables.ts';
import { ingestOrder, ingestOrders, ORDERS_PER_TRANSACTION } from './ingest.ts';
import {
  channelOrder,
  invariantViolations,
  level,
  type OrderWorld,
  orderWorld,
  report,
  sendReports,
} from './orders.fixtures.ts';
import { orderAllocations, orderEvents, orderLines, orders } from './orders.tables.ts';

let t: Awaited<ReturnType<typeof createTestApp>>;
beforeAll(async () => {
  t = await createTestApp();
  // A statement that fails on purpose: an order line of SKU BOOM (a bad order), or, from the nth claim or movement
  // made on (a sequence: it is not rolled back), every one (the process died; deleting the row is its restart).
  for (const statement of [
    sql`create sequence if not exists batch_crash_seq`,
    sql`create table if not exists batch_crash_from (n bigint)`,
    sql.raw(`create or replace function batch_boom() returns trigger language plpgsql as $$
      begin
        if new.sku = 'BOOM' then raise exception 'a bad order line'; end if;
        return new;
      end $$`),
    sql.raw(`create or replace function batch_crash() returns trigger language plpgsql as $$
      begin
        if exists (select 1 from batch_crash_from where nextval('batch_crash_seq') >= n) then
          raise exception 'simulated crash';
        end if;
        return new;
      end $$`),
    sql`create trigger batch_boom before insert on order_lines for each row execute function batch_boom()`,
    sql`create trigger batch_crash_claims before insert on channel_stock_claims for each row execute function batch_crash()`,
    sql`create trigger batch_crash_movements before insert on inventory_movements for each row execute function batch_crash()`,
  ])
    await t.services.db.execute(statement);
});
afterAll(async () => {
  await t?.close();
});

const SKUS = ['TEE-1', 'TEE-2', 'TEE-3'];

/** The same mix of orders for a world: web orders of one to three SKUs at either store, a POS sale complete at
 * its store, an order first seen cancelled, one of an unknown SKU, one the last units of TEE-3 cannot cover. */
function mix(world: OrderWorld, at: Date): ChannelOrder[] {
  const o = (type: 'shopify' | 'bigcommerce' | 'square', lines: Record<string, number>, extra = {}) =>
    channelOrder(world, type, lines, { at, ...extra });
  return [
    o('shopify', { 'TEE-1': 1 }),
    o('shopify', { 'TEE-2': 2, 'TEE-1': 1 }, { store: 'S2' }),
    o('shopify', { 'TEE-3': 3 }),
    o('shopify', { 'TEE-3': 3 }),
    o('shopify', { 'TEE-3': 3 }),
    o('shopify', { 'TEE-1': 1, 'NOPE-9': 1 }),
    o('shopify', { 'TEE-2': 1 }, { cancelled: true, cancelledAt: at.toISOString() }),
    o('shopify', { 'TEE-1': 2, 'TEE-2': 1, 'TEE-3': 1 }, { store: 'S2' }),
  ];
}

/** What an order came to, without its ids: status, flag, and each line's allocations. */
async function shapeOf(orderId: string) {
  const [order] = await t.services.db.select().from(orders).where(eq(orders.id, orderId));
  const lines = await t.services.db
    .select()
    .from(orderLines)
    .where(eq(orderLines.orderId, orderId))
    .orderBy(orderLines.position);
  const allocations = await t.services.db.select().from(orderAllocations).where(eq(orderAllocations.orderId, orderId));
  const timeline = await t.services.db.select().from(orderEvents).where(eq(orderEvents.orderId, orderId));
  const facts = await t.services.db.select().from(metricFacts).where(eq(metricFacts.sourceId, orderId));
  return {
    status: order?.status,
    flagged: order?.flagged,
    lines: lines.map((l) => ({
      sku: l.sku,
      claimed: l.channelClaimed,
      restockClaimed: l.channelRestockClaimed,
      allocations: allocations
        .filter((a) => a.lineId === l.id)
        .map((a) => ({ status: a.status, quantity: a.quantity, reserved: a.reserved }))
        .sort((a, b) => a.status - b.status || a.quantity - b.quantity),
    })),
    timeline: timeline.map((e) => e.kind).sort(),
    facts: facts.length,
  };
}

/** A SKU's stock over both stores (where routing placed it is routing's business). */
async function total(world: OrderWorld, sku: string) {
  const [a, b] = [await level(t.services, world, sku, 'S1'), await level(t.services, world, sku, 'S2')];
  return { onHand: a.onHand + b.onHand, reserved: a.reserved + b.reserved };
}

async function levelsOf(world: OrderWorld) {
  const out: Record<string, unknown> = {};
  for (const sku of SKUS)
    for (const store of ['S1', 'S2']) out[`${sku}@${store}`] = await level(t.services, world, sku, store);
  return out;
}

describe('orders taken in several per transaction', () => {
  it('come to what taking each in alone comes to: allocations, claims, flags, timeline, rollups and stock', async () => {
    const at = new Date(Date.now() - 10_000);
    const alone = await orderWorld(t.services, SKUS, 5);
    const together = await orderWorld(t.services, SKUS, 5);
    // In both: the channel reported the sale of the first order before it (counted, then reversed by the order).
    for (const world of [alone, together])
      await sendReports(t.services, world, 'shopify', [report(world, 'shopify', 'TEE-1', 4, at)]);
    const one = mix(alone, at);
    const many = mix(together, at);
    // Alone, in the order a batch takes them (by external id), so both meet the last units of TEE-3 alike.
    const results: { orderId: string; outcome: string }[] = [];
    const inBatchOrder = many.map((o, i) => ({ id: o.externalId, i })).sort((a, b) => (a.id < b.id ? -1 : 1));
    for (const { i } of inBatchOrder)
      results[i] = await ingestOrder(t.services, alone.channel.shopify, one[i] as ChannelOrder);
    const batch = await ingestOrders(t.services, together.channel.shopify, many);
    expect(batch.size).toBe(many.length);
    for (const [i, order] of many.entries()) {
      const got = batch.get(order.externalId);
      if (!got || got instanceof Error) throw got ?? new Error(`no result for ${order.externalId}`);
      expect({ i, outcome: got.outcome }).toEqual({ i, outcome: results[i]?.outcome });
      expect({ i, shape: await shapeOf(got.orderId) }).toEqual({
        i,
        shape: await shapeOf(results[i]?.orderId as string),
      });
    }
    expect(await levelsOf(together)).toEqual(await levelsOf(alone));
    // TEE-3: 10 units over both stores, three orders of 3 and one of 1: all placed, at most 10 reserved.
    expect(await invariantViolations(t.services, together.accountId)).toEqual([]);
    expect(await invariantViolations(t.services, alone.accountId)).toEqual([]);
    // Taking the batch again (a redelivery) changes nothing.
    const movementsBefore = await t.services.db
      .select({ n: sql<number>`count(*)::int` })
      .from(inventoryMovements)
      .where(eq(inventoryMovements.accountId, together.accountId));
    const again = await ingestOrders(t.services, together.channel.shopify, many);
    for (const order of many) expect(again.get(order.externalId)).toMatchObject({ outcome: 'unchanged' });
    expect(
      await t.services.db
        .select({ n: sql<number>`count(*)::int` })
        .from(inventoryMovements)
        .where(eq(inventoryMovements.accountId, together.accountId)),
    ).toEqual(movementsBefore);
    expect(await levelsOf(together)).toEqual(await levelsOf(alone));
  });

  it('takes more orders than one transaction holds, and a new order and a known one side by side', async () => {
    const world = await orderWorld(t.services, SKUS, 1000);
    const at = new Date(Date.now() - 10_000);
    const first = Array.from({ length: ORDERS_PER_TRANSACTION + 5 }, (_, i) =>
      channelOrder(world, 'bigcommerce', { [SKUS[i % 3] as string]: 1 }, { at }),
    );
    const taken = await ingestOrders(t.services, world.channel.bigcommerce, first);
    expect([...taken.values()].every((r) => !(r instanceof Error) && r.outcome === 'created')).toBe(true);
    // A later report of the first order (cancelled at the channel) and a new order, in one batch.
    const later = new Date(at.getTime() + 5000).toISOString();
    const cancel = { ...(first[0] as ChannelOrder), cancelled: true, cancelledAt: later, updatedAt: later };
    const fresh = channelOrder(world, 'bigcommerce', { 'TEE-2': 4 }, { at });
    const next = await ingestOrders(t.services, world.channel.bigcommerce, [fresh, cancel]);
    expect(next.get(cancel.externalId)).toMatchObject({ outcome: 'updated' });
    expect(next.get(fresh.externalId)).toMatchObject({ outcome: 'created' });
    expect(await total(world, 'TEE-1')).toEqual({ onHand: 2000, reserved: 9 });
    expect(await total(world, 'TEE-2')).toEqual({ onHand: 2000, reserved: 10 + 4 });
    expect(await invariantViolations(t.services, world.accountId)).toEqual([]);
  });

  it('one bad order fails alone: the others of its transaction are taken in, and it is taken once it can be', async () => {
    const world = await orderWorld(t.services, [...SKUS, 'BOOM'], 10);
    const at = new Date(Date.now() - 10_000);
    const list = [
      channelOrder(world, 'square', { 'TEE-1': 1 }, { at }),
      channelOrder(world, 'square', { 'TEE-2': 1, BOOM: 1 }, { at }),
      channelOrder(world, 'square', { 'TEE-2': 2 }, { at, store: 'S2' }),
      channelOrder(world, 'square', { 'TEE-3': 1 }, { at }),
    ];
    const bad = list[1] as ChannelOrder;
    const results = await ingestOrders(t.services, world.channel.square, list);
    expect(results.get(bad.externalId)).toBeInstanceOf(Error);
    const error = results.get(bad.externalId) as Error & { cause?: Error };
    expect(`${error.message} ${error.cause?.message}`).toMatch(/a bad order line/);
    for (const order of list.filter((o) => o !== bad))
      expect(results.get(order.externalId)).toMatchObject({ outcome: 'created' });
    // Nothing of the bad order: no row, no claim, no reservation.
    const made = await t.services.db.select().from(orders).where(eq(orders.accountId, world.accountId));
    expect(made.map((o) => o.externalId).sort()).toEqual(
      list
        .filter((o) => o !== bad)
        .map((o) => o.externalId)
        .sort(),
    );
    expect(await total(world, 'TEE-2')).toEqual({ onHand: 20, reserved: 2 });
    expect(await total(world, 'TEE-3')).toEqual({ onHand: 20, reserved: 1 });
    expect(await invariantViolations(t.services, world.accountId)).toEqual([]);
    // Once the line can be written (the SKU renamed at the channel, say), the order comes in, once.
    const fixed = { ...bad, lines: bad.lines.map((l) => (l.sku === 'BOOM' ? { ...l, sku: 'TEE-3' } : l)) };
    const retried = await ingestOrders(t.services, world.channel.square, [fixed, ...list.filter((o) => o !== bad)]);
    expect(retried.get(bad.externalId)).toMatchObject({ outcome: 'created' });
    for (const order of list.filter((o) => o !== bad))
      expect(retried.get(order.externalId)).toMatchObject({ outcome: 'unchanged' });
    expect(await total(world, 'TEE-2')).toEqual({ onHand: 20, reserved: 3 });
    expect(await total(world, 'TEE-3')).toEqual({ onHand: 20, reserved: 2 });
    expect(await invariantViolations(t.services, world.accountId)).toEqual([]);
  });

  it('a crash mid-batch leaves nothing of it; taking the batch again takes every order, each sale once', async () => {
    const world = await orderWorld(t.services, SKUS, 10);
    const at = new Date(Date.now() - 10_000);
    // The channel already reported one sale (counted): the order that caused it reverses it, once.
    await sendReports(t.services, world, 'shopify', [report(world, 'shopify', 'TEE-3', 9, at)]);
    const levelsBefore = await levelsOf(world);
    const list = Array.from({ length: 6 }, (_, i) =>
      channelOrder(world, 'shopify', { [SKUS[i % 3] as string]: 1 }, { at, store: i % 2 ? 'S2' : 'S1' }),
    );
    // The process dies at the batch's fourth claim or movement: that statement and every one after fail.
    const [{ n }] = rowsOf<{ n: string }>(await t.services.db.execute(sql`select nextval('batch_crash_seq') as n`)) as [
      { n: string },
    ];
    await t.services.db.execute(sql`insert into batch_crash_from values (${Number(n) + 4})`);
    const crashed = await ingestOrders(t.services, world.channel.shopify, list);
    for (const order of list) expect(crashed.get(order.externalId)).toBeInstanceOf(Error);
    expect(await t.services.db.select().from(orders).where(eq(orders.accountId, world.accountId))).toEqual([]);
    expect(
      await t.services.db
        .select()
        .from(channelStockClaims)
        .where(and(eq(channelStockClaims.accountId, world.accountId), eq(channelStockClaims.kind, 'expected'))),
    ).toEqual([]);
    expect(
      await t.services.db
        .select()
        .from(inventoryMovements)
        .where(and(eq(inventoryMovements.accountId, world.accountId), inArray(inventoryMovements.reason, ['order']))),
    ).toEqual([]);
    expect(await levelsOf(world)).toEqual(levelsBefore);
    // Restarted: the batch again (its events were never marked processed) takes every order, each once.
    await t.services.db.execute(sql`delete from batch_crash_from`);
    const taken = await ingestOrders(t.services, world.channel.shopify, list);
    for (const order of list) expect(taken.get(order.externalId)).toMatchObject({ outcome: 'created' });
    const again = await ingestOrders(t.services, world.channel.shopify, list);
    for (const order of list) expect(again.get(order.externalId)).toMatchObject({ outcome: 'unchanged' });
    // Two orders per SKU; TEE-3's counted sale was reversed by its order (on hand back to 20), once.
    for (const sku of SKUS) expect({ sku, ...(await total(world, sku)) }).toEqual({ sku, onHand: 20, reserved: 2 });
    expect(await invariantViolations(t.services, world.accountId)).toEqual([]);
  });
});
