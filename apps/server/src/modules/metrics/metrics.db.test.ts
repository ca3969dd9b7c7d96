// Dashboard metrics against a real database (PGlite, and a server with TEST_DATABASE_URL): days are the account's
// time zone's, the previous period sits beside the current one, orders imported before the rollups are counted
// after a rebuild, and the REST calls answer bad input with a 400.
import type { Metrics } from '@switchyard/contracts';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../../../test/app.ts';
import { trpcOver } from '../../../test/trpc.ts';
import { newId } from '../../lib/ids.ts';
import type { Actor } from '../../trpc/context.ts';
import { updateAccount } from '../accounts/accounts.service.ts';
import { accounts } from '../accounts/accounts.tables.ts';
import { notifyStockChanges } from '../notifications/notifications.producers.ts';
import { ingestOrder } from '../orders/ingest.ts';
import { channelOrder, type OrderWorld, orderWorld } from '../orders/orders.fixtures.ts';
import { cancelOrder } from '../orders/orders.service.ts';
import { orderLines, orders } from '../orders/orders.tables.ts';
import { ingestReturn } from '../returns/returns.ingest.ts';
import { syncs } from '../syncs/syncs.tables.ts';
import { addDays } from './metrics.dates.ts';
import { backfillMetrics, needsRebuild, rebuildAccountMetrics } from './metrics.rebuild.ts';
import { getMetrics } from './metrics.service.ts';

let t: Awaited<ReturnType<typeof createTestApp>>;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

/** Today in a time zone, as YYYY-MM-DD. */
const todayIn = (timeZone: string) => new Intl.DateTimeFormat('en-CA', { timeZone }).format(new Date());
/** An instant given as a wall-clock time at a fixed UTC offset (minutes east). */
const at = (day: string, time: string, offsetMinutes: number) =>
  new Date(Date.parse(`${day}T${time}:00Z`) - offsetMinutes * 60_000);

async function world(timezone: string): Promise<OrderWorld> {
  const w = await orderWorld(t.services, ['TEE-1', 'TEE-2', 'CAP-1'], 50);
  await t.services.db.update(accounts).set({ timezone }).where(eq(accounts.id, w.accountId));
  return w;
}

const metrics = (w: OrderWorld, input: object = {}) => getMetrics(t.services.db, { accountId: w.accountId }, input);
const salesOn = (m: Metrics, day: string) => m.series.find((p) => p.period === day)?.sales ?? 0;

describe('days are the account’s time zone’s', () => {
  it('an order at 23:50 and one at 00:10 the next morning (Kolkata, UTC+5:30) fall on two days, not one UTC day', async () => {
    const w = await world('Asia/Kolkata');
    const today = todayIn('Asia/Kolkata');
    const day = addDays(today, -3);
    const late = at(day, '23:50', 330);
    const early = at(addDays(day, 1), '00:10', 330);
    // Both are the same day in UTC.
    expect(late.toISOString().slice(0, 10)).toBe(early.toISOString().slice(0, 10));
    await ingestOrder(
      t.services,
      w.channel.shopify,
      channelOrder(w, 'shopify', { 'TEE-1': 1 }, { at: late, total: 1100 }),
    );
    await ingestOrder(
      t.services,
      w.channel.shopify,
      channelOrder(w, 'shopify', { 'TEE-1': 2 }, { at: early, total: 2200 }),
    );
    const m = await metrics(w);
    expect(m.timezone).toBe('Asia/Kolkata');
    expect(m.to).toBe(today);
    expect(salesOn(m, day)).toBe(1100);
    expect(salesOn(m, addDays(day, 1))).toBe(2200);
    expect(m.totals).toMatchObject({ sales: 3300, orders: 2, units: 3, averageOrderValue: 1650 });

    // The account moves to UTC: its rollups are rebuilt and the days move with it (no queue here: at once).
    await updateAccount(t.services.db, { accountId: w.accountId } as Actor, { timezone: 'UTC' }, {});
    const utc = await metrics(w);
    expect(salesOn(utc, late.toISOString().slice(0, 10))).toBe(3300);
  });

  it('buckets weeks from Monday and months from the 1st, the first one starting with the window', async () => {
    const w = await world('UTC');
    const today = todayIn('UTC');
    await ingestOrder(
      t.services,
      w.channel.square,
      channelOrder(w, 'square', { 'CAP-1': 1 }, { at: new Date(), total: 500 }),
    );
    const weeks = await metrics(w, { timeframe: '6m', granularity: 'week' });
    expect(weeks.series[0]?.period).toBe(weeks.from);
    for (const p of weeks.series.slice(1)) expect(new Date(`${p.period}T00:00:00Z`).getUTCDay()).toBe(1);
    const months = await metrics(w, { timeframe: '1y', granularity: 'month' });
    expect(months.series.slice(1).every((p) => p.period.endsWith('-01'))).toBe(true);
    expect(months.series.at(-1)?.period).toBe(`${today.slice(0, 7)}-01`);
    expect(months.series.at(-1)?.sales).toBe(500);
    const years = await metrics(w, { timeframe: '1y', granularity: 'year' });
    expect(years.series.reduce((s, p) => s + p.sales, 0)).toBe(500);
  });
});

