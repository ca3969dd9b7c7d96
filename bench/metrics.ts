// `npm run bench:metrics` (and part of `npm run bench`): the dashboard's metrics call (issue 17) over a year of
// BENCH_METRICS_ORDERS orders (default 1,000,000), in process against PostgreSQL: BENCH_DATABASE_URL (default: the machine's own
// server, over its socket when it has one: database-url.ts) gets a fresh database, dropped afterwards. Without a server it runs on
// PGlite in memory with 100,000 orders (BENCH_METRICS_ORDERS overrides either).
// One account (New York time) with 3 channels, 4 stores, 2,000 SKUs with stock, and the orders spread over 365
// days with 1–3 lines each, statuses as a shop's history (a twentieth cancelled), seeded with set-based SQL; the
// rollups are then built by the rebuild (metrics.rebuild.ts: the same facts SQL every order change runs).
// Measures (p50/p95/p99 over BENCH_METRICS_READS reads, default 60, after one warm-up), wall time and CPU time
// (this process's and, on PostgreSQL on this machine, its server processes'):
// - getMetrics for 1y by day (the target: ≤ 200 ms p95 on PostgreSQL), 1y by month, 6m by week, 30d by day,
//   each read interleaved with the same read of the service at BENCH_METRICS_BEFORE (default 9148cac, loaded from
//   git), so before and after compare as ratios under the same load;
// - each query of a 1y-by-day read alone, and the 30 days' top SKUs;
// - recordOrderMetrics for one order change in its own transaction (what each order change adds);
// - the rebuild of the whole account (once; BENCH_METRICS_DB keeps a seeded database to run again without it).
// A benchmark measures; it never asserts a time. Writes bench/results/metrics.json.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { type Database, openDatabase } from '../apps/server/src/db/client.ts';
import {
  accountClock,
  dailyFigures,
  stockHealth,
  syncHealth,
  topSkus,
} from '../apps/server/src/modules/metrics/metrics.queries.ts';
import { rebuildAccountMetrics } from '../apps/server/src/modules/metrics/metrics.rebuild.ts';
import { recordOrderMetrics } from '../apps/server/src/modules/metrics/metrics.record.ts';
import { getMetrics } from '../apps/server/src/modules/metrics/metrics.service.ts';
import { benchDatabaseUrl } from './database-url.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const log = (line: string) => process.stdout.write(`${line}\n`);
const serverUrl = benchDatabaseUrl();
const reads = Number(process.env.BENCH_METRICS_READS ?? 60);

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round((s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0) * 10) / 10;
};
/**
 * CPU time spent so far, in ms: this process's, plus, on PostgreSQL on this machine, that of the server processes
 * serving the bench's database (/proc/<pid>/schedstat). What a call costs whatever the machine's load; wall time
 * under load is mostly waiting for a core.
 */
class CpuClock {
  private pids: number[] = [];
  /** A connection of its own (not one of the pool's) that lists the pool's server processes. */
  private lister: pg.Client | null = null;
  constructor(private readonly database: Database) {}
  private async backends(): Promise<number[]> {
    if (this.database.kind !== 'postgres' || !this.database.connectionString) return [];
    if (!this.lister) {
      this.lister = new pg.Client({ connectionString: this.database.connectionString });
      await this.lister.connect();
    }
    const { rows } = await this.lister.query(
      `select pid from pg_stat_activity
       where datname = current_database() and backend_type = 'client backend' and pid <> pg_backend_pid()`,
    );
    return rows.map((r: { pid: number }) => r.pid);
  }
  async close() {
    await this.lister?.end();
  }
  private static ran(pid: number): number | null {
    try {
      return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
    } catch {
      return null;
    }
  }
  /** Start of a span: the backends now and their CPU so far. */
  async start() {
    this.pids = await this.backends();
    const server = new Map(this.pids.map((p) => [p, CpuClock.ran(p)]));
    const own = process.cpuUsage();
    return { own, server };
  }
  /** CPU of the span (ms): this process's and the backends' (those that started meanwhile count whole). */
  async stop(span: Awaited<ReturnType<CpuClock['start']>>) {
    const own = process.cpuUsage(span.own);
    let server: number | null = 0;
    for (const pid of await this.backends()) {
      const now = CpuClock.ran(pid);
      if (now === null) {
        server = null;
        break;
      }
      server += now - (span.server.get(pid) ?? 0);
    }
    return { own: (own.user + own.system) / 1000, server };
  }
}

