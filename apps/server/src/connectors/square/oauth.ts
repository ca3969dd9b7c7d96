import { DomainError } from '../../lib/errors.ts';
import type { ProviderEndpoints } from '../../providers.ts';
import { ProviderHttpError, providerRequest } from '../http.ts';
import type { AuthorizedChannel, OAuthProvider } from '../types.ts';
import { obtainToken, SQUARE_SCOPES, SQUARE_VERSION, type TokenAnswer } from './client.ts';

type Environment = 'production' | 'sandbox';

/**
 * Square's code flow. The authorize URL goes to the host of the chosen environment (SPEC's POS flow asks
 * for `api`, the production host). Square's callback carries only code and state, so a caller that knows
 * the environment passes it as `query.environment`; otherwise the code is tried on the default host, then
 * on the other (a code only exists on the host that issued it).
 */
export function squareOAuth(endpoints: ProviderEndpoints): OAuthProvider {
  const { square } = endpoints;
  return {
    authorizeUrl({ state, redirectUri, environment }) {
      const url = new URL(`${square.baseUrl(environment ?? square.defaultEnvironment)}/oauth2/authorize`);
      url.searchParams.set('client_id', square.applicationId);
      url.searchParams.set('scope', SQUARE_SCOPES.join(' '));
      url.searchParams.set('session', 'false');
      url.searchParams.set('state', state);
      url.searchParams.set('redirect_uri', redirectUri);
      return url.toString();
    },

    async completeAuthorization(query, redirectUri): Promise<AuthorizedChannel> {
      if (query.error) {
        throw new DomainError(
          'UNAUTHORIZED',
          `Square access was not granted (${query.error_description || query.error}).`,
        );
      }
      const code = query.code;
      if (!code) throw new DomainError('VALIDATION', 'The Square callback carries no authorization code.');
      const given = query.environment === 'production' || query.environment === 'sandbox' ? query.environment : null;
      const candidates: Environment[] = given
        ? [given]
        : [square.defaultEnvironment, square.defaultEnvironment === 'production' ? 'sandbox' : 'production'];
      let token: TokenAnswer | null = null;
      let environment: Environment = candidates[0] as Environment;
      for (const env of candidates) {
        try {
          token = await obtainToken(endpoints, env, {
            grant_type: 'authorization_code',
            code,
            redirect_uri: redirectUri,
          });
          environment = env;
          break;
        } catch (err) {
          // 400/401: this host does not know the code (or it was used, expired or forged); try the next.
          if (!(err instanceof ProviderHttpError) || err.status === null || err.status >= 500) throw err;
        }
      }
      if (!token) {
        throw new DomainError(
          'UNAUTHORIZED',
          'Square refused the authorization code (it was used, has expired or is not valid).',
        );
      }
      const me = await providerRequest<{ merchant?: { id: string; business_name?: string } }>({
        label: `square:${token.merchant_id}`,
        url: `${square.baseUrl(environment)}/v2/merchants/me`,
        headers: { authorization: `Bearer ${token.access_token}`, 'square-version': SQUARE_VERSION },
        maxRetries: 3,
      });
      return {
        externalId: token.merchant_id,
        name: me.body.merchant?.business_name || `Square ${token.merchant_id}`,
        credentials: {
          accessToken: token.access_token,
          refreshToken: token.refresh_token,
          expiresAt: token.expires_at,
          merchantId: token.merchant_id,
          environment,
          scope: SQUARE_SCOPES.join(' '),
        },
      };
    },
  };
}
