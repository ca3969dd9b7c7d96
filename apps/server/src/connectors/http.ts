import type { Logger } from 'pino';
import { currentLane } from '../lib/lanes.ts';
import { type ProviderHeaders, type ProviderResponse, send, type TransportAnswer } from './http.transport.ts';

export type { ProviderHeaders, ProviderResponse, TransportAnswer, TransportRequest } from './http.transport.ts';

/** How long a background caller gives way to foreground ones before it takes its turn in arrival order. */
export const BACKGROUND_PATIENCE_MS = 30_000;

/**
 * The transport every connector uses: a per-shop rate limiter fed by the provider's own signals,
 * retries with exponential backoff and full jitter that honour Retry-After, and a timeout on every
 * attempt. Credentials travel in headers only and are never logged. Each attempt goes through
 * `providerTransport.send` (node:http/node:https on kept-alive connections, http.transport.ts).
 */

/**
 * How providerRequest sends one attempt. A test observes or alters what is sent by spying on `send`
 * (`vi.spyOn(providerTransport, 'send')`, restored with the test's mocks); nothing else replaces it.
 */
export const providerTransport = { send };

/**
 * Token bucket: `capacity` units, refilled at `refillPerSecond`; providers correct it from their signals.
 * Callers wait in arrival order, except that a foreground caller goes before background ones (lib/lanes.ts):
 * a stock push or an order webhook's read does not wait behind a reconciliation page that needs most of the
 * bucket. A background caller that has waited `BACKGROUND_PATIENCE_MS` takes its turn in arrival order again,
 * so a steady stream of foreground work slows catching up but never stops it.
 */
export class TokenBucket {
  private tokens: number;
  private last = Date.now();
  private pausedUntil = 0;
  private readonly waiters: {
    cost: number;
    leave: number;
    background: boolean;
    since: number;
    go: () => void;
    fail: (err: Error) => void;
  }[] = [];
  private serving = false;
  /** Ends the serving loop's sleep early: the provider told us something, or a foreground caller arrived. */
  private wake: (() => void) | null = null;

  capacity: number;
  refillPerSecond: number;

  constructor(capacity: number, refillPerSecond: number) {
    this.capacity = capacity;
    this.refillPerSecond = refillPerSecond;
    this.tokens = capacity;
  }

  private refill() {
    const now = Date.now();
    this.tokens = Math.min(this.capacity, this.tokens + ((now - this.last) / 1000) * this.refillPerSecond);
    this.last = now;
  }

  /** Waits until `cost` units are available (and `leave` more besides), then takes `cost`. */
  acquire(cost = 1, leave = 0): Promise<void> {
    if (stopping) return Promise.reject(stoppedError());
    return new Promise<void>((go, fail) => {
      const background = currentLane() === 'background';
      this.waiters.push({ cost, leave, background, since: Date.now(), go, fail });
      if (!background) this.wake?.();
      void this.serve();
    });
  }

  /** Whose turn it is: the first foreground caller (or background one out of patience), else the first. */
  private next() {
    const now = Date.now();
    const index = this.waiters.findIndex((w) => !w.background || now - w.since >= BACKGROUND_PATIENCE_MS);
    return index >= 0 ? index : this.waiters.length > 0 ? 0 : -1;
  }

  private async serve() {
    if (this.serving) return;
    this.serving = true;
    try {
      for (;;) {
        const index = this.next();
        const waiter = this.waiters[index];
        if (!waiter) return;
        const pause = this.pausedUntil - Date.now();
        if (pause > 0) {
          await this.sleepUnlessWoken(pause);
          continue;
        }
        this.refill();
        const need = Math.min(waiter.cost, this.capacity);
        // What a waiter leaves to others, it stops leaving when its patience ends.
        const patient = Date.now() - waiter.since < BACKGROUND_PATIENCE_MS;
        const leave = patient ? Math.min(waiter.leave, this.capacity - need) : 0;
        if (this.tokens >= need + leave) {
          this.tokens -= need;
          this.waiters.splice(index, 1);
          waiter.go();
          continue;
        }
        const short = Math.ceil(((need + leave - this.tokens) / this.refillPerSecond) * 1000);
        // A background caller is looked at again when its patience ends, to take its turn then.
        const left = BACKGROUND_PATIENCE_MS - (Date.now() - waiter.since);
        const patience = waiter.background && left > 0 ? left : short;
        await this.sleepUnlessWoken(Math.max(1, Math.min(short, patience)));
      }
    } finally {
      this.serving = false;
    }
  }

