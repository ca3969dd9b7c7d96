// The catalog import/publish routes' entries of the tenant-isolation harness (test/isolation.ts). Test code only.
import { randomBytes } from 'node:crypto';
import type { CatalogIntegration, ChannelSummary } from '@switchyard/contracts';
import { eq } from 'drizzle-orm';
import type { InjectOptions } from 'fastify';
import { expect } from 'vitest';
import type { IdTakingOperation, Outcome, OwnRowOperation, World } from '../../../test/isolation.ts';
import { syncs } from '../syncs/syncs.tables.ts';

const unique = (label: string) => `${label}-${randomBytes(6).toString('hex')}`;

async function rest(w: World, headers: Record<string, string>, options: InjectOptions): Promise<Outcome> {
  const res = await w.t.app.inject({ ...options, headers: { ...options.headers, ...headers } });
  return { status: res.statusCode, body: res.body };
}

/** A pending Shopify channel of A (its catalog integration), named with the marker. */
async function createChannel(w: World) {
  const marker = unique('catalog');
  const res = await w.t.app.inject({
    method: 'POST',
    url: '/api/frontend/integration/create',
    headers: w.a.headers,
    payload: { type: 'shopify', name: marker },
  });
  return { id: res.json<ChannelSummary>().id, marker };
}

/** A's integration is unchanged, and no run was started on it. */
async function intact(w: World, id: string, marker: string) {
  const res = await w.t.app.inject({
    method: 'GET',
    url: `/api/frontend/catalogIntegrations/${id}`,
    headers: w.a.headers,
  });
  expect(res.statusCode).toBe(200);
  const integration = res.json<CatalogIntegration>();
  expect(integration.name).toBe(marker);
  expect(integration.settings.product).toMatchObject({ titleTemplate: '{title}', publishMissing: false });
  expect(await w.t.services.db.select().from(syncs).where(eq(syncs.channelId, id))).toEqual([]);
}

const versioned = (['v1', 'v2'] as const).flatMap((v): IdTakingOperation[] =>
  (['catalog-sync', 'catalog-publish'] as const).flatMap((action): IdTakingOperation[] => [
    {
      name: `POST /api/${v}/channels/{id}/actions/${action}`,
      create: createChannel,
      attempt: (w, id) =>
        rest(w, w.b.headers, { method: 'POST', url: `/api/${v}/channels/${id}/actions/${action}`, payload: {} }),
      intact,
    },
    {
      name: `POST /api/${v}/channels/{id}/actions/${action} with an API key`,
      create: createChannel,
      attempt: (w, id) =>
        rest(w, w.b.apiKeyHeaders, { method: 'POST', url: `/api/${v}/channels/${id}/actions/${action}`, payload: {} }),
      intact,
    },
  ]),
);

export const catalogIdTakingOperations: IdTakingOperation[] = [
  ...versioned,
  {
    name: 'GET /api/frontend/catalogIntegrations/{id}',
    create: createChannel,
    attempt: (w, id) => rest(w, w.b.headers, { method: 'GET', url: `/api/frontend/catalogIntegrations/${id}` }),
  },
  {
    name: 'PUT /api/frontend/catalogIntegrations/{id}',
    create: createChannel,
    attempt: (w, id) =>
      rest(w, w.b.headers, {
        method: 'PUT',
        url: `/api/frontend/catalogIntegrations/${id}`,
        payload: { settings: { product: { titleTemplate: 'taken over', publishMissing: true } } },
      }),
    intact,
  },
];

export const catalogOwnRowOperations: OwnRowOperation[] = [
  {
    name: 'GET /api/frontend/catalogIntegrations lists only the caller’s channels',
    async run(w) {
      const { marker } = await createChannel(w);
      const res = await w.t.app.inject({
        method: 'GET',
        url: '/api/frontend/catalogIntegrations',
        headers: w.b.headers,
      });
      expect(res.statusCode).toBe(200);
      expect(res.body).not.toContain(marker);
    },
  },
  {
    name: 'POST /api/frontend/catalogSync sets only the caller’s hour',
    async run(w) {
      const before = await w.t.app.inject({ method: 'GET', url: '/api/frontend/catalogSync', headers: w.a.headers });
      const res = await w.t.app.inject({
        method: 'POST',
        url: '/api/frontend/catalogSync',
        headers: w.b.headers,
        payload: { hour: 5 },
      });
      expect(res.statusCode).toBe(200);
      const after = await w.t.app.inject({ method: 'GET', url: '/api/frontend/catalogSync', headers: w.a.headers });
      expect(after.json().hour).toBe(before.json().hour);
    },
  },
];
