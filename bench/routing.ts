// `npm run bench:routing` (and part of `npm run bench`): order routing (issue 14), in process against the
// database (PGlite in memory by default; DATABASE_URL for a PostgreSQL server, whose database it fills).
// One account with 50 locations spread over the United States (coordinates), 500 SKUs stocked 0–20 at each,
// and a live rule set of 10 rules (9 with conditions that most orders fail, then a default: nearest first,
// keep whole, at most 3 shipments). Measures:
// - decision: the engine alone for an order of 5 lines over 50 locations and 10 rules, trace included:
//   median and p99 over BENCH_ROUTING_DECISIONS (default 5,000) decisions;
// - queued: BENCH_ROUTING_QUEUED (default 10,000) orders seeded with SQL, each then routed as an import routes
//   it (its own transaction: levels locked, engine, reserve, allocations and decision written): orders/s;
// - replay: a draft rule set over those orders (the last 10,000 routed) against what happened: seconds.
// A benchmark measures; it never asserts a time. Writes bench/results/routing.json.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RoutingRule, type RoutingRuleInput } from '@switchyard/contracts';
import { sql } from 'drizzle-orm';
import { openDatabase } from '../apps/server/src/db/client.ts';
import { newId } from '../apps/server/src/lib/ids.ts';
import { insertAllocations } from '../apps/server/src/modules/orders/orders.allocations.ts';
import { route } from '../apps/server/src/modules/routing/engine.ts';
import type { EngineLine } from '../apps/server/src/modules/routing/engine.types.ts';
import { reservedAllocation, routeAndReserve } from '../apps/server/src/modules/routing/routing.allocate.ts';
import { replay } from '../apps/server/src/modules/routing/routing.dryrun.ts';
import { liveRuleSet, saveRules } from '../apps/server/src/modules/routing/routing.rules.ts';
import { engineLocations } from '../apps/server/src/modules/routing/routing.service.ts';
import type { Actor } from '../apps/server/src/trpc/context.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const DECISIONS = Number(process.env.BENCH_ROUTING_DECISIONS ?? 5000);
const QUEUED = Number(process.env.BENCH_ROUTING_QUEUED ?? 10_000);
const LOCATIONS = 50;
const SKUS = 500;
const ZIPS = [
  '97205',
  '98101',
  '10001',
  '60601',
  '94103',
  '73301',
  '33101',
  '80202',
  '30301',
  '02108',
  '85001',
  '55401',
];
const log = (line: string) => process.stdout.write(`${line}\n`);

const database = await openDatabase(process.env.DATABASE_URL ? { url: process.env.DATABASE_URL } : { memory: true });
await database.migrate();
const db = database.db;
const accountId = `acc_benchr_${Date.now().toString(36)}`;
const actor: Actor = {
  sessionId: 'bench',
  userId: 'bench',
  accountId,
  authorizationLevel: 'user',
  superUserRole: null,
};

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round((s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0) * 1000) / 1000;
};

const loc = (i: number) => `${accountId}_loc${i}`;
const variant = (i: number) => `${accountId}_var${i}`;

