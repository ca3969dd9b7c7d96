// `npm run bench:fulfillment` (and part of `npm run bench`): the fulfillment queue and picking list (issue 15),
// in process against the database (PGlite in memory by default; DATABASE_URL for a PostgreSQL server, whose
// database it fills). One account with 3 stores, 2,000 SKUs and BENCH_QUEUE_ORDERS orders (default 100,000)
// seeded with set-based SQL, each with 1–3 lines allocated at a store, statuses spread as a shop's history is
// (a tenth open, pickups a quarter). Measures:
// - the queue page (25, the default toShip scope of one store) and its counts per scope: p50/p99 over 60 reads,
//   and the pickup and all-orders tabs;
// - the picking list of 500 orders at one store as data and as a PDF with barcodes (median of 5).
// A benchmark measures; it never asserts a time. Writes bench/results/fulfillment.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { openDatabase } from '../apps/server/src/db/client.ts';
import { countQueue, listQueue } from '../apps/server/src/modules/fulfillment/fulfillment.queue.ts';
import { pickingList, pickingListPdf } from '../apps/server/src/modules/fulfillment/picking-list.ts';
import type { Actor } from '../apps/server/src/trpc/context.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const target = Number(process.env.BENCH_QUEUE_ORDERS ?? 100_000);
const log = (line: string) => process.stdout.write(`${line}\n`);

const database = await openDatabase(process.env.DATABASE_URL ? { url: process.env.DATABASE_URL } : { memory: true });
await database.migrate();
const db = database.db;
const accountId = `acc_benchq_${Date.now().toString(36)}`;
const actor: Actor = {
  sessionId: 'bench',
  userId: 'bench',
  accountId,
  authorizationLevel: 'user',
  superUserRole: null,
};

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round((s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0) * 10) / 10;
};
/**
 * Wall time and this process's CPU time per call (p50/p99). On PGlite the database runs in this process, so the
 * CPU figure is the whole cost of a call and says what an idle machine would take; wall time carries the load.
 */
async function time(n: number, fn: () => Promise<unknown>) {
  await fn();
  const ms: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < n; i++) {
    const c = process.cpuUsage();
    const t = performance.now();
    await fn();
    ms.push(performance.now() - t);
    const used = process.cpuUsage(c);
    cpu.push((used.user + used.system) / 1000);
  }
  return { p50: pct(ms, 50), p99: pct(ms, 99), cpuP50: pct(cpu, 50), cpuP99: pct(cpu, 99) };
}

