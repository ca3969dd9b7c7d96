// Sync engine benchmarks (issue 6), run by `npm run bench` after bench/run.mjs (or alone: `npm run bench:sync`).
// See bench/README.md. Everything goes through the real server (a child process, NODE_ENV=production, its
// in-process sandbox on a port of our choosing, webhooks to PUBLIC_URL) and the simulators' control API:
// - propagation: POS sales in Square until the new quantity is visible in Shopify and BigCommerce, with
//   their real rate limits on (Shopify standard plan, BigCommerce standard quota);
// - throughput: a full push of 10,000 variants × 3 locations to each simulator, against the bound its rate
//   limit allows;
// - memory: the server's peak RSS during each full push and during a 100,000-row CSV export;
// - recompute: computeAvailable over 100,000 variants × 20 locations × 5 channels (bench/recompute.ts).
// Figures are merged into bench/results/latest.json under "sync". A benchmark measures and never asserts a
// time: the run fails only when it is itself broken (a server that does not start, a step that cannot run).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type Child,
  freePorts,
  HttpError,
  LiveMerchant,
  locationsByName,
  memoryOf,
  type Provider,
  SandboxControl,
  type ShopSnapshot,
  squareMerchantId,
  startChild,
  waitUntilReady,
} from '../apps/server/test/live.ts';

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
  /** POS sales for the propagation figures, one after another. */
  sales: int('BENCH_SALES', 200),
  /** Products × 4 variants × 3 locations in the propagation shops. */
  propagationProducts: int('BENCH_PROPAGATION_PRODUCTS', 50),
  /** Products × 4 variants × 3 locations in the full-push shops: 2,500 → 10,000 variants. */
  pushProducts: int('BENCH_PUSH_PRODUCTS', 2500),
  /** Rows (variants) of the export; synthetic variants fill the catalog up to it. 0 skips the export. */
  exportRows: int('BENCH_EXPORT_ROWS', 100_000),
  locations: 3,
  variantsPerProduct: 4,
  /** How long one sale may take to show before it counts as lost. */
  saleTimeoutMs: int('BENCH_SALE_TIMEOUT_MS', 30_000),
  pollMs: int('BENCH_POLL_MS', 20),
  /**
   * Where the simulators run: `process` (default), their own process, as a provider is another machine; or
   * `inprocess`, inside the server under test (its SANDBOX_PORT mode), sharing its one event loop: then the
   * simulators' own work (GraphQL execution, applying 2,000-item batches, signing a webhook per level) is
   * counted in our time.
   */
  sandbox: process.env.BENCH_SANDBOX === 'inprocess' ? ('inprocess' as const) : ('process' as const),
};

