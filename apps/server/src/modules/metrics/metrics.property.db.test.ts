// The rollups as a property (issue 17): after any run of order events (orders from the three channels placed
// over 14 months and at all hours, some in another currency; totals changed at the channel, cancels at the
// channel and here, fulfilments at the channel), the dashboard's figures equal a direct computation over the
// orders themselves, day by day in the account's time zone, by channel, by location and by SKU (for the last 12
// months, 6 months and 30 days: their top SKUs read different rollups); and a rebuild
// from scratch leaves the rollup rows exactly as the changes left them. A fixed seed in CI; FUZZ_SEED and
// PROPERTY_RUNS for a longer run.
import { eq, sql } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../../../test/app.ts';
import type { ProviderOrder } from '../../connectors/types.ts';
import type { Actor } from '../../trpc/context.ts';
import { accounts } from '../accounts/accounts.tables.ts';
import { ingestOrder } from '../orders/ingest.ts';
import { channelOrder, orderWorld } from '../orders/orders.fixtures.ts';
import { cancelOrder } from '../orders/orders.service.ts';
import { orderAllocations, orderEvents, orderLines, orders } from '../orders/orders.tables.ts';
import { rowsOf } from './metrics.facts.ts';
import { rebuildAccountMetrics } from './metrics.rebuild.ts';
import { getMetrics } from './metrics.service.ts';

const RUNS = Number(process.env.PROPERTY_RUNS ?? 6);
const SEED = Number(process.env.FUZZ_SEED ?? 17);
const TZ = 'America/New_York';
const SKUS = ['TEE-1', 'TEE-2', 'CAP-1'] as const;
const CHANNELS = ['shopify', 'bigcommerce', 'square'] as const;

let t: Awaited<ReturnType<typeof createTestApp>>;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

type Step =
  | {
      kind: 'order';
      channel: (typeof CHANNELS)[number];
      hoursAgo: number;
      lines: Partial<Record<(typeof SKUS)[number], number>>;
      euro: boolean;
      store: 'S1' | 'S2';
    }
  | { kind: 'total'; pick: number; total: number }
  | { kind: 'cancelAtChannel'; pick: number }
  | { kind: 'cancelHere'; pick: number }
  | { kind: 'fulfilAtChannel'; pick: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('order' as const),
      channel: fc.constantFrom(...CHANNELS),
      // Up to 14 months back, at any hour: across DST changes, day and month ends, and out of the 1y window.
      hoursAgo: fc.integer({ min: 0, max: 14 * 30 * 24 }),
      lines: fc.record(
        {
          'TEE-1': fc.integer({ min: 1, max: 3 }),
          'TEE-2': fc.integer({ min: 1, max: 3 }),
          'CAP-1': fc.integer({ min: 1, max: 2 }),
        },
        { requiredKeys: [] },
      ),
      euro: fc.integer({ min: 0, max: 3 }).map((n) => n === 0),
      store: fc.constantFrom('S1' as const, 'S2' as const),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('total' as const),
      pick: fc.nat(),
      total: fc.integer({ min: 100, max: 50_000 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cancelAtChannel' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cancelHere' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('fulfilAtChannel' as const), pick: fc.nat() }) },
);

const dayIn = (at: Date) => new Intl.DateTimeFormat('en-CA', { timeZone: TZ }).format(at);

