// `node --import tsx bench/intake.ts`: what taking an order in costs the database, without the simulators,
// HTTP or the job queue (issue 13, "Ingest"). One account with three live channels (orderWorld: two stores,
// BENCH_INTAKE_SKUS SKUs stocked far beyond what is ordered), and BENCH_INTAKE_ORDERS channel orders of 1–3 lines
// spread over the channels, each taken in and reserved. The three channels' orders go in side by side, each
// channel in the order-events pass's batches of 100 (`ingestOrders`, several orders per transaction) or, where the
// tree has no `ingestOrders` (before it), one `ingestOrder` transaction per order as that pass did.
// Per engine (PGlite in memory; PostgreSQL when BENCH_DATABASE_URL, default the machine's own, over its socket when it has one: database-url.ts,
// answers, in a fresh database): orders/s, statements per order (PostgreSQL: queries sent), CPU per order of this
// process and of the PostgreSQL backends that served it (from /proc, where readable), and the load average.
// A benchmark measures; it never asserts a time. Prints JSON; writes nothing.
import { readFileSync } from 'node:fs';
import os from 'node:os';
import pg from 'pg';
import type { ProviderOrder } from '../apps/server/src/connectors/types.ts';
import { openDatabase } from '../apps/server/src/db/client.ts';
import * as ingest from '../apps/server/src/modules/orders/ingest.ts';
import { channelOrder, invariantViolations, orderWorld } from '../apps/server/src/modules/orders/orders.fixtures.ts';
import { createTestApp } from '../apps/server/test/app.ts';
import { benchDatabaseUrl } from './database-url.ts';

const ORDERS = Number(process.env.BENCH_INTAKE_ORDERS ?? 600);
const SKUS = Number(process.env.BENCH_INTAKE_SKUS ?? 50);
const PASS_BATCH = 100;
const on = (process.env.BENCH_INTAKE_ON ?? 'pglite,postgres').split(',');
const serverUrl = benchDatabaseUrl();
const log = (line: string) => process.stderr.write(`${line}\n`);
const load = () => os.loadavg().map((l) => Math.round(l * 10) / 10);
const batched = typeof (ingest as Record<string, unknown>).ingestOrders === 'function';

// Every query node-postgres sends, counted (PGlite runs in this process: its statements are not counted).
// BENCH_INTAKE_TRACE=1: also the time to each one's answer, summed by statement (what the database waits on).
let queries = 0;
const trace = new Map<string, { n: number; ms: number }>();
const originalQuery = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  queries++;
  const result = (originalQuery as (...a: unknown[]) => unknown).apply(this, args);
  if (process.env.BENCH_INTAKE_TRACE && result instanceof Promise) {
    const first = args[0] as string | { text?: string };
    const text = (typeof first === 'string' ? first : (first?.text ?? '?')).replace(/\s+/g, ' ').slice(0, 110);
    const t0 = performance.now();
    void result.then(
      () => {
        const s = trace.get(text) ?? { n: 0, ms: 0 };
        s.n++;
        s.ms += performance.now() - t0;
        trace.set(text, s);
      },
      () => undefined,
    );
  }
  return result;
} as typeof pg.Client.prototype.query;

/** CPU seconds (user + system) of these processes, from /proc; 0 where it cannot be read. */
function cpuOf(pids: number[]): number {
  const tick = 100;
  let sum = 0;
  for (const pid of pids) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
      sum += (Number(fields[11]) + Number(fields[12])) / tick;
    } catch {}
  }
  return sum;
}

