// Drives a RUNNING server and sandbox over real HTTP, as a merchant and a provider would: sign in, connect the
// sandbox shops through their consent pages, import catalogs, start pushes, read what the simulated shops
// hold. Shared by the crash-reliability test (test/crash.process.test.ts) and the sync benchmarks
// (bench/sync.ts), which both run the server as a child process. No vitest in here.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import superjson from 'superjson';
import { approveConsent } from './channels.ts';

export type Provider = 'shopify' | 'bigcommerce' | 'square';

export interface ShopSnapshot {
  shop: string;
  locations: { id: string; name: string }[];
  /** sku → location id → quantity available. */
  stock: Record<string, Record<string, number>>;
  products: number;
  variants: number;
}

export interface SyncRun {
  id: number;
  type: string;
  status: string;
  total: number;
  processed: number;
  succeeded: number;
  failed: number;
  message: string | null;
}

export interface ChannelInfo {
  id: string;
  type: Provider;
  status: string;
  settings: {
    channel?: {
      locationMap?: { externalLocationId: string; externalName?: string; storeId: string | null; feeds: boolean }[];
    };
    advanced?: Record<string, unknown>;
  };
  features?: Record<string, boolean>;
}

export class HttpError extends Error {
  readonly status: number;
  readonly body: string;
  constructor(status: number, body: string, what: string) {
    super(`${what} answered ${status}: ${body.slice(0, 500)}`);
    this.status = status;
    this.body = body;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Free TCP ports on 127.0.0.1, all held at once so none repeats. */
export async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
          const s = createServer();
          s.once('error', reject);
          s.listen(0, '127.0.0.1', () => resolve(s));
        }),
    ),
  );
  const ports = servers.map((s) => (s.address() as { port: number }).port);
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  return ports;
}

/** Square's merchant id for a business name in the sandbox (production host), as its consent page derives it. */
export async function squareMerchantId(business: string): Promise<string> {
  const { squareId } = await import('../../../packages/sandbox/src/square/ids.ts');
  return squareId.stable(`square:production:${business.trim().toLowerCase()}`, 13);
}

/** The simulators' control API (packages/sandbox/src/control.ts). */
export class SandboxControl {
  readonly base: string;
  constructor(base: string) {
    this.base = base;
  }

