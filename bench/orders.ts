// Order benchmarks (issue 13), run by `npm run bench` after bench/sync.ts (or alone: `npm run bench:orders`).
// See bench/README.md. The real server runs as a child process (NODE_ENV=production, workers in process), the
// simulators as another; the simulators send their webhooks straight to the server and time each acknowledgement
// as a provider sees it (`/_control/deliveries/acks`). (A relay in this process did that until 2026-11-26; it
// spent 3.7 ms of CPU an order on this 2-core machine, which the server and PostgreSQL now have.)
// - effect: orders placed in the simulators one after another (Shopify and BigCommerce web orders, Square POS
//   sales and pickup orders, standard rate limits) until the other two shops offer the ordered unit less;
// - ingest: a burst of orders placed in the simulators (rate limits lifted: what is measured is our intake)
//   until every one is in our orders table with its units reserved; webhook ack latency meanwhile; then orders
//   at a steady rate; then a backlog: orders placed while the simulators hold their webhooks, timed from their
//   release (the simulators' making of the orders out of the window);
// - list: `/orders/` pages of 25 (and searches) over orders seeded with SQL (bench/seed-orders.ts).
// On PGlite (effect, ingest, list at 100,000) and, when BENCH_DATABASE_URL (default: the machine's own
// server, over its socket when it has one: database-url.ts) answers, on PostgreSQL (ingest, list at 1,000,000) in a fresh
// database dropped afterwards. Figures go to bench/results/latest.json under "orders". A benchmark measures and
// never asserts a time: the run fails only when it is itself broken.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import {
  type Child,
  freePorts,
  LiveMerchant,
  type Provider,
  SandboxControl,
  type ShopSnapshot,
  squareMerchantId,
  startChild,
  waitUntilReady,
} from '../apps/server/test/live.ts';
import { benchDatabaseUrl, databaseTransport } from './database-url.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const resultsFile = join(root, 'bench', 'results', 'latest.json');
const HOST = '127.0.0.1';

const int = (name: string, fallback: number) => {
  const raw = process.env[name];
  const value = raw ? Number(raw) : fallback;
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a whole number, got "${raw}"`);
  return value;
};

const settings = {
  /** Orders for the order-to-effect figures, one after another. */
  effectOrders: int('BENCH_EFFECT_ORDERS', 500),
  /** Orders of the ingest burst, and how many are placed at once. */
  ingestOrders: int('BENCH_INGEST_ORDERS', 2000),
  ingestConcurrency: int('BENCH_INGEST_CONCURRENCY', 16),
  /**
   * After the burst, orders placed at a steady rate for this many seconds (0: none): the acknowledgement times a
   * provider sees at a rate the machine keeps up with, rather than while a burst five times its capacity queues.
   */
  sustainedSeconds: int('BENCH_INGEST_SUSTAINED_SECONDS', 20),
  /** Orders a second of that phase (0: 60 % of what the burst processed a second). */
  sustainedRate: int('BENCH_INGEST_RATE', 0),
  /** Orders placed while the simulators hold their webhooks, then released at once (0: no backlog phase). */
  backlogOrders: int('BENCH_INGEST_BACKLOG', 1000),
  /** Orders seeded for the list figures on PGlite and on PostgreSQL. */
  listPglite: int('BENCH_LIST_ORDERS_PGLITE', 100_000),
  listPostgres: int('BENCH_LIST_ORDERS_POSTGRES', 1_000_000),
  /** Requests per list shape (after 20 warm-up). */
  listRequests: int('BENCH_LIST_REQUESTS', 200),
  products: int('BENCH_ORDER_PRODUCTS', 50),
  timeoutMs: int('BENCH_ORDER_TIMEOUT_MS', 30_000),
  pollMs: int('BENCH_POLL_MS', 20),
  postgres: benchDatabaseUrl(),
  /** Which databases to run on: `pglite,postgres` (default), or one of them. */
  on: (process.env.BENCH_ORDERS_ON ?? 'pglite,postgres').split(','),
};

const children = new Set<Child>();
/** The worker process of BENCH_WORKER_PROCESS=1, while it runs. */
let worker: Child | null = null;
const temps: string[] = [];
let dropDatabase: (() => Promise<void>) | null = null;
const log = (line: string) => process.stdout.write(`${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const round = (v: number, d = 1) => Math.round(v * 10 ** d) / 10 ** d;
const load = () => os.loadavg().map((l) => round(l, 2));

function percentile(sorted: number[], p: number) {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * p) - 1)] as number;
}
function summary(ms: number[]) {
  const sorted = [...ms].sort((a, b) => a - b);
  return {
    count: sorted.length,
    p50Ms: round(percentile(sorted, 0.5)),
    p95Ms: round(percentile(sorted, 0.95)),
    p99Ms: round(percentile(sorted, 0.99)),
    maxMs: round(sorted[sorted.length - 1] ?? Number.NaN),
  };
}