/** The figures straight from the orders: nothing of the rollups' code is used. */
async function direct(accountId: string, from: string, to: string) {
  const db = t.services.db;
  const rows = await db.select().from(orders).where(eq(orders.accountId, accountId));
  const lines = await db.select().from(orderLines).where(eq(orderLines.accountId, accountId));
  const allocations = await db.select().from(orderAllocations).where(eq(orderAllocations.accountId, accountId));
  const events = await db.select().from(orderEvents).where(eq(orderEvents.accountId, accountId));
  const byDay = new Map<string, { sales: number; orders: number; units: number; fulfilled: number; seconds: number }>();
  const byChannel = new Map<string, number>();
  const byLocation = new Map<string, number>();
  const bySku = new Map<string, { units: number; sales: number }>();
  const day = (d: string) => {
    const row = byDay.get(d) ?? { sales: 0, orders: 0, units: 0, fulfilled: 0, seconds: 0 };
    byDay.set(d, row);
    return row;
  };
  for (const o of rows) {
    const shipped = events
      .filter((e) => e.orderId === o.id && e.kind === 'status' && (e.toStatus === 3 || e.toStatus === 5))
      .map((e) => e.createdAt.getTime())
      .sort((a, b) => a - b)[0];
    if (shipped !== undefined) {
      const d = dayIn(new Date(shipped));
      if (d >= from && d <= to) {
        day(d).fulfilled += 1;
        day(d).seconds += Math.max(0, Math.floor((shipped - o.placedAt.getTime()) / 1000));
      }
    }
    if (o.status === 7) continue;
    const d = dayIn(o.placedAt);
    if (d < from || d > to) continue;
    const sales = o.currency === 'USD' ? o.total : 0;
    const mine = lines.filter((l) => l.orderId === o.id);
    const units = mine.reduce((s, l) => s + Math.max(0, l.quantity - l.cancelledQty), 0);
    const row = day(d);
    row.sales += sales;
    row.orders += 1;
    row.units += units;
    byChannel.set(o.channelId ?? '', (byChannel.get(o.channelId ?? '') ?? 0) + sales);
    const first = allocations
      .filter((a) => a.orderId === o.id && a.locationId)
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1))[0];
    const location = o.pickupLocationId ?? first?.locationId ?? '';
    byLocation.set(location, (byLocation.get(location) ?? 0) + sales);
    for (const l of mine) {
      if (!l.sku) continue;
      const u = Math.max(0, l.quantity - l.cancelledQty);
      const s = bySku.get(l.sku) ?? { units: 0, sales: 0 };
      s.units += u;
      s.sales += o.currency === 'USD' ? u * l.unitPrice - l.discount : 0;
      bySku.set(l.sku, s);
    }
  }
  return { byDay, byChannel, byLocation, bySku };
}

async function rollupRows(accountId: string) {
  const daily = rowsOf<Record<string, unknown>>(
    await t.services.db.execute(sql`
      select day::text, channel_id, location_id, orders, units, sales::text, fulfilled, fulfilled_seconds::text,
        returns, return_units, return_total::text
      from metric_daily
      where account_id = ${accountId}
        and (orders, units, sales, fulfilled, fulfilled_seconds, returns, return_units, return_total) <> (0, 0, 0, 0, 0, 0, 0, 0)
      order by 1, 2, 3`),
  );
  const skus = rowsOf<Record<string, unknown>>(
    await t.services.db.execute(sql`
      select day::text, sku, units, sales::text from metric_sku_daily
      where account_id = ${accountId} and (units, sales) <> (0, 0) order by 1, 2`),
  );
  const months = rowsOf<Record<string, unknown>>(
    await t.services.db.execute(sql`
      select month::text, sku, units, sales::text from metric_sku_monthly
      where account_id = ${accountId} and (units, sales) <> (0, 0) order by 1, 2`),
  );
  const years = rowsOf<Record<string, unknown>>(
    await t.services.db.execute(sql`
      select year::text, sku, units, sales::text from metric_sku_yearly
      where account_id = ${accountId} and (units, sales) <> (0, 0) order by 1, 2`),
  );
  return { daily, skus, months, years };
}

/** The best sellers of a direct computation, as the dashboard orders them. */
const ranked = (bySku: Map<string, { units: number; sales: number }>) =>
  [...bySku]
    .filter(([, s]) => s.units > 0 || s.sales > 0)
    .map(([sku, s]) => ({ sku, ...s }))
    .sort((a, b) => b.sales - a.sales || b.units - a.units || (a.sku < b.sku ? -1 : 1));