  /**
   * Sleeps `ms`, or less when a foreground caller arrives or observe() hears from the provider meanwhile. A
   * wait is worked out from what we believed then (a shop's plan learned hours ago, an expected cost far above
   * what calls really cost); the loop looks again as soon as an answer says otherwise instead of sleeping it
   * out.
   */
  private sleepUnlessWoken(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        if (this.wake === done) this.wake = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }

  /** The provider told us what is left (Shopify currentlyAvailable, BigCommerce X-Rate-Limit-Requests-Left). */
  observe(available: number, capacity?: number, refillPerSecond?: number) {
    if (capacity && capacity > 0) this.capacity = capacity;
    if (refillPerSecond && refillPerSecond > 0) this.refillPerSecond = refillPerSecond;
    this.refill();
    this.tokens = Math.min(this.capacity, Math.max(0, available));
    this.wake?.();
  }

  /** Stop sending for `ms` (a 429 with Retry-After, a reset window). */
  pause(ms: number) {
    this.pausedUntil = Math.max(this.pausedUntil, Date.now() + ms);
    this.tokens = 0;
  }

  /**
   * Resolves once a call could go with `leave` units to spare, taking nothing: for a caller that gathers work
   * while it waits and then does all of it in one call (in the background lane, behind foreground calls).
   */
  async whenAvailable(leave = 0): Promise<void> {
    await this.acquire(1, leave);
    this.tokens = Math.min(this.capacity, this.tokens + 1);
  }

  /** Every waiting caller fails with `err` (the process is stopping). */
  failWaiting(err: Error) {
    for (const waiter of this.waiters.splice(0)) waiter.fail(err);
    this.wake?.();
  }

  /** Tokens available now (for tests and metrics). */
  available(): number {
    this.refill();
    return this.tokens;
  }
}

const buckets = new Map<string, TokenBucket>();

let stopping = false;
const stoppedError = () =>
  new ProviderHttpError('the process is stopping: the call was not sent (its job is retried)', null, null, true);

/**
 * At shutdown: calls waiting for a shop's request budget fail now instead of holding the stop for as long as the
 * budget takes to refill (a reconciliation page can wait 30 s behind a Shopify plan's 50 points a second). Their
 * jobs fail and are retried after the restart; nothing was sent.
 */
export function stopProviderCalls() {
  stopping = true;
  for (const bucket of buckets.values()) bucket.failWaiting(stoppedError());
}

/** One limiter per connected shop per process, e.g. limiterFor('shopify:demo', () => new TokenBucket(1000, 50)). */
export function limiterFor(key: string, create: () => TokenBucket): TokenBucket {
  let bucket = buckets.get(key);
  if (!bucket) {
    bucket = create();
    buckets.set(key, bucket);
  }
  return bucket;
}

export class ProviderHttpError extends Error {
  readonly status: number | null;
  readonly body: unknown;
  readonly retryable: boolean;

  constructor(message: string, status: number | null, body: unknown, retryable: boolean) {
    super(message);
    this.name = 'ProviderHttpError';
    this.status = status;
    this.body = body;
    this.retryable = retryable;
  }
}

export interface HttpResult<T = unknown> {
  status: number;
  headers: ProviderHeaders;
  body: T;
}