describe('the previous period', () => {
  it('sits beside the current one, bucket by bucket, and in the totals', async () => {
    const w = await world('UTC');
    const today = todayIn('UTC');
    const noon = (day: string) => new Date(`${day}T12:00:00Z`);
    await ingestOrder(
      t.services,
      w.channel.bigcommerce,
      channelOrder(w, 'bigcommerce', { 'TEE-2': 1 }, { at: noon(addDays(today, -5)), total: 4000 }),
    );
    await ingestOrder(
      t.services,
      w.channel.bigcommerce,
      channelOrder(w, 'bigcommerce', { 'TEE-2': 3 }, { at: noon(addDays(today, -40)), total: 9000 }),
    );
    // Before both windows: in neither.
    await ingestOrder(
      t.services,
      w.channel.bigcommerce,
      channelOrder(w, 'bigcommerce', { 'TEE-2': 1 }, { at: noon(addDays(today, -70)), total: 7 }),
    );
    const m = await metrics(w);
    expect(m.from).toBe(addDays(today, -29));
    expect(m.previousTo).toBe(addDays(today, -30));
    expect(m.previousFrom).toBe(addDays(today, -59));
    expect(m.totals).toMatchObject({ sales: 4000, orders: 1, units: 1 });
    expect(m.previousTotals).toMatchObject({ sales: 9000, orders: 1, units: 3 });
    expect(m.series).toHaveLength(30);
    const i = m.series.findIndex((p) => p.previousPeriod === addDays(today, -40));
    expect(i).toBe(19);
    expect(m.series[i]).toMatchObject({
      period: addDays(today, -10),
      previousSales: 9000,
      previousOrders: 1,
      sales: 0,
    });
    expect(m.series.find((p) => p.period === addDays(today, -5))).toMatchObject({ sales: 4000, previousSales: 0 });
    expect(m.byChannel).toEqual([
      expect.objectContaining({
        id: w.channel.bigcommerce.id,
        name: 'bigcommerce shop',
        type: 'bigcommerce',
        sales: 4000,
      }),
    ]);
    expect(m.topSkus).toEqual([{ sku: 'TEE-2', units: 1, sales: 2500 }]);
  });
});

