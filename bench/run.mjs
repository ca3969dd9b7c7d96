// `npm run bench`: requests/s and p50/p99 latency of our REST route and a batched tRPC call,
// against bare Fastify serving an equivalent tiny JSON route, in one run. See bench/README.md.
//
// Each server runs in its own child process so that none shares an event loop with autocannon.
// A benchmark measures; it never asserts a time. It fails only when the run itself is broken:
// a server that does not start, a wrong answer, non-2xx responses or connection errors.
import { execFileSync, spawn } from 'node:child_process';
import { createHmac, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const resultsDir = join(root, 'bench', 'results');
const resultsFile = join(resultsDir, 'latest.json');

// autocannon is a devDependency of apps/server; resolve it from there.
const require = createRequire(join(root, 'apps/server/package.json'));
const autocannon = require('autocannon');

const HOST = '127.0.0.1';
const READY_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 30_000; // our server gives in-flight work SHUTDOWN_TIMEOUT_SECONDS (20 s by default)

const settings = {
  warmupSeconds: positiveNumber('BENCH_WARMUP', 3),
  durationSeconds: positiveNumber('BENCH_DURATION', 10),
  connections: positiveInteger('BENCH_CONNECTIONS', 32),
  pipelining: 1,
  signIns: positiveInteger('BENCH_SIGN_INS', 20),
};

// superjson wire format: every input is wrapped as { json: ... }.
const trpcInput = encodeURIComponent(JSON.stringify({ 0: { json: { buildId: 'x' } }, 1: { json: { buildId: 'y' } } }));

/** Every child process we started and have not yet seen exit. */
const children = new Set();
let tempDir;
/** { server, name } of the database made for this run on BENCH_DATABASE_URL. */
let benchDatabase;
let currentRun;
let cleanupPromise;

process.once('SIGINT', () => abort('SIGINT', 130));
process.once('SIGTERM', () => abort('SIGTERM', 143));
// Last resort if we exit without cleaning up (e.g. process.exit somewhere): never leave a server behind.
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

let exitCode = 0;
try {
  exitCode = await main();
} catch (err) {
  console.error(`\nbench failed: ${err instanceof Error ? (err.stack ?? err.message) : err}`);
  exitCode = 1;
} finally {
  const stopped = await cleanup();
  for (const { name, code, signal } of stopped) {
    if (code !== 0) {
      console.error(`bench: ${name} did not shut down cleanly (exit code ${code}, signal ${signal})`);
      exitCode ||= 1;
    }
  }
}
process.exit(exitCode);

async function main() {
  tempDir = mkdtempSync(join(os.tmpdir(), 'switchyard-bench-'));
  const [appPort, barePort] = await freePorts(2);

  const env = { ...process.env };
  // The embedded PGlite in a fresh folder, never a database the caller happens to have configured;
  // with BENCH_DATABASE_URL, a fresh database made on that PostgreSQL server (and dropped afterwards).
  delete env.DATABASE_URL;
  if (process.env.BENCH_DATABASE_URL) {
    const pg = require('pg');
    benchDatabase = { server: process.env.BENCH_DATABASE_URL, name: `sy_bench_${Date.now()}` };
    const admin = new pg.Client({ connectionString: benchDatabase.server });
    await admin.connect();
    await admin.query(`create database ${benchDatabase.name}`);
    await admin.end();
    const url = new URL(benchDatabase.server);
    url.pathname = `/${benchDatabase.name}`;
    env.DATABASE_URL = url.toString();
  }
  const engine = env.DATABASE_URL ? 'postgres' : 'pglite';
  console.log(`database: ${engine}`);
  // A merchant to sign in as, made with the documented CLI before the server opens the data folder.
  const merchant = { email: 'bench@switchyard.test', password: 'bench password 2026' };
  execFileSync(
    process.execPath,
    [
      '--import',
      'tsx',
      'apps/server/src/cli/admin-create.ts',
      '--email',
      merchant.email,
      '--password',
      merchant.password,
    ],
    { cwd: root, env: { ...env, DATA_DIR: tempDir, LOG_LEVEL: 'warn' }, stdio: 'inherit' },
  );
  const app = startChild('switchyard', [process.execPath, '--import', 'tsx', 'apps/server/src/main.ts'], {
    ...env,
    PORT: String(appPort),
    HOST,
    DATA_DIR: tempDir,
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
    RUN_WORKERS: 'true',
    // The in-process sandbox on a port of its own choosing (PORT + 1 may be the bare server's).
    SANDBOX_PORT: '0',
  });
  const bare = startChild('bare-fastify', [process.execPath, 'bench/bare-fastify.mjs'], {
    ...env,
    PORT: String(barePort),
    HOST,
  });

  const appBase = `http://${HOST}:${appPort}`;
  const bareBase = `http://${HOST}:${barePort}`;
  const [appReadyMs, bareReadyMs] = await Promise.all([
    waitUntilReady(app, `${appBase}/readyz`),
    waitUntilReady(bare, `${bareBase}/status`),
  ]);
  console.log(`switchyard ready in ${appReadyMs} ms, bare Fastify ready in ${bareReadyMs} ms`);

  // Sign-in is argon2id-bound by design; time it one at a time, as people sign in.
  const signIns = [];
  let token;
  for (let i = 0; i < settings.signIns; i++) {
    const started = performance.now();
    const res = await fetch(`${appBase}/api/frontend/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(merchant),
    });
    signIns.push(performance.now() - started);
    if (res.status !== 200) throw new Error(`sign-in failed: ${res.status} ${await res.text()}`);
    token = (await res.json()).token;
  }
  signIns.sort((a, b) => a - b);
  const signIn = {
    count: signIns.length,
    p50Ms: round(signIns[Math.floor(signIns.length * 0.5)], 1),
    p95Ms: round(signIns[Math.min(signIns.length - 1, Math.floor(signIns.length * 0.95))], 1),
  };
  console.log(`sign-in (argon2id, m=19 MiB, t=2): p50 ${signIn.p50Ms} ms, p95 ${signIn.p95Ms} ms over ${signIn.count}`);

  const targets = [
    {
      name: 'REST GET /api/v1/status',
      url: `${appBase}/api/v1/status`,
      check: (body) => body?.status === 'ok' && typeof body.serverTime === 'string',
    },
    {
      name: 'tRPC batch health.checkBuildId x2',
      url: `${appBase}/api/trpc/health.checkBuildId,health.checkBuildId?batch=1&input=${trpcInput}`,
      check: (body) =>
        Array.isArray(body) &&
        body.length === 2 &&
        body.every((r) => typeof r?.result?.data?.json?.match === 'boolean'),
    },
    {
      name: 'tRPC hydration.getBasicData (signed in)',
      url: `${appBase}/api/trpc/hydration.getBasicData`,
      headers: { authorization: `Bearer ${token}` },
      check: (body) => body?.result?.data?.json?.user?.email === merchant.email,
    },
    {
      // A provider's burst of stock changes: each delivery is verified (HMAC over the raw body), stored
      // once under its own event id and queued for processing. The sandbox Shopify app secret signs it.
      name: 'webhook intake POST /webhooks/shopify',
      url: `${appBase}/webhooks/shopify`,
      method: 'POST',
      ...signedShopifyWebhook(),
      check: (body) => body?.received === true && body.duplicate === false,
    },
    {
      name: 'bare Fastify GET /status',
      url: `${bareBase}/status`,
      check: (body) => body?.status === 'ok' && typeof body.serverTime === 'string',
      baseline: true,
    },
  ];

  // A wrong answer would make the figures meaningless: check each target once before loading it.
  for (const target of targets) await checkTarget(target);

  console.log(
    `load: ${settings.warmupSeconds} s warm-up + ${settings.durationSeconds} s measured per target, ` +
      `${settings.connections} connections, pipelining ${settings.pipelining}\n`,
  );
  const results = [];
  for (const target of targets) {
    process.stdout.write(`${target.name}: warming up… `);
    await load(target, settings.warmupSeconds);
    process.stdout.write('measuring… ');
    const r = await load(target, settings.durationSeconds);
    results.push({
      name: target.name,
      url: target.url,
      rps: round(r.requests.mean, 1),
      p50Ms: r.latency.p50,
      p99Ms: r.latency.p99,
      requests: r.requests.total,
      non2xx: r.non2xx,
      errors: r.errors,
    });
    console.log(`${round(r.requests.mean, 0)} req/s`);
  }

  const baseline = results[targets.findIndex((t) => t.baseline)];
  for (const r of results) r.vsBareFastify = round(r.rps / baseline.rps, 3);

  const report = {
    date: new Date().toISOString(),
    node: process.version,
    cpus: { count: os.cpus().length, model: os.cpus()[0]?.model ?? 'unknown' },
    settings,
    database: engine,
    signIn,
    results,
  };
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(resultsFile, `${JSON.stringify(report, null, 2)}\n`);

  console.log(`\nNode ${report.node}, ${report.cpus.count} × ${report.cpus.model}`);
  console.table(
    Object.fromEntries(
      results.map((r) => [
        r.name,
        {
          'req/s': r.rps,
          'p50 ms': r.p50Ms,
          'p99 ms': r.p99Ms,
          requests: r.requests,
          'non-2xx': r.non2xx,
          errors: r.errors,
          'vs bare': r.vsBareFastify,
        },
      ]),
    ),
  );
  console.log(`written to ${join('bench', 'results', 'latest.json')}`);
  console.log(`switchyard wrote ${app.lines.length} log line(s) during the run (LOG_LEVEL=warn)`);

  const broken = results.filter((r) => r.non2xx > 0 || r.errors > 0);
  if (broken.length > 0) {
    for (const r of broken)
      console.error(`bench broken: ${r.name} got ${r.non2xx} non-2xx responses, ${r.errors} errors`);
    return 1;
  }
  return 0;
}

/** Runs autocannon against one target and resolves with its result. */
function load({ url, headers = {}, method = 'GET', body, freshHeaders }, durationSeconds) {
  const requests = freshHeaders
    ? [{ method, body, setupRequest: (req) => ({ ...req, headers: freshHeaders() }) }]
    : undefined;
  return new Promise((resolve, reject) => {
    currentRun = autocannon(
      {
        url,
        headers,
        method,
        body,
        requests,
        connections: settings.connections,
        pipelining: settings.pipelining,
        duration: durationSeconds,
      },
      (err, result) => {
        currentRun = undefined;
        if (err) reject(err);
        else resolve(result);
      },
    );
  });
}

/** A Shopify inventory webhook signed with the sandbox app's secret; every request gets a new event id. */
function signedShopifyWebhook() {
  const body = JSON.stringify({
    inventory_item_id: 1,
    location_id: 1,
    available: 7,
    updated_at: new Date().toISOString(),
  });
  const headers = {
    'content-type': 'application/json',
    'x-shopify-topic': 'inventory_levels/update',
    'x-shopify-shop-domain': 'bench.myshopify.com',
    'x-shopify-hmac-sha256': createHmac('sha256', 'sandbox-shopify-api-secret').update(body).digest('base64'),
  };
  return {
    body,
    headers,
    freshHeaders: () => ({ ...headers, 'x-shopify-event-id': randomUUID() }),
  };
}

async function checkTarget(target) {
  const res = await fetch(target.url, {
    method: target.method ?? 'GET',
    headers: target.freshHeaders?.() ?? target.headers ?? {},
    body: target.body,
    signal: AbortSignal.timeout(5000),
  });
  const text = await res.text();
  let body;
  try {
    body = JSON.parse(text);
  } catch {}
  if (res.status !== 200 || !target.check(body)) {
    throw new Error(`${target.name}: unexpected answer from ${target.url}: ${res.status} ${text.slice(0, 500)}`);
  }
}

/** Starts a child process; its output is kept and echoed to our stderr with its name in front. */
function startChild(name, [command, ...args], env) {
  const child = spawn(command, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.benchName = name;
  child.lines = [];
  children.add(child);
  child.exited = new Promise((resolve) => {
    child.once('exit', (code, signal) => {
      children.delete(child);
      resolve({ name, code, signal });
    });
  });
  for (const stream of [child.stdout, child.stderr]) {
    let pending = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk) => {
      const parts = (pending + chunk).split('\n');
      pending = parts.pop() ?? '';
      for (const line of parts) {
        child.lines.push(line);
        process.stderr.write(`[${name}] ${line}\n`);
      }
    });
  }
  child.once('error', (err) => console.error(`[${name}] failed to start: ${err.message}`));
  return child;
}

/** Polls url until it answers 200; fails early if the child exits first. Resolves with the time it took. */
async function waitUntilReady(child, url) {
  const started = Date.now();
  let exited = false;
  child.exited.then(() => {
    exited = true;
  });
  while (Date.now() - started < READY_TIMEOUT_MS) {
    if (exited) throw new Error(`${child.benchName} exited before it was ready (exit code ${child.exitCode})`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
      await res.arrayBuffer();
      if (res.status === 200) return Date.now() - started;
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${child.benchName} did not answer 200 on ${url} within ${READY_TIMEOUT_MS / 1000} s`);
}

/** Stops the load, SIGTERMs every child and waits for it (SIGKILL after a timeout), removes the temp dir. */
function cleanup() {
  cleanupPromise ??= (async () => {
    currentRun?.stop();
    const stopped = await Promise.all(
      [...children].map(async (child) => {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
        const outcome = await child.exited;
        clearTimeout(timer);
        return outcome;
      }),
    );
    if (tempDir) rmSync(tempDir, { recursive: true, force: true });
    if (benchDatabase) {
      const pg = require('pg');
      const admin = new pg.Client({ connectionString: benchDatabase.server });
      await admin.connect();
      await admin.query(`drop database if exists ${benchDatabase.name} with (force)`);
      await admin.end();
    }
    return stopped;
  })();
  return cleanupPromise;
}

async function abort(signal, code) {
  console.error(`\nbench: ${signal}, stopping the servers…`);
  await cleanup();
  process.exit(code);
}

async function freePorts(count) {
  const servers = [];
  try {
    // Hold all of them open at once so we never get the same port twice.
    for (let i = 0; i < count; i++) {
      const server = createServer();
      servers.push(server);
      await new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, HOST, resolve);
      });
    }
    return servers.map((s) => s.address().port);
  } finally {
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(() => resolve()))));
  }
}

function positiveNumber(name, fallback) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, got "${raw}"`);
  return value;
}

function positiveInteger(name, fallback) {
  const value = positiveNumber(name, fallback);
  if (!Number.isInteger(value)) throw new Error(`${name} must be a whole number, got "${process.env[name]}"`);
  return value;
}

function round(value, digits) {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