describe('the rollups follow the orders', () => {
  it('after any run of order events, the figures equal a direct computation, and a rebuild changes no row', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 3, maxLength: 14 }), async (steps) => {
        const w = await orderWorld(t.services, [...SKUS], 1000);
        await t.services.db.update(accounts).set({ timezone: TZ }).where(eq(accounts.id, w.accountId));
        const actor = { accountId: w.accountId, userId: 'property' } as Actor;
        const placed: { channel: (typeof CHANNELS)[number]; order: ProviderOrder; id: string; version: number }[] = [];
        for (const s of steps) {
          if (s.kind === 'order') {
            const lines = Object.keys(s.lines).length ? s.lines : { 'TEE-1': 1 };
            const at = new Date(Date.now() - s.hoursAgo * 3_600_000 - 60_000);
            const order = channelOrder(w, s.channel, lines as Record<string, number>, {
              at,
              store: s.store,
              currency: s.euro ? 'EUR' : 'USD',
            });
            const { orderId } = await ingestOrder(t.services, w.channel[s.channel], order);
            placed.push({ channel: s.channel, order, id: orderId, version: 0 });
            continue;
          }
          const target = placed[s.pick % Math.max(1, placed.length)];
          if (!target) continue;
          target.version += 1;
          const updatedAt = new Date(Date.parse(target.order.updatedAt) + target.version * 1000).toISOString();
          if (s.kind === 'total') {
            target.order = { ...target.order, total: s.total, updatedAt };
          } else if (s.kind === 'cancelAtChannel') {
            target.order = { ...target.order, cancelled: true, cancelledAt: updatedAt, updatedAt };
          } else if (s.kind === 'fulfilAtChannel') {
            target.order = {
              ...target.order,
              fulfillmentStatus: 'fulfilled',
              updatedAt,
              lines: target.order.lines.map((l) => ({ ...l, fulfilledQuantity: l.quantity })),
            };
          } else {
            await cancelOrder(t.services, actor, target.id).catch(() => undefined);
            continue;
          }
          await ingestOrder(t.services, w.channel[target.channel], target.order);
        }
        const m = await getMetrics(t.services.db, actor, { timeframe: '1y', granularity: 'day' });
        const want = await direct(w.accountId, m.from, m.to);
        for (const p of m.series) {
          const d = want.byDay.get(p.period) ?? { sales: 0, orders: 0, units: 0, fulfilled: 0, seconds: 0 };
          expect({ day: p.period, sales: p.sales, orders: p.orders, units: p.units, fulfilled: p.fulfilled }).toEqual({
            day: p.period,
            sales: d.sales,
            orders: d.orders,
            units: d.units,
            fulfilled: d.fulfilled,
          });
          // Within a second: the database keeps microseconds, a JavaScript date milliseconds.
          if (d.fulfilled > 0)
            expect(Math.abs((p.fulfillmentSeconds ?? 0) - d.seconds / d.fulfilled)).toBeLessThanOrEqual(1);
        }
        const channelSales = Object.fromEntries(m.byChannel.map((c) => [c.id ?? '', c.sales]));
        expect(channelSales).toEqual(Object.fromEntries(want.byChannel));
        const locationSales = Object.fromEntries(m.byLocation.map((l) => [l.id ?? '', l.sales]));
        expect(locationSales).toEqual(Object.fromEntries(want.byLocation));
        expect(m.topSkus).toEqual(ranked(want.bySku));
        // The shorter windows: their top SKUs add and take away days, months and years of the SKU rollups.
        for (const timeframe of ['30d', '6m'] as const) {
          const short = await getMetrics(t.services.db, actor, { timeframe, granularity: 'day' });
          const wanted = await direct(w.accountId, short.from, short.to);
          expect({ timeframe, top: short.topSkus }).toEqual({ timeframe, top: ranked(wanted.bySku) });
          expect({
            timeframe,
            channels: Object.fromEntries(short.byChannel.map((c) => [c.id ?? '', c.sales])),
          }).toEqual({ timeframe, channels: Object.fromEntries(wanted.byChannel) });
        }
        const before = await rollupRows(w.accountId);
        await rebuildAccountMetrics(t.services.db, w.accountId);
        expect(await rollupRows(w.accountId)).toEqual(before);
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
  }, 600_000);
});