async function run(engine: 'pglite' | 'postgres') {
  let url: string | null = null;
  let drop: (() => Promise<void>) | null = null;
  if (engine === 'postgres') {
    const admin = new pg.Client({ connectionString: serverUrl });
    try {
      await admin.connect();
    } catch {
      log(`PostgreSQL at ${serverUrl} did not answer: left out`);
      return null;
    }
    const name = `bench_intake_${Date.now().toString(36)}`;
    await admin.query(`create database ${name}`);
    await admin.end();
    const u = new URL(serverUrl);
    u.pathname = `/${name}`;
    url = u.toString();
    drop = async () => {
      const c = new pg.Client({ connectionString: serverUrl });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    };
  }
  const database = await openDatabase(url ? { url } : { memory: true });
  await database.migrate();
  const t = await createTestApp({ database, env: { LOG_LEVEL: 'warn' } });
  try {
    const skus = Array.from({ length: SKUS }, (_, i) => `BENCH-${String(i).padStart(3, '0')}`);
    const world = await orderWorld(t.services, skus, 1_000_000);
    const types = ['shopify', 'bigcommerce', 'square'] as const;
    const byChannel = new Map<(typeof types)[number], ProviderOrder[]>(types.map((c) => [c, []]));
    for (let i = 0; i < ORDERS; i++) {
      const type = types[i % 3] as (typeof types)[number];
      const lines: Record<string, number> = {};
      for (let l = 0; l <= i % 3; l++) lines[skus[(i * 7 + l * 13) % SKUS] as string] = 1 + (l % 2);
      byChannel.get(type)?.push(channelOrder(world, type, lines, { store: i % 2 ? 'S2' : 'S1' }));
    }
    const pids = async () =>
      url
        ? ((
            await t.services.database.executeSql(
              'select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
            )
          ).rows.map((r) => Number((r as { pid: number }).pid)) as number[])
        : [];
    const seen = new Set(await pids());
    const dbCpu0 = cpuOf([...seen]);
    const cpu0 = process.cpuUsage();
    const q0 = queries;
    const t0 = performance.now();
    await Promise.all(
      types.map(async (type) => {
        const channel = world.channel[type];
        const list = byChannel.get(type) ?? [];
        for (let i = 0; i < list.length; i += PASS_BATCH) {
          const chunk = list.slice(i, i + PASS_BATCH);
          if (batched) {
            const results = await (ingest as unknown as { ingestOrders: typeof ingest.ingestOrder }).ingestOrders(
              t.services,
              channel,
              chunk as never,
            );
            for (const r of (results as unknown as Map<string, unknown>).values()) if (r instanceof Error) throw r;
          } else {
            for (const order of chunk) await ingest.ingestOrder(t.services, channel, order);
          }
          for (const p of await pids()) seen.add(p);
        }
      }),
    );
    const ms = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    const statements = queries - q0;
    const dbCpu = cpuOf([...seen]) - dbCpu0;
    const violations = await invariantViolations(t.services, world.accountId);
    if (violations.length > 0) throw new Error(`ledger invariant broken: ${violations.slice(0, 3).join('; ')}`);
    return {
      orders: ORDERS,
      mode: batched ? 'batches (ingestOrders)' : 'one transaction per order (ingestOrder)',
      ordersPerSecond: Math.round((ORDERS / (ms / 1000)) * 10) / 10,
      seconds: Math.round(ms / 100) / 10,
      statementsPerOrder: url ? Math.round((statements / ORDERS) * 10) / 10 : null,
      nodeCpuMsPerOrder: Math.round(((cpu.user + cpu.system) / 1000 / ORDERS) * 100) / 100,
      postgresCpuMsPerOrder: url ? Math.round(((dbCpu * 1000) / ORDERS) * 100) / 100 : null,
    };
  } finally {
    await t.close();
    await database.close();
    await drop?.();
  }
}

const report: Record<string, unknown> = { date: new Date().toISOString(), loadAtStart: load() };
for (const engine of ['pglite', 'postgres'] as const) if (on.includes(engine)) report[engine] = await run(engine);
report.loadAtEnd = load();
if (process.env.BENCH_INTAKE_TRACE)
  report.statements = [...trace.entries()]
    .sort(([, a], [, b]) => b.ms - a.ms)
    .slice(0, 40)
    .map(([text, s]) => `${Math.round(s.ms)} ms, ${s.n}×: ${text}`);
process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
process.exit(0);
