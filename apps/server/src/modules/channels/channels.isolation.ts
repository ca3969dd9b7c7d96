// The channels module's entries of the tenant-isolation harness (test/isolation.ts). Test code only.
import { randomBytes } from 'node:crypto';
import type { ChannelDetail, ChannelSummary, ChannelType } from '@switchyard/contracts';
import { eq } from 'drizzle-orm';
import type { InjectOptions } from 'fastify';
import { expect } from 'vitest';
import type { IdTakingOperation, Outcome, OwnRowOperation, World } from '../../../test/isolation.ts';
import { trpcOver } from '../../../test/trpc.ts';
import { issueState, redirectUriFor } from './channels.oauth.ts';
import { oauthStates } from './channels.tables.ts';

const unique = (label: string) => `${label}-${randomBytes(6).toString('hex')}`;

async function rest(w: World, headers: Record<string, string>, options: InjectOptions): Promise<Outcome> {
  const res = await w.t.app.inject({ ...options, headers: { ...options.headers, ...headers } });
  return { status: res.statusCode, body: res.body };
}

async function trpc(w: World, kind: 'query' | 'mutation', path: string, input: unknown): Promise<Outcome> {
  const result = await trpcOver(w.t.app, w.b.headers)[kind](path, input);
  return { status: result.status, body: JSON.stringify(result) };
}

/** A pending channel of A (Shopify unless told), named with the marker. */
async function createChannel(w: World, type: ChannelType = 'shopify') {
  const marker = unique('channel');
  const res = await w.t.app.inject({
    method: 'POST',
    url: '/api/frontend/integration/create',
    headers: w.a.headers,
    payload: { type, name: marker },
  });
  return { id: res.json<ChannelSummary>().id, marker };
}

async function channelIntact(w: World, id: string, marker: string) {
  const res = await trpcOver(w.t.app, w.a.headers).query<ChannelDetail>('channels.get', { id });
  expect(res.data).toMatchObject({ name: marker, status: 'pending' });
  expect(res.data?.features.orders).toBe(true);
  expect(res.data?.settings.product.titleTemplate).toBe('{title}');
}

const product = {
  priceRule: { kind: 'none', value: 0 },
  titleTemplate: 'taken over',
  publishMissing: false,
  syncFields: { title: true, description: true, price: true, images: true, barcode: true },
};