try {
  const seeded = performance.now();
  await db.execute(sql`insert into accounts (id, business, status) values (${accountId}, 'Bench Routing', 'active')`);
  // A 10 × 5 grid from the Pacific to the Atlantic (lat 30–47, lon −122 … −72).
  await db.execute(sql`
    insert into locations (id, account_id, name, store_id, ships, pickup, priority, latitude, longitude)
    select ${accountId} || '_loc' || s, ${accountId}, 'Store ' || s, 'BR' || s, s % 10 <> 0, true, s % 5,
           30 + (s % 5) * 4.2, -122 + (s / 5) * 5.5
    from generate_series(0, ${LOCATIONS - 1}::int) s`);
  await db.execute(sql`
    insert into products (id, account_id, title, brand, product_type)
    values (${accountId} || '_prd', ${accountId}, 'Bench Tee', 'Acme', 'Shirt')`);
  await db.execute(sql`
    insert into variants (id, account_id, product_id, sku)
    select ${accountId} || '_var' || v, ${accountId}, ${accountId} || '_prd', 'BR-' || lpad(v::text, 4, '0')
    from generate_series(0, ${SKUS - 1}::int) v`);
  // Plenty at most levels (orders should mostly place), nothing at some: 0–40, 0 where (v + s) % 7 = 0.
  await db.execute(sql`
    insert into inventory_levels (account_id, variant_id, location_id, on_hand, reserved)
    select ${accountId}, ${accountId} || '_var' || v, ${accountId} || '_loc' || s,
           case when (v + s) % 7 = 0 then 0 else 10 + (v * 31 + s * 17) % 31 end, 0
    from generate_series(0, ${SKUS - 1}::int) v, generate_series(0, ${LOCATIONS - 1}::int) s`);
  const conditioned = (i: number): RoutingRuleInput => ({
    id: `r${i}`,
    name: `Rule ${i}`,
    conditions: [
      { countries: ['CA'] },
      { skus: [`NOPE-${i}`] },
      { postalPrefixes: ['999'] },
      { channelTypes: ['square' as const] },
      { minOrderValue: 10_000_000 },
      { brands: ['Other'] },
      { regions: ['QC'] },
      { productTypes: ['Mug'] },
      { fulfillmentTypes: ['curbside_pickup' as const] },
    ][i] as RoutingRuleInput['conditions'],
    strategy: { locationIds: [loc(i), loc(i + 10)], maxShipments: 1 },
  });
  await saveRules(db, actor, {
    baseVersion: 0,
    rules: [
      ...Array.from({ length: 9 }, (_, i) => conditioned(i)),
      {
        id: 'default',
        name: 'Nearest, keep whole',
        isDefault: true,
        strategy: {
          nearestFirst: true,
          keepWhole: true,
          maxShipments: 3,
          excludeLocationIds: [loc(49)],
          holdBackUnits: 1,
        },
      },
    ],
  });
  log(`seeded ${LOCATIONS} locations × ${SKUS} SKUs and 10 rules in ${Math.round(performance.now() - seeded)} ms`);

  // ---------------------------------------------------------------- one decision, the engine alone
  const locations = await engineLocations(db, accountId);
  const rules = await liveRuleSet(db, accountId);
  const levels = await db.execute<{ variant_id: string; location_id: string; on_hand: number; reserved: number }>(
    sql`select variant_id, location_id, on_hand, reserved from inventory_levels where account_id = ${accountId}`,
  );
  const rows = ((levels as unknown as { rows?: unknown[] }).rows ?? levels) as {
    variant_id: string;
    location_id: string;
    on_hand: number;
  }[];
  const available = new Map(rows.map((r) => [`${r.variant_id}|${r.location_id}`, r.on_hand]));
  const ms: number[] = [];
  let traced = 0;
  for (let i = 0; i < DECISIONS + 200; i++) {
    const lines: EngineLine[] = Array.from({ length: 5 }, (_, j) => ({
      id: `l${j}`,
      sku: `BR-${(i * 5 + j) % SKUS}`,
      variantId: variant((i * 5 + j) % SKUS),
      quantity: 1 + ((i + j) % 3),
      brand: 'Acme',
      productType: 'Shirt',
    }));
    const t0 = performance.now();
    const plan = route({
      order: {
        channelId: 'chn',
        channelName: 'Shop',
        channelType: 'shopify',
        fulfillmentType: 'ship',
        pickupLocationId: null,
        channelLocationId: null,
        country: 'US',
        region: 'OR',
        postalCode: ZIPS[i % ZIPS.length] ?? null,
        total: 12_500,
        currency: 'USD',
        lines,
      },
      locations,
      available: (v, l) => available.get(`${v}|${l}`) ?? 0,
      rules: rules.rules.map((r) => RoutingRule.parse(r)),
      ruleSetVersion: rules.version,
    });
    const took = performance.now() - t0;
    if (i >= 200) ms.push(took);
    traced += plan.trace.lines.reduce((s, l) => s + l.candidates.length, 0);
  }
  const decision = { decisions: DECISIONS, medianMs: pct(ms, 50), p99Ms: pct(ms, 99), candidatesTraced: traced };
  log(`decision (5 lines × 50 locations × 10 rules, trace): median ${decision.medianMs} ms, p99 ${decision.p99Ms} ms`);

  // ---------------------------------------------------------------- queued orders routed as imports route them
  const seededOrders = performance.now();
  for (let from = 0; from < QUEUED; from += 20_000) {
    const to = Math.min(QUEUED, from + 20_000) - 1;
    await db.execute(sql`
      insert into orders (id, account_id, external_id, number, status, fulfillment_type, currency, total, item_count,
        shipping_address, placed_at, provider_updated_at)
      select ${accountId} || '_o' || lpad(g::text, 8, '0'), ${accountId}, 'br-' || g, '#' || (300000 + g), 1, 'ship',
             'USD', 5000, 3,
             jsonb_build_object('zip', (${sql.raw(`array[${ZIPS.map((z) => `'${z}'`).join(',')}]`)})[1 + g % ${ZIPS.length}], 'country', 'US'),
             now() - make_interval(secs => (${QUEUED}::int - g)), now()
      from generate_series(${from}::int, ${to}::int) g`);
    await db.execute(sql`
      insert into order_lines (id, account_id, order_id, position, external_id, sku, variant_id, title, quantity)
      select ${accountId} || '_l' || g || '_' || p, ${accountId}, ${accountId} || '_o' || lpad(g::text, 8, '0'), p,
             'l' || p, 'BR-' || ((g * 7 + p * 13) % ${SKUS}), ${accountId} || '_var' || ((g * 7 + p * 13) % ${SKUS}),
             'Bench Tee', 1 + (g + p) % 2
      from generate_series(${from}::int, ${to}::int) g, generate_series(0, 1 + g % 3) p`);
  }
  log(`seeded ${QUEUED} queued orders in ${Math.round(performance.now() - seededOrders)} ms`);
  const queuedLines = await db.execute<{
    order_id: string;
    id: string;
    sku: string;
    variant_id: string;
    quantity: number;
  }>(
    sql`select order_id, id, sku, variant_id, quantity from order_lines where account_id = ${accountId} order by order_id, position`,
  );
  const byOrder = new Map<string, { id: string; sku: string; title: string; variantId: string; quantity: number }[]>();
  for (const l of ((queuedLines as unknown as { rows?: unknown[] }).rows ?? queuedLines) as {
    order_id: string;
    id: string;
    sku: string;
    variant_id: string;
    quantity: number;
  }[])
    byOrder.set(l.order_id, [
      ...(byOrder.get(l.order_id) ?? []),
      { id: l.id, sku: l.sku, title: l.sku, variantId: l.variant_id, quantity: l.quantity },
    ]);
  let placedLines = 0;
  let unplacedLines = 0;
  const started = performance.now();
  let n = 0;
  for (const [orderId, lines] of byOrder) {
    await db.transaction(async (tx) => {
      const routed = await routeAndReserve(tx, accountId, {
        orderId,
        order: {
          channelId: null,
          channelName: null,
          channelType: 'shopify',
          fulfillmentType: 'ship',
          pickupLocationId: null,
          channelLocationId: null,
          country: 'US',
          region: null,
          postalCode: ZIPS[n % ZIPS.length] ?? null,
          total: 5000,
          currency: 'USD',
        },
        lines,
        kind: 'initial',
      });
      await insertAllocations(tx, accountId, orderId, [
        ...routed.placements.map((p) => reservedAllocation(p)),
        ...routed.unplaced.map((u) => ({
          id: newId('oal'),
          lineId: u.lineId,
          variantId: u.variantId,
          locationId: null,
          quantity: u.quantity,
          status: u.status,
          reserved: 0,
          reason: u.reason,
        })),
      ]);
      placedLines += new Set(routed.placements.map((p) => p.lineId)).size;
      unplacedLines += routed.unplaced.length;
    });
    n++;
    if (n % 2000 === 0) log(`  routed ${n} orders (${Math.round(n / ((performance.now() - started) / 1000))}/s)`);
  }
  const seconds = (performance.now() - started) / 1000;
  const queued = {
    orders: n,
    seconds: Math.round(seconds * 10) / 10,
    ordersPerSecond: Math.round(n / seconds),
    placedLines,
    unplacedLines,
  };
  log(
    `queued: ${n} orders routed in ${queued.seconds} s = ${queued.ordersPerSecond} orders/s (${unplacedLines} lines unplaced)`,
  );

  // ---------------------------------------------------------------- replay of a draft over the last 10,000
  const draft = rules.rules.map((r) =>
    r.isDefault ? { ...r, strategy: { ...r.strategy, nearestFirst: false, keepWhole: true, maxShipments: 1 } } : r,
  );
  const t0 = performance.now();
  const summary = await replay(db, actor, {
    ruleSet: { source: 'draft', rules: draft },
    limit: Math.min(QUEUED, 10_000),
  });
  const replaySeconds = Math.round((performance.now() - t0) / 100) / 10;
  log(
    `replay of a draft over ${summary.orders} orders: ${replaySeconds} s (actual ${summary.actual.shipmentsPerOrder} shipments/order, ${summary.actual.avgDistanceKm} km; draft ${summary.draft.shipmentsPerOrder}, ${summary.draft.avgDistanceKm} km; ${summary.changedOrders} changed)`,
  );

  const commit = (() => {
    try {
      return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root }).toString().trim();
    } catch {
      return null;
    }
  })();
  const result = {
    at: new Date().toISOString(),
    commit,
    database: process.env.DATABASE_URL ? 'postgres' : 'pglite',
    load: os.loadavg().map((l) => Math.round(l * 100) / 100),
    decision,
    queued,
    replay: { orders: summary.orders, seconds: replaySeconds, actual: summary.actual, draft: summary.draft },
  };
  mkdirSync(join(root, 'bench', 'results'), { recursive: true });
  writeFileSync(join(root, 'bench', 'results', 'routing.json'), `${JSON.stringify(result, null, 2)}\n`);
} finally {
  await database.close();
}
