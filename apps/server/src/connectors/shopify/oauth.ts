import { createHmac, timingSafeEqual } from 'node:crypto';
import { DomainError } from '../../lib/errors.ts';
import type { ProviderEndpoints } from '../../providers.ts';
import { ProviderHttpError } from '../http.ts';
import type { AuthorizedChannel, ChannelCredentials, OAuthProvider } from '../types.ts';
import { SHOP_DOMAIN, SHOPIFY_SCOPES, ShopifyClient } from './client.ts';
import { exchangeCode } from './tokens.ts';

/** How far a callback's timestamp may be from our clock (Shopify's library allows 90 s; we allow for skew). */
const MAX_CALLBACK_AGE_S = 300;

/** Sorted `k=v&…` of the callback's query without hmac/signature, percent-encoded: what Shopify signs. */
export function callbackSignatureText(query: Record<string, string>): string {
  return Object.keys(query)
    .filter((k) => k !== 'hmac' && k !== 'signature')
    .sort()
    .map((k) => `${encodeURIComponent(k)}=${encodeURIComponent(query[k] as string)}`)
    .join('&');
}

/** Constant-time comparison of two strings (false when their lengths differ). */
export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** "demo", "demo.myshopify.com" → "demo". */
const shopName = (shop: string) =>
  shop
    .trim()
    .toLowerCase()
    .replace(/\.myshopify\.com$/, '');

export function shopifyOAuth(endpoints: ProviderEndpoints): OAuthProvider {
  const { apiKey, apiSecret } = endpoints.shopify;
  return {
    authorizeUrl({ shop, state, redirectUri }) {
      if (!shop) throw new DomainError('VALIDATION', 'A Shopify shop is needed to connect');
      const name = shopName(shop);
      if (!SHOP_DOMAIN.test(`${name}.myshopify.com`))
        throw new DomainError('VALIDATION', 'Enter your Shopify shop address, e.g. your-store.myshopify.com.');
      const query = new URLSearchParams({
        client_id: apiKey,
        scope: SHOPIFY_SCOPES.join(','),
        redirect_uri: redirectUri,
        state,
      });
      return `${endpoints.shopify.shopUrl(name)}/admin/oauth/authorize?${query}`;
    },

    async completeAuthorization(query, _redirectUri): Promise<AuthorizedChannel> {
      const { hmac, code, shop, timestamp } = query;
      if (!hmac || !code || !shop || !timestamp)
        throw new DomainError('VALIDATION', 'The Shopify callback is missing code, shop, timestamp or hmac');
      const expected = createHmac('sha256', apiSecret).update(callbackSignatureText(query)).digest('hex');
      if (!safeEqual(expected, hmac.toLowerCase()))
        throw new DomainError('UNAUTHORIZED', 'The Shopify callback signature is not valid');
      if (!SHOP_DOMAIN.test(shop)) throw new DomainError('VALIDATION', 'The Shopify callback names an invalid shop');
      const age = Math.abs(Date.now() / 1000 - Number(timestamp));
      if (!Number.isFinite(age) || age > MAX_CALLBACK_AGE_S)
        throw new DomainError('UNAUTHORIZED', 'The Shopify callback is too old; start again');

      const name = shopName(shop);
      let credentials: ChannelCredentials;
      try {
        credentials = await exchangeCode(endpoints, name, code);
      } catch (err) {
        if (err instanceof ProviderHttpError && err.status !== null && err.status < 500)
          throw new DomainError(
            'UNAUTHORIZED',
            'Shopify refused the authorization code (used or expired); start again',
          );
        throw err;
      }
      const client = new ShopifyClient(endpoints, { shop: name, credentials, maxRetries: 3 });
      const info = await client.request<{ shop: { name: string; myshopifyDomain: string } }>(
        '{ shop { name myshopifyDomain } }',
        {},
        2,
      );
      return {
        credentials,
        externalId: info.shop.myshopifyDomain.toLowerCase(),
        name: info.shop.name,
      };
    },
  };
}