try {
  const seeded = performance.now();
  await db.execute(sql`insert into accounts (id, business, status) values (${accountId}, 'Bench Queue', 'active')`);
  await db.execute(sql`
    insert into locations (id, account_id, name, store_id, ships, pickup, priority)
    select ${accountId} || '_loc' || s, ${accountId}, 'Store ' || s, 'BQ' || s, true, true, s
    from generate_series(1, 3) s`);
  await db.execute(sql`
    insert into products (id, account_id, title) values (${accountId} || '_prd', ${accountId}, 'Bench Tee')`);
  await db.execute(sql`
    insert into variants (id, account_id, product_id, sku, barcode)
    select ${accountId} || '_var' || v, ${accountId}, ${accountId} || '_prd', 'SKU-' || lpad(v::text, 5, '0'),
           lpad((400000000000 + v)::text, 12, '0')
    from generate_series(1, 2000) v`);
  const chunk = 50_000;
  for (let from = 1; from <= target; from += chunk) {
    const to = Math.min(target, from + chunk - 1);
    await db.execute(sql`
      insert into orders (id, account_id, external_id, number, status, fulfillment_type, customer_name, currency,
        total, item_count, placed_at, provider_updated_at, pickup_location_id)
      select ${accountId} || '_o' || lpad(g::text, 8, '0'), ${accountId}, 'bq-' || g, '#' || (200000 + g),
             case when g % 10 = 0 then 1 when g % 10 = 1 then 2 when g % 20 = 2 then 7 else 3 end,
             (array['ship','ship','pickup','curbside_pickup'])[1 + g % 4], 'Customer ' || (g % 500), 'USD',
             2500, 1 + g % 3,
             now() - make_interval(mins => (${target}::int - g)), now() - make_interval(mins => (${target}::int - g)),
             case when g % 4 >= 2 then ${accountId} || '_loc' || (1 + g % 3) end
      from generate_series(${from}::int, ${to}::int) g`);
    await db.execute(sql`
      insert into order_lines (id, account_id, order_id, position, external_id, sku, variant_id, title, quantity)
      select ${accountId} || '_l' || g || '_' || p, ${accountId}, ${accountId} || '_o' || lpad(g::text, 8, '0'), p,
             'l' || p, 'SKU-' || lpad((1 + (g * 7 + p * 13) % 2000)::text, 5, '0'),
             ${accountId} || '_var' || (1 + (g * 7 + p * 13) % 2000), 'Bench Tee', 1 + (g + p) % 2
      from generate_series(${from}::int, ${to}::int) g cross join lateral generate_series(0, g % 3) p`);
    await db.execute(sql`
      insert into order_allocations (id, account_id, order_id, line_id, variant_id, location_id, quantity, status, reserved)
      select ${accountId} || '_a' || g || '_' || p, ${accountId}, ${accountId} || '_o' || lpad(g::text, 8, '0'),
             ${accountId} || '_l' || g || '_' || p, ${accountId} || '_var' || (1 + (g * 7 + p * 13) % 2000),
             ${accountId} || '_loc' || (1 + g % 3), 1 + (g + p) % 2, st.status,
             case when g % 10 in (0, 1) then 1 + (g + p) % 2 else 0 end
      from generate_series(${from}::int, ${to}::int) g cross join lateral generate_series(0, g % 3) p
      cross join lateral (select case when g % 10 in (0, 1) or g % 20 = 2 then 1 else 3 end as status) st`);
  }
  await db.execute(sql`analyze orders`);
  await db.execute(sql`analyze order_allocations`);
  await db.execute(sql`analyze order_lines`);
  const seedMs = Math.round(performance.now() - seeded);
  log(
    `fulfillment bench: ${target.toLocaleString()} orders seeded in ${seedMs} ms (${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`,
  );

  const page = await time(60, () => listQueue(db, actor, { filter: { store_id: 'BQ1' } }));
  const counts = await time(60, () => countQueue(db, actor, { filter: { store_id: 'BQ1' } }));
  const pickupTab = await time(30, () => listQueue(db, actor, { filter: { store_id: 'BQ1', scope: 'pickup' } }));
  const allTab = await time(30, () => listQueue(db, actor, { filter: { store_id: 'BQ1', scope: '' }, offset: 5000 }));
  const skuFilter = await time(30, () =>
    listQueue(db, actor, { filter: { store_id: 'BQ1', scope: '', skus: 'SKU-00042,SKU-01000' } }),
  );
  log(
    `  queue page (toShip, 25): p50 ${page.p50} ms, p99 ${page.p99} ms (CPU p50 ${page.cpuP50} ms, p99 ${page.cpuP99} ms)`,
  );
  log(
    `  counts per scope: p50 ${counts.p50} ms, p99 ${counts.p99} ms (CPU p50 ${counts.cpuP50} ms, p99 ${counts.cpuP99} ms)`,
  );
  log(
    `  pickup tab: p50 ${pickupTab.p50} ms, p99 ${pickupTab.p99} ms; all orders at offset 5,000: p50 ${allTab.p50} ms, p99 ${allTab.p99} ms; two SKUs: p50 ${skuFilter.p50} ms, p99 ${skuFilter.p99} ms`,
  );

  const list = await pickingList(db, actor, { store_id: 'BQ1', sort: 'asc' });
  const pdfRuns: number[] = [];
  const dataRuns: number[] = [];
  const cpuRuns: number[] = [];
  let bytes = 0;
  for (let i = 0; i < 5; i++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const data = await pickingList(db, actor, { store_id: 'BQ1', sort: 'asc' });
    const t1 = performance.now();
    const pdf = await pickingListPdf(data);
    const t2 = performance.now();
    dataRuns.push(t1 - t0);
    pdfRuns.push(t2 - t0);
    const used = process.cpuUsage(c0);
    cpuRuns.push((used.user + used.system) / 1000);
    bytes = pdf.length;
  }
  const pdfSeconds = pct(pdfRuns, 50) / 1000;
  log(
    `  picking list: ${list.orders} orders, ${list.rows.length} SKUs, ${list.units} units; data ${pct(dataRuns, 50)} ms, data + PDF ${pdfSeconds.toFixed(2)} s, CPU ${(pct(cpuRuns, 50) / 1000).toFixed(2)} s (median of 5, ${Math.round(bytes / 1024)} KiB)`,
  );
  mkdirSync(join(root, 'bench', 'results'), { recursive: true });
  writeFileSync(
    join(root, 'bench', 'results', 'fulfillment.json'),
    `${JSON.stringify(
      {
        at: new Date().toISOString(),
        engine: process.env.DATABASE_URL ? 'postgresql' : 'pglite',
        orders: target,
        load: os.loadavg(),
        queuePage: page,
        counts,
        pickupTab,
        allTabOffset5000: allTab,
        skuFilter,
        pickingList: {
          orders: list.orders,
          skus: list.rows.length,
          units: list.units,
          dataMs: pct(dataRuns, 50),
          pdfSeconds,
        },
      },
      null,
      2,
    )}\n`,
  );
} finally {
  await database.close();
}
