import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RunningSandbox } from '@switchyard/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryLogger, TEST_PROVIDER_SECRETS } from '../../../test/app.ts';
import { startTestSandbox } from '../../../test/sandbox.ts';
import { Config } from '../../config.ts';
import { DomainError } from '../../lib/errors.ts';
import { type ProviderEndpoints, resolveProviders } from '../../providers.ts';
import type { ChannelCredentials, WebhookRequest } from '../types.ts';
import { SHOPIFY_SCOPES } from './client.ts';
import { shopify } from './index.ts';
import { connectShop as connect, controlApi, TEST_REDIRECT_URI, consent as testConsent } from './testing.ts';

let sandbox: RunningSandbox;
let endpoints: ProviderEndpoints;
let hooks: Server;
let hookUrl: string;
const received: WebhookRequest[] = [];

beforeAll(async () => {
  sandbox = await startTestSandbox({ products: 60 });
  endpoints = resolveProviders(
    Config.parse({ NODE_ENV: 'test', DATA_DIR: '/nonexistent' }),
    sandbox.url,
    TEST_PROVIDER_SECRETS,
  );
  hooks = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ rawBody: Buffer.concat(chunks), headers: req.headers, url: `${hookUrl}` });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => hooks.listen(0, '127.0.0.1', r));
  hookUrl = `http://127.0.0.1:${(hooks.address() as AddressInfo).port}/webhooks/shopify`;
});

afterAll(async () => {
  await sandbox.close();
  await new Promise((r) => hooks.close(r));
});

const REDIRECT_URI = TEST_REDIRECT_URI;
const consent = (shop: string) => testConsent(endpoints, shop);
const connectShop = (shop: string, scope?: string) => connect(endpoints, shop, scope);
const control = (path: string, body?: unknown) => controlApi(sandbox.url).call(`/shopify/${path}`, body);
const snapshot = (shop: string) => controlApi(sandbox.url).snapshot(shop);

describe('Shopify OAuth', () => {
  it('runs the authorization-code grant end to end and the credentials work', async () => {
    const query = await consent('oauth-demo');
    expect(query.shop).toBe('oauth-demo.myshopify.com');
    expect(query.state).toBe('state-123');
    const authorized = await shopify.oauth(endpoints).completeAuthorization(query, REDIRECT_URI);
    expect(authorized.externalId).toBe('oauth-demo.myshopify.com');
    expect(authorized.name).toBe('oauth-demo');
    expect(authorized.credentials).toMatchObject({ shop: 'oauth-demo', accessToken: expect.stringMatching(/^shpat_/) });
    expect(authorized.credentials.scope).toContain('write_inventory');
    const { logger } = memoryLogger();
    const shop = await shopify.connect(endpoints, authorized.credentials, { logger }).getShop();
    expect(shop).toEqual({
      externalId: 'oauth-demo.myshopify.com',
      name: 'oauth-demo',
      currency: 'USD',
      timezone: 'America/Los_Angeles',
    });
  });

  it('refuses a tampered callback, a replayed code and a stale timestamp', async () => {
    const oauth = shopify.oauth(endpoints);
    const query = await consent('oauth-tamper');
    const refused = (q: Record<string, string>) =>
      oauth.completeAuthorization(q, REDIRECT_URI).then(
        () => null,
        (err: unknown) => err,
      );
    for (const forged of [
      { ...query, shop: 'someone-else.myshopify.com' },
      { ...query, code: 'f'.repeat(32) },
      { ...query, hmac: 'deadbeef' },
    ]) {
      const err = await refused(forged);
      expect(err).toBeInstanceOf(DomainError);
      expect((err as DomainError).code).toBe('UNAUTHORIZED');
    }
    const { hmac: _hmac, ...unsigned } = query;
    expect(((await refused(unsigned as Record<string, string>)) as DomainError).code).toBe('VALIDATION');
    await oauth.completeAuthorization(query, REDIRECT_URI);
    const replay = await refused(query);
    expect((replay as DomainError).code).toBe('UNAUTHORIZED');
    expect((replay as DomainError).message).toMatch(/refused the authorization code/);
  });

  it('builds the consent URL on the shop with our scopes and refuses a malformed shop', () => {
    const url = new URL(
      shopify.oauth(endpoints).authorizeUrl({ shop: 'Demo.myshopify.com', state: 's', redirectUri: REDIRECT_URI }),
    );
    expect(url.pathname).toBe('/shopify/demo/admin/oauth/authorize');
    expect(url.searchParams.get('client_id')).toBe(endpoints.shopify.apiKey);
    expect(url.searchParams.get('scope')?.split(',')).toContain('write_inventory');
    expect(() =>
      shopify.oauth(endpoints).authorizeUrl({ shop: 'bad shop!', state: 's', redirectUri: REDIRECT_URI }),
    ).toThrow(DomainError);
  });
});

