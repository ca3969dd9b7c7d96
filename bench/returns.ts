// Returns benchmark (issue 16), run by `npm run bench` after bench/orders.ts (or alone: `npm run bench:returns`).
// See bench/README.md. The real server runs as a child process (NODE_ENV=production, workers in process, PGlite),
// the simulators as another, with the three shops connected and imported. Measured: a returned unit back on sale
// on the other channels, from the moment the return is made until both other shops offer one unit more:
// - square POS return: a sale at a Square store, then the customer returns it at the register (the simulator's
//   itemized return, restocked by Square itself: refund.created and inventory.count.updated), to Shopify and
//   BigCommerce;
// - made here: a return of a Square POS sale made through returns.create (restocked at once, the refund written
//   back to Square by a job), to Shopify and BigCommerce.
// Figures go to bench/results/latest.json under "returns". A benchmark measures and never asserts a time.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Return } from '@switchyard/contracts';
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
  /** Returns measured, half at the Square register and half made here. */
  returns: int('BENCH_RETURNS', 60),
  products: int('BENCH_RETURN_PRODUCTS', 20),
  timeoutMs: int('BENCH_RETURN_TIMEOUT_MS', 30_000),
  pollMs: int('BENCH_POLL_MS', 20),
};

const children = new Set<Child>();
const temps: string[] = [];
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

async function cleanup() {
  for (const c of children) c.proc.kill('SIGTERM');
  await Promise.all([...children].map((c) => c.exited));
  if (!process.env.BENCH_KEEP) for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
}

interface Shops {
  square: string;
  shopify: string;
  bigcommerce: string;
}

const total = (snap: ShopSnapshot, sku: string) =>
  Object.values(snap.stock[sku] ?? {}).reduce((s, q) => s + (q as number), 0);

async function snapshots(sandbox: SandboxControl, shops: Shops) {
  const [square, shopify, bigcommerce] = await Promise.all([
    sandbox.snapshot('square', shops.square),
    sandbox.snapshot('shopify', shops.shopify),
    sandbox.snapshot('bigcommerce', shops.bigcommerce),
  ]);
  return { square, shopify, bigcommerce };
}

