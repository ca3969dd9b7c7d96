// The ledger invariant as a property (issue 13): over random runs of orders from the three channels, POS
// sales, cancels at the channel and here, their order webhooks and stock reports delivered in any order,
// redelivered, and cut off by crashes mid-transaction (then delivered again), every level ends with
//   reserved = the units its open allocations hold,   reserved ≤ on hand,
//   on hand = what it started with, less the POS sales made there (each counted once).
// A fixed seed in CI; FUZZ_SEED and PROPERTY_RUNS for a longer run.
import { and, eq, sql } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../../../test/app.ts';
import type { ProviderOrder } from '../../connectors/types.ts';
import type { Actor } from '../../trpc/context.ts';
import { rowsOf } from '../inventory/ledger.ts';
import { claimCancelRestock, ingestOrder } from './ingest.ts';
import {
  channelOrder,
  invariantViolations,
  level,
  type OrderWorld,
  orderWorld,
  report,
  sendReports,
} from './orders.fixtures.ts';
import { cancelOrder } from './orders.service.ts';
import { orders } from './orders.tables.ts';

const RUNS = Number(process.env.PROPERTY_RUNS ?? 12);
const SEED = Number(process.env.FUZZ_SEED ?? 13);
const STOCK = 4;
const CHANNELS = ['shopify', 'bigcommerce', 'square'] as const;
type Ch = (typeof CHANNELS)[number];

let t: Awaited<ReturnType<typeof createTestApp>>;
beforeAll(async () => {
  t = await createTestApp();
  // A crash: the statement that makes the nth claim or movement from now fails, and its transaction with it.
  // A sequence, because nextval is not rolled back with the transaction it ran in.
  for (const statement of [
    sql`create sequence if not exists crash_seq`,
    sql`create table if not exists crash_at (n bigint)`,
    sql.raw(`create or replace function crash_maybe() returns trigger language plpgsql as $$
      begin
        if exists (select 1 from crash_at where n = nextval('crash_seq')) then
          raise exception 'simulated crash';
        end if;
        return new;
      end $$`),
    sql`create trigger crash_claims before insert on channel_stock_claims for each row execute function crash_maybe()`,
    sql`create trigger crash_movements before insert on inventory_movements for each row execute function crash_maybe()`,
  ])
    await t.services.db.execute(statement);
});
afterAll(async () => {
  await t?.close();
});

/** What a run does, in the order things happen at the channels. */
type Step =
  | { kind: 'sale'; channel: Ch; store: 'S1' | 'S2'; qty: number; pos: boolean }
  | { kind: 'cancelAtChannel'; pick: number }
  | { kind: 'cancelHere'; pick: number };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('sale' as const),
      channel: fc.constantFrom(...CHANNELS),
      store: fc.constantFrom('S1' as const, 'S2' as const),
      qty: fc.integer({ min: 1, max: 2 }),
      pos: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cancelAtChannel' as const), pick: fc.nat(20) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cancelHere' as const), pick: fc.nat(20) }) },
);

interface Delivery {
  label: string;
  run: () => Promise<unknown>;
}

const runArb = fc.record({
  steps: fc.array(stepArb, { minLength: 3, maxLength: 10 }),
  /** Priorities that shuffle the deliveries (order webhooks and stock reports arrive in any order). */
  shuffle: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 40, maxLength: 40 }),
  /** Which deliveries are sent twice, and which crash on their first try. */
  duplicate: fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }),
  crash: fc.array(fc.integer({ min: 0, max: 6 }), { minLength: 40, maxLength: 40 }),
});

interface RunInput {
  steps: Step[];
  shuffle: number[];
  duplicate: boolean[];
  crash: number[];
}