  private async call<T>(method: string, path: string, body?: unknown, timeoutMs = 60_000): Promise<T> {
    const res = await fetch(`${this.base}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.text();
    if (res.status >= 300) throw new HttpError(res.status, text, `sandbox ${method} ${path}`);
    return (text ? JSON.parse(text) : undefined) as T;
  }

  reset(
    provider: Provider,
    shop: string,
    seed: { products?: number; locations?: number; variantsPerProduct?: number; seed?: number },
  ) {
    return this.call<ShopSnapshot>('POST', `/_control/${provider}/${shop}/reset`, seed);
  }
  snapshot(provider: Provider, shop: string) {
    return this.call<ShopSnapshot>('GET', `/_control/${provider}/${shop}`);
  }
  sell(provider: Provider, shop: string, lines: { sku: string; quantity: number }[], location?: string) {
    return this.call<{ orderId: string }>('POST', `/_control/${provider}/${shop}/orders`, { lines, location });
  }
  stock(
    provider: Provider,
    shop: string,
    change: { sku: string; location?: string; quantity?: number; delta?: number },
  ) {
    return this.call<{ ok: true }>('POST', `/_control/${provider}/${shop}/stock`, change);
  }
  action<T = unknown>(provider: Provider, shop: string, action: string, body: unknown) {
    return this.call<T>('POST', `/_control/${provider}/${shop}/${action}`, body);
  }
  faults(provider: Provider, shop: string, config: Record<string, number> | null) {
    return config
      ? this.call('PUT', `/_control/${provider}/${shop}/faults`, config)
      : this.call('DELETE', `/_control/${provider}/${shop}/faults`);
  }
  /** How long the server took to answer each webhook landed since `from` (a count this answered before). */
  acks(from: number) {
    return this.call<{ count: number; ms: number[] }>('GET', `/_control/deliveries/acks?from=${from}`);
  }

  /** Holds the simulators' webhooks (a provider's backlog) until `release()`; see packages/sandbox webhooks.ts. */
  hold() {
    return this.call<{ ok: true }>('POST', '/_control/deliveries/hold');
  }

  release() {
    return this.call<{ ok: true; waiting: number }>('POST', '/_control/deliveries/release');
  }

  /** Resolves when every webhook the sandbox sent so far was delivered or gave up. */
  settle() {
    return this.call<{ ok: true }>('POST', '/_control/deliveries/settle', undefined, 15 * 60_000);
  }
  /** Shopify: `standard` (1000 points, 50/s), `advanced`, `plus`. BigCommerce: `standard` (150 req / 30 s), `pro`. */
  plan(provider: 'shopify' | 'bigcommerce', shop: string, plan: string) {
    return this.action(provider, shop, 'plan', { plan });
  }
}

/** A signed-in merchant of a running server, driven through its public HTTP API only. */
export class LiveMerchant {
  readonly base: string;
  readonly token: string;
  constructor(base: string, token: string) {
    this.base = base;
    this.token = token;
  }

  static async signIn(base: string, email: string, password: string): Promise<LiveMerchant> {
    const res = await fetch(`${base}/api/frontend/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password }),
    });
    const text = await res.text();
    if (res.status !== 200) throw new HttpError(res.status, text, 'sign-in');
    return new LiveMerchant(base, (JSON.parse(text) as { token: string }).token);
  }

  get headers() {
    return { authorization: `Bearer ${this.token}` };
  }

  async rest<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(`${this.base}${path}`, {
      method,
      headers: { ...this.headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(60_000),
    });
    const text = await res.text();
    if (res.status >= 300) throw new HttpError(res.status, text, `${method} ${path}`);
    return (text ? JSON.parse(text) : undefined) as T;
  }

  async query<T>(path: string, input?: unknown): Promise<T> {
    const qs = input === undefined ? '' : `?input=${encodeURIComponent(JSON.stringify(superjson.serialize(input)))}`;
    return this.trpc<T>(`${this.base}/api/trpc/${path}${qs}`, { headers: this.headers }, path);
  }

  async mutation<T>(path: string, input?: unknown): Promise<T> {
    return this.trpc<T>(
      `${this.base}/api/trpc/${path}`,
      {
        method: 'POST',
        headers: { ...this.headers, 'content-type': 'application/json' },
        body: JSON.stringify(superjson.serialize(input ?? null)),
      },
      path,
    );
  }

  private async trpc<T>(url: string, init: RequestInit, path: string): Promise<T> {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(60_000) });
    const text = await res.text();
    if (res.status >= 300) throw new HttpError(res.status, text, `tRPC ${path}`);
    const body = JSON.parse(text) as { result?: { data: unknown } };
    return superjson.deserialize(body.result?.data as never) as T;
  }

  /** Connects a sandbox shop through its consent page (as test/channels.ts does for inject()-driven apps). */
  async connect(provider: Provider, shop: string): Promise<ChannelInfo> {
    let query: Record<string, string>;
    if (provider === 'square') {
      const start = await this.rest<{ url: string }>('POST', '/api/v1/oauth/square/generate-redirect-url', {
        store: '',
        environment: 'api',
      });
      query = await approveConsent(start.url, { business: shop });
    } else {
      const created = await this.rest<{ id: string }>('POST', '/api/frontend/integration/create', { type: provider });
      const properties =
        provider === 'shopify' ? { shop, channelId: created.id } : { hash: shop, channelId: created.id };
      const { url } = await this.query<{ url: string }>('channels.getOauthUrl', { provider, properties });
      query = await approveConsent(url);
    }
    const done = await this.rest<{ channelId: string }>('POST', `/api/v1/oauth/${provider}/process-oauth`, query);
    return this.channel(done.channelId);
  }

  channel(id: string) {
    return this.query<ChannelInfo>('channels.get', { id });
  }

  updateSettings(id: string, key: 'advanced' | 'channel' | 'product' | 'shipping', settings: unknown) {
    return this.mutation<ChannelInfo>('channels.updateSettings', { id, key, settings });
  }

  /** Starts a catalog import of the channel; answers the sync id. */
  async catalogSync(channelId: string): Promise<number> {
    const res = await this.rest<{ sync_id: number }>('POST', `/api/v1/channels/${channelId}/actions/catalog-sync`, {});
    return res.sync_id;
  }

  /** Starts a full inventory push of the channel (every listing at every mapped location); answers how many variants. */
  async pushAll(channelId: string): Promise<number> {
    const res = await this.rest<{ variants: number }>(
      'POST',
      `/api/v1/channels/${channelId}/actions/inventory-push`,
      {},
    );
    return res.variants;
  }

  async sync(id: number): Promise<SyncRun> {
    return (await this.rest<{ sync: SyncRun }>('GET', `/api/frontend/syncs/${id}?items_limit=1`)).sync;
  }

  /** Waits until the sync run is no longer queued or running; answers it. */
  async waitSync(id: number, timeoutMs: number, onProgress?: (run: SyncRun) => void): Promise<SyncRun> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      let run: SyncRun;
      try {
        run = await this.sync(id);
      } catch (err) {
        // A busy or restarting server (503, a dropped connection) is asked again; a refusal is not.
        if (err instanceof HttpError && err.status < 500) throw err;
        if (Date.now() > deadline) throw err;
        await sleep(1000);
        continue;
      }
      onProgress?.(run);
      if (run.status !== 'queued' && run.status !== 'running') return run;
      if (Date.now() > deadline) throw new Error(`sync ${id} still ${run.status} after ${timeoutMs / 1000} s`);
      await sleep(500);
    }
  }
}

