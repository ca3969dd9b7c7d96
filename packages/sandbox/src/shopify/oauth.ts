import { createHmac } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { SHOP_NAME, type ShopifyStore } from './store.ts';

/**
 * Shopify's authorization-code grant for one shop: the consent page at /admin/oauth/authorize, the
 * redirect back with code, hmac (hex, over the sorted query), host, shop, state and timestamp, and the
 * token exchange at /admin/oauth/access_token (single-use codes; optional expiring tokens with rotating
 * refresh tokens).
 */

const KNOWN_SCOPES = new Set(
  [
    'products',
    'inventory',
    'locations',
    'orders',
    'all_orders',
    'merchant_managed_fulfillment_orders',
    'assigned_fulfillment_orders',
    'third_party_fulfillment_orders',
    'fulfillments',
    'returns',
    'shipping',
    'customers',
  ].flatMap((s) => [`read_${s}`, `write_${s}`]),
);

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

/** Sorted `k=v&…` (percent-encoded like Node's querystring), the text Shopify signs. */
export function signedQueryText(params: Record<string, string>): string {
  return Object.keys(params)
    .filter((k) => k !== 'hmac' && k !== 'signature')
    .sort()
    .map((k) => `${encodeURIComponent(k)}=${encodeURIComponent(params[k] as string)}`)
    .join('&');
}

function page(reply: FastifyReply, status: number, title: string, body: string) {
  return reply
    .status(status)
    .type('text/html; charset=utf-8')
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>` +
        '<meta name="viewport" content="width=device-width, initial-scale=1">' +
        '<style>body{font-family:system-ui,sans-serif;background:#f1f1f1;margin:0;padding:48px 16px;color:#303030}' +
        'main{max-width:520px;margin:auto;background:#fff;border-radius:12px;padding:28px;box-shadow:0 1px 3px #0002}' +
        'h1{font-size:20px;margin:0 0 12px}ul{padding-left:20px}button{background:#303030;color:#fff;border:0;' +
        'border-radius:8px;padding:10px 18px;font-size:14px;cursor:pointer}a.cancel{margin-left:16px;color:#555}' +
        '.shop{color:#616161;font-size:13px}.error{color:#8e1f0b}</style></head><body><main>' +
        `${body}</main></body></html>`,
    );
}

const errorPage = (reply: FastifyReply, message: string) =>
  page(reply, 400, 'Oauth error', `<h1 class="error">Oauth error invalid_request</h1><p>${escapeHtml(message)}</p>`);

function validRedirect(uri: string): boolean {
  try {
    const url = new URL(uri);
    return (url.protocol === 'https:' || url.protocol === 'http:') && !url.username && !url.password && !url.hash;
  } catch {
    return false;
  }
}

interface AuthorizeQuery {
  client_id?: string;
  scope?: string;
  redirect_uri?: string;
  state?: string;
  'grant_options[]'?: string;
}

export function oauthRoutes(app: FastifyInstance, store: ShopifyStore) {
  const check = (shop: string, q: AuthorizeQuery, reply: FastifyReply) => {
    if (!SHOP_NAME.test(shop)) return errorPage(reply, 'There is no shop at this address.');
    if (!q.client_id || !store.appSecret(q.client_id)) return errorPage(reply, 'The api_key is invalid.');
    if (!q.redirect_uri || !validRedirect(q.redirect_uri))
      return errorPage(reply, 'The redirect_uri is missing or not whitelisted for this app.');
    const scopes = (q.scope ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const unknown = scopes.find((s) => !KNOWN_SCOPES.has(s));
    if (unknown) return errorPage(reply, `The scope ${unknown} is not a valid access scope.`);
    return null;
  };

  app.get<{ Params: { shop: string }; Querystring: AuthorizeQuery }>(
    '/:shop/admin/oauth/authorize',
    async (req, reply) => {
      const { shop } = req.params;
      const q = req.query;
      const failed = check(shop, q, reply);
      if (failed) return failed;
      const scopes = (q.scope ?? '').split(',').filter(Boolean);
      const hidden = (name: string, value: string | undefined) =>
        value === undefined ? '' : `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`;
      return page(
        reply,
        200,
        'Install app',
        `<p class="shop">${escapeHtml(shop)}.myshopify.com</p><h1>Install Switchyard</h1>` +
          `<p>Switchyard will be able to:</p><ul>${scopes.map((s) => `<li>${escapeHtml(describeScope(s))}</li>`).join('')}</ul>` +
          `<form method="post" action="${escapeHtml(req.url.split('?')[0] as string)}">` +
          hidden('client_id', q.client_id) +
          hidden('scope', q.scope) +
          hidden('redirect_uri', q.redirect_uri) +
          hidden('state', q.state) +
          hidden('grant_options[]', q['grant_options[]']) +
          `<button type="submit">Install app</button><a class="cancel" href="${escapeHtml(`../../admin`)}">Cancel</a></form>`,
      );
    },
  );

  app.post<{ Params: { shop: string }; Body: AuthorizeQuery }>('/:shop/admin/oauth/authorize', async (req, reply) => {
    const { shop } = req.params;
    const q = req.body ?? {};
    const failed = check(shop, q, reply);
    if (failed) return failed;
    const clientId = q.client_id as string;
    const scopes = (q.scope ?? '').split(',').filter(Boolean);
    store.shop(shop);
    const params: Record<string, string> = {
      code: store.issueCode(shop, clientId, scopes),
      host: Buffer.from(`admin.shopify.com/store/${shop}`).toString('base64url'),
      shop: `${shop}.myshopify.com`,
      timestamp: String(Math.floor(Date.now() / 1000)),
    };
    if (q.state !== undefined) params.state = q.state;
    params.hmac = createHmac('sha256', store.appSecret(clientId) as string)
      .update(signedQueryText(params))
      .digest('hex');
    const target = new URL(q.redirect_uri as string);
    for (const [k, v] of Object.entries(params)) target.searchParams.set(k, v);
    return reply.redirect(target.toString(), 302);
  });

  app.post<{
    Params: { shop: string };
    Body: {
      client_id?: string;
      client_secret?: string;
      code?: string;
      grant_type?: string;
      refresh_token?: string;
      expiring?: string | number;
    };
  }>('/:shop/admin/oauth/access_token', async (req, reply) => {
    const { shop } = req.params;
    const body = req.body ?? {};
    const secret = body.client_id ? store.appSecret(body.client_id) : null;
    if (!secret || body.client_secret !== secret) {
      return reply.status(400).send({
        error: 'invalid_client',
        error_description: 'Client authentication failed: unknown client_id or wrong client_secret',
      });
    }
    const clientId = body.client_id as string;
    if (body.grant_type === 'refresh_token') {
      const token = body.refresh_token ? store.refresh(shop, clientId, body.refresh_token) : null;
      if (!token)
        return reply
          .status(400)
          .send({ error: 'invalid_grant', error_description: 'The refresh token is invalid, expired or already used' });
      return token;
    }
    if (body.grant_type && body.grant_type !== 'authorization_code') {
      return reply.status(400).send({ error: 'unsupported_grant_type', error_description: 'Unsupported grant_type' });
    }
    const token = body.code
      ? store.exchangeCode(shop, clientId, body.code, String(body.expiring ?? '0') === '1')
      : null;
    if (!token) {
      return reply.status(400).send({
        error: 'invalid_request',
        error_description: 'The authorization code was not found or was already used',
      });
    }
    return token;
  });
}

function describeScope(scope: string): string {
  const [access, ...rest] = scope.split('_');
  const what = rest.join(' ');
  return access === 'write' ? `View and edit ${what}` : `View ${what}`;
}
