import type { Logger } from 'pino';
import type { ProviderEndpoints } from '../../providers.ts';
import { limiterFor, ProviderHttpError, type ProviderResponse, providerRequest, TokenBucket } from '../http.ts';
import type { ChannelCredentials } from '../types.ts';

/** The API version we are written against (sent on every call, so the console's default cannot drift). */
export const SQUARE_VERSION = '2025-08-20';

/** What we ask a seller for: everything the sync engine reads and writes. */
export const SQUARE_SCOPES = [
  'MERCHANT_PROFILE_READ',
  'ITEMS_READ',
  'ITEMS_WRITE',
  'INVENTORY_READ',
  'INVENTORY_WRITE',
  'ORDERS_READ',
  'ORDERS_WRITE',
  'PAYMENTS_READ',
  'PAYMENTS_WRITE',
];

/** Refresh the access token once less than this is left (Square advises refreshing at least weekly). */
export const REFRESH_MARGIN_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * Square publishes no rate limits and sends no remaining-budget headers: its only signal is a 429. We start
 * at a modest rate and adapt: halve the rate on every 429 (and pause for Retry-After), creep back up on
 * success (additive increase, multiplicative decrease).
 */
const START_RATE = 10;
const MIN_RATE = 1;
const MAX_RATE = 20;

export interface SquareErrorItem {
  category?: string;
  code?: string;
  detail?: string;
  field?: string;
}

export function squareErrors(err: unknown): SquareErrorItem[] {
  if (!(err instanceof ProviderHttpError)) return [];
  const body = err.body as { errors?: SquareErrorItem[] } | null;
  return Array.isArray(body?.errors) ? body.errors : [];
}

export function squareErrorCode(err: unknown): string | undefined {
  return squareErrors(err)[0]?.code;
}

/** A Square error's text for messages and logs: code and detail, never the request. */
export function describeSquareError(err: unknown): string {
  const first = squareErrors(err)[0];
  if (first) return `${first.code ?? 'ERROR'}: ${first.detail ?? ''}`.trim();
  return err instanceof Error ? err.message : String(err);
}

export function squareLimiter(merchantId: string) {
  return limiterFor(`square:${merchantId}`, () => new TokenBucket(START_RATE, START_RATE));
}

/** Feeds the limiter from an answer: Square's only rate signal is the 429 itself. */
export function observeSquare(limiter: TokenBucket) {
  return (res: ProviderResponse) => {
    if (res.status === 429) {
      limiter.refillPerSecond = Math.max(MIN_RATE, limiter.refillPerSecond / 2);
      limiter.capacity = Math.max(MIN_RATE, Math.ceil(limiter.refillPerSecond));
    } else if (res.ok && limiter.refillPerSecond < MAX_RATE) {
      limiter.refillPerSecond = Math.min(MAX_RATE, limiter.refillPerSecond + 1);
      limiter.capacity = Math.max(limiter.capacity, Math.floor(limiter.refillPerSecond));
    }
  };
}

export interface TokenAnswer {
  access_token: string;
  token_type: string;
  expires_at: string;
  merchant_id: string;
  refresh_token?: string;
}

/** ObtainToken (code or refresh grant). No bearer auth: the application's secret is in the body. */
export async function obtainToken(
  endpoints: ProviderEndpoints,
  environment: 'production' | 'sandbox',
  grant:
    | { grant_type: 'authorization_code'; code: string; redirect_uri: string }
    | { grant_type: 'refresh_token'; refresh_token: string },
  logger?: Logger,
  transport: { timeoutMs?: number; maxRetries?: number } = {},
): Promise<TokenAnswer> {
  const { square } = endpoints;
  const res = await providerRequest<TokenAnswer>({
    label: `square:oauth:${environment}`,
    url: `${square.baseUrl(environment)}/oauth2/token`,
    method: 'POST',
    headers: { 'square-version': SQUARE_VERSION },
    body: { client_id: square.applicationId, client_secret: square.applicationSecret, ...grant },
    maxRetries: transport.maxRetries ?? 3,
    timeoutMs: transport.timeoutMs,
    logger,
  });
  return res.body;
}

