import { createHmac, timingSafeEqual } from 'node:crypto';
import { jwtVerify } from 'jose';
import type { z } from 'zod';
import { DomainError } from '../../lib/errors.ts';
import type { ProviderEndpoints } from '../../providers.ts';
import { ProviderHttpError, providerRequest } from '../http.ts';
import type { OAuthProvider, WebhookEvent, WebhookRequest, WebhookVerifier } from '../types.ts';
import { SignedPayloadClaims, StoreInfo, TokenResponse, WebhookBody } from './schemas.ts';

/** What the app asks a merchant to grant (BigCommerce grants all or nothing). */
export const SCOPES = [
  'store_v2_products',
  'store_inventory',
  'store_locations',
  'store_v2_orders',
  'store_v2_transactions',
  'store_v2_information_read_only',
];

const STORE_CONTEXT = /^stores\/([a-z0-9]+)$/;
/** Standard Webhooks: deliveries older (or newer) than this are refused, so a captured one cannot be replayed. */
const WEBHOOK_TOLERANCE_S = 5 * 60;

/**
 * BigCommerce's single-click app install: the merchant approves on BigCommerce's install page for their
 * store (the hash), BigCommerce calls our auth callback with code, scope, context=stores/{hash} and
 * account_uuid, and we exchange the code at login.bigcommerce.com/oauth2/token. The token does not expire.
 */
export function bigcommerceOAuth(endpoints: ProviderEndpoints): OAuthProvider {
  const bc = endpoints.bigcommerce;
  return {
    authorizeUrl({ shop, state, redirectUri }) {
      const url = new URL(`${bc.loginUrl}/app/${encodeURIComponent(bc.clientId)}/install`);
      if (shop) url.searchParams.set('context', `stores/${shop}`);
      url.searchParams.set('redirect_uri', redirectUri);
      url.searchParams.set('scope', SCOPES.join(' '));
      url.searchParams.set('state', state);
      return url.toString();
    },

    async completeAuthorization(query, redirectUri) {
      if (query.error) throw new DomainError('UNAUTHORIZED', 'The merchant did not install the app');
      const hash = STORE_CONTEXT.exec(query.context ?? '')?.[1];
      if (!query.code || !query.scope || !hash) {
        throw new DomainError('VALIDATION', 'The BigCommerce callback is missing its code, scope or store context');
      }
      let token: z.infer<typeof TokenResponse>;
      try {
        const res = await providerRequest({
          label: `bigcommerce:${hash}`,
          url: `${bc.loginUrl}/oauth2/token`,
          method: 'POST',
          body: {
            client_id: bc.clientId,
            client_secret: bc.clientSecret,
            code: query.code,
            scope: query.scope,
            grant_type: 'authorization_code',
            redirect_uri: redirectUri,
            context: query.context,
          },
          // Retried on 429/5xx/timeouts; a code is single-use, so a retry after an answer that was lost on
          // its way back is refused (and the merchant starts again).
          maxRetries: 3,
        });
        token = TokenResponse.parse(res.body);
      } catch (err) {
        if (err instanceof ProviderHttpError && err.status !== null && err.status < 500) {
          throw new DomainError('UNAUTHORIZED', 'BigCommerce refused the authorization code', { cause: err });
        }
        throw new DomainError('UPSTREAM_FAILED', 'BigCommerce did not complete the authorization', { cause: err });
      }
      // The token must be for the store the callback named.
      if (token.context !== query.context) {
        throw new DomainError('UNAUTHORIZED', 'BigCommerce authorized a different store than the callback named');
      }
      let name = hash;
      try {
        const res = await providerRequest({
          label: `bigcommerce:${hash}`,
          url: `${bc.apiUrl}/stores/${hash}/v2/store`,
          headers: { 'x-auth-token': token.access_token },
          maxRetries: 2,
        });
        name = StoreInfo.parse(res.body).name;
      } catch {
        // The store's name is only for display; the connection stands without it.
      }
      return {
        credentials: { accessToken: token.access_token, scope: token.scope, storeHash: hash },
        externalId: hash,
        name,
      };
    },
  };
}

/**
 * Verifies a `signed_payload_jwt` from the load, uninstall or remove-user callback: HS256 with the app's
 * client secret, audience = client id. Returns the store hash and the user it is for.
 */
export async function verifySignedPayload(endpoints: ProviderEndpoints, jwt: string) {
  const bc = endpoints.bigcommerce;
  try {
    const { payload } = await jwtVerify(jwt, new TextEncoder().encode(bc.clientSecret), {
      algorithms: ['HS256'],
      audience: bc.clientId,
      issuer: 'bc',
    });
    const claims = SignedPayloadClaims.parse(payload);
    return {
      storeHash: (STORE_CONTEXT.exec(claims.sub) as RegExpExecArray)[1] as string,
      user: claims.user,
      owner: claims.owner ?? null,
      url: claims.url ?? '/',
    };
  } catch (err) {
    throw new DomainError('UNAUTHORIZED', 'The BigCommerce signed payload is invalid', { cause: err });
  }
}

const header = (headers: WebhookRequest['headers'], name: string) => {
  const value = headers[name] ?? headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
};

/**
 * Deliveries are signed the Standard Webhooks way: HMAC-SHA256 keyed with the client secret over
 * `{webhook-id}.{webhook-timestamp}.{raw body}`, base64, in `webhook-signature` as `v1,<sig>` entries.
 */
export function bigcommerceWebhooks(endpoints: ProviderEndpoints, now = () => Date.now()): WebhookVerifier {
  const secret = Buffer.from(endpoints.bigcommerce.clientSecret, 'utf8');
  return {
    verify(req) {
      const id = header(req.headers, 'webhook-id');
      const timestamp = header(req.headers, 'webhook-timestamp');
      const signatures = header(req.headers, 'webhook-signature');
      if (!id || !timestamp || !signatures || !/^\d+$/.test(timestamp)) return false;
      if (Math.abs(now() / 1000 - Number(timestamp)) > WEBHOOK_TOLERANCE_S) return false;
      const expected = createHmac('sha256', secret).update(`${id}.${timestamp}.`).update(req.rawBody).digest();
      let valid = false;
      for (const entry of signatures.split(' ')) {
        const [version, sig] = entry.split(',');
        if (version !== 'v1' || !sig) continue;
        const given = Buffer.from(sig, 'base64');
        // Compare every entry, so the time taken says nothing about which one matched.
        if (given.length === expected.length && timingSafeEqual(given, expected)) valid = true;
      }
      return valid;
    },

    parse(req): WebhookEvent {
      const body = WebhookBody.parse(JSON.parse(req.rawBody.toString('utf8')));
      return {
        provider: 'bigcommerce',
        eventId: body.hash,
        topic: body.scope,
        shopExternalId: (STORE_CONTEXT.exec(body.producer) as RegExpExecArray)[1] as string,
        occurredAt: new Date(body.created_at * 1000).toISOString(),
        payload: body.data,
      };
    },
  };
}
