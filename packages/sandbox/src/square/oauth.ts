import type { FastifyInstance, FastifyReply } from 'fastify';
import { SANDBOX_APPS } from '../apps.ts';
import type { SandboxContext } from '../context.ts';
import { injectFault } from './api.ts';
import { ALL_SCOPES, type SquareStore, seconds } from './store.ts';

const APP = SANDBOX_APPS.square;
const MERCHANT_COOKIE = 'sq_sandbox_business';

const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );

function page(reply: FastifyReply, status: number, title: string, body: string) {
  return reply
    .status(status)
    .type('text/html; charset=utf-8')
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>` +
        '<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;color:#1a1a1a}' +
        'button{font-size:1rem;padding:.6rem 1.4rem;margin-right:.5rem;border-radius:6px;border:1px solid #006aff}' +
        '.allow{background:#006aff;color:#fff}.deny{background:#fff;color:#006aff}li{margin:.2rem 0}' +
        'input{font-size:1rem;padding:.4rem;width:100%;box-sizing:border-box}</style></head>' +
        `<body><p><strong>Square</strong> (Switchyard sandbox)</p>${body}</body></html>`,
    );
}

const SCOPE_TEXT: Record<string, string> = {
  MERCHANT_PROFILE_READ: 'Read your business profile and locations',
  ITEMS_READ: 'Read your item library',
  ITEMS_WRITE: 'Change your item library',
  INVENTORY_READ: 'Read your inventory',
  INVENTORY_WRITE: 'Change your inventory',
  ORDERS_READ: 'Read your orders',
  ORDERS_WRITE: 'Change your orders',
  PAYMENTS_READ: 'Read your payments and refunds',
  PAYMENTS_WRITE: 'Take payments and issue refunds',
};

interface AuthorizeParams {
  client_id?: string;
  scope?: string;
  state?: string;
  redirect_uri?: string;
  session?: string;
}

/** Checks an authorize request like Square does: unknown apps and bad redirect URLs get an error page. */
function check(params: AuthorizeParams): { scopes: string[]; redirectUri: string } | string {
  if (params.client_id !== APP.applicationId) return 'The application ID (client_id) is not valid.';
  const scopes = (params.scope ?? '')
    .split(/[\s+]+/)
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = scopes.filter((s) => !(ALL_SCOPES as readonly string[]).includes(s));
  if (unknown.length > 0) return `Unknown permission: ${unknown.join(', ')}.`;
  // The sandbox application has no redirect URL registered in a developer console, so the request names
  // one: it must be an absolute http(s) URL without a fragment, and the code is bound to it.
  let url: URL;
  try {
    url = new URL(params.redirect_uri ?? '');
  } catch {
    return 'The redirect URL (redirect_uri) is missing or not a valid URL.';
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.hash) {
    return 'The redirect URL must be an http(s) URL without a fragment.';
  }
  return { scopes: scopes.length > 0 ? scopes : ['MERCHANT_PROFILE_READ'], redirectUri: params.redirect_uri as string };
}

function readCookie(header: string | undefined, name: string): string | null {
  for (const part of (header ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return decodeURIComponent(v.join('='));
  }
  return null;
}

/** Square's OAuth: the seller's consent page, ObtainToken (code and refresh grants), token status, revoke. */
export function oauthRoutes(app: FastifyInstance, store: SquareStore, ctx: SandboxContext) {
  app.get<{ Querystring: AuthorizeParams }>('/oauth2/authorize', async (req, reply) => {
    const checked = check(req.query);
    if (typeof checked === 'string')
      return page(reply, 400, 'Authorization error', `<h1>Authorization error</h1><p>${escapeHtml(checked)}</p>`);
    const business = readCookie(req.headers.cookie, MERCHANT_COOKIE) ?? 'Demo Merchant';
    const hidden = (['client_id', 'scope', 'state', 'redirect_uri'] as const)
      .map((k) => `<input type="hidden" name="${k}" value="${escapeHtml(String(req.query[k] ?? ''))}">`)
      .join('');
    return page(
      reply,
      200,
      'Allow access',
      `<h1>Switchyard would like to access your Square account</h1>` +
        `<ul>${checked.scopes.map((s) => `<li>${escapeHtml(SCOPE_TEXT[s] ?? s)}</li>`).join('')}</ul>` +
        `<form method="post" action="authorize">${hidden}` +
        `<p><label>Signed in as (business name)<br><input name="business" value="${escapeHtml(business)}"></label></p>` +
        '<button class="allow" type="submit" name="decision" value="allow">Allow</button>' +
        '<button class="deny" type="submit" name="decision" value="deny">Deny</button></form>',
    );
  });

  app.post<{ Body: AuthorizeParams & { decision?: string; business?: string } }>(
    '/oauth2/authorize',
    async (req, reply) => {
      const body = req.body ?? {};
      const checked = check(body);
      if (typeof checked === 'string')
        return page(reply, 400, 'Authorization error', `<h1>Authorization error</h1><p>${escapeHtml(checked)}</p>`);
      const target = new URL(checked.redirectUri);
      if (body.decision !== 'allow') {
        target.searchParams.set('error', 'access_denied');
        target.searchParams.set('error_description', 'user_denied');
        if (body.state) target.searchParams.set('state', body.state);
        return reply.redirect(target.toString(), 302);
      }
      const business = (body.business ?? '').trim() || 'Demo Merchant';
      const merchant = store.ensureMerchant(store.merchantIdFor(business), business);
      const code = store.issueCode({
        merchantId: merchant.id,
        clientId: APP.applicationId,
        scopes: checked.scopes,
        redirectUri: checked.redirectUri,
      });
      target.searchParams.set('code', code);
      target.searchParams.set('response_type', 'code');
      if (body.state) target.searchParams.set('state', body.state);
      return reply
        .header('set-cookie', `${MERCHANT_COOKIE}=${encodeURIComponent(business)}; Path=/; HttpOnly; SameSite=Lax`)
        .redirect(target.toString(), 302);
    },
  );

  const oauthError = (reply: FastifyReply, status: number, code: string, detail: string, field?: string) =>
    reply.status(status).send({
      errors: [
        {
          category: status === 401 ? 'AUTHENTICATION_ERROR' : 'INVALID_REQUEST_ERROR',
          code,
          detail,
          ...(field ? { field } : {}),
        },
      ],
    });

  app.post<{ Body: Record<string, unknown> }>('/oauth2/token', async (req, reply) => {
    const body = req.body ?? {};
    if (body.client_id !== APP.applicationId || body.client_secret !== APP.applicationSecret) {
      return oauthError(reply, 401, 'UNAUTHORIZED', 'Invalid client_id or client_secret.', 'client_secret');
    }
    // The seller's injected faults apply to its token calls too (a refresh in the middle of a sync).
    const merchantId =
      body.grant_type === 'refresh_token'
        ? store.authorizations.get(String(body.refresh_token))?.merchantId
        : store.codeMerchant(String(body.code));
    if (merchantId && (await injectFault(ctx, merchantId, req, reply))) return reply;
    let auth: ReturnType<typeof store.authorize> | undefined;
    if (body.grant_type === 'authorization_code') {
      if (typeof body.code !== 'string')
        return oauthError(reply, 400, 'MISSING_REQUIRED_PARAMETER', 'Missing code.', 'code');
      const grant = store.redeemCode(
        body.code,
        APP.applicationId,
        typeof body.redirect_uri === 'string' ? body.redirect_uri : undefined,
      );
      if (typeof grant === 'string') return oauthError(reply, 401, 'UNAUTHORIZED', grant, 'code');
      auth = store.authorize(grant.merchantId, grant.clientId, grant.scopes);
    } else if (body.grant_type === 'refresh_token') {
      const found = typeof body.refresh_token === 'string' ? store.authorizations.get(body.refresh_token) : undefined;
      if (!found || found.revoked || found.clientId !== APP.applicationId) {
        return oauthError(reply, 401, 'UNAUTHORIZED', 'Refresh token is not valid.', 'refresh_token');
      }
      auth = found;
    } else {
      return oauthError(
        reply,
        400,
        'INVALID_VALUE',
        'grant_type must be authorization_code or refresh_token.',
        'grant_type',
      );
    }
    const token = store.issueToken(auth);
    return {
      access_token: token.token,
      token_type: 'bearer',
      expires_at: seconds(token.expiresAt),
      merchant_id: token.merchantId,
      refresh_token: auth.refreshToken,
      short_lived: false,
    };
  });

  app.post('/oauth2/token/status', async (req, reply) => {
    const header = req.headers.authorization ?? '';
    const token = header.startsWith('Bearer ') ? store.tokens.get(header.slice(7)) : undefined;
    if (!token || token.revoked || token.expiresAt < Date.now()) {
      return oauthError(
        reply,
        401,
        token?.revoked ? 'ACCESS_TOKEN_REVOKED' : token ? 'ACCESS_TOKEN_EXPIRED' : 'UNAUTHORIZED',
        'The access token is not valid.',
      );
    }
    return {
      scopes: token.scopes,
      expires_at: seconds(token.expiresAt),
      client_id: token.clientId,
      merchant_id: token.merchantId,
    };
  });

  app.post<{ Body: Record<string, unknown> }>('/oauth2/revoke', async (req, reply) => {
    if (req.headers.authorization !== `Client ${APP.applicationSecret}`) {
      return oauthError(reply, 401, 'UNAUTHORIZED', 'The Authorization header must be `Client {application secret}`.');
    }
    const body = req.body ?? {};
    if (body.client_id !== APP.applicationId)
      return oauthError(reply, 400, 'INVALID_VALUE', 'Unknown client_id.', 'client_id');
    let merchantId = typeof body.merchant_id === 'string' ? body.merchant_id : undefined;
    if (!merchantId && typeof body.access_token === 'string')
      merchantId = store.tokens.get(body.access_token)?.merchantId;
    if (!merchantId)
      return oauthError(reply, 404, 'NOT_FOUND', 'No authorization found for that access token or merchant.');
    store.revoke(merchantId, APP.applicationId, body.revoke_only_access_token === true);
    return { success: true };
  });

  // Not part of Square: lets tests make an access token run out without waiting 30 days.
  app.post<{ Body: { access_token?: string } }>('/_sandbox/oauth2/expire', async (req, reply) => {
    const token = store.tokens.get(req.body?.access_token ?? '');
    if (!token) return reply.status(404).send({ ok: false });
    token.expiresAt = Date.now() - 1000;
    return { ok: true };
  });
}
