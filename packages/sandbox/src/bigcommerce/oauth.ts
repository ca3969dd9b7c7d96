import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { BC_APPS, type BigCommerceSim } from './sim.ts';
import { escapeHtml } from './support.ts';

/** What the sandbox app asks for when the install link names no scopes. */
const DEFAULT_SCOPES = [
  'store_v2_products',
  'store_inventory',
  'store_locations',
  'store_v2_orders',
  'store_v2_transactions',
  'store_v2_information_read_only',
];
const SCOPE_NAMES: Record<string, string> = {
  store_v2_products: 'Products: modify',
  store_v2_products_read_only: 'Products: read-only',
  store_inventory: 'Inventory: modify',
  store_inventory_read_only: 'Inventory: read-only',
  store_locations: 'Locations: modify',
  store_locations_read_only: 'Locations: read-only',
  store_v2_orders: 'Orders: modify',
  store_v2_orders_read_only: 'Orders: read-only',
  store_v2_transactions: 'Order transactions: modify',
  store_v2_transactions_read_only: 'Order transactions: read-only',
  store_v2_information: 'Information & settings: modify',
  store_v2_information_read_only: 'Information & settings: read-only',
};
/** Authorization codes are single-use and short-lived. */
const CODE_TTL_MS = 5 * 60 * 1000;

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;background:#f4f6fb;margin:0}main{max-width:520px;margin:64px auto;background:#fff;border-radius:8px;padding:32px;box-shadow:0 1px 4px #0002}h1{font-size:22px;margin-top:0}button{background:#3c64f4;color:#fff;border:0;border-radius:4px;padding:10px 24px;font-size:15px;cursor:pointer}a.cancel{margin-left:16px;color:#3c64f4}li{margin:4px 0}.muted{color:#5e637a;font-size:14px}</style>
</head><body><main>${body}</main></body></html>`;

function errorPage(reply: FastifyReply, status: number, message: string) {
  return reply
    .code(status)
    .type('text/html')
    .send(page('BigCommerce', `<h1>We couldn't install this app</h1><p>${escapeHtml(message)}</p>`));
}

function validRedirect(uri: string | undefined): uri is string {
  if (!uri) return false;
  try {
    const url = new URL(uri);
    return (url.protocol === 'https:' || url.protocol === 'http:') && !url.hash;
  } catch {
    return false;
  }
}

const sameText = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

interface InstallQuery {
  context?: string;
  redirect_uri?: string;
  state?: string;
  scope?: string;
}

/**
 * login.bigcommerce.com: the install (consent) page a merchant sees in their control panel, the code
 * exchange, and the control panel opening an installed app (the load callback).
 */