interface Timed {
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  /** CPU per call (this process + the database server's), p50 / p95, when it could be read. */
  cpuP50Ms: number | null;
  cpuP95Ms: number | null;
}

/**
 * Times each of `fns` n times after one warm-up, interleaved call by call (the order turning each round), so that
 * what is compared ran under the same load.
 */
async function timeTogether(clock: CpuClock, n: number, fns: ((i: number) => Promise<unknown>)[]): Promise<Timed[]> {
  for (const fn of fns) await fn(-1);
  const wall = fns.map(() => [] as number[]);
  const cpu = fns.map(() => [] as number[]);
  let cpuKnown = true;
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < fns.length; k++) {
      const j = (k + i) % fns.length;
      const span = await clock.start();
      const t = performance.now();
      await fns[j]?.(i);
      wall[j]?.push(performance.now() - t);
      const used = await clock.stop(span);
      if (used.server === null) cpuKnown = false;
      cpu[j]?.push(used.own + (used.server ?? 0));
    }
  }
  return fns.map((_, j) => ({
    p50Ms: pct(wall[j] ?? [], 50),
    p95Ms: pct(wall[j] ?? [], 95),
    p99Ms: pct(wall[j] ?? [], 99),
    cpuP50Ms: cpuKnown ? pct(cpu[j] ?? [], 50) : null,
    cpuP95Ms: cpuKnown ? pct(cpu[j] ?? [], 95) : null,
  }));
}

const time = async (clock: CpuClock, n: number, fn: (i: number) => Promise<unknown>) =>
  (await timeTogether(clock, n, [fn]))[0] as Timed;

/**
 * The metrics service of an earlier commit (BENCH_METRICS_BEFORE, default 9148cac: before the yearly SKU rollup
 * and the one-pass daily read), loaded from git beside this one so before and after are timed in the same run.
 * Null when git cannot show it.
 */
async function serviceBefore(): Promise<{ getMetrics: typeof getMetrics; commit: string } | null> {
  const commit = process.env.BENCH_METRICS_BEFORE ?? '9148cac';
  try {
    const text = execFileSync('git', ['show', `${commit}:apps/server/src/modules/metrics/metrics.service.ts`], {
      cwd: root,
      encoding: 'utf8',
    })
      .replaceAll("from '../../", "from '../apps/server/src/")
      .replaceAll("from './", "from '../apps/server/src/modules/metrics/")
      // Renamed since (the threshold became a setting, 64bbf04); its default is the same 5.
      .replaceAll('METRICS_LOW_STOCK_THRESHOLD', 'DEFAULT_LOW_STOCK_THRESHOLD');
    const file = join(root, 'bench', `.metrics-service-${commit}.ts`);
    writeFileSync(file, text);
    try {
      const mod = (await import(file)) as { getMetrics: typeof getMetrics };
      return { getMetrics: mod.getMetrics, commit };
    } finally {
      rmSync(file, { force: true });
    }
  } catch (err) {
    log(`(no comparison with ${commit}: ${(err as Error).message.split('\n')[0]})`);
    return null;
  }
}

/**
 * A fresh database on the server (and how to drop it), or null when the server does not answer. With
 * BENCH_METRICS_DB=name the database of that name is used instead (created if missing) and kept afterwards, its
 * seeded account reused: profile and re-run without seeding 1,000,000 orders again.
 */
