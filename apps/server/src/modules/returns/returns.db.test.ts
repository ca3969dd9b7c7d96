// Returns against a real database (PGlite, and a server with TEST_DATABASE_URL): a channel's return is taken in
// once and restocks once whatever the deliveries; a channel's own restock counts once in either arrival order;
// SKIPPED and ERROR say why, and retry finishes an ERROR once fixed; a return made here from an order restocks
// at the store chosen, refunds the order's lines and queues its write-back.
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../../../test/app.ts';
import type { ProviderReturn } from '../../connectors/types.ts';
import { newId } from '../../lib/ids.ts';
import type { Actor } from '../../trpc/context.ts';
import { inventoryMovements } from '../inventory/inventory.tables.ts';
import { ingestOrder } from '../orders/ingest.ts';
import { channelOrder, level, type OrderWorld, orderWorld, report, sendReports } from '../orders/orders.fixtures.ts';
import { orderEvents, orderLines, orders } from '../orders/orders.tables.ts';
import { products, variants } from '../products/products.tables.ts';
import { syncs } from '../syncs/syncs.tables.ts';
import { ingestReturn } from './returns.ingest.ts';
import { createReturn, listReturns, retryReturn } from './returns.service.ts';
import { returns } from './returns.tables.ts';

let t: Awaited<ReturnType<typeof createTestApp>>;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

let seq = 0;
function channelReturn(
  items: { sku: string; qty: number; store?: string | null; restock?: boolean; channelRestocked?: boolean }[],
  options: Partial<ProviderReturn> & { at?: Date; type?: 'shopify' | 'bigcommerce' | 'square' } = {},
): ProviderReturn {
  const n = ++seq;
  const at = (options.at ?? new Date()).toISOString();
  const ext = (store: string) => (options.type === 'square' ? store : `ext-${store}`);
  const { at: _a, type: _t, ...rest } = options;
  return {
    externalId: `refund-${n}-${Math.random().toString(36).slice(2, 8)}`,
    orderExternalId: null,
    createdAt: at,
    updatedAt: at,
    status: 'completed',
    receiptNumber: `R-${n}`,
    billName: null,
    currency: 'USD',
    tax: 0,
    adjustment: 0,
    total: items.reduce((s, i) => s + i.qty * 2500, 0),
    items: items.map((i, position) => ({
      lineExternalId: `line-${position}`,
      sku: i.sku,
      quantity: i.qty,
      total: i.qty * 2500,
      restock: i.restock ?? true,
      locationExternalId: i.store === null ? null : ext(i.store ?? 'S1'),
      channelRestocked: i.channelRestocked ?? false,
    })),
    ...rest,
  };
}

const returnRow = async (id: string) => (await t.services.db.select().from(returns).where(eq(returns.id, id)))[0];
const movementsOf = (returnId: string) =>
  t.services.db.select().from(inventoryMovements).where(eq(inventoryMovements.reference, returnId));
const actorOf = async (world: OrderWorld): Promise<Actor> => {
  return {
    sessionId: 'test',
    userId: 'test',
    accountId: world.accountId,
    authorizationLevel: 'user',
    superUserRole: null,
  };
};