export function oauthRoutes(app: FastifyInstance, sim: BigCommerceSim) {
  const readInstall = (clientId: string, query: InstallQuery) => {
    if (!BC_APPS.has(clientId))
      return { ok: false, error: 'This app does not exist or is no longer available.' } as const;
    const hash = /^stores\/([a-z0-9]+)$/.exec(query.context ?? '')?.[1];
    if (!hash)
      return { ok: false, error: 'Choose the store to install the app on (context=stores/{store_hash}).' } as const;
    if (!validRedirect(query.redirect_uri))
      return { ok: false, error: "The app's auth callback URL is invalid." } as const;
    const scopes = (query.scope ?? DEFAULT_SCOPES.join(' ')).split(/[\s+]+/).filter(Boolean);
    const unknown = scopes.find((s) => !SCOPE_NAMES[s]);
    if (unknown) return { ok: false, error: `The app asks for an unknown scope: ${unknown}.` } as const;
    return {
      ok: true,
      hash,
      redirectUri: query.redirect_uri,
      scope: scopes.join(' '),
      state: query.state ?? '',
    } as const;
  };

  app.get<{ Params: { clientId: string }; Querystring: InstallQuery }>(
    '/login/app/:clientId/install',
    async (req, reply) => {
      const install = readInstall(req.params.clientId, req.query);
      if (!install.ok) return errorPage(reply, install.error.startsWith('This app') ? 404 : 400, install.error);
      const store = sim.store(install.hash);
      const hidden = (name: string, value: string) =>
        `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`;
      const cancel = new URL(install.redirectUri);
      cancel.searchParams.set('error', 'access_denied');
      if (install.state) cancel.searchParams.set('state', install.state);
      return reply.type('text/html').send(
        page(
          'Install app',
          `<h1>Install Switchyard?</h1>
<p class="muted">On <strong>${escapeHtml(store.name)}</strong> (store hash ${escapeHtml(store.hash)})</p>
<p>This app will be able to:</p><ul>${install.scope
            .split(' ')
            .map((s) => `<li>${escapeHtml(SCOPE_NAMES[s] ?? s)}</li>`)
            .join('')}</ul>
<form method="post" action="install">
${hidden('context', `stores/${install.hash}`)}${hidden('redirect_uri', install.redirectUri)}${hidden(
  'state',
  install.state,
)}${hidden('scope', install.scope)}
<button type="submit">Install</button><a class="cancel" href="${escapeHtml(cancel.toString())}">Cancel</a>
</form>`,
        ),
      );
    },
  );

  app.post<{ Params: { clientId: string }; Body: InstallQuery }>('/login/app/:clientId/install', async (req, reply) => {
    const install = readInstall(req.params.clientId, req.body ?? {});
    if (!install.ok) return errorPage(reply, 400, install.error);
    sim.store(install.hash);
    const code = randomBytes(12).toString('hex');
    const accountUuid = randomUUID();
    sim.codes.set(code, {
      clientId: req.params.clientId,
      hash: install.hash,
      scope: install.scope,
      redirectUri: install.redirectUri,
      expiresAt: Date.now() + CODE_TTL_MS,
      accountUuid,
    });
    const target = new URL(install.redirectUri);
    target.searchParams.set('code', code);
    target.searchParams.set('scope', install.scope);
    target.searchParams.set('context', `stores/${install.hash}`);
    target.searchParams.set('account_uuid', accountUuid);
    if (install.state) target.searchParams.set('state', install.state);
    return reply.redirect(target.toString(), 302);
  });

  app.post<{ Body: Record<string, string | undefined> }>('/login/oauth2/token', async (req, reply) => {
    const body = req.body ?? {};
    const fail = (status: number, error: string) => reply.code(status).send({ error });
    const required = ['client_id', 'client_secret', 'code', 'scope', 'grant_type', 'redirect_uri', 'context'];
    const missing = required.find((k) => !body[k]);
    if (missing) return fail(400, `The ${missing} field is required.`);
    if (body.grant_type !== 'authorization_code') return fail(400, 'The grant type is not supported.');
    // The store's injected faults reach its token exchange too, before the code is looked at.
    const hash = /^stores\/([a-z0-9]+)$/.exec(body.context as string)?.[1];
    const fault = hash ? await sim.ctx.faults.draw('bigcommerce', hash) : null;
    if (fault === 'timeout') {
      await new Promise((r) => setTimeout(r, sim.ctx.faults.get('bigcommerce', hash as string).timeoutMs));
      req.raw.socket?.destroy();
      return reply.hijack();
    }
    if (fault === 'throttle') return reply.header('Retry-After', '1').code(429).send({ error: 'Too many requests.' });
    if (fault === 'error') return fail(503, 'The service is temporarily unavailable.');
    const secret = BC_APPS.get(body.client_id as string);
    if (!secret || !sameText(secret, body.client_secret as string)) {
      return fail(401, 'Invalid client id or secret.');
    }
    const code = sim.codes.get(body.code as string);
    // Single use: a code is gone once presented, whether or not the rest matches.
    sim.codes.delete(body.code as string);
    if (
      !code ||
      code.expiresAt < Date.now() ||
      code.clientId !== body.client_id ||
      `stores/${code.hash}` !== body.context ||
      code.redirectUri !== body.redirect_uri
    ) {
      return fail(400, 'Invalid code, context or redirect URI.');
    }
    const store = sim.store(code.hash);
    const accessToken = sim.issueToken(store, code.clientId, code.scope);
    return {
      access_token: accessToken,
      scope: code.scope,
      user: { id: 24654, username: 'merchant@example.com', email: 'merchant@example.com' },
      owner: { id: 12345, username: 'merchant@example.com', email: 'merchant@example.com' },
      context: `stores/${code.hash}`,
      account_uuid: code.accountUuid,
    };
  });

  // The store's control panel, Apps > My Apps: open (load) or uninstall an installed app.
  app.get<{ Params: { hash: string } }>('/login/stores/:hash/apps', async (req, reply) => {
    const store = sim.store(req.params.hash);
    const installed = [...new Set([...store.tokens.values()].map((g) => g.clientId))];
    const rows = installed
      .map(
        (id) =>
          `<li><strong>${escapeHtml(id === [...BC_APPS.keys()][0] ? 'Switchyard' : id)}</strong>
<a href="app/${encodeURIComponent(id)}/load">Open</a>
<form method="post" action="apps/${encodeURIComponent(id)}/uninstall" style="display:inline"><button type="submit">Uninstall</button></form></li>`,
      )
      .join('');
    return reply
      .type('text/html')
      .send(
        page(
          'My Apps',
          `<h1>My Apps</h1><p class="muted">${escapeHtml(store.name)}</p>${rows ? `<ul>${rows}</ul>` : '<p>No apps are installed.</p>'}`,
        ),
      );
  });

  app.post<{ Params: { hash: string; clientId: string } }>(
    '/login/stores/:hash/apps/:clientId/uninstall',
    async (req, reply) => {
      const store = sim.stores.get(req.params.hash);
      const done = store ? await sim.uninstall(store, req.params.clientId) : null;
      if (!done) return errorPage(reply, 404, 'This app is not installed on this store.');
      return reply.redirect(`../../apps`, 303);
    },
  );

  // The control panel opening an installed app: BigCommerce calls the app's load callback.
  app.get<{ Params: { hash: string; clientId: string } }>(
    '/login/stores/:hash/app/:clientId/load',
    async (req, reply) => {
      const store = sim.stores.get(req.params.hash);
      const installed = store && [...store.tokens.values()].some((g) => g.clientId === req.params.clientId);
      if (!store || !installed) return errorPage(reply, 404, 'This app is not installed on this store.');
      const loadUrl = sim.ctx.options.bigcommerce?.loadUrl;
      if (!loadUrl) return errorPage(reply, 404, 'The app has no load callback URL.');
      const target = new URL(loadUrl);
      target.searchParams.set('signed_payload_jwt', sim.signedPayload(store, req.params.clientId));
      return reply.redirect(target.toString(), 302);
    },
  );
}