/**
 * Which location of `to` holds the stock of each location of `from`: the simulators seed the same store
 * names in every provider, and the catalog import maps channel locations to ours by those names.
 */
export function locationsByName(from: ShopSnapshot, to: ShopSnapshot): Map<string, string> {
  const byName = new Map(to.locations.map((l) => [l.name.toLowerCase(), l.id]));
  const out = new Map<string, string>();
  for (const l of from.locations) {
    const id = byName.get(l.name.toLowerCase());
    if (id) out.set(l.id, id);
  }
  return out;
}

/** A child process whose output lines are kept (and optionally echoed) and whose exit can be awaited. */
export interface Child {
  proc: ChildProcess;
  name: string;
  lines: string[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function startChild(
  name: string,
  command: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; echo?: (line: string) => void },
): Child {
  const [file, ...args] = command as [string, ...string[]];
  const proc = spawn(file, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    proc.once('exit', (code, signal) => resolve({ code, signal })),
  );
  for (const stream of [proc.stdout, proc.stderr]) {
    let pending = '';
    stream?.setEncoding('utf8');
    stream?.on('data', (chunk: string) => {
      const parts = (pending + chunk).split('\n');
      pending = parts.pop() ?? '';
      for (const line of parts) {
        lines.push(line);
        if (lines.length > 5000) lines.shift();
        options.echo?.(line);
      }
    });
  }
  return { proc, name, lines, exited };
}

/** Polls `url` until it answers 200; fails early when the child exits. Answers the milliseconds it took. */
export async function waitUntilReady(child: Child, url: string, timeoutMs = 90_000): Promise<number> {
  const started = Date.now();
  let exited = false;
  void child.exited.then(() => {
    exited = true;
  });
  while (Date.now() - started < timeoutMs) {
    if (exited) throw new Error(`${child.name} exited before it was ready:\n${child.lines.slice(-30).join('\n')}`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
      await res.arrayBuffer();
      if (res.status === 200) return Date.now() - started;
    } catch {}
    await sleep(100);
  }
  throw new Error(`${child.name} did not answer 200 on ${url} within ${timeoutMs / 1000} s`);
}

/** Resident set size now and its peak (VmHWM) of a process, in MiB, from /proc (Linux); null elsewhere. */
export function memoryOf(pid: number): { rssMiB: number; peakMiB: number } | null {
  try {
    const text = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? Number.NaN);
    return { rssMiB: kb('VmRSS') / 1024, peakMiB: kb('VmHWM') / 1024 };
  } catch {
    return null;
  }
}