describe('a channel return is taken in once', () => {
  let world: OrderWorld;
  beforeAll(async () => {
    world = await orderWorld(t.services, ['RT-1', 'RT-2'], 10);
  });

  it('restocks at its return store once, however often it is delivered', async () => {
    const ret = channelReturn([{ sku: 'RT-1', qty: 2, store: 'S2' }]);
    const first = await ingestReturn(t.services, world.channel.shopify.row, ret);
    expect(first.outcome).toBe('created');
    expect(await level(t.services, world, 'RT-1', 'S2')).toEqual({ onHand: 12, reserved: 0 });
    expect((await ingestReturn(t.services, world.channel.shopify.row, ret)).outcome).toBe('unchanged');
    expect(await level(t.services, world, 'RT-1', 'S2')).toEqual({ onHand: 12, reserved: 0 });
    const row = await returnRow(first.returnId);
    expect(row).toMatchObject({ status: 'FINISHED', message: null, total: 5000 });
    const moved = await movementsOf(first.returnId);
    expect(moved).toHaveLength(1);
    expect(moved[0]).toMatchObject({ delta: 2, reason: 'return', locationId: world.location.S2 });
  });

  it('a completed report before its older pending one restocks once; pending then completed restocks on completion', async () => {
    const at = new Date(Date.now() - 60_000);
    const pending = channelReturn([{ sku: 'RT-2', qty: 1 }], { at, status: 'pending' });
    const completed = {
      ...pending,
      status: 'completed' as const,
      updatedAt: new Date(at.getTime() + 5000).toISOString(),
    };
    const a = await ingestReturn(t.services, world.channel.bigcommerce.row, completed);
    expect((await ingestReturn(t.services, world.channel.bigcommerce.row, pending)).outcome).toBe('older');
    expect((await returnRow(a.returnId))?.status).toBe('FINISHED');
    expect(await level(t.services, world, 'RT-2', 'S1')).toEqual({ onHand: 11, reserved: 0 });

    const later = channelReturn([{ sku: 'RT-2', qty: 3 }], { at, status: 'pending' });
    const b = await ingestReturn(t.services, world.channel.bigcommerce.row, later);
    expect(await returnRow(b.returnId)).toMatchObject({ status: 'PENDING' });
    expect(await level(t.services, world, 'RT-2', 'S1')).toEqual({ onHand: 11, reserved: 0 });
    const done = { ...later, status: 'completed' as const, updatedAt: new Date(at.getTime() + 9000).toISOString() };
    expect((await ingestReturn(t.services, world.channel.bigcommerce.row, done)).outcome).toBe('updated');
    expect((await ingestReturn(t.services, world.channel.bigcommerce.row, done)).outcome).toBe('unchanged');
    expect(await level(t.services, world, 'RT-2', 'S1')).toEqual({ onHand: 14, reserved: 0 });
  });

  it('finds it by its id or its order id in the list, newest first, with its items and stores', async () => {
    const list = await listReturns(t.services.db, { accountId: world.accountId }, { limit: 2 });
    expect(list.total).toBe(3);
    expect(list.results).toHaveLength(2);
    const all = await listReturns(t.services.db, { accountId: world.accountId }, {});
    const first = all.results.at(-1);
    expect(first?.items[0]).toMatchObject({ sku: 'RT-1', qty: 2, return_store: 'S2', return_store_name: 'Store S2' });
    const found = await listReturns(t.services.db, { accountId: world.accountId }, { external_id: first?.external_id });
    expect(found.results.map((r) => r.id)).toEqual([first?.id]);
  });
});

describe.each(['shopify', 'square'] as const)('a %s return the channel restocked itself counts once', (type) => {
  let world: OrderWorld;
  beforeAll(async () => {
    world = await orderWorld(t.services, ['CR-1'], 10);
  });

  it('return first, then the channel reports its higher stock: the report is met, not counted', async () => {
    const at = new Date(Date.now() - 5000);
    await ingestReturn(
      t.services,
      world.channel[type].row,
      channelReturn([{ sku: 'CR-1', qty: 2, channelRestocked: true }], { at, type }),
    );
    expect(await level(t.services, world, 'CR-1')).toEqual({ onHand: 12, reserved: 0 });
    const result = await sendReports(t.services, world, type, [report(world, type, 'CR-1', 12, at)]);
    expect(result.changed).toBe(0);
    expect(await level(t.services, world, 'CR-1')).toEqual({ onHand: 12, reserved: 0 });
  });

  it('the channel report first, then the return: the counted report is reversed and the units restocked once', async () => {
    const at = new Date(Date.now() - 2000);
    // The channel held 12 after the first test; it restocked 1 more and said so before the return came.
    await sendReports(t.services, world, type, [report(world, type, 'CR-1', 13, at)]);
    expect(await level(t.services, world, 'CR-1')).toEqual({ onHand: 13, reserved: 0 });
    const { returnId } = await ingestReturn(
      t.services,
      world.channel[type].row,
      channelReturn([{ sku: 'CR-1', qty: 1, channelRestocked: true }], { at, type }),
    );
    expect(await level(t.services, world, 'CR-1')).toEqual({ onHand: 13, reserved: 0 });
    const moved = await movementsOf(returnId);
    expect(moved.map((m) => m.delta).sort()).toEqual([-1, 1]);
    expect(moved.every((m) => m.reason === 'return')).toBe(true);
  });
});

