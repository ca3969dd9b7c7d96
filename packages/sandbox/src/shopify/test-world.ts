// For the simulator's own tests: a sandbox on a free port, a receiver that keeps the Shopify webhooks it is sent,
// the control API, and the official Admin API client authorised through the simulator's OAuth.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type AdminApiClient, createAdminApiClient } from '@shopify/admin-api-client';
import { afterAll, beforeAll } from 'vitest';
import { SANDBOX_APPS } from '../apps.ts';
import { type RunningSandbox, startSandbox } from '../server.ts';

export interface ReceivedWebhook {
  topic: string;
  hmac: string;
  raw: string;
  body: Record<string, unknown>;
}

/** Starts the world before the file's tests and stops it after; `scope` is what officialClient asks for by default. */
export function shopifyTestWorld(scope: string) {
  const { apiKey, apiSecret } = SANDBOX_APPS.shopify;
  let hooks: Server;
  const world = {
    sandbox: undefined as unknown as RunningSandbox,
    /** Where the shops' webhook subscriptions should point. */
    hookUrl: '',
    received: [] as ReceivedWebhook[],
    control: async (path: string, body: unknown) => {
      const res = await fetch(`${world.sandbox.url}/_control/shopify/${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    },
    async officialClient(shop: string, apiVersion = '2025-01', asked = scope): Promise<AdminApiClient> {
      const base = `${world.sandbox.url}/shopify/${shop}`;
      const allow = await fetch(`${base}/admin/oauth/authorize`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          client_id: apiKey,
          scope: asked,
          redirect_uri: 'https://app.example.com/channels/shopify/callback',
          state: 's',
        }),
        redirect: 'manual',
      });
      const code = new URL(allow.headers.get('location') as string).searchParams.get('code');
      const token = (await (
        await fetch(`${base}/admin/oauth/access_token`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ client_id: apiKey, client_secret: apiSecret, code }),
        })
      ).json()) as { access_token: string };
      return createAdminApiClient({
        storeDomain: `${shop}.myshopify.com`,
        apiVersion,
        accessToken: token.access_token,
        logger: () => {},
        customFetchApi: (url, init) => fetch(String(url).replace(`https://${shop}.myshopify.com`, base), init),
      });
    },
  };

  beforeAll(async () => {
    world.sandbox = await startSandbox({ port: 0, webhookRetryDelayMs: 10, shopSize: { products: 12 } });
    hooks = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        world.received.push({
          topic: String(req.headers['x-shopify-topic']),
          hmac: String(req.headers['x-shopify-hmac-sha256']),
          raw,
          body: JSON.parse(raw),
        });
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((r) => hooks.listen(0, '127.0.0.1', r));
    world.hookUrl = `http://127.0.0.1:${(hooks.address() as AddressInfo).port}/webhooks/shopify`;
  });

  afterAll(async () => {
    await world.sandbox.close();
    await new Promise((r) => hooks.close(r));
  });

  return world;
}