async function runOnce(input: RunInput) {
  const world: OrderWorld = await orderWorld(t.services, ['P-1'], STOCK);
  const actor: Actor = {
    sessionId: 'property',
    userId: 'property',
    accountId: world.accountId,
    authorizationLevel: 'user',
    superUserRole: null,
  };
  // What each channel holds at each of its stores, as it moves it itself.
  const held: Record<Ch, Record<'S1' | 'S2', number>> = {
    shopify: { S1: STOCK, S2: STOCK },
    bigcommerce: { S1: STOCK, S2: STOCK },
    square: { S1: STOCK, S2: STOCK },
  };
  const placed: { order: ProviderOrder; channel: Ch; store: 'S1' | 'S2'; qty: number; pos: boolean; done: boolean }[] =
    [];
  const sold = { S1: 0, S2: 0 };
  const deliveries: Delivery[] = [];
  // After the push the world starts from (a minute ago), before now.
  let clock = Date.now() - 45_000;
  const tick = () => {
    clock += 2000;
    return new Date(clock);
  };
  const reportNow = (channel: Ch, store: 'S1' | 'S2', at: Date) => {
    const r = report(world, channel, 'P-1', held[channel][store], at, store);
    deliveries.push({
      label: `${channel} report ${r.quantity}@${store}`,
      run: () => sendReports(t.services, world, channel, [r]),
    });
  };
  for (const step of input.steps) {
    if (step.kind === 'sale') {
      const at = tick();
      const pos = step.pos && step.channel === 'square';
      const order = channelOrder(
        world,
        step.channel,
        { 'P-1': step.qty },
        { at, store: step.store, completedAtStore: pos },
      );
      held[step.channel][step.store] -= step.qty;
      if (pos) sold[step.store] += step.qty;
      placed.push({ order, channel: step.channel, store: step.store, qty: step.qty, pos, done: false });
      deliveries.push({
        label: `${step.channel} order ${order.name}`,
        run: () => ingestOrder(t.services, world.channel[step.channel], order),
      });
      reportNow(step.channel, step.store, at);
      continue;
    }
    const open = placed.filter((p) => !p.done && !p.pos);
    const target = open[step.pick % Math.max(open.length, 1)];
    if (!target) continue;
    target.done = true;
    const at = tick();
    held[target.channel][target.store] += target.qty;
    if (step.kind === 'cancelAtChannel') {
      const cancelled = {
        ...target.order,
        cancelled: true,
        cancelledAt: at.toISOString(),
        updatedAt: at.toISOString(),
      };
      deliveries.push({
        label: `${target.channel} cancel ${target.order.name}`,
        run: () => ingestOrder(t.services, world.channel[target.channel], cancelled),
      });
    } else {
      // Cancelled here (after its import), then written back: the channel restocks, and says so.
      deliveries.push({
        label: `cancel here ${target.order.name}`,
        run: async () => {
          await ingestOrder(t.services, world.channel[target.channel], target.order);
          const [row] = await t.services.db
            .select({ id: orders.id, status: orders.status })
            .from(orders)
            .where(and(eq(orders.accountId, world.accountId), eq(orders.externalId, target.order.externalId)));
          if (row && row.status !== 7) await cancelOrder(t.services, actor, row.id);
          if (row) await claimCancelRestock(t.services, world.channel[target.channel], row.id, at.toISOString());
        },
      });
    }
    reportNow(target.channel, target.store, at);
  }
  // Any arrival order; some sent twice; some cut off by a crash and sent again.
  const order = deliveries.map((d, i) => ({ d, p: input.shuffle[i % input.shuffle.length] as number, i }));
  order.sort((a, b) => a.p - b.p || a.i - b.i);
  const log: string[] = [];
  for (const { d, i } of order) {
    const crashAfter = input.crash[i % input.crash.length] as number;
    if (crashAfter > 0 && crashAfter < 4) {
      const [{ n } = { n: '0' }] = rowsOf<{ n: string }>(
        await t.services.db.execute(sql`select nextval('crash_seq') as n`),
      );
      await t.services.db.execute(sql`delete from crash_at`);
      await t.services.db.execute(sql`insert into crash_at values (${Number(n) + crashAfter})`);
      try {
        await d.run();
        log.push(`${d.label} (no crash)`);
      } catch (err) {
        const cause = (err as { cause?: { message?: string } }).cause?.message ?? (err as Error).message;
        if (!String(cause).includes('simulated crash')) throw err;
        log.push(`${d.label} CRASHED`);
      }
      await t.services.db.execute(sql`delete from crash_at`);
    }
    await d.run();
    log.push(d.label);
    if (input.duplicate[i % input.duplicate.length]) {
      await d.run();
      log.push(`${d.label} (again)`);
    }
  }
  const violations = await invariantViolations(t.services, world.accountId);
  const s1 = await level(t.services, world, 'P-1', 'S1');
  const s2 = await level(t.services, world, 'P-1', 'S2');
  const context = `${log.join('\n')}\nS1 ${JSON.stringify(s1)} S2 ${JSON.stringify(s2)} sold ${JSON.stringify(sold)}`;
  expect(violations, context).toEqual([]);
  expect(s1.onHand, context).toBe(STOCK - sold.S1);
  expect(s2.onHand, context).toBe(STOCK - sold.S2);
}

describe('the ledger invariant over random runs', () => {
  it('holds after orders, POS sales and cancels from three channels, delivered in any order, twice, or cut by crashes', async () => {
    await fc.assert(fc.asyncProperty(runArb, runOnce), { numRuns: RUNS, seed: SEED, endOnFailure: true });
  }, 240_000);
});
