import type { ProviderEndpoints } from '../../providers.ts';
import { ProviderHttpError, providerRequest } from '../http.ts';
import type { ChannelCredentials } from '../types.ts';

/**
 * Shopify's token endpoint (POST https://{shop}.myshopify.com/admin/oauth/access_token): the code
 * exchange, and the refresh of expiring offline tokens (1 h access tokens; the refresh token rotates on
 * every use). Public apps must use expiring tokens (new apps from April 2026, all by January 2027).
 */

/** Refresh an access token once less than this is left. */
export const REFRESH_MARGIN_MS = 5 * 60 * 1000;

interface TokenAnswer {
  access_token?: string;
  scope?: string;
  expires_in?: number;
  refresh_token?: string;
}

async function tokenRequest(endpoints: ProviderEndpoints, shop: string, body: Record<string, string>) {
  const res = await providerRequest<TokenAnswer>({
    label: `shopify:${shop}`,
    url: `${endpoints.shopify.shopUrl(shop)}/admin/oauth/access_token`,
    method: 'POST',
    body: { client_id: endpoints.shopify.apiKey, client_secret: endpoints.shopify.apiSecret, ...body },
    maxRetries: 2,
  });
  const answer = res.body ?? {};
  if (!answer.access_token) throw new ProviderHttpError(`shopify:${shop}: no access token`, res.status, null, false);
  return answer;
}

function credentialsFrom(shop: string, answer: TokenAnswer, previous?: ChannelCredentials): ChannelCredentials {
  const credentials: ChannelCredentials = {
    accessToken: answer.access_token as string,
    scope: answer.scope ?? previous?.scope,
    shop,
  };
  if (answer.refresh_token) credentials.refreshToken = answer.refresh_token;
  if (answer.expires_in) credentials.expiresAt = new Date(Date.now() + answer.expires_in * 1000).toISOString();
  return credentials;
}

/** The authorization code → credentials (an expiring offline token with its refresh token). */
export async function exchangeCode(endpoints: ProviderEndpoints, shop: string, code: string) {
  return credentialsFrom(shop, await tokenRequest(endpoints, shop, { code, expiring: '1' }));
}

/**
 * One refresh per refresh token in this process: concurrent callers holding the same (about to rotate)
 * refresh token share the answer instead of spending the token twice.
 */
const inFlight = new Map<string, Promise<ChannelCredentials>>();

export function refreshCredentials(endpoints: ProviderEndpoints, credentials: ChannelCredentials) {
  const { refreshToken, shop } = credentials;
  if (!refreshToken || !shop) throw new Error('Shopify credentials without a refresh token');
  let pending = inFlight.get(refreshToken);
  if (!pending) {
    pending = tokenRequest(endpoints, shop, { grant_type: 'refresh_token', refresh_token: refreshToken }).then(
      (answer) => credentialsFrom(shop, answer, credentials),
      (err: unknown) => {
        if (err instanceof ProviderHttpError && err.status !== null && err.status < 500)
          throw new ProviderHttpError(`shopify:${shop}: the refresh token was refused`, 401, null, false);
        throw err;
      },
    );
    inFlight.set(refreshToken, pending);
    // Keep the answer a minute for late callers with the same spent token, then forget it.
    const forget = () => setTimeout(() => inFlight.delete(refreshToken), 60_000).unref();
    pending.then(forget, () => inFlight.delete(refreshToken));
  }
  return pending;
}

export function needsRefresh(credentials: ChannelCredentials, now = Date.now()) {
  return (
    !!credentials.refreshToken && !!credentials.expiresAt && Date.parse(credentials.expiresAt) - now < REFRESH_MARGIN_MS
  );
}