/** Polls until Shopify and BigCommerce offer `want` of the SKU; answers the time from t0, or null. */
async function waitForOthers(sandbox: SandboxControl, shops: Shops, sku: string, want: number, t0: number) {
  while (performance.now() - t0 < settings.timeoutMs) {
    const [shopify, bigcommerce] = await Promise.all([
      sandbox.snapshot('shopify', shops.shopify),
      sandbox.snapshot('bigcommerce', shops.bigcommerce),
    ]);
    if (total(shopify, sku) === want && total(bigcommerce, sku) === want) return performance.now() - t0;
    await sleep(settings.pollMs);
  }
  return null;
}

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
    settings,
    loadAverageAtStart: load(),
  };
  const sandboxChild = startChild('sandbox', [process.execPath, '--import', 'tsx', 'packages/sandbox/src/main.ts'], {
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
  await waitUntilReady(sandboxChild, `${sandboxBase}/_control`, 300_000);
  const sandbox = new SandboxControl(sandboxBase);

  const dataDir = mkdtempSync(join(os.tmpdir(), 'switchyard-returns-bench-'));
  temps.push(dataDir);
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
  delete env.DATABASE_URL;
  const login = { email: 'returns-bench@switchyard.test', password: 'bench password 2026' };
  execFileSync(
    process.execPath,
    ['--import', 'tsx', 'apps/server/src/cli/admin-create.ts', '--email', login.email, '--password', login.password],
    { cwd: root, env, encoding: 'utf8' },
  );
  const app = startChild('switchyard', [process.execPath, '--import', 'tsx', 'apps/server/src/main.ts'], {
    cwd: root,
    env: {
      ...env,
      PORT: String(appPort),
      HOST,
      NODE_ENV: 'production',
      RUN_WORKERS: 'true',
      SANDBOX_URL: sandboxBase,
      SQUARE_WEBHOOK_SIGNATURE_KEY: squareSignatureKey,
      PUBLIC_URL: appBase,
      WEB_DIST: '/nonexistent',
    },
    echo: (line) => process.stderr.write(`[switchyard] ${line}\n`),
  });
  children.add(app);
  await waitUntilReady(app, `${appBase}/readyz`, 300_000);

  // Set-up: three shops, Square's stores our locations, the catalogs imported and every shop agreeing.
  const started = Date.now();
  const business = 'Bench returns';
  const shops: Shops = { square: await squareMerchantId(business), shopify: 'bench-rt', bigcommerce: 'benchrt' };
  const seed = { products: settings.products, locations: 3, variantsPerProduct: 2 };
  for (const provider of ['square', 'shopify', 'bigcommerce'] as const)
    await sandbox.reset(provider, shops[provider], seed);
  const merchant = await LiveMerchant.signIn(appBase, login.email, login.password);
  const channels = {
    square: (await merchant.connect('square', business)).id,
    shopify: (await merchant.connect('shopify', shops.shopify)).id,
    bigcommerce: (await merchant.connect('bigcommerce', shops.bigcommerce)).id,
  };
  const importOne = async (provider: Provider) => {
    const run = await merchant.waitSync(await merchant.catalogSync(channels[provider]), 10 * 60_000);
    if (run.status === 'failed') throw new Error(`${provider} import failed: ${run.message}`);
  };
  await importOne('square');
  await Promise.all([importOne('shopify'), importOne('bigcommerce')]);
  for (const deadline = Date.now() + 10 * 60_000; ; ) {
    const s = await snapshots(sandbox, shops);
    const skus = Object.keys(s.square.stock);
    const agree = skus.every(
      (sku) => total(s.shopify, sku) === total(s.square, sku) && total(s.bigcommerce, sku) === total(s.square, sku),
    );
    if (skus.length > 0 && agree) break;
    if (Date.now() > deadline) throw new Error('the shops did not converge after the catalog imports');
    await sleep(1000);
  }
  log(`returns: three shops connected, imported and converged in ${round((Date.now() - started) / 1000)} s`);

  const byKind: Record<'square POS return' | 'made here', number[]> = { 'square POS return': [], 'made here': [] };
  let lost = 0;
  const ours = await merchant.query<{ results: { id: string; store_id: string }[] }>('locations.list', {
    limit: 500,
    offset: 0,
  });
  for (let i = 0; i < settings.returns; i++) {
    const kind = i % 2 === 0 ? ('square POS return' as const) : ('made here' as const);
    let snap = await snapshots(sandbox, shops);
    const store = snap.square.locations[i % snap.square.locations.length] as { id: string };
    const skus = Object.keys(snap.square.stock).sort();
    const sku = skus.find((s, k) => k % 3 === i % 3 && (snap.square.stock[s]?.[store.id] ?? 0) >= 2);
    if (!sku) throw new Error('no stock left to sell');
    // The sale first, settled on every shop (it is not what is measured).
    const { orderId } = await sandbox.sell('square', shops.square, [{ sku, quantity: 1 }], store.id);
    const afterSale = total(snap.square, sku) - 1;
    if ((await waitForOthers(sandbox, shops, sku, afterSale, performance.now())) === null)
      throw new Error(`the sale of ${sku} did not reach the other shops`);
    let t0: number;
    if (kind === 'square POS return') {
      t0 = performance.now();
      await sandbox.action('square', shops.square, `orders/${orderId}/return`, {
        lines: [{ sku, quantity: 1 }],
        location: store.id,
      });
    } else {
      // Our order of that sale (a POS sale complete at its store: returnable at once).
      let order: { id: string; lines: { id: string; sku: string | null }[] } | null = null;
      for (const deadline = Date.now() + settings.timeoutMs; !order && Date.now() < deadline; ) {
        const list = await merchant.query<{ results: { id: string; externalId: string }[] }>('orders.list', {
          status: -1,
          limit: 5,
        });
        const found = list.results.find((o) => o.externalId === orderId);
        if (found) order = await merchant.query('orders.get', { id: found.id });
        else await sleep(settings.pollMs);
      }
      if (!order) throw new Error(`the Square sale ${orderId} was not imported`);
      const line = order.lines.find((l) => l.sku === sku);
      const location = ours.results.find((l) => l.store_id === store.id);
      t0 = performance.now();
      await merchant.mutation<Return>('returns.create', {
        order_id: order.id,
        location_id: location?.id,
        lines: [{ line_id: line?.id, qty: 1, restock: true }],
      });
    }
    const seen = await waitForOthers(sandbox, shops, sku, afterSale + 1, t0);
    if (seen === null) {
      lost++;
      log(`  ${kind} ${i + 1} (${sku}) not back on Shopify and BigCommerce in ${settings.timeoutMs / 1000} s`);
    } else byKind[kind].push(seen);
    snap = await snapshots(sandbox, shops);
    if ((i + 1) % 10 === 0) log(`  ${i + 1} returns: p95 ${summary(Object.values(byKind).flat()).p95Ms} ms`);
  }
  const list = await merchant.query<{ total: number }>('returns.list', { limit: 1 });
  report.pglite = {
    returns: settings.returns,
    returnsListed: list.total,
    all: summary(Object.values(byKind).flat()),
    byKind: Object.fromEntries(Object.entries(byKind).map(([k, v]) => [k, summary(v)])),
    notSeenWithinTimeout: lost,
    targetP95Ms: 2000,
  };
  report.loadAverageAtEnd = load();
  mkdirSync(join(root, 'bench', 'results'), { recursive: true });
  const existing = existsSync(resultsFile) ? (JSON.parse(readFileSync(resultsFile, 'utf8')) as object) : {};
  writeFileSync(resultsFile, `${JSON.stringify({ ...existing, returns: report }, null, 2)}\n`);
  log(JSON.stringify(report, null, 2));
  return 0;
}

main()
  .then(async (code) => {
    await cleanup();
    process.exit(code);
  })
  .catch(async (err) => {
    log(`bench: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    await cleanup();
    process.exit(1);
  });