describe('Shopify expiring tokens', () => {
  it('refreshes a lapsed token once, stores the rotated credentials, and keeps working', async () => {
    const credentials = await connectShop('expiring-demo');
    expect(credentials.refreshToken).toBeTruthy();
    expect(Date.parse(credentials.expiresAt as string)).toBeGreaterThan(Date.now() + 50 * 60_000);
    const stored: ChannelCredentials[] = [];
    const onCredentials = async (next: ChannelCredentials) => {
      stored.push(next);
    };
    const first = shopify.connect(endpoints, credentials, { logger: memoryLogger().logger, onCredentials });
    const second = shopify.connect(endpoints, credentials, { logger: memoryLogger().logger, onCredentials });
    expect(await control('expiring-demo/expire-tokens', {})).toEqual({ expired: 1 });

    // Both connectors hold the same spent refresh token: one refresh serves both.
    const shops = await Promise.all([first.getShop(), second.getShop(), first.listLocations()]);
    expect(shops[0].externalId).toBe('expiring-demo.myshopify.com');
    expect(shops[2]).toHaveLength(4);
    expect(new Set(stored.map((c) => c.accessToken)).size).toBe(1);
    const renewed = stored[0] as ChannelCredentials;
    expect(renewed.accessToken).not.toBe(credentials.accessToken);
    expect(renewed.refreshToken).not.toBe(credentials.refreshToken);
    expect(renewed).toMatchObject({ shop: 'expiring-demo', scope: credentials.scope });

    // The old token is dead, the new one works on its own.
    const fresh = shopify.connect(endpoints, renewed, { logger: memoryLogger().logger });
    expect((await fresh.getShop()).name).toBe('expiring-demo');
    const stale = shopify.connect(
      endpoints,
      { ...credentials, refreshToken: undefined, expiresAt: undefined },
      {
        logger: memoryLogger().logger,
      },
    );
    await expect(stale.getShop()).rejects.toMatchObject({ status: 401 });
  });
});

describe('Shopify webhooks', () => {
  it('subscribes a shop authorised before read_returns to all but the return topics, which Shopify refuses it', async () => {
    const scope = SHOPIFY_SCOPES.filter((x) => x !== 'read_returns').join(',');
    const credentials = await connectShop('hooks-unreturned', scope);
    const logged = memoryLogger();
    const connector = shopify.connect(endpoints, credentials, { logger: logged.logger });
    expect(credentials.scope).not.toContain('read_returns');
    await connector.subscribeWebhooks(hookUrl);
    const listed = await fetch(`${endpoints.shopify.shopUrl('hooks-unreturned')}/admin/api/2025-01/graphql.json`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-shopify-access-token': credentials.accessToken },
      body: JSON.stringify({ query: '{ webhookSubscriptions(first: 50) { nodes { topic } } }' }),
    });
    const topics = (
      (await listed.json()) as { data: { webhookSubscriptions: { nodes: { topic: string }[] } } }
    ).data.webhookSubscriptions.nodes.map((n) => n.topic);
    expect(topics).toContain('REFUNDS_CREATE');
    expect(topics.filter((t) => t.startsWith('RETURNS_') || t.startsWith('REVERSE_'))).toEqual([]);
    expect(logged.lines.some((l) => String(l.msg).includes('read_returns'))).toBe(true);
  });

  it('subscribes once per topic, and a signed delivery verifies while a forged one does not', async () => {
    const credentials = await connectShop('hooks-demo');
    const connector = shopify.connect(endpoints, credentials, { logger: memoryLogger().logger });
    await connector.subscribeWebhooks(hookUrl);
    await connector.subscribeWebhooks(hookUrl);
    const listed = await fetch(`${endpoints.shopify.shopUrl('hooks-demo')}/admin/api/2025-01/graphql.json`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-shopify-access-token': credentials.accessToken },
      body: JSON.stringify({ query: '{ webhookSubscriptions(first: 50) { nodes { topic callbackUrl } } }' }),
    });
    const subs = (
      (await listed.json()) as { data: { webhookSubscriptions: { nodes: { topic: string; callbackUrl: string }[] } } }
    ).data.webhookSubscriptions.nodes;
    expect(subs.map((s) => s.topic).sort()).toEqual(
      [
        'APP_UNINSTALLED',
        'INVENTORY_LEVELS_UPDATE',
        'ORDERS_CANCELLED',
        'ORDERS_CREATE',
        'ORDERS_UPDATED',
        'PRODUCTS_UPDATE',
        'REFUNDS_CREATE',
        'RETURNS_REQUEST',
        'RETURNS_APPROVE',
        'RETURNS_DECLINE',
        'RETURNS_CANCEL',
        'RETURNS_CLOSE',
        'RETURNS_REOPEN',
        'REVERSE_FULFILLMENT_ORDERS_DISPOSE',
      ].sort(),
    );
    expect(new Set(subs.map((s) => s.callbackUrl))).toEqual(new Set([hookUrl]));

    const sku = Object.keys((await snapshot('hooks-demo')).stock)[0] as string;
    received.length = 0;
    await control('hooks-demo/stock', { sku, quantity: 17 });
    await sandbox.ctx.webhooks.settled();
    expect(received).toHaveLength(1);
    const delivery = received[0] as WebhookRequest;
    const verifier = shopify.webhooks(endpoints);
    expect(verifier.verify(delivery)).toBe(true);
    const event = verifier.parse(delivery);
    expect(event).toMatchObject({
      provider: 'shopify',
      topic: 'inventory_levels/update',
      shopExternalId: 'hooks-demo.myshopify.com',
      payload: { available: 17 },
    });
    expect(event.eventId).toBeTruthy();

    const tampered = { ...delivery, rawBody: Buffer.from(delivery.rawBody.toString().replace('17', '99')) };
    expect(verifier.verify(tampered)).toBe(false);
    expect(verifier.verify({ ...delivery, headers: { ...delivery.headers, 'x-shopify-hmac-sha256': 'AAAA' } })).toBe(
      false,
    );
    const { 'x-shopify-hmac-sha256': _sig, ...unsigned } = delivery.headers;
    expect(verifier.verify({ ...delivery, headers: unsigned })).toBe(false);

    // Uninstalling the app sends app/uninstalled to the subscription.
    received.length = 0;
    await control('hooks-demo/uninstall', {});
    await sandbox.ctx.webhooks.settled();
    const uninstalled = received.map((r) => verifier.parse(r));
    expect(uninstalled.map((e) => e.topic)).toEqual(['app/uninstalled']);
    expect(received.every((r) => verifier.verify(r))).toBe(true);
  });
});
