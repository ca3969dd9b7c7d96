import type { Logger } from 'pino';
import type { z } from 'zod';
import { DomainError } from '../../lib/errors.ts';
import {
  type HttpResult,
  limiterFor,
  ProviderHttpError,
  type ProviderResponse,
  providerRequest,
  TokenBucket,
} from '../http.ts';

/** Standard plan: 150 requests per 30 s window per store, shared by every app on the store. */
const DEFAULT_QUOTA = 150;
const DEFAULT_WINDOW_MS = 30_000;
/** Below this many requests left in the window, wait for the window to reset instead of spending them. */
const RESERVE = 3;

/**
 * BigCommerce's rate signals: every answer says how many requests are left in the store's window and
 * when it resets. The limiter takes them at their word and pauses until the reset when the window is
 * nearly spent; a 429 pauses for the longer of X-Retry-After and X-Rate-Limit-Time-Reset-Ms.
 */
/** Store limiters an answer has told what is left (until then, what is left is a guess of one request). */
const heardFrom = new WeakSet<TokenBucket>();

/** Whether an answer of the store has said what is left of its window. */
export const knowsWhatIsLeft = (limiter: TokenBucket) => heardFrom.has(limiter);

export function observeRateLimit(limiter: TokenBucket, res: ProviderResponse, othersInFlight = 0) {
  const left = Number(res.headers.get('x-rate-limit-requests-left'));
  const quota = Number(res.headers.get('x-rate-limit-requests-quota'));
  const windowMs = Number(res.headers.get('x-rate-limit-time-window-ms'));
  const resetMs = Number(res.headers.get('x-rate-limit-time-reset-ms'));
  const hasSignals = res.headers.has('x-rate-limit-requests-left') && Number.isFinite(left);
  if (res.status === 429) {
    const retryAfterMs = Number(res.headers.get('x-retry-after')) * 1000;
    const wait = Math.max(Number.isFinite(resetMs) ? resetMs : 0, Number.isFinite(retryAfterMs) ? retryAfterMs : 0);
    // A 429 without rate headers is platform load shedding: the retry's backoff handles it.
    if (wait > 0) limiter.pause(wait);
    return;
  }
  if (!hasSignals) return;
  heardFrom.add(limiter);
  const refill = quota > 0 && windowMs > 0 ? (quota / windowMs) * 1000 : undefined;
  // Requests still on their way were not counted in `left` yet (or were, and we are merely careful).
  limiter.observe(Math.max(0, left - othersInFlight), quota > 0 ? quota : undefined, refill);
  if (left <= RESERVE && Number.isFinite(resetMs) && resetMs > 0) limiter.pause(resetMs);
}

export interface BcClientOptions {
  apiUrl: string;
  storeHash: string;
  accessToken: string;
  logger: Logger;
  timeoutMs?: number;
  maxRetries?: number;
}

/** Calls under way per store limiter (shared by every connector of the store in this process). */
const inFlight = new WeakMap<TokenBucket, number>();

/** One store's API: `{apiUrl}/stores/{hash}/v2|v3/...`, with its per-store limiter. */
export class BcClient {
  readonly storeHash: string;
  readonly limiter: TokenBucket;
  private readonly options: BcClientOptions;
  private readonly base: string;

  constructor(options: BcClientOptions) {
    this.options = options;
    this.storeHash = options.storeHash;
    this.base = `${options.apiUrl.replace(/\/$/, '')}/stores/${encodeURIComponent(options.storeHash)}`;
    this.limiter = limiterFor(`bigcommerce:${options.storeHash}`, () => {
      const bucket = new TokenBucket(DEFAULT_QUOTA, (DEFAULT_QUOTA / DEFAULT_WINDOW_MS) * 1000);
      // Other apps share the store's quota, so what is left is unknown until the first answer says:
      // start with one request and let its X-Rate-Limit headers set the pace.
      bucket.observe(1);
      return bucket;
    });
  }

  async send(
    method: string,
    path: string,
    init: { query?: Record<string, string | number | undefined>; body?: unknown; maxRetries?: number } = {},
  ): Promise<HttpResult<unknown>> {
    const url = new URL(`${this.base}${path}`);
    for (const [k, v] of Object.entries(init.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const limiter = this.limiter;
    inFlight.set(limiter, (inFlight.get(limiter) ?? 0) + 1);
    try {
      return await providerRequest({
        label: `bigcommerce:${this.storeHash}`,
        url: url.toString(),
        method,
        headers: { 'x-auth-token': this.options.accessToken },
        body: init.body,
        timeoutMs: this.options.timeoutMs,
        maxRetries: init.maxRetries ?? this.options.maxRetries,
        logger: this.options.logger,
        limiter,
        observe: (res) => observeRateLimit(limiter, res, (inFlight.get(limiter) ?? 1) - 1),
      });
    } finally {
      inFlight.set(limiter, (inFlight.get(limiter) ?? 1) - 1);
    }
  }

  /** A call whose answer is parsed with `schema`; 204 (an empty V2 list) parses `empty`. */
  async call<T extends z.ZodType>(
    schema: T,
    method: string,
    path: string,
    init: {
      query?: Record<string, string | number | undefined>;
      body?: unknown;
      maxRetries?: number;
      empty?: unknown;
    } = {},
  ): Promise<z.infer<T>> {
    const res = await this.send(method, path, init);
    const body = res.status === 204 ? (init.empty ?? null) : res.body;
    const parsed = schema.safeParse(body);
    if (!parsed.success) {
      this.options.logger.error(
        { provider: `bigcommerce:${this.storeHash}`, path, issues: parsed.error.issues.slice(0, 5) },
        'unexpected BigCommerce answer',
      );
      throw new DomainError('UPSTREAM_FAILED', `BigCommerce answered ${method} ${path} in an unexpected shape`);
    }
    return parsed.data;
  }
}

/** The message BigCommerce put in an error body (V3 title, V2 message, refunds data[].title). */
export function providerMessage(err: unknown): string {
  if (!(err instanceof ProviderHttpError)) return err instanceof Error ? err.message : String(err);
  const body = err.body as unknown;
  if (Array.isArray(body)) return String((body[0] as { message?: string })?.message ?? err.message);
  if (body && typeof body === 'object') {
    const b = body as { title?: string; data?: { title?: string }[] };
    if (b.title) return b.title;
    if (Array.isArray(b.data) && b.data[0]?.title) return b.data[0].title;
  }
  return err.message;
}