describe('a Shopify return restocked before it was refunded', () => {
  let world: OrderWorld;
  beforeAll(async () => {
    world = await orderWorld(t.services, ['PL-1'], 10);
  });

  it("takes the refund's money when it comes, and moves no stock again", async () => {
    const at = new Date(Date.now() - 60_000);
    // Disposed of (one unit restocked at its store, one damaged), not refunded yet: processed with no money.
    const unpaid = channelReturn(
      [
        { sku: 'PL-1', qty: 1, channelRestocked: true },
        { sku: 'PL-1', qty: 1, restock: false },
      ],
      { at, total: 0, receiptNumber: '#1001-R1' },
    );
    unpaid.items = unpaid.items.map((i) => ({ ...i, lineExternalId: 'line-0', total: 0 }));
    const first = await ingestReturn(t.services, world.channel.shopify.row, unpaid);
    expect(await returnRow(first.returnId)).toMatchObject({ status: 'FINISHED', total: 0 });
    expect(await level(t.services, world, 'PL-1')).toEqual({ onHand: 11, reserved: 0 });
    // The refund of it, read later (closed and paid): the same return, now with its money.
    const paid = {
      ...unpaid,
      updatedAt: new Date(at.getTime() + 30_000).toISOString(),
      total: 5300,
      tax: 300,
      adjustment: 0,
      items: unpaid.items.map((i) => ({ ...i, total: 2650 })),
    };
    expect((await ingestReturn(t.services, world.channel.shopify.row, paid)).outcome).toBe('updated');
    expect(await returnRow(first.returnId)).toMatchObject({ status: 'FINISHED', total: 5300, tax: 300 });
    const listed = await listReturns(t.services.db, { accountId: world.accountId }, { external_id: unpaid.externalId });
    expect(listed.results[0]?.items.map((i) => i.total)).toEqual([2650, 2650]);
    expect(await level(t.services, world, 'PL-1')).toEqual({ onHand: 11, reserved: 0 });
    expect(await movementsOf(first.returnId)).toHaveLength(1);
  });
});

describe('outcomes: skipped and error, and retry', () => {
  let world: OrderWorld;
  beforeAll(async () => {
    world = await orderWorld(t.services, ['OK-1'], 5);
  });

  it('SKIPPED with why when nothing goes back on sale', async () => {
    const damaged = await ingestReturn(
      t.services,
      world.channel.shopify.row,
      channelReturn([{ sku: 'OK-1', qty: 1, restock: false }]),
    );
    expect(await returnRow(damaged.returnId)).toMatchObject({
      status: 'SKIPPED',
      message: expect.stringContaining('Nothing to restock'),
    });
    const money = await ingestReturn(t.services, world.channel.shopify.row, { ...channelReturn([]), total: 500 });
    expect((await returnRow(money.returnId))?.message).toContain('a refund of money only');
    expect(await level(t.services, world, 'OK-1')).toEqual({ onHand: 5, reserved: 0 });
  });

  it('ERROR names an unknown SKU and a store that is not ours; retry finishes it once fixed', async () => {
    const unknown = await ingestReturn(
      t.services,
      world.channel.shopify.row,
      channelReturn([
        { sku: 'NEW-9', qty: 1 },
        { sku: 'OK-1', qty: 1 },
      ]),
    );
    const row = await returnRow(unknown.returnId);
    expect(row?.status).toBe('ERROR');
    expect(row?.message).toContain('SKU NEW-9 is not in your catalog');
    // Nothing moved: a return is restocked whole or not at all.
    expect(await level(t.services, world, 'OK-1')).toEqual({ onHand: 5, reserved: 0 });
    const foreign = await ingestReturn(
      t.services,
      world.channel.shopify.row,
      channelReturn([{ sku: 'OK-1', qty: 1, store: 'S9' }]),
    );
    expect((await returnRow(foreign.returnId))?.message).toContain(
      'The return store ext-S9 is not one of your locations',
    );

    const actor = await actorOf(world);
    const [product] = await t.services.db.select().from(products).where(eq(products.accountId, world.accountId));
    await t.services.db
      .insert(variants)
      .values({ id: newId('var'), accountId: world.accountId, productId: product?.id as string, sku: 'NEW-9' });
    const retried = await retryReturn(t.services, actor, unknown.returnId);
    expect(retried.status).toBe('FINISHED');
    expect(await level(t.services, world, 'OK-1')).toEqual({ onHand: 6, reserved: 0 });
    await expect(retryReturn(t.services, actor, unknown.returnId)).rejects.toMatchObject({ code: 'INVALID_STATE' });
    expect(await level(t.services, world, 'OK-1')).toEqual({ onHand: 6, reserved: 0 });
  });
});