async function freshPostgres(url: string): Promise<{ url: string; drop: () => Promise<void> } | null> {
  const admin = new pg.Client({ connectionString: url });
  try {
    await admin.connect();
  } catch {
    return null;
  }
  const kept = process.env.BENCH_METRICS_DB;
  if (kept && !/^[a-z_][a-z0-9_]*$/.test(kept)) throw new Error('BENCH_METRICS_DB: lower-case letters, digits and _');
  const name = kept ?? `bench_metrics_${Date.now().toString(36)}`;
  const exists = kept
    ? (await admin.query('select 1 from pg_database where datname = $1', [name])).rowCount === 1
    : false;
  if (!exists) await admin.query(`create database ${name}`);
  await admin.end();
  const fresh = new URL(url);
  fresh.pathname = `/${name}`;
  return {
    url: fresh.toString(),
    drop: async () => {
      if (kept) return;
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

async function seed(database: Database, accountId: string, target: number) {
  const db = database.db;
  await db.execute(sql`
    insert into accounts (id, business, status, timezone, currency)
    values (${accountId}, 'Bench Metrics', 'active', 'America/New_York', 'USD')`);
  await db.execute(sql`
    insert into channels (id, account_id, type, name, status, external_id, features, settings)
    select ${accountId} || '_chn' || c, ${accountId}, (array['shopify','bigcommerce','square'])[c],
           (array['Web shop','Wholesale','Stores'])[c], 'connected', ${accountId} || '.chn' || c, '{}'::jsonb, '{}'::jsonb
    from generate_series(1, 3) c`);
  await db.execute(sql`
    insert into locations (id, account_id, name, store_id, ships, pickup, priority)
    select ${accountId} || '_loc' || s, ${accountId}, 'Store ' || s, 'BM' || s, true, true, s
    from generate_series(1, 4) s`);
  await db.execute(
    sql`insert into products (id, account_id, title) values (${accountId} || '_prd', ${accountId}, 'Bench Tee')`,
  );
  await db.execute(sql`
    insert into variants (id, account_id, product_id, sku)
    select ${accountId} || '_var' || v, ${accountId}, ${accountId} || '_prd', 'SKU-' || lpad(v::text, 5, '0')
    from generate_series(1, 2000) v`);
  await db.execute(sql`
    insert into inventory_levels (account_id, variant_id, location_id, on_hand, reserved)
    select ${accountId}, ${accountId} || '_var' || v, ${accountId} || '_loc' || s, (v * s) % 40, (v + s) % 3
    from generate_series(1, 2000) v cross join generate_series(1, 4) s`);
  const chunk = 100_000;
  for (let from = 1; from <= target; from += chunk) {
    const to = Math.min(target, from + chunk - 1);
    // Orders over the last 365 days (minute steps); a twentieth cancelled, most fulfilled, a tenth open.
    await db.execute(sql`
      insert into orders (id, account_id, channel_id, external_id, number, status, fulfillment_type, currency,
        subtotal, total, item_count, pickup_location_id, placed_at, provider_updated_at)
      select ${accountId} || '_o' || g, ${accountId}, ${accountId} || '_chn' || (1 + g % 3), 'bm-' || g,
             '#' || (100000 + g), case when g % 20 = 7 then 7 when g % 10 = 0 then 1 else 3 end,
             case when g % 4 = 0 then 'pickup' else 'ship' end, 'USD',
             1000 + g % 20000, 1000 + g % 20000, 1 + g % 3,
             case when g % 4 = 0 then ${accountId} || '_loc' || (1 + g % 4) else null end,
             now() - make_interval(secs => (${target}::bigint - g) * (31536000.0 / ${target}::bigint)),
             now() - make_interval(secs => (${target}::bigint - g) * (31536000.0 / ${target}::bigint))
      from generate_series(${from}::int, ${to}::int) g`);
    await db.execute(sql`
      insert into order_lines (id, account_id, order_id, position, external_id, sku, variant_id, title, quantity,
        unit_price)
      select ${accountId} || '_l' || g || '_' || p, ${accountId}, ${accountId} || '_o' || g, p, 'l' || p,
             'SKU-' || lpad((1 + (g * 7 + p * 13) % 2000)::text, 5, '0'),
             ${accountId} || '_var' || (1 + (g * 7 + p * 13) % 2000), 'Bench Tee', 1 + (g + p) % 3, 1000 + p * 250
      from generate_series(${from}::int, ${to}::int) g cross join generate_series(0, 2) p
      where p <= g % 3`);
    // Ship orders allocated at a store (their location on the dashboard).
    await db.execute(sql`
      insert into order_allocations (id, account_id, order_id, line_id, variant_id, location_id, quantity, status,
        reserved)
      select ${accountId} || '_a' || g, ${accountId}, ${accountId} || '_o' || g, ${accountId} || '_l' || g || '_0',
             ${accountId} || '_var' || (1 + (g * 7) % 2000), ${accountId} || '_loc' || (1 + g % 4), 1, 3, 0
      from generate_series(${from}::int, ${to}::int) g where g % 4 <> 0`);
    // Shipped a day or two after being placed: their fulfillment time.
    await db.execute(sql`
      insert into order_events (id, account_id, order_id, kind, message, from_status, to_status, created_at)
      select ${accountId} || '_e' || g, ${accountId}, ${accountId} || '_o' || g, 'status', 'Shipped.', 1, 3,
             now() - make_interval(secs => (${target}::bigint - g) * (31536000.0 / ${target}::bigint))
               + make_interval(hours => 6 + g % 42)
      from generate_series(${from}::int, ${to}::int) g where g % 10 <> 0 and g % 20 <> 7`);
    log(`  seeded ${to.toLocaleString('en-US')} orders`);
  }
  await db.execute(sql`analyze`);
}

async function run(database: Database, target: number, label: string) {
  await database.migrate();
  // A kept database (BENCH_METRICS_DB) already seeded with this many orders: its account is reused.
  const [kept] = (
    (await database.db.execute(sql`
      select a.id from accounts a where a.business = 'Bench Metrics'
        and (select count(*) from orders o where o.account_id = a.id) = ${target}
      limit 1`)) as unknown as { rows: { id: string }[] }
  ).rows;
  const accountId = kept?.id ?? `acc_benchm_${Date.now().toString(36)}`;
  const actor = { accountId };
  let t = performance.now();
  let seedMs: number | null = null;
  let rebuildMs: number | null = null;
  let facts: number;
  if (kept) {
    log(`${label}: reusing account ${accountId} (${target.toLocaleString('en-US')} orders) of the kept database`);
    // BENCH_METRICS_REBUILD=1: rebuild its rollups (after a change of what they hold).
    if (process.env.BENCH_METRICS_REBUILD === '1') await rebuildAccountMetrics(database.db, accountId);
    facts = target;
  } else {
    await seed(database, accountId, target);
    seedMs = Math.round(performance.now() - t);
    log(`${label}: ${target.toLocaleString('en-US')} orders seeded in ${(seedMs / 1000).toFixed(1)} s`);
    t = performance.now();
    facts = (await rebuildAccountMetrics(database.db, accountId)).facts;
    rebuildMs = Math.round(performance.now() - t);
    log(`${label}: rollups rebuilt from ${facts.toLocaleString('en-US')} facts in ${(rebuildMs / 1000).toFixed(1)} s`);
  }
  await database.db.execute(sql`vacuum analyze`);
  const check = await getMetrics(database.db, actor, { timeframe: '1y', granularity: 'day' });
  const [row] = (
    (await database.db.execute(sql`
      select count(*)::int as orders from orders where account_id = ${accountId} and status <> 7
        and placed_at >= (${check.from}::date)::timestamp at time zone 'America/New_York'`)) as unknown as {
      rows: { orders: number }[];
    }
  ).rows;
  log(`${label}: 1y by day counts ${check.totals.orders} orders; the orders table says ${row?.orders}`);
  const clock = new CpuClock(database);
  const before = await serviceBefore();
  const figures: Record<string, unknown> = {};
  for (const [timeframe, granularity] of [
    ['1y', 'day'],
    ['1y', 'month'],
    ['6m', 'week'],
    ['30d', 'day'],
  ] as const) {
    const view = (fn: typeof getMetrics) => () => fn(database.db, actor, { timeframe, granularity });
    const [now, then] = await timeTogether(
      clock,
      reads,
      before ? [view(getMetrics), view(before.getMetrics)] : [view(getMetrics)],
    );
    const key = `${timeframe}/${granularity}`;
    figures[key] = then
      ? {
          ...now,
          before: { commit: before?.commit, ...then },
          ratio: {
            p50: Math.round(((now?.p50Ms ?? 0) / then.p50Ms) * 100) / 100,
            p95: Math.round(((now?.p95Ms ?? 0) / then.p95Ms) * 100) / 100,
            cpuP50: now?.cpuP50Ms && then.cpuP50Ms ? Math.round((now.cpuP50Ms / then.cpuP50Ms) * 100) / 100 : null,
          },
        }
      : now;
    log(`${label}: getMetrics ${key}: ${JSON.stringify(figures[key])}`);
  }
  // Where a read spends its time: each of its queries alone, for 1y by day and the 30 days' top SKUs.
  const w = { from: check.from, to: check.to, previousFrom: check.previousFrom, previousTo: check.previousTo };
  const from30 = (await getMetrics(database.db, actor, { timeframe: '30d' })).from;
  const parts: Record<string, unknown> = {
    clock: await time(clock, reads, () => accountClock(database.db, accountId)),
    daysChannelsLocations: await time(clock, reads, () => dailyFigures(database.db, accountId, w)),
    topSkus: await time(clock, reads, () => topSkus(database.db, accountId, w.from, w.to)),
    topSkus30d: await time(clock, reads, () => topSkus(database.db, accountId, from30, w.to)),
    stock: await time(clock, reads, () => stockHealth(database.db, accountId)),
    sync: await time(clock, reads, () => syncHealth(database.db, accountId, check.to, 'America/New_York')),
  };
  log(`${label}: 1y by day, each query alone: ${JSON.stringify(parts)}`);
  // One order change: its total moves and its facts are applied again, in its own transaction.
  const change = await time(clock, Math.min(reads * 2, 200), async (i) => {
    const id = `${accountId}_o${1 + (((i + 1) * 4999) % target)}`;
    await database.db.transaction(async (tx) => {
      await tx.execute(sql`update orders set total = total + 1 where id = ${id}`);
      await recordOrderMetrics(tx, accountId, id);
    });
  });
  log(`${label}: one order change with its rollups: ${JSON.stringify(change)}`);
  await clock.close();
  return { orders: target, facts, seedMs, rebuildMs, getMetrics: figures, queries1yDay: parts, orderChange: change };
}

const started = new Date();
const server = process.env.BENCH_METRICS_ON === 'pglite' ? null : await freshPostgres(serverUrl);
const report: Record<string, unknown> = {
  startedAt: started.toISOString(),
  machine: { cpus: os.cpus().length, loadAverageAtStart: os.loadavg().map((l) => Math.round(l * 100) / 100) },
};
if (server) {
  const database = await openDatabase({ url: server.url });
  try {
    report.postgres = await run(database, Number(process.env.BENCH_METRICS_ORDERS ?? 1_000_000), 'PostgreSQL');
  } finally {
    await database.close();
    await server.drop();
  }
} else {
  log(`PostgreSQL at ${serverUrl.replace(/:[^:@/]*@/, ':***@')} did not answer (or BENCH_METRICS_ON=pglite): PGlite`);
  const database = await openDatabase({ memory: true });
  try {
    report.pglite = await run(database, Number(process.env.BENCH_METRICS_ORDERS ?? 100_000), 'PGlite');
  } finally {
    await database.close();
  }
}
report.loadAverageAtEnd = os.loadavg().map((l) => Math.round(l * 100) / 100);
mkdirSync(join(root, 'bench', 'results'), { recursive: true });
writeFileSync(join(root, 'bench', 'results', 'metrics.json'), `${JSON.stringify(report, null, 2)}\n`);
log(JSON.stringify(report, null, 2));
