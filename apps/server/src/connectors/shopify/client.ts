import type { Logger } from 'pino';
import type { ProviderEndpoints } from '../../providers.ts';
import { backoffMs, limiterFor, ProviderHttpError, providerRequest, sleep, TokenBucket } from '../http.ts';
import type { ChannelCredentials } from '../types.ts';
import { needsRefresh, refreshCredentials } from './tokens.ts';

/** The Admin API version we are written against: pinned, so Shopify's quarterly releases cannot drift under us. */
export const SHOPIFY_API_VERSION = '2025-01';
/**
 * The version inventory writes are sent at: the first with the @idempotent directive, so a write whose answer
 * was lost is sent again with its key and answered, not applied twice (its other fields are 2025-01's but
 * compareQuantity, which 2026-01 calls changeFromQuantity).
 */
export const SHOPIFY_IDEMPOTENT_VERSION = '2026-01';

/** What we ask a merchant for (`write_X` implies `read_X`). */
export const SHOPIFY_SCOPES = [
  'write_products',
  'write_inventory',
  'read_locations',
  'write_orders',
  'write_merchant_managed_fulfillment_orders',
  // Shopify's returns (the Returns API) and their webhooks; a shop authorised before asks for it on re-authorising.
  'read_returns',
];

/** Shopify's own rule for a shop's domain. */
export const SHOP_DOMAIN = /^[a-zA-Z0-9][a-zA-Z0-9\-_]*\.myshopify\.com$/;

/** Standard plan's bucket until the shop tells us its own (every answer carries throttleStatus). */
const DEFAULT_BUCKET = { maximumAvailable: 1000, restoreRate: 50 };

interface CostExtension {
  requestedQueryCost?: number;
  actualQueryCost?: number | null;
  throttleStatus?: { maximumAvailable?: number; currentlyAvailable?: number; restoreRate?: number };
}

export interface GraphqlError {
  message: string;
  path?: (string | number)[];
  extensions?: { code?: string; [key: string]: unknown };
}

interface GraphqlAnswer<T> {
  data?: T | null;
  errors?: GraphqlError[] | string;
  extensions?: { cost?: CostExtension };
}

/** A GraphQL answer with top-level errors (other than THROTTLED, which is retried): a bug or missing access. */
export class ShopifyGraphqlError extends Error {
  readonly errors: GraphqlError[];
  constructor(label: string, errors: GraphqlError[]) {
    super(
      `${label}: ${errors.map((e) => (e.extensions?.code ? `${e.extensions.code}: ${e.message}` : e.message)).join('; ')}`,
    );
    this.name = 'ShopifyGraphqlError';
    this.errors = errors;
  }
}

/** For a THROTTLED answer: `(requested − currentlyAvailable) / restoreRate`, in ms; null for anything else. */
export function throttleWaitMs(body: unknown, fallbackCost: number): number | null {
  const answer = body as GraphqlAnswer<unknown> | null;
  if (!Array.isArray(answer?.errors) || !answer.errors.some((e) => e.extensions?.code === 'THROTTLED')) return null;
  const c = answer.extensions?.cost;
  const requested = c?.requestedQueryCost ?? fallbackCost;
  const available = c?.throttleStatus?.currentlyAvailable ?? 0;
  const rate = c?.throttleStatus?.restoreRate ?? DEFAULT_BUCKET.restoreRate;
  return Math.max(0, Math.ceil(((requested - available) / rate) * 1000));
}

export function shopLimiter(shop: string) {
  return limiterFor(
    `shopify:${shop}`,
    () => new TokenBucket(DEFAULT_BUCKET.maximumAvailable, DEFAULT_BUCKET.restoreRate),
  );
}

/** Shopify's decimal money string → minor units, without floating point. */
export function toMinor(amount: string | null | undefined): number {
  if (amount == null) return 0;
  const m = /^(-)?(\d+)(?:\.(\d+))?$/.exec(String(amount).trim());
  if (!m) throw new Error(`Unexpected money amount ${amount}`);
  const fraction = (m[3] ?? '').padEnd(2, '0');
  // Round half up on a third decimal, as currencies with two decimals are stored.
  let minor = Number(m[2]) * 100 + Number(fraction.slice(0, 2));
  if (fraction.length > 2 && Number(fraction[2]) >= 5) minor += 1;
  return m[1] ? -minor : minor;
}