const children = new Set<Child>();
let tempDir: string | undefined;
const log = (line: string) => process.stdout.write(`${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const round = (v: number, d = 1) => Math.round(v * 10 ** d) / 10 ** d;

function percentile(sorted: number[], p: number) {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * p) - 1)] ?? null;
}

function summary(ms: number[]) {
  const sorted = [...ms].sort((a, b) => a - b);
  return {
    count: sorted.length,
    p50Ms: round(percentile(sorted, 0.5) ?? Number.NaN, 0),
    p95Ms: round(percentile(sorted, 0.95) ?? Number.NaN, 0),
    maxMs: round(sorted[sorted.length - 1] ?? Number.NaN, 0),
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

let exitCode = 0;
try {
  exitCode = await main();
} catch (err) {
  console.error(`\nsync bench failed: ${err instanceof Error ? (err.stack ?? err.message) : err}`);
  exitCode = 1;
} finally {
  await cleanup();
}
process.exit(exitCode);

// ------------------------------------------------------------------------------------------------------------

async function main(): Promise<number> {
  tempDir = mkdtempSync(join(os.tmpdir(), 'switchyard-sync-bench-'));
  const [appPort, sandboxPort] = (await freePorts(2)) as [number, number];
  const appBase = `http://${HOST}:${appPort}`;
  const sandboxBase = `http://${HOST}:${sandboxPort}`;
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: tempDir, LOG_LEVEL: 'warn' };
  delete env.DATABASE_URL;
  if (process.env.BENCH_DATABASE_URL) throw new Error('bench/sync.ts runs on PGlite only for now');
  const squareSignatureKey = 'bench-square-webhook-signature-key';
  const serverEnv = {
    ...env,
    PORT: String(appPort),
    HOST,
    NODE_ENV: 'production',
    RUN_WORKERS: 'true',
    ...(settings.sandbox === 'process'
      ? { SANDBOX_URL: sandboxBase, SQUARE_WEBHOOK_SIGNATURE_KEY: squareSignatureKey }
      : { SANDBOX_PORT: String(sandboxPort) }),
    PUBLIC_URL: appBase,
    WEB_DIST: '/nonexistent',
  };
  const load = () => os.loadavg().map((l) => round(l, 2));
  const report: Record<string, unknown> = {
    date: new Date().toISOString(),
    node: process.version,
    cpus: { count: os.cpus().length, model: os.cpus()[0]?.model ?? 'unknown' },
    database: 'pglite',
    settings,
    loadAverageAtStart: load(),
  };

  // Two merchants made with the documented CLI before the server opens the data folder: one with small
  // shops for propagation, one with 10,000-variant shops for the full push and the export.
  const merchants = {
    propagation: { email: 'propagation@switchyard.test', password: 'bench password 2026' },
    push: { email: 'push@switchyard.test', password: 'bench password 2026' },
  };
  const accountIds: Record<string, string> = {};
  for (const [key, m] of Object.entries(merchants)) {
    const out = execFileSync(
      process.execPath,
      ['--import', 'tsx', 'apps/server/src/cli/admin-create.ts', '--email', m.email, '--password', m.password],
      { cwd: root, env, encoding: 'utf8' },
    );
    accountIds[key] = /account (\S+?)\)/.exec(out)?.[1] ?? '';
  }

  let sandboxChild: Child | null = null;
  if (settings.sandbox === 'process') {
    sandboxChild = startChild('sandbox', [process.execPath, '--import', 'tsx', 'packages/sandbox/src/main.ts'], {
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
    const ms = await waitUntilReady(sandboxChild, `${sandboxBase}/_control`);
    log(`sandbox ready in ${ms} ms (its own process, pid ${sandboxChild.proc.pid})`);
  }
  let app = await startServer(serverEnv, appBase);
  const sandbox = new SandboxControl(sandboxBase);

  // ---- propagation ------------------------------------------------------------------------------------------
  const small = { products: settings.propagationProducts, locations: settings.locations, variantsPerProduct: 4 };
  const prop = await setUpMerchant(appBase, sandbox, merchants.propagation, 'prop', small, false);
  log(`propagation shops converged (${prop.variants} variants × ${settings.locations} locations)`);
  report.propagation = await propagation(sandbox, prop);

  // ---- throughput and memory during the full push -----------------------------------------------------------
  if (settings.pushProducts > 0) {
    const big = { products: settings.pushProducts, locations: settings.locations, variantsPerProduct: 4 };
    const push = await setUpMerchant(appBase, sandbox, merchants.push, 'push', big, true);
    log(`full-push shops converged (${push.variants} variants × ${settings.locations} locations)`);
    report.throughput = await throughput(sandbox, push, app, sandboxChild);
  }

  // ---- memory during a 100,000-row export -------------------------------------------------------------------
  if (settings.exportRows > 0) {
    app = await restartServer(app, serverEnv, appBase, () => {
      const seeded = execFileSync(
        process.execPath,
        ['--import', 'tsx', 'bench/seed-export.ts', accountIds.push ?? ''],
        { cwd: root, env: { ...env, BENCH_EXPORT_ROWS: String(settings.exportRows) }, encoding: 'utf8' },
      );
      log(`export catalog seeded: ${seeded.trim()}`);
    });
    const merchant = await LiveMerchant.signIn(appBase, merchants.push.email, merchants.push.password);
    report.export = await exportRun(merchant, app);
  }

  // ---- recompute ---------------------------------------------------------------------------------------------
  const recompute = execFileSync(process.execPath, ['--import', 'tsx', 'bench/recompute.ts'], {
    cwd: root,
    env: process.env,
    encoding: 'utf8',
  });
  report.recompute = JSON.parse(recompute.trim().split('\n').pop() ?? '{}');
  log(`recompute: ${JSON.stringify(report.recompute)}`);

  report.loadAverageAtEnd = load();
  writeResults(report);
  printTable(report);
  return 0;
}

// ------------------------------------------------------------------------------------------------ the server

async function startServer(env: NodeJS.ProcessEnv, base: string): Promise<Child> {
  // BENCH_SERVER_NODE_ARGS: extra node flags for the server, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" to
  // profile it (a profile is written when the server stops).
  const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
  const child = startChild(
    'switchyard',
    [process.execPath, ...nodeArgs, '--import', 'tsx', 'apps/server/src/main.ts'],
    {
      cwd: root,
      env,
      echo: (line) => process.stderr.write(`[switchyard] ${line}\n`),
    },
  );
  children.add(child);
  void child.exited.then(() => children.delete(child));
  const ms = await waitUntilReady(child, `${base}/readyz`);
  log(`switchyard ready in ${ms} ms (pid ${child.proc.pid})`);
  return child;
}

async function stopServer(child: Child) {
  child.proc.kill('SIGTERM');
  const timer = setTimeout(() => child.proc.kill('SIGKILL'), 30_000);
  const outcome = await child.exited;
  clearTimeout(timer);
  if (outcome.code !== 0) throw new Error(`switchyard did not shut down cleanly: ${JSON.stringify(outcome)}`);
}

async function restartServer(child: Child, env: NodeJS.ProcessEnv, base: string, between: () => void) {
  await stopServer(child);
  between();
  return startServer(env, base);
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
  if (tempDir && !process.env.BENCH_KEEP) rmSync(tempDir, { recursive: true, force: true });
  tempDir = undefined;
}

// ------------------------------------------------------------------------------------------------ set-up

interface Shops {
  square: string; // merchant id (the control API's key)
  shopify: string;
  bigcommerce: string;
}

interface SetUp {
  merchant: LiveMerchant;
  shops: Shops;
  channels: Record<Provider, string>;
  variants: number;
}

/**
 * Seeds the three shops, connects them through their consent pages, imports Square first (it creates our
 * locations), then Shopify and BigCommerce (their locations map to ours by name), and waits until the three
 * shops hold the same quantities everywhere. `fastImport` lifts the Shopify and BigCommerce rate limits during
 * the import only (reading 10,000 variants and 30,000 levels through a standard Shopify bucket takes half an
 * hour and is not what is measured); they are back on their standard plans before anything is measured.
 */
async function setUpMerchant(
  appBase: string,
  sandbox: SandboxControl,
  login: { email: string; password: string },
  tag: string,
  seed: { products: number; locations: number; variantsPerProduct: number },
  fastImport: boolean,
): Promise<SetUp> {
  const started = Date.now();
  const business = `Bench ${tag}`;
  const shops: Shops = {
    square: await squareMerchantId(business),
    shopify: `bench-${tag}`,
    bigcommerce: `bench${tag}`,
  };
  for (const provider of ['square', 'shopify', 'bigcommerce'] as const)
    await sandbox.reset(provider, shops[provider], seed);
  const merchant = await LiveMerchant.signIn(appBase, login.email, login.password);
  const channels = {
    square: (await merchant.connect('square', business)).id,
    shopify: (await merchant.connect('shopify', shops.shopify)).id,
    bigcommerce: (await merchant.connect('bigcommerce', shops.bigcommerce)).id,
  };
  if (fastImport) {
    await sandbox.plan('shopify', shops.shopify, 'plus');
    await sandbox.action('bigcommerce', shops.bigcommerce, 'plan', { plan: 'bench-import', quota: 100_000 });
  }
  const importOne = async (provider: Provider) => {
    const id = await merchant.catalogSync(channels[provider]);
    const run = await merchant.waitSync(id, 30 * 60_000);
    log(`  ${tag}: ${provider} import ${run.status}: ${run.succeeded} ok, ${run.failed} failed of ${run.total}`);
    if (run.status === 'failed') throw new Error(`${provider} import failed: ${run.message}`);
  };
  await importOne('square');
  await Promise.all([importOne('shopify'), importOne('bigcommerce')]);
  const variants = seed.products * seed.variantsPerProduct;
  await waitConverged(sandbox, shops, 30 * 60_000);
  if (fastImport) {
    await sandbox.plan('shopify', shops.shopify, 'standard');
    await sandbox.action('bigcommerce', shops.bigcommerce, 'plan', { plan: 'standard' });
  }
  log(`  ${tag}: set up in ${round((Date.now() - started) / 1000)} s`);
  return { merchant, shops, channels, variants };
}

/** Cells (sku × location name) where the three shops disagree. */
function disagreements(square: ShopSnapshot, shopify: ShopSnapshot, bigcommerce: ShopSnapshot) {
  const toShopify = locationsByName(square, shopify);
  const toBig = locationsByName(square, bigcommerce);
  let differ = 0;
  let cells = 0;
  for (const [sku, perLocation] of Object.entries(square.stock)) {
    for (const [loc, qty] of Object.entries(perLocation)) {
      cells++;
      const s = shopify.stock[sku]?.[toShopify.get(loc) ?? ''];
      const b = bigcommerce.stock[sku]?.[toBig.get(loc) ?? ''];
      if (s !== qty || b !== qty) differ++;
    }
  }
  return { differ, cells };
}

async function snapshots(sandbox: SandboxControl, shops: Shops) {
  const [square, shopify, bigcommerce] = await Promise.all([
    sandbox.snapshot('square', shops.square),
    sandbox.snapshot('shopify', shops.shopify),
    sandbox.snapshot('bigcommerce', shops.bigcommerce),
  ]);
  return { square, shopify, bigcommerce };
}

async function waitConverged(sandbox: SandboxControl, shops: Shops, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  for (;;) {
    const s = await snapshots(sandbox, shops);
    const { differ, cells } = disagreements(s.square, s.shopify, s.bigcommerce);
    if (differ === 0 && cells > 0) return s;
    const line = `  waiting for the shops to agree: ${differ} of ${cells} cells differ`;
    if (line !== last) log(line);
    last = line;
    if (Date.now() > deadline) throw new Error(`the shops did not converge: ${differ} of ${cells} cells differ`);
    await sleep(2000);
  }
}

// ------------------------------------------------------------------------------------------------ propagation

async function propagation(sandbox: SandboxControl, setUp: SetUp) {
  const { shops } = setUp;
  // Start from a quiet system: the echoes of the set-up's pushes delivered.
  const settling = performance.now();
  await settle(sandbox);
  log(`  webhooks of the set-up delivered in ${round((performance.now() - settling) / 1000)} s`);
  const start = await snapshots(sandbox, shops);
  const toShopify = locationsByName(start.square, start.shopify);
  const toBig = locationsByName(start.square, start.bigcommerce);
  // Our own running copy of Square's stock: each sale takes one unit.
  const square = structuredClone(start.square.stock);
  const candidates = () =>
    Object.entries(square).flatMap(([sku, perLocation]) =>
      Object.entries(perLocation)
        .filter(([, q]) => q > 0)
        .map(([location]) => ({ sku, location })),
    );
  let rng = 20261123;
  const random = () => {
    rng = (rng * 1103515245 + 12345) % 2 ** 31;
    return rng / 2 ** 31;
  };
  const shopifyMs: number[] = [];
  const bigMs: number[] = [];
  let lost = 0;
  const started = Date.now();
  for (let i = 0; i < settings.sales; i++) {
    const pool = candidates();
    const pick = pool[Math.floor(random() * pool.length)];
    if (!pick) throw new Error('no stock left to sell');
    const target = (square[pick.sku]?.[pick.location] ?? 0) - 1;
    const shopifyLocation = toShopify.get(pick.location) ?? '';
    const bigLocation = toBig.get(pick.location) ?? '';
    const t0 = performance.now();
    await sandbox.sell('square', shops.square, [{ sku: pick.sku, quantity: 1 }], pick.location);
    (square[pick.sku] as Record<string, number>)[pick.location] = target;
    let seenShopify: number | null = null;
    let seenBig: number | null = null;
    while (seenShopify === null || seenBig === null) {
      const elapsed = performance.now() - t0;
      if (elapsed > settings.saleTimeoutMs) break;
      const [s, b] = await Promise.all([
        seenShopify === null ? sandbox.snapshot('shopify', shops.shopify) : null,
        seenBig === null ? sandbox.snapshot('bigcommerce', shops.bigcommerce) : null,
      ]);
      const now = performance.now() - t0;
      if (s && s.stock[pick.sku]?.[shopifyLocation] === target) seenShopify = now;
      if (b && b.stock[pick.sku]?.[bigLocation] === target) seenBig = now;
      if (seenShopify === null || seenBig === null) await sleep(settings.pollMs);
    }
    if (seenShopify === null || seenBig === null) {
      lost++;
      if (lost <= 5) {
        const [s, b, q] = await Promise.all([
          sandbox.snapshot('shopify', shops.shopify),
          sandbox.snapshot('bigcommerce', shops.bigcommerce),
          sandbox.snapshot('square', shops.square),
        ]);
        log(
          `  sale ${i + 1} (${pick.sku} at ${pick.location}) not seen in ${settings.saleTimeoutMs / 1000} s: want ${target}, square ${q.stock[pick.sku]?.[pick.location]}, shopify ${s.stock[pick.sku]?.[shopifyLocation]}, bigcommerce ${b.stock[pick.sku]?.[bigLocation]}`,
        );
        if (lost === 1) {
          const res = await fetch(`${sandbox.base}/_control/deliveries?provider=square`);
          const { deliveries } = (await res.json()) as { deliveries: unknown[] };
          log(`  the last Square webhook deliveries: ${JSON.stringify(deliveries.slice(-3))}`);
        }
      }
    }
    if (seenShopify !== null) shopifyMs.push(seenShopify);
    if (seenBig !== null) bigMs.push(seenBig);
    if ((i + 1) % 25 === 0)
      log(
        `  ${i + 1} sales: shopify p50 ${summary(shopifyMs).p50Ms} ms, bigcommerce p50 ${summary(bigMs).p50Ms} ms, ${lost} not seen in ${settings.saleTimeoutMs / 1000} s`,
      );
  }
  const seconds = (Date.now() - started) / 1000;
  return {
    sales: settings.sales,
    variants: setUp.variants,
    locations: settings.locations,
    pollMs: settings.pollMs,
    shopify: summary(shopifyMs),
    bigcommerce: summary(bigMs),
    notSeenWithinTimeout: lost,
    salesPerSecond: round(settings.sales / seconds, 2),
    targetP95Ms: 2000,
  };
}

// ------------------------------------------------------------------------------------------------ throughput

/** The simulators' published limits, read from their source so the bound follows them. */
function simulatorLimits() {
  const read = (path: string) => readFileSync(join(root, path), 'utf8');
  const num = (text: string, re: RegExp, what: string) => {
    const m = re.exec(text);
    if (!m) throw new Error(`cannot read ${what} from the sandbox source`);
    return Number(m[1]?.replace(/_/g, ''));
  };
  const shopifyStore = read('packages/sandbox/src/shopify/store.ts');
  const shopifyCost = read('packages/sandbox/src/shopify/cost.ts');
  const shopifyPage = read('packages/sandbox/src/shopify/connection.ts');
  const bcInventory = read('packages/sandbox/src/bigcommerce/inventory.ts');
  const bcSim = read('packages/sandbox/src/bigcommerce/sim.ts');
  const squareApi = read('packages/sandbox/src/square/api.ts');
  return {
    shopify: {
      bucket: num(shopifyStore, /standard:\s*\{\s*maximumAvailable:\s*([\d_]+)/, 'Shopify bucket'),
      restorePerSecond: num(shopifyStore, /standard:\s*\{[^}]*restoreRate:\s*([\d_]+)/, 'Shopify restore rate'),
      costPerCall: num(shopifyCost, /const MUTATION_COST = ([\d_]+)/, 'Shopify mutation cost'),
      maxPerCall: num(shopifyPage, /export const MAX_PAGE = ([\d_]+)/, 'Shopify input array maximum'),
    },
    bigcommerce: {
      quota: num(bcSim, /rateLimitQuota \?\? ([\d_]+)/, 'BigCommerce quota'),
      windowSeconds: num(bcSim, /rateLimitWindowMs \?\? ([\d_]+)/, 'BigCommerce window') / 1000,
      maxPerCall: num(bcInventory, /export const MAX_ADJUSTMENT_ITEMS = ([\d_]+)/, 'BigCommerce batch maximum'),
    },
    square: {
      burst: num(squareApi, /const BURST = ([\d_]+)/, 'Square burst'),
      perSecond: num(squareApi, /const PER_SECOND = ([\d_]+)/, 'Square rate'),
      maxPerCall: num(squareApi, /changes\.length > ([\d_]+)/, 'Square batch maximum'),
    },
  };
}

/**
 * The fastest a push of `n` quantities can go under the provider's limit, starting with a full bucket:
 * `steadyPerSecond` is the sustained rate (quantities/s) once the burst is spent; `minSeconds` the least time
 * the limit allows for exactly `n` (the burst makes small pushes free).
 */
function bound(provider: Provider, n: number, limits: ReturnType<typeof simulatorLimits>) {
  if (provider === 'shopify') {
    const l = limits.shopify;
    const calls = Math.ceil(n / l.maxPerCall);
    return {
      calls,
      steadyPerSecond: (l.restorePerSecond / l.costPerCall) * l.maxPerCall,
      minSeconds: Math.max(0, calls * l.costPerCall - l.bucket) / l.restorePerSecond,
      rule: `${l.maxPerCall} quantities per inventorySetQuantities, ${l.costPerCall} points each, bucket ${l.bucket} restoring ${l.restorePerSecond}/s`,
    };
  }
  if (provider === 'bigcommerce') {
    const l = limits.bigcommerce;
    const calls = Math.ceil(n / l.maxPerCall);
    return {
      calls,
      steadyPerSecond: (l.quota / l.windowSeconds) * l.maxPerCall,
      minSeconds: calls <= l.quota ? 0 : Math.ceil(calls / l.quota - 1) * l.windowSeconds,
      rule: `${l.maxPerCall} items per PUT /v3/inventory/adjustments/absolute, ${l.quota} requests per ${l.windowSeconds} s`,
    };
  }
  const l = limits.square;
  const calls = Math.ceil(n / l.maxPerCall);
  return {
    calls,
    steadyPerSecond: l.perSecond * l.maxPerCall,
    minSeconds: Math.max(0, calls - l.burst) / l.perSecond,
    rule: `${l.maxPerCall} changes per batch-change, ${l.perSecond} requests/s after a burst of ${l.burst}`,
  };
}

/** Samples a process's RSS every 100 ms until stopped; answers the highest seen and VmHWM, in MiB. */
function sampleMemory(pid: number) {
  let max = 0;
  const timer = setInterval(() => {
    const m = memoryOf(pid);
    if (m && m.rssMiB > max) max = m.rssMiB;
  }, 100);
  const before = memoryOf(pid);
  return {
    stop() {
      clearInterval(timer);
      const after = memoryOf(pid);
      return {
        rssBeforeMiB: before ? round(before.rssMiB) : null,
        peakSampledRssMiB: round(Math.max(max, after?.rssMiB ?? 0)),
        vmHwmMiB: after ? round(after.peakMiB) : null,
      };
    },
  };
}

/**
 * Waits until every webhook the simulators sent so far was delivered. After the set-up of the 10,000-variant
 * shops that is over a hundred thousand deliveries, longer than fetch waits for an answer's headers (5
 * minutes): the control call is then made again.
 */
async function settle(sandbox: SandboxControl, timeoutMs = 30 * 60_000) {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    try {
      return await sandbox.settle();
    } catch (err) {
      if (performance.now() > deadline || (err as Error).name !== 'TypeError') throw err;
      log('  still delivering the simulators’ webhooks…');
    }
  }
}

/** CPU seconds a process has used (user + system), from /proc/<pid>/stat; null elsewhere. */
function cpuSecondsOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of the line, counted from the state (field 3), in clock ticks.
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

/**
 * Waits until every process used under 20 % of a core for three seconds running (what came before has been
 * processed: echo webhooks, their jobs, reconciliations; an idle server still polls its job queue, about
 * 10 % on PGlite), at most `timeoutMs`.
 */
async function waitIdle(processes: Child[], timeoutMs = 15 * 60_000) {
  const deadline = performance.now() + timeoutMs;
  let calm = 0;
  let last = processes.map((c) => cpuSecondsOf(c.proc.pid as number));
  while (calm < 3 && performance.now() < deadline) {
    await sleep(1000);
    const now = processes.map((c) => cpuSecondsOf(c.proc.pid as number));
    const busy = now.some((v, i) => v !== null && (last[i] ?? null) !== null && v - (last[i] as number) > 0.2);
    calm = busy ? 0 : calm + 1;
    last = now;
  }
}

/**
 * For each channel in turn: raise its safety stock by one unit (every non-zero quantity at the channel
 * changes), start a full push, and time it until the simulator holds exactly what it should. The number
 * of quantities that had to change is read from the simulator itself, before.
 */
async function throughput(sandbox: SandboxControl, setUp: SetUp, app: Child, sandboxChild: Child | null) {
  const limits = simulatorLimits();
  const { merchant, shops, channels } = setUp;
  const results: Record<string, unknown> = {
    variants: setUp.variants,
    locations: settings.locations,
    sandbox: settings.sandbox,
    limits,
  };
  for (const provider of ['shopify', 'bigcommerce', 'square'] as const) {
    const shop = shops[provider];
    // Each push is timed from a quiet system with the provider's limit unspent, as the bound assumes: the
    // webhooks of what came before delivered and processed (the server and the simulators idle), then the
    // bucket full. Setting the plan again refills Shopify's bucket and opens a new BigCommerce window; Square
    // has no such control, so its burst is waited for.
    const quietStarted = performance.now();
    await settle(sandbox);
    await waitIdle([app, ...(sandboxChild ? [sandboxChild] : [])]);
    if (provider === 'shopify') await sandbox.plan('shopify', shop, 'standard');
    if (provider === 'bigcommerce') await sandbox.action('bigcommerce', shop, 'plan', { plan: 'standard' });
    if (provider === 'square') await sleep((limits.square.burst / limits.square.perSecond) * 1000);
    const quietSeconds = round((performance.now() - quietStarted) / 1000, 1);
    const before = await sandbox.snapshot(provider, shop);
    const expected: Record<string, Record<string, number>> = {};
    let changing = 0;
    let cells = 0;
    for (const [sku, perLocation] of Object.entries(before.stock)) {
      expected[sku] = {};
      for (const [loc, qty] of Object.entries(perLocation)) {
        cells++;
        (expected[sku] as Record<string, number>)[loc] = Math.max(0, qty - 1);
        if (qty > 0) changing++;
      }
    }
    const channel = await merchant.channel(channels[provider]);
    const memory = sampleMemory(app.proc.pid as number);
    const sandboxMemory = sandboxChild ? sampleMemory(sandboxChild.proc.pid as number) : null;
    const cpu = () => ({
      server: cpuSecondsOf(app.proc.pid as number),
      sandbox: sandboxChild ? cpuSecondsOf(sandboxChild.proc.pid as number) : null,
    });
    const cpuBefore = cpu();
    const t0 = performance.now();
    await merchant.updateSettings(channels[provider], 'advanced', { ...channel.settings.advanced, safetyStock: 1 });
    let pushRoute = 'POST /api/v1/channels/{id}/actions/inventory-push';
    try {
      await merchant.pushAll(channels[provider]);
    } catch (err) {
      // The engine may push on the settings change by itself; a missing route is reported, not fatal.
      if (!(err instanceof HttpError) || err.status !== 404) throw err;
      pushRoute = 'none (404): the settings change pushed by itself';
    }
    let remaining = changing;
    for (;;) {
      const now = await sandbox.snapshot(provider, shop);
      remaining = 0;
      for (const [sku, perLocation] of Object.entries(expected))
        for (const [loc, qty] of Object.entries(perLocation)) if (now.stock[sku]?.[loc] !== qty) remaining++;
      if (remaining === 0) break;
      if (performance.now() - t0 > 10 * 60_000) break;
      await sleep(250);
    }
    const seconds = (performance.now() - t0) / 1000;
    const mem = memory.stop();
    const sandboxMem = sandboxMemory?.stop() ?? null;
    const cpuAfter = cpu();
    const used = (a: number | null, b: number | null) => (a !== null && b !== null ? round(b - a, 2) : null);
    const b = bound(provider, changing, limits);
    const actualPerSecond = changing / seconds;
    const row = {
      cells,
      quantitiesChanged: changing,
      notConvergedCells: remaining,
      seconds: round(seconds, 2),
      quantitiesPerSecond: round(actualPerSecond, 0),
      bound: {
        rule: b.rule,
        calls: b.calls,
        steadyQuantitiesPerSecond: round(b.steadyPerSecond, 0),
        minSeconds: round(b.minSeconds, 2),
      },
      ratioToSteadyBound: round(actualPerSecond / b.steadyPerSecond, 3),
      ratioToMinTime: b.minSeconds > 0 ? round(b.minSeconds / seconds, 3) : null,
      pushRoute,
      quietWaitSeconds: quietSeconds,
      // CPU seconds each process used while the push ran: one near `seconds` was saturated (a single event loop).
      cpuSeconds: {
        server: used(cpuBefore.server, cpuAfter.server),
        sandbox: used(cpuBefore.sandbox, cpuAfter.sandbox),
      },
      memory: mem,
      ...(sandboxMem ? { sandboxMemory: sandboxMem } : {}),
    };
    log(`  full push to ${provider}: ${JSON.stringify(row)}`);
    results[provider] = row;
  }
  return results;
}

// ------------------------------------------------------------------------------------------------ export

async function exportRun(merchant: LiveMerchant, app: Child) {
  const memory = sampleMemory(app.proc.pid as number);
  const t0 = performance.now();
  const res = await fetch(`${merchant.base}/api/frontend/export/catalogInventory`, { headers: merchant.headers });
  if (res.status !== 200) {
    memory.stop();
    const body = await res.text();
    log(`  export answered ${res.status}: ${body.slice(0, 200)}`);
    return { status: res.status, error: body.slice(0, 500) };
  }
  let bytes = 0;
  let lines = 0;
  let chunks = 0;
  const reader = res.body?.getReader();
  for (;;) {
    const { done, value } = (await reader?.read()) ?? { done: true, value: undefined };
    if (done) break;
    chunks++;
    bytes += value.byteLength;
    for (const byte of value) if (byte === 10) lines++;
  }
  const seconds = (performance.now() - t0) / 1000;
  const row = {
    rows: Math.max(0, lines - 1),
    bytes,
    chunks,
    seconds: round(seconds, 2),
    memory: memory.stop(),
  };
  log(`  export: ${JSON.stringify(row)}`);
  return row;
}

// ------------------------------------------------------------------------------------------------ results

function writeResults(report: Record<string, unknown>) {
  mkdirSync(join(root, 'bench', 'results'), { recursive: true });
  let all: Record<string, unknown> = {};
  if (existsSync(resultsFile)) {
    try {
      all = JSON.parse(readFileSync(resultsFile, 'utf8'));
    } catch {}
  }
  all.sync = report;
  writeFileSync(resultsFile, `${JSON.stringify(all, null, 2)}\n`);
  log(`written to bench/results/latest.json ("sync")`);
}

function printTable(report: Record<string, unknown>) {
  const p = report.propagation as ReturnType<typeof summary> & Record<string, never>;
  if (p) {
    console.table({
      'Square sale → Shopify': (p as unknown as { shopify: unknown }).shopify,
      'Square sale → BigCommerce': (p as unknown as { bigcommerce: unknown }).bigcommerce,
    });
  }
  const t = report.throughput as Record<string, Record<string, unknown>> | undefined;
  if (t)
    console.table(
      Object.fromEntries(
        (['shopify', 'bigcommerce', 'square'] as const).map((k) => {
          const r = t[k] as Record<string, never> & {
            bound: { steadyQuantitiesPerSecond: number; minSeconds: number };
            memory: { peakSampledRssMiB: number };
          };
          return [
            k,
            {
              quantities: r.quantitiesChanged,
              seconds: r.seconds,
              'q/s': r.quantitiesPerSecond,
              'bound q/s': r.bound.steadyQuantitiesPerSecond,
              ratio: r.ratioToSteadyBound,
              'min s': r.bound.minSeconds,
              'peak RSS MiB': r.memory.peakSampledRssMiB,
            },
          ];
        }),
      ),
    );
  log(
    `load average at start ${JSON.stringify(report.loadAverageAtStart)}, at end ${JSON.stringify(report.loadAverageAtEnd)}`,
  );
}