const restOperations = (['v1', 'v2'] as const).flatMap((v): IdTakingOperation[] => [
  {
    name: `PUT /api/${v}/channels/{id}/settings/{key}`,
    create: createChannel,
    attempt: (w, id) =>
      rest(w, w.b.headers, { method: 'PUT', url: `/api/${v}/channels/${id}/settings/product`, payload: product }),
    intact: channelIntact,
  },
  {
    name: `PUT /api/${v}/channels/{id}/settings/{key} with an API key`,
    create: createChannel,
    attempt: (w, id) =>
      rest(w, w.b.apiKeyHeaders, { method: 'PUT', url: `/api/${v}/channels/${id}/settings/product`, payload: product }),
    intact: channelIntact,
  },
  {
    name: `PATCH /api/${v}/channels/{id}`,
    create: createChannel,
    attempt: (w, id) =>
      rest(w, w.b.headers, { method: 'PATCH', url: `/api/${v}/channels/${id}`, payload: { name: 'taken over' } }),
    intact: channelIntact,
  },
  {
    name: `PUT /api/${v}/channels/{id}/actions/features`,
    create: createChannel,
    attempt: (w, id) =>
      rest(w, w.b.apiKeyHeaders, {
        method: 'PUT',
        url: `/api/${v}/channels/${id}/actions/features`,
        payload: { orders: false },
      }),
    intact: channelIntact,
  },
  {
    name: `POST /api/${v}/channels/{id}/actions/inventory-push`,
    create: createChannel,
    attempt: (w, id) =>
      rest(w, w.b.apiKeyHeaders, { method: 'POST', url: `/api/${v}/channels/${id}/actions/inventory-push` }),
    intact: channelIntact,
  },
  {
    name: `POST /api/${v}/channels/{id}/actions/inventory-reconcile`,
    create: createChannel,
    attempt: (w, id) =>
      rest(w, w.b.headers, { method: 'POST', url: `/api/${v}/channels/${id}/actions/inventory-reconcile` }),
    intact: channelIntact,
  },
  // A's channel is of the platform in the path, so the 404 can only come from its account, not the platform check.
  ...(['shopify', 'bigcommerce', 'square'] as const).map(
    (platform): IdTakingOperation => ({
      name: `GET /api/${v}/wrappers/${platform}/locations?channel_id=`,
      create: (w) => createChannel(w, platform),
      attempt: (w, id) =>
        rest(w, w.b.headers, { method: 'GET', url: `/api/${v}/wrappers/${platform}/locations?channel_id=${id}` }),
    }),
  ),
  {
    name: `POST /api/${v}/oauth/shopify/generate-redirect-url with A’s channelId`,
    create: createChannel,
    attempt: (w, id) =>
      rest(w, w.b.headers, {
        method: 'POST',
        url: `/api/${v}/oauth/shopify/generate-redirect-url`,
        payload: { store: 'demo', environment: 'api', channelId: id },
      }),
    intact: channelIntact,
  },
  {
    name: `POST /api/${v}/oauth/shopify/process-oauth with A’s state`,
    async create(w) {
      const channel = await createChannel(w);
      const state = await issueState(w.t.services.db, w.a, {
        provider: 'shopify',
        channelId: channel.id,
        redirectUri: redirectUriFor(w.t.services, 'shopify'),
        shop: 'demo',
      });
      return { id: state, marker: channel.marker };
    },
    attempt: (w, state) =>
      rest(w, w.b.headers, {
        method: 'POST',
        url: `/api/${v}/oauth/shopify/process-oauth`,
        payload: { state, code: 'stolen', shop: 'demo.myshopify.com', hmac: 'x', timestamp: '1' },
      }),
    // B's attempt must not spend A's state: A can still complete the authorization.
    async intact(w) {
      const rows = await w.t.services.db.select().from(oauthStates).where(eq(oauthStates.accountId, w.a.accountId));
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) expect(row.usedAt).toBeNull();
    },
  },
]);

export const channelIdTakingOperations: IdTakingOperation[] = [
  ...restOperations,
  {
    name: 'channels.get',
    create: createChannel,
    attempt: (w, id) => trpc(w, 'query', 'channels.get', { id }),
  },
  {
    name: 'channels.disconnect',
    create: createChannel,
    attempt: (w, id) => trpc(w, 'mutation', 'channels.disconnect', { id }),
    intact: channelIntact,
  },
  {
    name: 'channels.update',
    create: createChannel,
    attempt: (w, id) => trpc(w, 'mutation', 'channels.update', { id, name: 'taken over' }),
    intact: channelIntact,
  },
  {
    name: 'channels.updateSettings',
    create: createChannel,
    attempt: (w, id) => trpc(w, 'mutation', 'channels.updateSettings', { id, key: 'product', settings: product }),
    intact: channelIntact,
  },
  {
    name: 'channels.updateFeatures',
    create: createChannel,
    attempt: (w, id) => trpc(w, 'mutation', 'channels.updateFeatures', { id, orders: false }),
    intact: channelIntact,
  },
  {
    name: 'channels.pushInventory',
    create: createChannel,
    attempt: (w, id) => trpc(w, 'mutation', 'channels.pushInventory', { id }),
    intact: channelIntact,
  },
  {
    name: 'channels.reconcileInventory',
    create: createChannel,
    attempt: (w, id) => trpc(w, 'mutation', 'channels.reconcileInventory', { id }),
    intact: channelIntact,
  },
  {
    name: 'channels.getOauthUrl with A’s channelId',
    create: createChannel,
    attempt: (w, id) =>
      trpc(w, 'query', 'channels.getOauthUrl', { provider: 'shopify', properties: { shop: 'demo', channelId: id } }),
    intact: channelIntact,
  },
];

export const channelOwnRowOperations: OwnRowOperation[] = [
  {
    name: 'channels.list and wrappers/square/stores show only B’s channels',
    async run(w) {
      const a = await createChannel(w);
      const list = await trpcOver(w.t.app, w.b.headers).query<ChannelSummary[]>('channels.list');
      expect(list.status).toBe(200);
      expect(JSON.stringify(list.data)).not.toContain(a.marker);
      expect(list.data?.map((c) => c.id)).not.toContain(a.id);
    },
  },
];