export interface SquareClientOptions {
  logger: Logger;
  timeoutMs?: number;
  maxRetries?: number;
  onCredentials?: (credentials: ChannelCredentials) => Promise<void>;
}

/**
 * Authenticated calls for one seller: the per-seller limiter, retries, Square-Version, and the access
 * token kept fresh (refreshed before it runs out, or when Square says it has expired).
 */
export class SquareClient {
  readonly merchantId: string;
  readonly environment: 'production' | 'sandbox';
  private credentials: ChannelCredentials;
  private readonly endpoints: ProviderEndpoints;
  private readonly options: SquareClientOptions;
  private readonly limiter: TokenBucket;
  private refreshing: Promise<void> | null = null;

  constructor(endpoints: ProviderEndpoints, credentials: ChannelCredentials, options: SquareClientOptions) {
    this.endpoints = endpoints;
    this.credentials = { ...credentials };
    this.options = options;
    this.environment = credentials.environment ?? endpoints.square.defaultEnvironment;
    this.merchantId = credentials.merchantId ?? 'unknown';
    this.limiter = squareLimiter(this.merchantId);
  }

  get label() {
    return `square:${this.merchantId}`;
  }

  private tokenIsNearExpiry(): boolean {
    if (!this.credentials.expiresAt) return false;
    const at = Date.parse(this.credentials.expiresAt);
    return !Number.isNaN(at) && at - Date.now() < REFRESH_MARGIN_MS;
  }

  /** One refresh at a time; concurrent callers wait for it. */
  refresh(): Promise<void> {
    this.refreshing ??= this.doRefresh().finally(() => {
      this.refreshing = null;
    });
    return this.refreshing;
  }

  private async doRefresh() {
    const refreshToken = this.credentials.refreshToken;
    if (!refreshToken) {
      throw new ProviderHttpError(
        `${this.label}: the access token needs refreshing but there is no refresh token`,
        401,
        null,
        false,
      );
    }
    const answer = await obtainToken(
      this.endpoints,
      this.environment,
      { grant_type: 'refresh_token', refresh_token: refreshToken },
      this.options.logger,
      { timeoutMs: this.options.timeoutMs, maxRetries: this.options.maxRetries },
    );
    this.credentials = {
      ...this.credentials,
      accessToken: answer.access_token,
      refreshToken: answer.refresh_token ?? refreshToken,
      expiresAt: answer.expires_at,
    };
    this.options.logger.info({ provider: this.label, expiresAt: answer.expires_at }, 'square access token refreshed');
    await this.options.onCredentials?.({ ...this.credentials });
  }

  async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    if (this.tokenIsNearExpiry()) await this.refresh();
    try {
      return await this.send<T>(method, path, body);
    } catch (err) {
      if (err instanceof ProviderHttpError && err.status === 401 && squareErrorCode(err) === 'ACCESS_TOKEN_EXPIRED') {
        await this.refresh();
        return this.send<T>(method, path, body);
      }
      throw err;
    }
  }

  private async send<T>(method: string, path: string, body?: unknown): Promise<T> {
    try {
      const res = await providerRequest<T>({
        label: this.label,
        url: `${this.endpoints.square.baseUrl(this.environment)}${path}`,
        method,
        headers: { authorization: `Bearer ${this.credentials.accessToken}`, 'square-version': SQUARE_VERSION },
        body,
        timeoutMs: this.options.timeoutMs,
        maxRetries: this.options.maxRetries,
        logger: this.options.logger,
        limiter: this.limiter,
        observe: observeSquare(this.limiter),
      });
      return res.body;
    } catch (err) {
      if (err instanceof ProviderHttpError && squareErrors(err).length > 0) {
        throw new ProviderHttpError(
          `${this.label}: ${method} ${path.split('?')[0]} → HTTP ${err.status} ${describeSquareError(err)}`,
          err.status,
          err.body,
          err.retryable,
        );
      }
      throw err;
    }
  }
}