/** Minor units → Shopify's decimal string. */
export function fromMinor(minor: number): string {
  const sign = minor < 0 ? '-' : '';
  const abs = Math.abs(Math.round(minor));
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

export interface ShopifyClientOptions {
  shop: string;
  credentials: ChannelCredentials;
  logger?: Logger;
  timeoutMs?: number;
  maxRetries?: number;
  /** Called with the new credentials after an expiring token was refreshed, to store them. */
  onCredentials?: (credentials: ChannelCredentials) => Promise<void>;
}

/**
 * Admin GraphQL over providerRequest: one cost-based limiter per shop, fed by every answer's
 * `extensions.cost.throttleStatus`; each call acquires its expected cost (the last requestedQueryCost
 * Shopify reported for the same query, or the caller's estimate); a THROTTLED answer (HTTP 200) waits
 * `(cost − available) / restoreRate` and is retried.
 */
export class ShopifyClient {
  private readonly options: ShopifyClientOptions;
  private readonly endpoints: ProviderEndpoints;
  private credentials: ChannelCredentials;
  private readonly url: string;
  private readonly label: string;
  private readonly costs = new Map<string, number>();

  constructor(endpoints: ProviderEndpoints, options: ShopifyClientOptions) {
    this.options = options;
    this.endpoints = endpoints;
    this.credentials = options.credentials;
    this.url = `${endpoints.shopify.shopUrl(options.shop)}/admin/api/${SHOPIFY_API_VERSION}/graphql.json`;
    this.label = `shopify:${options.shop}`;
  }

  get shop() {
    return this.options.shop;
  }

  /** Swaps an expiring token for a fresh one (the refresh token rotates) and hands it to the caller to store. */
  private async refresh() {
    const next = await refreshCredentials(this.endpoints, this.credentials);
    if (next.accessToken === this.credentials.accessToken) return;
    this.credentials = next;
    this.options.logger?.info({ provider: this.label }, 'access token refreshed');
    await this.options.onCredentials?.(next);
  }

  /**
   * A mutation that must not run twice (a refund, a fulfillment). Throttles are retried as usual, since
   * Shopify did nothing; after a timeout, a dropped connection or a 5xx it may have applied it, so
   * `recover` looks for the result first and only when it finds none is the mutation sent again.
   */
  async mutateOnce<T>(query: string, variables: Record<string, unknown>, recover: () => Promise<T | null>): Promise<T> {
    const maxRetries = this.options.maxRetries ?? 5;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.request<T>(query, variables, 10, 0);
      } catch (err) {
        if (!(err instanceof ProviderHttpError) || !err.retryable || attempt >= maxRetries) throw err;
        if (err.status === null || err.status >= 500) {
          this.options.logger?.warn(
            { provider: this.label, status: err.status, attempt: attempt + 1 },
            'mutation outcome unknown; checking before sending it again',
          );
          const done = await recover();
          if (done !== null) return done;
        }
        await sleep(backoffMs(attempt, throttleWaitMs(err.body, 10)));
      }
    }
  }

  async request<T>(
    query: string,
    variables: Record<string, unknown> = {},
    estimate = 10,
    maxRetries = this.options.maxRetries,
    onUncertain?: () => void,
    /** The Admin API version for this request (default SHOPIFY_API_VERSION). */
    version = SHOPIFY_API_VERSION,
  ): Promise<T> {
    if (needsRefresh(this.credentials)) await this.refresh();
    const used = this.credentials.accessToken;
    try {
      return await this.send<T>(query, variables, estimate, maxRetries, onUncertain, version);
    } catch (err) {
      // An expiring token can lapse between our check and Shopify's: refresh once and try again (unless a
      // concurrent call already replaced the token this one was sent with).
      if (!(err instanceof ProviderHttpError) || err.status !== 401 || !this.credentials.refreshToken) throw err;
      if (used === this.credentials.accessToken) await this.refresh();
      return this.send<T>(query, variables, estimate, maxRetries, onUncertain, version);
    }
  }

  private async send<T>(
    query: string,
    variables: Record<string, unknown>,
    estimate: number,
    maxRetries: number | undefined,
    onUncertain: (() => void) | undefined,
    version: string,
  ): Promise<T> {
    const limiter = shopLimiter(this.options.shop);
    const cost = this.costs.get(query) ?? estimate;
    const res = await providerRequest<GraphqlAnswer<T>>({
      label: this.label,
      url: version === SHOPIFY_API_VERSION ? this.url : this.url.replace(`/${SHOPIFY_API_VERSION}/`, `/${version}/`),
      method: 'POST',
      headers: { 'x-shopify-access-token': this.credentials.accessToken },
      body: { query, variables },
      timeoutMs: this.options.timeoutMs,
      maxRetries,
      onUncertain,
      logger: this.options.logger,
      limiter,
      cost: Math.min(cost, limiter.capacity),
      observe: (_res, body) => {
        const status = (body as GraphqlAnswer<T> | null)?.extensions?.cost?.throttleStatus;
        if (status?.currentlyAvailable !== undefined)
          limiter.observe(status.currentlyAvailable, status.maximumAvailable, status.restoreRate);
      },
      throttled: (_res, body) => {
        const waitMs = throttleWaitMs(body, cost);
        return waitMs === null ? null : { waitMs };
      },
    });
    const body = res.body;
    const requested = body?.extensions?.cost?.requestedQueryCost;
    if (typeof requested === 'number') this.costs.set(query, requested);
    if (typeof body?.errors === 'string')
      throw new ProviderHttpError(`${this.label}: ${body.errors}`, res.status, body, false);
    if (body?.errors?.length) throw new ShopifyGraphqlError(this.label, body.errors);
    if (!body?.data) throw new ProviderHttpError(`${this.label}: an answer without data`, res.status, body, false);
    return body.data;
  }
}