describe('a return made here from an order', () => {
  let world: OrderWorld;
  let orderId: string;
  let lineId: string;
  beforeAll(async () => {
    world = await orderWorld(t.services, ['SH-1', 'SH-2'], 10);
    const at = new Date(Date.now() - 60_000);
    const order = channelOrder(world, 'shopify', { 'SH-1': 2, 'SH-2': 1 }, { at });
    ({ orderId } = await ingestOrder(t.services, world.channel.shopify, order));
    // Shipped at the channel: the units left S1.
    await ingestOrder(t.services, world.channel.shopify, {
      ...order,
      updatedAt: new Date(at.getTime() + 10_000).toISOString(),
      fulfillmentStatus: 'fulfilled',
      lines: order.lines.map((l) => ({ ...l, fulfilledQuantity: l.quantity })),
    });
    const [line] = await t.services.db
      .select()
      .from(orderLines)
      .where(and(eq(orderLines.orderId, orderId), eq(orderLines.sku, 'SH-1')));
    lineId = line?.id as string;
  });

  it('refuses what cannot be: too many units, a store not ours, a refund above what was paid', async () => {
    const actor = await actorOf(world);
    const base = { order_id: orderId, location_id: world.location.S2 as string };
    await expect(createReturn(t.services, actor, { ...base, lines: [] })).rejects.toMatchObject({ code: 'VALIDATION' });
    await expect(
      createReturn(t.services, actor, { ...base, lines: [{ line_id: lineId, qty: 3 }] }),
    ).rejects.toMatchObject({ code: 'VALIDATION', message: 'SH-1: at most 2 units are left to return.' });
    await expect(
      createReturn(t.services, actor, { ...base, location_id: 'loc_nope', lines: [{ line_id: lineId, qty: 1 }] }),
    ).rejects.toMatchObject({ code: 'VALIDATION' });
    await expect(
      createReturn(t.services, actor, { ...base, adjustment: 1_000_000, lines: [{ line_id: lineId, qty: 1 }] }),
    ).rejects.toMatchObject({ code: 'VALIDATION', message: expect.stringContaining('more than what was paid') });
  });

  it('restocks at the store chosen, leaves damaged units out, refunds the lines and queues the write-back', async () => {
    const actor = await actorOf(world);
    const before = {
      s1: await level(t.services, world, 'SH-1', 'S1'),
      s2: await level(t.services, world, 'SH-1', 'S2'),
    };
    const [other] = await t.services.db
      .select()
      .from(orderLines)
      .where(and(eq(orderLines.orderId, orderId), eq(orderLines.sku, 'SH-2')));
    const ret = await createReturn(t.services, actor, {
      order_id: orderId,
      location_id: world.location.S2 as string,
      lines: [
        { line_id: lineId, qty: 1, restock: true },
        { line_id: other?.id as string, qty: 1, restock: false },
      ],
      adjustment: -200,
    });
    expect(ret).toMatchObject({
      status: 'FINISHED',
      source: 'switchyard',
      refund_state: 'pending',
      total: 4800,
      adjustment: -200,
    });
    expect(ret.items.map((i) => [i.sku, i.qty, i.return_store, i.restock])).toEqual([
      ['SH-1', 1, 'S2', true],
      ['SH-2', 1, 'S2', false],
    ]);
    expect(await level(t.services, world, 'SH-1', 'S2')).toEqual({ onHand: before.s2.onHand + 1, reserved: 0 });
    expect(await level(t.services, world, 'SH-1', 'S1')).toEqual(before.s1);
    expect(await level(t.services, world, 'SH-2', 'S2')).toEqual({ onHand: 10, reserved: 0 });
    const lines = await t.services.db.select().from(orderLines).where(eq(orderLines.orderId, orderId));
    expect(lines.map((l) => [l.sku, l.refundedQty]).sort()).toEqual([
      ['SH-1', 1],
      ['SH-2', 1],
    ]);
    const timeline = await t.services.db.select().from(orderEvents).where(eq(orderEvents.orderId, orderId));
    expect(timeline.find((e) => e.kind === 'returned')?.message).toContain('1 × SH-1 back on hand at Store S2');
    expect(timeline.find((e) => e.kind === 'write_back')?.outcome).toBe('pending');
    const [run] = await t.services.db.select().from(syncs).where(eq(syncs.accountId, world.accountId));
    expect(run).toMatchObject({ type: 'refund', status: 'queued', channelId: world.channel.shopify.id });

    // The last unit of SH-1 back: every unit of the order is refunded, so the order is Refunded.
    await createReturn(t.services, actor, {
      order_id: orderId,
      location_id: world.location.S1 as string,
      lines: [{ line_id: lineId, qty: 1 }],
    });
    const [order] = await t.services.db.select().from(orders).where(eq(orders.id, orderId));
    expect(order?.status).toBe(8);
  });
});