describe('changes of an order', () => {
  it('a cancel takes the order out; a total changed at the channel replaces its sales', async () => {
    const w = await world('UTC');
    const placed = new Date(Date.now() - 3_600_000);
    const order = channelOrder(w, 'shopify', { 'TEE-1': 2, 'CAP-1': 1 }, { at: placed, total: 6000 });
    const first = await ingestOrder(t.services, w.channel.shopify, order);
    const other = await ingestOrder(
      t.services,
      w.channel.square,
      channelOrder(w, 'square', { 'TEE-1': 1 }, { at: placed, total: 2500 }),
    );
    expect((await metrics(w)).totals).toMatchObject({ sales: 8500, orders: 2, units: 4 });
    const later = new Date(placed.getTime() + 60_000).toISOString();
    await ingestOrder(t.services, w.channel.shopify, { ...order, total: 6500, updatedAt: later });
    expect((await metrics(w)).totals).toMatchObject({ sales: 9000, orders: 2 });
    await cancelOrder(t.services, { accountId: w.accountId, userId: 'nobody' } as never, other.orderId);
    const m = await metrics(w);
    expect(m.totals).toMatchObject({ sales: 6500, orders: 1, units: 3 });
    expect(m.byLocation.map((l) => l.id)).toEqual([w.location.S1]);
    expect(first.outcome).toBe('created');
  });

  it('an order shipped at the channel counts its fulfillment time on the day it shipped', async () => {
    const w = await world('UTC');
    const placed = new Date(Date.now() - 2 * 3_600_000);
    const order = channelOrder(w, 'shopify', { 'TEE-1': 1 }, { at: placed });
    await ingestOrder(t.services, w.channel.shopify, order);
    expect((await metrics(w)).totals.fulfilled).toBe(0);
    await ingestOrder(t.services, w.channel.shopify, {
      ...order,
      fulfillmentStatus: 'fulfilled',
      updatedAt: new Date().toISOString(),
      lines: order.lines.map((l) => ({ ...l, fulfilledQuantity: l.quantity })),
    });
    const m = await metrics(w);
    expect(m.totals.fulfilled).toBe(1);
    expect(m.totals.fulfillmentSeconds).toBeGreaterThanOrEqual(2 * 3600 - 5);
    expect(m.totals.fulfillmentSeconds).toBeLessThan(2 * 3600 + 120);
  });
});

describe('returns', () => {
  it('a completed return counts its units and refund on its day; the returns rate is returned ÷ sold units', async () => {
    const w = await world('UTC');
    const now = new Date();
    const order = channelOrder(w, 'shopify', { 'TEE-1': 4 }, { at: new Date(now.getTime() - 3_600_000), total: 10000 });
    await ingestOrder(t.services, w.channel.shopify, order);
    const ret = {
      externalId: 'ret-1',
      orderExternalId: order.externalId,
      createdAt: now.toISOString(),
      updatedAt: now.toISOString(),
      status: 'completed' as const,
      receiptNumber: '#R1',
      billName: null,
      currency: 'USD',
      tax: 0,
      adjustment: 0,
      total: 2500,
      items: [
        {
          lineExternalId: order.lines[0]?.externalId ?? null,
          sku: 'TEE-1',
          quantity: 1,
          total: 2500,
          restock: true,
          locationExternalId: 'ext-S1',
          channelRestocked: false,
        },
      ],
    };
    await ingestReturn(t.services, w.channel.shopify, ret);
    const m = await metrics(w);
    expect(m.totals).toMatchObject({ returns: 1, returnUnits: 1, returnTotal: 2500, units: 4, returnsRate: 0.25 });
    // Its facts are what a rebuild makes of it.
    await rebuildAccountMetrics(t.services.db, w.accountId);
    expect((await metrics(w)).totals).toEqual(m.totals);
  });
});