export interface ProviderRequest {
  /** For logs: provider and shop, never a token. */
  label: string;
  url: string;
  method?: string;
  headers?: Record<string, string>;
  /** Sent as JSON unless it is already a string. */
  body?: unknown;
  timeoutMs?: number;
  maxRetries?: number;
  logger?: Logger;
  limiter?: TokenBucket;
  /** Units the limiter takes before sending (Shopify: the query's expected cost). */
  cost?: number;
  /** Reads rate-limit signals from every answer, successful or not. */
  observe?: (res: ProviderResponse, body: unknown) => void;
  /**
   * Says whether an answer is a throttle that a 2xx can carry (Shopify's THROTTLED in GraphQL errors),
   * and how long to wait.
   */
  throttled?: (res: ProviderResponse, body: unknown) => { waitMs: number } | null;
  /**
   * Called before a retry whose failed attempt may still have been applied by the provider (a timeout, a
   * dropped connection, a 5xx): the caller then cannot read the final answer as the first attempt's.
   */
  onUncertain?: () => void;
}

const BASE_DELAY_MS = 250;
const MAX_DELAY_MS = 20_000;

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Full jitter: a random wait in [0, min(cap, base·2^attempt)], but never less than the provider asked. */
export function backoffMs(attempt: number, retryAfterMs: number | null, random = Math.random): number {
  const ceiling = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** attempt);
  const jittered = Math.floor(random() * ceiling);
  return retryAfterMs !== null ? Math.max(retryAfterMs, jittered) : jittered;
}

/** Retry-After as seconds or an HTTP date. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (!value) return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/** One call to a provider, retried on 429, 5xx, network errors and timeouts. */
export async function providerRequest<T = unknown>(req: ProviderRequest): Promise<HttpResult<T>> {
  const maxRetries = req.maxRetries ?? 5;
  const timeoutMs = req.timeoutMs ?? 15_000;
  let payload: string | undefined;
  const defaults: Record<string, string> = { accept: 'application/json' };
  if (req.body !== undefined) {
    payload = typeof req.body === 'string' ? req.body : JSON.stringify(req.body);
    defaults['content-type'] = 'application/json';
  }
  // The caller's headers win over the defaults, whatever the case of their names.
  const headers: Record<string, string> = { ...defaults, ...req.headers };
  for (let attempt = 0; ; attempt++) {
    if (req.limiter) {
      const asked = performance.now();
      await req.limiter.acquire(req.cost ?? 1);
      const waited = performance.now() - asked;
      if (waited >= 100) {
        req.logger?.debug(
          { provider: req.label, cost: req.cost ?? 1, waitedMs: Math.round(waited), capacity: req.limiter.capacity },
          'provider call waited for its rate limit',
        );
      }
    }
    let res: TransportAnswer;
    let body: unknown;
    try {
      res = await providerTransport.send(req.url, {
        method: req.method ?? 'GET',
        headers,
        body: payload,
        timeoutMs,
      });
      const text = res.text;
      try {
        body = text ? JSON.parse(text) : null;
      } catch {
        body = text;
      }
    } catch (err) {
      const timedOut = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
      const reason = timedOut ? `timed out after ${timeoutMs} ms` : `network error: ${(err as Error).message}`;
      if (attempt >= maxRetries) throw new ProviderHttpError(`${req.label}: ${reason}`, null, null, true);
      req.onUncertain?.();
      const wait = backoffMs(attempt, null);
      req.logger?.warn(
        { provider: req.label, attempt: attempt + 1, waitMs: wait },
        `provider call ${reason}; retrying`,
      );
      await sleep(wait);
      continue;
    }
    req.observe?.(res, body);
    const throttle = res.ok ? (req.throttled?.(res, body) ?? null) : null;
    const retryable = res.status === 429 || res.status >= 500 || throttle !== null;
    if (!retryable && res.ok) return { status: res.status, headers: res.headers, body: body as T };
    if (!retryable || attempt >= maxRetries) {
      throw new ProviderHttpError(`${req.label}: HTTP ${res.status}`, res.status, body, retryable);
    }
    if (res.status >= 500) req.onUncertain?.();
    const retryAfter = throttle?.waitMs ?? parseRetryAfter(res.headers.get('retry-after'));
    if (res.status === 429 && retryAfter !== null) req.limiter?.pause(retryAfter);
    const wait = backoffMs(attempt, retryAfter);
    req.logger?.warn(
      { provider: req.label, status: res.status, attempt: attempt + 1, waitMs: wait },
      'provider call failed; retrying',
    );
    await sleep(wait);
  }
}