describe('the channel reports our written-back refund', () => {
  it('is the same return, and a restock the channel made for it counts once', async () => {
    const world = await orderWorld(t.services, ['WB-1'], 10);
    const at = new Date(Date.now() - 60_000);
    const order = channelOrder(world, 'shopify', { 'WB-1': 1 }, { at });
    const { orderId } = await ingestOrder(t.services, world.channel.shopify, order);
    await ingestOrder(t.services, world.channel.shopify, {
      ...order,
      updatedAt: new Date(at.getTime() + 5000).toISOString(),
      fulfillmentStatus: 'fulfilled',
      lines: order.lines.map((l) => ({ ...l, fulfilledQuantity: l.quantity })),
    });
    const [line] = await t.services.db.select().from(orderLines).where(eq(orderLines.orderId, orderId));
    const made = await createReturn(t.services, await actorOf(world), {
      order_id: orderId,
      location_id: world.location.S1 as string,
      lines: [{ line_id: line?.id as string, qty: 1 }],
    });
    const afterOurs = await level(t.services, world, 'WB-1');
    // Its report before the write-back is answered waits (the webhook job is retried).
    const channelSays = {
      ...channelReturn([{ sku: 'WB-1', qty: 1, channelRestocked: true }]),
      externalId: 'gid://shopify/Refund/77',
      orderExternalId: order.externalId,
      items: [
        {
          lineExternalId: order.lines[0]?.externalId ?? null,
          sku: 'WB-1',
          quantity: 1,
          total: 2500,
          restock: true,
          locationExternalId: 'ext-S1',
          channelRestocked: true,
        },
      ],
    };
    await expect(ingestReturn(t.services, world.channel.shopify.row, channelSays)).rejects.toMatchObject({
      code: 'CONFLICT',
    });
    // The write-back answered without reading the refund back; then the channel's report of it comes.
    await t.services.db
      .update(returns)
      .set({ refundState: 'ok', externalId: 'gid://shopify/Refund/77' })
      .where(eq(returns.id, made.id));
    expect((await ingestReturn(t.services, world.channel.shopify.row, channelSays)).outcome).toBe('updated');
    const all = await listReturns(t.services.db, { accountId: world.accountId }, {});
    expect(all.total).toBe(1);
    // Shopify put the unit back on its own stock too (10 → 11 at ext-S1): met, not counted again.
    await sendReports(t.services, world, 'shopify', [report(world, 'shopify', 'WB-1', 11, new Date())]);
    expect(await level(t.services, world, 'WB-1')).toEqual(afterOurs);
  });
});

describe('the calls refuse bad input with a clear message', () => {
  it('v2 GET returns and returns.create answer 400 naming what is wrong', async () => {
    const world = await orderWorld(t.services, ['BAD-1'], 1);
    const res = await t.app.inject({ url: '/api/v2/returns?limit=0', headers: world.headers });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('limit must be a whole number from 1 to 200');
    const ok = await t.app.inject({ url: '/api/v2/returns?external_id=nothing', headers: world.headers });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ results: [], total: 0, limit: 25, offset: 0 });
    const bad = await t.app.inject({
      method: 'POST',
      url: '/api/trpc/returns.create',
      headers: { ...world.headers, 'content-type': 'application/json' },
      payload: { json: { order_id: 'ord_x', location_id: 'loc_x', lines: [{ line_id: 'l', qty: -1 }] } },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('Quantities cannot be negative');
  });
});