describe('orders imported before the rollups', () => {
  it('count once the account is rebuilt, and a rebuild twice changes nothing', async () => {
    const w = await world('UTC');
    const id = newId('ord');
    const now = new Date();
    await t.services.db.insert(orders).values({
      id,
      accountId: w.accountId,
      channelId: w.channel.square.id,
      externalId: 'legacy-1',
      number: '#L1',
      status: 1,
      currency: 'USD',
      total: 1999,
      placedAt: now,
      providerUpdatedAt: now,
    });
    await t.services.db.insert(orderLines).values({
      id: newId('oli'),
      accountId: w.accountId,
      orderId: id,
      position: 0,
      externalId: 'l1',
      sku: 'LEGACY',
      title: 'Old thing',
      quantity: 2,
      unitPrice: 999,
    });
    expect((await metrics(w)).totals.orders).toBe(0);
    expect(await needsRebuild(t.services.db, w.accountId)).toBe(true);
    // The start-up backfill finds the account (every other test's account is complete: not rebuilt).
    expect(await backfillMetrics(t.services.db)).toBe(1);
    expect(await needsRebuild(t.services.db, w.accountId)).toBe(false);
    const m = await metrics(w);
    expect(m.totals).toMatchObject({ sales: 1999, orders: 1, units: 2 });
    expect(m.topSkus).toEqual([{ sku: 'LEGACY', units: 2, sales: 1998 }]);
    await rebuildAccountMetrics(t.services.db, w.accountId);
    expect((await metrics(w)).totals).toEqual(m.totals);
  });
});

describe('stock and sync health', () => {
  it('counts out of stock and low stock SKUs, and today’s failed sync items', async () => {
    const w = await world('UTC');
    await ingestOrder(t.services, w.channel.shopify, channelOrder(w, 'shopify', { 'TEE-1': 47 }, { at: new Date() }));
    await t.services.db.execute(
      sql`update inventory_levels set on_hand = 0 where account_id = ${w.accountId} and variant_id = ${w.variant['CAP-1']}`,
    );
    await t.services.db.insert(syncs).values({
      accountId: w.accountId,
      channelId: w.channel.shopify.id,
      type: 'inventory_push',
      status: 'partial',
      failed: 3,
      succeeded: 1,
    });
    const m = await metrics(w);
    // TEE-1: 100 on hand − 47 reserved = 53; TEE-2: 100; CAP-1: 0.
    expect(m.stock).toMatchObject({ skus: 3, outOfStock: 1, lowStock: 0, onHand: 200 });
    expect(m.stock.sellThrough).toBeCloseTo(47 / 247);
    expect(m.sync).toMatchObject({ failedItemsToday: 3, failedRunsToday: 1 });
  });
});