for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    log(`\nbench: ${signal}, stopping…`);
    void cleanup().then(() => process.exit(130));
  });
process.on('exit', () => {
  for (const c of children) c.proc.kill('SIGKILL');
});

// ------------------------------------------------------------------------------------------------------------

async function main(): Promise<number> {
  const [appPort, sandboxPort] = (await freePorts(2)) as [number, number];
  const appBase = `http://${HOST}:${appPort}`;
  const sandboxBase = `http://${HOST}:${sandboxPort}`;
  const squareSignatureKey = 'bench-square-webhook-signature-key';
  const report: Record<string, unknown> = {
    date: new Date().toISOString(),
    commit: execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim(),
    node: process.version,
    cpus: { count: os.cpus().length, model: os.cpus()[0]?.model ?? 'unknown' },
    settings: {
      ...settings,
      postgres: settings.postgres.replace(/:[^:@/]*@/, ':***@'),
      postgresTransport: databaseTransport(settings.postgres),
    },
    loadAverageAtStart: load(),
  };

  // BENCH_SANDBOX_CPU_PROF=<dir>: the simulators write a V8 CPU profile there when they stop.
  const sandboxProfile = process.env.BENCH_SANDBOX_CPU_PROF
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_SANDBOX_CPU_PROF}`]
    : [];
  const sandboxArgs = [process.execPath, ...sandboxProfile, '--import', 'tsx', 'packages/sandbox/src/main.ts'];
  const sandboxChild = startChild('sandbox', sandboxArgs, {
    cwd: root,
    env: {
      ...process.env,
      SANDBOX_PORT: String(sandboxPort),
      // A log line per request would cost the simulators, and this bench reading them, CPU the run measures.
      LOG_LEVEL: 'warn',
      SANDBOX_HOST: HOST,
      SQUARE_WEBHOOK_URL: `${appBase}/webhooks/square`,
      SQUARE_WEBHOOK_SIGNATURE_KEY: squareSignatureKey,
    },
  });
  children.add(sandboxChild);
  simulatorsPid = sandboxChild.proc.pid;
  await waitUntilReady(sandboxChild, `${sandboxBase}/_control`);
  const sandbox = new SandboxControl(sandboxBase);

  const run = async (database: 'pglite' | 'postgres', url: string | null) => {
    const dataDir = mkdtempSync(join(os.tmpdir(), 'switchyard-orders-bench-'));
    temps.push(dataDir);
    const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
    const split = process.env.BENCH_WORKER_PROCESS === '1' && url !== null;
    delete env.DATABASE_URL;
    if (url) env.DATABASE_URL = url;
    const serverEnv = {
      ...env,
      // BENCH_SERVER_LOG_LEVEL=debug: the server says how long each order-events batch read and took in.
      LOG_LEVEL: process.env.BENCH_SERVER_LOG_LEVEL ?? 'warn',
      PORT: String(appPort),
      HOST,
      NODE_ENV: 'production',
      // BENCH_WORKER_PROCESS=1 (PostgreSQL only): the job handlers run in a worker process of their own
      // (src/worker.ts), the web process only answers (webhooks, the bench's reads).
      RUN_WORKERS: split ? 'false' : 'true',
      SANDBOX_URL: sandboxBase,
      SQUARE_WEBHOOK_SIGNATURE_KEY: squareSignatureKey,
      PUBLIC_URL: appBase,
      WEB_DIST: '/nonexistent',
    };
    const login = { email: `orders-${database}@switchyard.test`, password: 'bench password 2026' };
    const out = execFileSync(
      process.execPath,
      ['--import', 'tsx', 'apps/server/src/cli/admin-create.ts', '--email', login.email, '--password', login.password],
      { cwd: root, env, encoding: 'utf8' },
    );
    const accountId = /account (\S+?)\)/.exec(out)?.[1] ?? '';
    let app = await startServer(serverEnv, appBase);
    worker = split ? await startWorker(serverEnv) : null;
    const figures: Record<string, unknown> = split ? { workerProcess: true } : {};
    const setUp = await setUpMerchant(appBase, sandbox, login, database === 'pglite' ? 'opg' : 'opq');
    if (database === 'pglite' && settings.effectOrders > 0) figures.effect = await effect(sandbox, setUp);
    if (settings.ingestOrders > 0) {
      const burst = await ingest(sandbox, setUp, settings.ingestOrders, 0, app.proc.pid);
      figures.ingest = burst;
      const rate = settings.sustainedRate || Math.max(1, Math.floor(burst.processedPerSecond * 0.6));
      if (settings.sustainedSeconds > 0)
        figures.ingestSustained = await ingest(sandbox, setUp, rate * settings.sustainedSeconds, rate, app.proc.pid);
    }
    if (settings.backlogOrders > 0)
      figures.ingestBacklog = await ingest(sandbox, setUp, settings.backlogOrders, 0, app.proc.pid, true);
    if (worker) await stopServer(worker);
    worker = null;
    const listOrders = database === 'pglite' ? settings.listPglite : settings.listPostgres;
    if (listOrders > 0) {
      await stopServer(app);
      const seeded = execFileSync(process.execPath, ['--import', 'tsx', 'bench/seed-orders.ts', accountId], {
        cwd: root,
        env: { ...env, BENCH_LIST_ORDERS: String(listOrders) },
        encoding: 'utf8',
      });
      log(`  ${database}: seeded ${seeded.trim()}`);
      app = await startServer(serverEnv, appBase);
      const merchant = await LiveMerchant.signIn(appBase, login.email, login.password);
      figures.list = { orders: listOrders, ...(await listFigures(merchant)) };
    }
    await stopServer(app);
    return figures;
  };

  if (settings.on.includes('pglite')) report.pglite = await run('pglite', null);
  const postgres = settings.on.includes('postgres') ? await freshPostgres(settings.postgres) : null;
  if (postgres) report.postgres = await run('postgres', postgres);
  else log(`PostgreSQL at ${settings.postgres} did not answer: its figures are left out`);

  report.loadAverageAtEnd = load();
  writeResults(report);
  log(JSON.stringify(report, null, 2));
  return 0;
}

/** A new database on the server of `url` (dropped at the end), or null when the server does not answer. */
async function freshPostgres(url: string): Promise<string | null> {
  const admin = new pg.Client({ connectionString: url });
  try {
    await admin.connect();
  } catch {
    return null;
  }
  const name = `bench_orders_${Date.now().toString(36)}`;
  await admin.query(`create database ${name}`);
  await admin.end();
  dropDatabase = async () => {
    // BENCH_KEEP=1 keeps it too, to look at afterwards (EXPLAIN a statement on the data it ran on).
    if (process.env.BENCH_KEEP) return console.error(`kept database ${name}`);
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    await c.query(`drop database if exists ${name} with (force)`);
    await c.end();
  };
  const fresh = new URL(url);
  fresh.pathname = `/${name}`;
  return fresh.toString();
}

async function startServer(env: NodeJS.ProcessEnv, base: string): Promise<Child> {
  // BENCH_CPU_PROF=<dir>: the server writes a V8 CPU profile there when it stops (where does its time go).
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  const child = startChild('switchyard', [process.execPath, ...profile, '--import', 'tsx', 'apps/server/src/main.ts'], {
    cwd: root,
    env,
    echo: (line) => process.stderr.write(`[switchyard] ${line}\n`),
  });
  children.add(child);
  void child.exited.then(() => children.delete(child));
  const ms = await waitUntilReady(child, `${base}/readyz`);
  log(`switchyard ready in ${ms} ms (pid ${child.proc.pid}, ${env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`);
  return child;
}

/** A worker-only process (src/worker.ts) beside the web process; ready once it says so. */
async function startWorker(env: NodeJS.ProcessEnv): Promise<Child> {
  const child = startChild('switchyard-worker', [process.execPath, '--import', 'tsx', 'apps/server/src/worker.ts'], {
    cwd: root,
    env: { ...env, LOG_LEVEL: 'info' },
    echo: (line) => {
      if (/"level":(4|5|6)\d/.test(line)) process.stderr.write(`[worker] ${line}\n`);
    },
  });
  children.add(child);
  void child.exited.then(() => children.delete(child));
  const started = Date.now();
  while (!child.lines.some((l) => l.includes('worker is ready'))) {
    if (Date.now() - started > 90_000) throw new Error('the worker did not start within 90 s');
    if (child.proc.exitCode !== null) throw new Error(`the worker exited:\n${child.lines.slice(-30).join('\n')}`);
    await sleep(100);
  }
  log(`worker ready in ${Date.now() - started} ms (pid ${child.proc.pid})`);
  return child;
}

async function stopServer(child: Child) {
  child.proc.kill('SIGTERM');
  const timer = setTimeout(() => child.proc.kill('SIGKILL'), 30_000);
  const outcome = await child.exited;
  clearTimeout(timer);
  if (outcome.code !== 0) throw new Error(`switchyard did not shut down cleanly: ${JSON.stringify(outcome)}`);
}

async function cleanup() {
  await Promise.all(
    [...children].map(async (c) => {
      c.proc.kill('SIGTERM');
      const timer = setTimeout(() => c.proc.kill('SIGKILL'), 30_000);
      await c.exited;
      clearTimeout(timer);
    }),
  );
  await dropDatabase?.().catch(() => undefined);
  dropDatabase = null;
  if (!process.env.BENCH_KEEP) for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
}

function writeResults(report: Record<string, unknown>) {
  mkdirSync(join(root, 'bench', 'results'), { recursive: true });
  const existing = existsSync(resultsFile) ? (JSON.parse(readFileSync(resultsFile, 'utf8')) as object) : {};
  writeFileSync(resultsFile, `${JSON.stringify({ ...existing, orders: report }, null, 2)}\n`);
}

// ------------------------------------------------------------------------------------------------ set-up

interface Shops {
  square: string;
  shopify: string;
  bigcommerce: string;
}
interface SetUp {
  merchant: LiveMerchant;
  shops: Shops;
  channels: Record<Provider, string>;
}

/** Seeds and connects the three shops, imports their catalogs (Square first: its stores are our locations). */
async function setUpMerchant(
  appBase: string,
  sandbox: SandboxControl,
  login: { email: string; password: string },
  tag: string,
): Promise<SetUp> {
  const started = Date.now();
  const business = `Bench ${tag}`;
  const shops: Shops = {
    square: await squareMerchantId(business),
    shopify: `bench-${tag}`,
    bigcommerce: `bench${tag}`,
  };
  const seed = { products: settings.products, locations: 3, variantsPerProduct: 4 };
  for (const provider of ['square', 'shopify', 'bigcommerce'] as const)
    await sandbox.reset(provider, shops[provider], seed);
  const merchant = await LiveMerchant.signIn(appBase, login.email, login.password);
  const channels = {
    square: (await merchant.connect('square', business)).id,
    shopify: (await merchant.connect('shopify', shops.shopify)).id,
    bigcommerce: (await merchant.connect('bigcommerce', shops.bigcommerce)).id,
  };
  const importOne = async (provider: Provider) => {
    const id = await merchant.catalogSync(channels[provider]);
    const run = await merchant.waitSync(id, 10 * 60_000);
    if (run.status === 'failed') throw new Error(`${provider} import failed: ${run.message}`);
  };
  await importOne('square');
  await Promise.all([importOne('shopify'), importOne('bigcommerce')]);
  // The shops agree: each offers what our ledger holds.
  const deadline = Date.now() + 10 * 60_000;
  for (;;) {
    const s = await snapshots(sandbox, shops);
    const skus = Object.keys(s.square.stock);
    if (
      skus.length > 0 &&
      skus.every(
        (sku) => total(s.shopify, sku) === total(s.square, sku) && total(s.bigcommerce, sku) === total(s.square, sku),
      )
    )
      break;
    if (Date.now() > deadline) {
      const differ = Object.keys(s.square.stock)
        .filter(
          (sku) => total(s.shopify, sku) !== total(s.square, sku) || total(s.bigcommerce, sku) !== total(s.square, sku),
        )
        .map(
          (sku) =>
            `${sku}: square ${total(s.square, sku)}, shopify ${total(s.shopify, sku)}, bigcommerce ${total(s.bigcommerce, sku)}`,
        );
      throw new Error(`the shops did not converge: ${differ.slice(0, 10).join('; ')}`);
    }
    await sleep(1000);
  }
  await sandbox.settle();
  log(`  ${tag}: three shops connected, imported and converged in ${round((Date.now() - started) / 1000)} s`);
  return { merchant, shops, channels };
}

async function snapshots(sandbox: SandboxControl, shops: Shops) {
  const [square, shopify, bigcommerce] = await Promise.all([
    sandbox.snapshot('square', shops.square),
    sandbox.snapshot('shopify', shops.shopify),
    sandbox.snapshot('bigcommerce', shops.bigcommerce),
  ]);
  return { square, shopify, bigcommerce };
}

/** What a shop offers of a SKU over all its locations. */
const total = (snap: ShopSnapshot, sku: string) =>
  Object.values(snap.stock[sku] ?? {}).reduce((s, q) => s + (q as number), 0);

type Kind = 'shopify web' | 'bigcommerce web' | 'square POS' | 'square pickup';
const KINDS: Kind[] = ['shopify web', 'bigcommerce web', 'square POS', 'square pickup'];
const providerOf = (kind: Kind) => kind.split(' ')[0] as Provider;

/** An order of one unit of a SKU the kind's shop has at the location it takes stock at; null when none is left. */
function pick(kind: Kind, snap: Awaited<ReturnType<typeof snapshots>>, n: number) {
  const provider = providerOf(kind);
  const shop = snap[provider];
  const skus = Object.keys(snap.square.stock).sort();
  for (let k = 0; k < skus.length; k++) {
    const sku = skus[(n * 7 + k) % skus.length] as string;
    const locs = kind === 'bigcommerce web' ? [String(shop.locations[0]?.id)] : shop.locations.map((l) => String(l.id));
    const at = locs.find((l) => (shop.stock[sku]?.[l] ?? 0) >= 2);
    if (!at) continue;
    const body: Record<string, unknown> = { lines: [{ sku, quantity: 1 }] };
    if (kind === 'shopify web' || kind === 'square POS') body.location = at;
    if (kind === 'square pickup')
      Object.assign(body, {
        location: at,
        fulfillmentType: 'pickup',
        customer: { name: 'Ada Lovelace', email: 'ada@example.com' },
      });
    return { sku, body };
  }
  return null;
}

/** Places an order; with `refusable`, answers false when the shop had no stock left for it (409) rather than throw. */
async function place(
  sandbox: SandboxControl,
  shops: Shops,
  kind: Kind,
  body: Record<string, unknown>,
  refusable = false,
) {
  const provider = providerOf(kind);
  const res = await postJson(`${sandbox.base}/_control/${provider}/${shops[provider]}/orders`, body);
  if (refusable && res.status === 409) return false;
  if (res.status >= 300) throw new Error(`placing a ${kind} order answered ${res.status}: ${res.text}`);
  return true;
}

/**
 * Keep-alive connections for placing orders: node:http costs this process about two thirds of what `fetch` did per
 * order (0.69 against 1.0–1.2 ms at 200/s, 2026-11-27): CPU the server and PostgreSQL then have on this machine.
 * The bench is not what is measured.
 */
const placing = new http.Agent({ keepAlive: true, maxSockets: 32 });
function postJson(url: string, body: unknown): Promise<{ status: number; text: string }> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: 'POST',
        agent: placing,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

// ------------------------------------------------------------------------------------------------ effect

async function effect(sandbox: SandboxControl, setUp: SetUp) {
  const { shops } = setUp;
  const ms: number[] = [];
  const byKind: Record<string, number[]> = {};
  let lost = 0;
  let snap = await snapshots(sandbox, shops);
  const started = Date.now();
  for (let i = 0; i < settings.effectOrders; i++) {
    const kind = KINDS[i % KINDS.length] as Kind;
    const chosen = pick(kind, snap, i);
    if (!chosen) throw new Error(`no stock left for a ${kind} order`);
    const others = (['shopify', 'bigcommerce', 'square'] as const).filter((p) => p !== providerOf(kind));
    const want = Object.fromEntries(others.map((p) => [p, total(snap[p], chosen.sku) - 1]));
    const t0 = performance.now();
    await place(sandbox, shops, kind, chosen.body);
    let seen: number | null = null;
    while (performance.now() - t0 < settings.timeoutMs) {
      snap = await snapshots(sandbox, shops);
      if (others.every((p) => total(snap[p], chosen.sku) === want[p])) {
        seen = performance.now() - t0;
        break;
      }
      await sleep(settings.pollMs);
    }
    if (seen === null) {
      lost++;
      log(
        `  ${kind} order ${i + 1} (${chosen.sku}) not seen on ${others.join(' and ')} in ${settings.timeoutMs / 1000} s`,
      );
    } else {
      ms.push(seen);
      byKind[kind] = [...(byKind[kind] ?? []), seen];
    }
    if ((i + 1) % 50 === 0)
      log(`  ${i + 1} orders: p50 ${summary(ms).p50Ms} ms, p95 ${summary(ms).p95Ms} ms, ${lost} not seen`);
  }
  // The effect of the last orders' echoes on the next phase: let them land.
  await sandbox.settle();
  return {
    orders: settings.effectOrders,
    all: summary(ms),
    byKind: Object.fromEntries(Object.entries(byKind).map(([k, v]) => [k, summary(v)])),
    notSeenWithinTimeout: lost,
    ordersPerSecond: round(settings.effectOrders / ((Date.now() - started) / 1000), 2),
    targetP95Ms: 2000,
  };
}

// ------------------------------------------------------------------------------------------------ ingest

/**
 * `orders` placed at `rate` a second (0: as fast as the simulators take them, `ingestConcurrency` at once) until
 * every one is in our orders table with its units reserved. `held`: a provider's backlog. The orders are placed
 * while the simulators hold their webhooks, which are then released at once, and the phase is timed from the
 * release: the simulators' making of the orders is out of the window, and what is left is our intake of the
 * webhooks, with the reads back and the pushes to the other shops that they cause.
 */
async function ingest(
  sandbox: SandboxControl,
  setUp: SetUp,
  orders: number,
  rate: number,
  serverPid?: number,
  held = false,
) {
  const { shops, merchant } = setUp;
  // What is measured is our intake: the simulators' rate limits are lifted (each order webhook of BigCommerce
  // and Square, and Shopify's without a stock location, is read back with getOrder).
  await sandbox.action('shopify', shops.shopify, 'plan', { maximumAvailable: 1_000_000, restoreRate: 1_000_000 });
  await sandbox.action('bigcommerce', shops.bigcommerce, 'plan', { plan: 'bench', quota: 1_000_000 });
  const count = async () => (await merchant.rest<{ total: number }>('GET', '/api/frontend/orders/count')).total;
  const before = await count();
  const snap = await snapshots(sandbox, shops);
  const plan: { kind: Kind; body: Record<string, unknown> }[] = [];
  const taken = new Map<string, number>();
  for (let i = 0; plan.length < orders && i < orders * 4; i++) {
    const kind = KINDS[i % KINDS.length] as Kind;
    const chosen = pick(kind, snap, i);
    if (!chosen) continue;
    const provider = providerOf(kind);
    const at = String(chosen.body.location ?? snap[provider].locations[0]?.id);
    const key = `${provider}|${chosen.sku}|${at}`;
    const used = (taken.get(key) ?? 0) + 1;
    if (used > (snap[provider].stock[chosen.sku]?.[at] ?? 0) - 1) continue;
    taken.set(key, used);
    plan.push({ kind, body: chosen.body });
  }
  if (held) await sandbox.hold();
  let acksFrom = (await sandbox.acks(0)).count;
  let cpu0 = serverCpuSeconds(serverPid);
  let others0 = otherCpu();
  let machine0 = machineTicks();
  let loadBefore = load();
  let t0 = performance.now();
  let next = 0;
  let placed = 0;
  let refused = 0;
  await Promise.all(
    Array.from({ length: settings.ingestConcurrency }, async () => {
      while (next < plan.length) {
        const i = next++;
        const o = plan[i] as (typeof plan)[number];
        // At a steady rate, each order at its own time (the workers only keep a slow answer from holding the next).
        if (rate > 0) await sleep(t0 + (i * 1000) / rate - performance.now());
        // The steady phase plans from stock the burst's pushes may still be lowering: a sale the shop refuses is left.
        if (await place(sandbox, shops, o.kind, o.body, rate > 0)) placed++;
        else refused++;
      }
    }),
  );
  const placedMs = performance.now() - t0;
  let released: number | undefined;
  if (held) {
    // The window starts now: what the server did while the webhooks were held (nothing new) is left out.
    acksFrom = (await sandbox.acks(0)).count;
    cpu0 = serverCpuSeconds(serverPid);
    others0 = otherCpu();
    machine0 = machineTicks();
    loadBefore = load();
    t0 = performance.now();
    released = (await sandbox.release()).waiting;
  }
  let done = 0;
  const deadline = Date.now() + 10 * 60_000;
  for (;;) {
    done = (await count()) - before;
    if (done >= placed || Date.now() > deadline) break;
    await sleep(50);
  }
  const ingestMs = performance.now() - t0;
  const serverCpu = serverCpuSeconds(serverPid) - cpu0;
  const others1 = otherCpu();
  const machine1 = machineTicks();
  await sandbox.settle();
  const acks = (await sandbox.acks(acksFrom)).ms;
  const ackFigures = summary(acks);
  await sandbox.action('shopify', shops.shopify, 'plan', { plan: 'standard' });
  await sandbox.action('bigcommerce', shops.bigcommerce, 'plan', { plan: 'standard' });
  const result = {
    orders: placed,
    ...(rate > 0 ? { ratePerSecond: rate, refusedByTheShop: refused } : {}),
    ...(held ? { webhooksReleased: released } : {}),
    imported: done,
    placedPerSecond: round(placed / (placedMs / 1000)),
    processedPerSecond: round(done / (ingestMs / 1000)),
    seconds: round(ingestMs / 1000, 2),
    // At a steady rate: how long after the last order was placed the last one was in (a backlog that grew
    // through the phase shows here; one that kept up leaves about one order's own latency).
    ...(rate > 0 ? { tailSeconds: round((ingestMs - placedMs) / 1000, 2) } : {}),
    webhookAck: { ...ackFigures, webhooks: acks.length },
    // The server's CPU (user + system, from /proc) while the burst went in, per order: all it did meanwhile
    // (webhooks, reads from the simulators, intake, pushes to the other shops and their echoes).
    serverCpuMsPerOrder: done > 0 ? round((serverCpu * 1000) / done, 2) : null,
    // The others' CPU over the same window, per order: PostgreSQL's processes (none on PGlite: it is the server's),
    // the simulators, and this bench.
    otherCpuMsPerOrder:
      done > 0
        ? {
            postgres: round(((others1.postgres - others0.postgres) * 1000) / done, 2),
            postgresBackground: round(((others1.postgresBackground - others0.postgresBackground) * 1000) / done, 2),
            simulators: round(((others1.simulators - others0.simulators) * 1000) / done, 2),
            bench: round(((others1.bench - others0.bench) * 1000) / done, 2),
          }
        : null,
    // Both cores' busy share over the phase (/proc/stat): the server, the database, the simulators and this bench.
    machineBusy: round(1 - (machine1.idle - machine0.idle) / Math.max(1, machine1.total - machine0.total), 2),
    loadAverage: { before: loadBefore, after: load() },
    targetPerSecondPostgres: 200,
    targetAckP99Ms: 50,
  };
  log(`  ingest${rate > 0 ? ` at ${rate}/s` : ''}${held ? ' (a released backlog)' : ''}: ${JSON.stringify(result)}`);
  return result;
}

/** The machine's CPU ticks since boot, all and idle (idle + iowait), from /proc/stat. */
function machineTicks(): { total: number; idle: number } {
  try {
    const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0]?.trim().split(/\s+/).slice(1).map(Number) ?? [];
    return { total: cpu.reduce((a, b) => a + b, 0), idle: (cpu[3] ?? 0) + (cpu[4] ?? 0) };
  } catch {
    return { total: 0, idle: 0 };
  }
}

let simulatorsPid: number | undefined;

/**
 * CPU seconds of PostgreSQL's processes (all of them: /proc/<pid>/comm; `postgresBackground` those that serve no
 * connection: autovacuum, the WAL writer, the checkpointer…), the simulators and this bench.
 */
function otherCpu() {
  let postgres = 0;
  let postgresBackground = 0;
  try {
    for (const pid of readdirSync('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      try {
        if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== 'postgres') continue;
        const cpu = cpuSeconds(Number(pid));
        postgres += cpu;
        // A backend's title names its client: "postgres: 15/main: user db 127.0.0.1(5432) idle", or "[local]"
        // over the socket.
        if (!/\(\d+\)|\[local\]/.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8'))) postgresBackground += cpu;
      } catch {}
    }
  } catch {}
  const own = process.cpuUsage();
  return { postgres, postgresBackground, simulators: cpuSeconds(simulatorsPid), bench: (own.user + own.system) / 1e6 };
}

/** The server's CPU seconds: its web process and, when there is one, its worker process. */
const serverCpuSeconds = (pid: number | undefined) => cpuSeconds(pid) + cpuSeconds(worker?.proc.pid);

/** CPU seconds (user + system) a process has used, from /proc; 0 where it cannot be read. */
function cpuSeconds(pid: number | undefined): number {
  if (!pid) return 0;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

// ------------------------------------------------------------------------------------------------ list

async function listFigures(merchant: LiveMerchant) {
  const shapes: Record<string, string> = {
    'open, newest first (the default page)': '',
    'all, by placed date': 'status=-1&sort_by=placed_at&sort=desc',
    'fulfilled, page 41': 'status=3&offset=1000',
    'search a customer (many hits)': 'status=-1&search=lovelace3',
    'search an order number (one hit)': 'status=-1&search=%23100777',
    'search a SKU': 'status=-1&search=sku-01234',
  };
  const out: Record<string, unknown> = {};
  for (const [name, qs] of Object.entries(shapes)) {
    const url = `${merchant.base}/api/frontend/orders?limit=25${qs ? `&${qs}` : ''}`;
    const ms: number[] = [];
    let rows = 0;
    let totalRows = 0;
    for (let i = 0; i < settings.listRequests + 20; i++) {
      const t0 = performance.now();
      const res = await fetch(url, { headers: merchant.headers });
      const body = (await res.json()) as { results?: unknown[]; total?: number };
      if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status}: ${JSON.stringify(body)}`);
      if (i >= 20) ms.push(performance.now() - t0);
      rows = body.results?.length ?? 0;
      totalRows = body.total ?? 0;
    }
    out[name] = { ...summary(ms), rows, total: totalRows };
    log(`  list ${name}: p50 ${summary(ms).p50Ms} ms, p99 ${summary(ms).p99Ms} ms (${rows} rows of ${totalRows})`);
  }
  return { shapes: out, targetP99MsPostgres: 50 };
}

// ------------------------------------------------------------------------------------------------ run

let exitCode = 0;
try {
  exitCode = await main();
} catch (err) {
  console.error(`\norders bench failed: ${err instanceof Error ? (err.stack ?? err.message) : err}`);
  exitCode = 1;
} finally {
  await cleanup();
}
process.exit(exitCode);
