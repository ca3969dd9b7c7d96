// The echo rule twice: `isEcho` (inbound.ts, used by the stock pass) and `echoJudgement` (echo.ts, the SQL the
// acknowledgement judges with). A property over random levels and reports: both give the same answer, whole-second
// times and the moments around a send included. On PGlite and, with TEST_DATABASE_URL, on a server.
import { and, eq, sql } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestApp } from '../../../test/app.ts';
import { type OrderWorld, orderWorld } from '../orders/orders.fixtures.ts';
import { echoJudgement } from './echo.ts';
import { isEcho } from './inbound.ts';
import { channelStock } from './inventory.tables.ts';
import { rowsOf } from './ledger.ts';

type TestApp = Awaited<ReturnType<typeof createTestApp>>;
let t: TestApp;
let world: OrderWorld;
const SKUS = ['A', 'B', 'C', 'D', 'E', 'F'];

beforeAll(async () => {
  t = await createTestApp();
  world = await orderWorld(t.services, SKUS, 5);
});
afterAll(() => t.close());

/** A whole second: reports at it stand for the whole second. */
const BASE = Date.parse('2026-11-27T12:00:00.000Z');
// Mostly the moments where the rule turns (a second before, at, just after), so that times meet exactly.
const offset = fc.oneof(
  { arbitrary: fc.constantFrom(-1000, -1, 0, 1, 999, 1000), weight: 4 },
  { arbitrary: fc.integer({ min: -2500, max: 2500 }), weight: 1 },
);
const at = offset.map((ms) => new Date(BASE + ms));
const qty = fc.integer({ min: 4, max: 5 });
const level = fc.record({
  pendingQty: fc.option(qty, { nil: null }),
  pendingAt: fc.option(at, { nil: null }),
  pushedQty: fc.option(qty, { nil: null }),
  pushedAt: fc.option(at, { nil: null }),
  channelQtyAt: fc.option(at, { nil: null }),
  report: fc.record({ quantity: qty, at }),
});

it('judges a report as isEcho does, for any level and report', async () => {
  const square = world.channel.square;
  const items = SKUS.map((sku) => ({ item: `square-item-${sku}`, loc: 'S1' }));
  await fc.assert(
    fc.asyncProperty(fc.array(level, { minLength: SKUS.length, maxLength: SKUS.length }), async (levels) => {
      for (const [i, l] of levels.entries()) {
        const { item, loc } = items[i] as { item: string; loc: string };
        await t.services.db
          .update(channelStock)
          .set({
            pendingQty: l.pendingQty,
            pendingAt: l.pendingAt,
            pushedQty: l.pushedQty,
            pushedAt: l.pushedAt,
            channelQtyAt: l.channelQtyAt,
          })
          .where(
            and(
              eq(channelStock.channelId, square.id),
              eq(channelStock.inventoryItemId, item),
              eq(channelStock.externalLocationId, loc),
            ),
          );
      }
      const reports = levels.map((l, ord) => ({
        ord,
        channel_id: square.id,
        item: items[ord]?.item,
        loc: items[ord]?.loc,
        qty: l.report.quantity,
        at: l.report.at.toISOString(),
      }));
      const judged = rowsOf<{ ord: number; echo: boolean }>(
        await t.services.db.execute(
          echoJudgement(sql`(select * from jsonb_to_recordset(${JSON.stringify(reports)}::jsonb)
            as x(ord int, channel_id text, item text, loc text, qty int, at timestamptz))`),
        ),
      );
      const bySql = Object.fromEntries(judged.map((j) => [j.ord, j.echo]));
      const byTs = Object.fromEntries(levels.map((l, ord) => [ord, isEcho(l, l.report)]));
      expect(bySql).toEqual(byTs);
    }),
    { numRuns: 100 },
  );
});

it('answers no echo for a report of a level the channel does not hold', async () => {
  const judged = rowsOf<{ ord: number; echo: boolean }>(
    await t.services.db.execute(
      echoJudgement(sql`(select 0 as ord, ${world.channel.square.id}::text as channel_id, 'square-item-none'::text as item,
        'S1'::text as loc, 5 as qty, now() as at)`),
    ),
  );
  expect(judged).toEqual([{ ord: 0, echo: false }]);
});