describe('the low-stock threshold', () => {
  it('is the merchant’s setting: stock health and the low-stock notifications follow it; bad input says why', async () => {
    const w = await world('UTC');
    const api = trpcOver(t.app, w.headers);
    // Available to sell over the world's two stores: TEE-1 100, TEE-2 4, CAP-1 2.
    for (const [sku, onHand] of [
      ['TEE-2', 2],
      ['CAP-1', 1],
    ] as const) {
      await t.services.db.execute(
        sql`update inventory_levels set on_hand = ${onHand} where account_id = ${w.accountId} and variant_id = ${w.variant[sku]}`,
      );
    }
    expect((await metrics(w)).stock).toMatchObject({ lowStock: 2, lowStockThreshold: 5 });
    expect((await api.query('account.stockSettings')).data).toEqual({ lowStockThreshold: 5 });

    expect((await api.mutation('account.updateStockSettings', { lowStockThreshold: 3 })).data).toEqual({
      lowStockThreshold: 3,
    });
    expect((await metrics(w)).stock).toMatchObject({ outOfStock: 0, lowStock: 1, lowStockThreshold: 3 });
    // The notifications read the same setting: 4 left is not low any more, 3 is.
    expect((await api.query<{ lowStockThreshold: number }>('notifications.settings')).data?.lowStockThreshold).toBe(3);
    const channel = { id: w.channel.shopify.id, name: 'Web shop' };
    await notifyStockChanges(t.services.db, w.accountId, channel, [
      {
        variantId: w.variant['TEE-2'] as string,
        sku: 'TEE-2',
        locationId: 'loc_gone',
        storeId: 'S1',
        before: 10,
        after: 4,
      },
      {
        variantId: w.variant['CAP-1'] as string,
        sku: 'CAP-1',
        locationId: 'loc_gone',
        storeId: 'S1',
        before: 10,
        after: 3,
      },
    ]);
    const feed = await api.query<{ results: { type: string; title: string; body: string }[] }>(
      'notifications.list',
      {},
    );
    expect(feed.data?.results.filter((n) => n.type === 'stock_low').map((n) => n.title)).toEqual([
      'CAP-1 is low on Web shop',
    ]);
    // Saved from the notification settings, it is the same one value.
    await api.mutation('notifications.updateSettings', { lowStockThreshold: 0 });
    expect((await api.query('account.stockSettings')).data).toEqual({ lowStockThreshold: 0 });
    expect((await metrics(w)).stock).toMatchObject({ lowStock: 0, lowStockThreshold: 0 });

    for (const [value, message] of [
      [-1, 'Cannot be negative'],
      [2.5, 'Enter a whole number of units'],
      [100_001, 'At most 100,000'],
      ['ten', 'Enter a whole number of units'],
    ] as const) {
      const bad = await api.mutation('account.updateStockSettings', { lowStockThreshold: value });
      expect(bad.error?.data.httpStatus, String(value)).toBe(400);
      expect(bad.error?.message, String(value)).toContain(message);
    }
    expect((await api.query('account.stockSettings')).data).toEqual({ lowStockThreshold: 0 });
  });
});

describe('REST', () => {
  it('GET metrics, metric/{id} and v1/v2 new-metrics answer; bad input is a 400 that says why', async () => {
    const w = await world('UTC');
    await ingestOrder(
      t.services,
      w.channel.shopify,
      channelOrder(w, 'shopify', { 'TEE-1': 1 }, { at: new Date(), total: 1234 }),
    );
    for (const url of [
      '/api/frontend/metrics?timeframe=1y&granularity=month',
      '/api/v1/new-metrics',
      '/api/v2/new-metrics?timeframe=6m',
    ]) {
      const res = await t.app.inject({ url, headers: w.headers });
      expect(res.statusCode, url).toBe(200);
      expect(res.json<Metrics>().totals.sales).toBe(1234);
    }
    const one = await t.app.inject({ url: '/api/frontend/metric/sales?timeframe=30d', headers: w.headers });
    expect(one.statusCode).toBe(200);
    expect(one.json()).toMatchObject({ id: 'sales', label: 'Sales', unit: 'money', value: 1234, currency: 'USD' });
    const bad = await t.app.inject({ url: '/api/frontend/metrics?timeframe=2w', headers: w.headers });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toContain('timeframe must be one of 30d, 6m, 1y');
    const unknown = await t.app.inject({ url: '/api/frontend/metric/profit', headers: w.headers });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().message).toContain('Unknown metric');
    const anonymous = await t.app.inject({ url: '/api/v1/new-metrics' });
    expect(anonymous.statusCode).toBe(401);
    // Documented in the API reference for API keys, with its parameters.
    const doc = (await t.app.inject({ url: '/api/docs/json' })).json() as {
      paths: Record<
        string,
        { get?: { summary?: string; parameters?: { name: string; schema?: { enum?: string[] } }[] } }
      >;
    };
    for (const v of ['v1', 'v2']) {
      const get = doc.paths[`/api/${v}/new-metrics`]?.get;
      expect(get?.summary).toContain('Dashboard metrics');
      expect(get?.parameters?.find((p) => p.name === 'timeframe')?.schema?.enum).toEqual(['30d', '6m', '1y']);
      expect(get?.parameters?.find((p) => p.name === 'granularity')?.schema?.enum).toEqual([
        'day',
        'week',
        'month',
        'year',
      ]);
    }
  });
});
