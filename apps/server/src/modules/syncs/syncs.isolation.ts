// The syncs and exports modules' entries of the tenant-isolation harness (test/isolation.ts). Test code only.
import type { SyncList, SyncTypesOutput } from '@switchyard/contracts';
import { eq } from 'drizzle-orm';
import type { InjectOptions } from 'fastify';
import { expect } from 'vitest';
import type { IdTakingOperation, Outcome, OwnRowOperation, World } from '../../../test/isolation.ts';
import { trpcOver } from '../../../test/trpc.ts';
import { insertChannel, insertProduct, uniqueText } from './syncs.fixtures.ts';
import { finishSync, recordSyncProgress, startSync } from './syncs.records.ts';
import { syncItems } from './syncs.tables.ts';

// Local helpers: test/isolation.ts imports this file, so its own helpers are not initialised yet here.
async function rest(w: World, headers: Record<string, string>, options: InjectOptions): Promise<Outcome> {
  const res = await w.t.app.inject({ ...options, headers: { ...options.headers, ...headers } });
  return { status: res.statusCode, body: res.body };
}

async function trpc(w: World, kind: 'query' | 'mutation', path: string, input: unknown): Promise<Outcome> {
  const result = await trpcOver(w.t.app, w.b.headers)[kind](path, input);
  return { status: result.status, body: JSON.stringify(result) };
}

/** A finished push run of A with one failed item labelled with the marker (its channel's id too, to filter by). */
async function createRun(w: World) {
  const marker = uniqueText('sync-item');
  const { db } = w.t.services;
  const channel = await insertChannel(db, w.a.accountId, 'shopify', uniqueText('channel'));
  const id = await startSync(db, {
    accountId: w.a.accountId,
    channelId: channel.id,
    type: 'inventory_push',
    trigger: 'change',
    total: 1,
  });
  await recordSyncProgress(db, id, w.a.accountId, { succeeded: 0, failures: [{ label: marker, error: marker }] });
  await finishSync(db, id, { message: marker });
  return { id: String(id), marker, channelId: channel.id };
}

async function runIntact(w: World, id: string) {
  const items = await w.t.services.db
    .select()
    .from(syncItems)
    .where(eq(syncItems.syncId, Number(id)));
  expect(items.map((i) => i.status)).toEqual(['failed']);
  const list = await trpcOver(w.t.app, w.a.headers).query<SyncList>('syncs.list', { limit: 200 });
  expect(list.data?.results.filter((r) => r.retryOf === Number(id))).toEqual([]);
}

export const syncIdTakingOperations: IdTakingOperation[] = [
  {
    name: 'syncs.get',
    create: createRun,
    attempt: (w, id) => trpc(w, 'query', 'syncs.get', { id: Number(id) }),
  },
  {
    name: 'syncs.retry',
    create: createRun,
    attempt: (w, id) => trpc(w, 'mutation', 'syncs.retry', { id: Number(id) }),
    intact: runIntact,
  },
  {
    name: 'GET /api/frontend/syncs/{id}',
    create: createRun,
    attempt: (w, id) => rest(w, w.b.headers, { method: 'GET', url: `/api/frontend/syncs/${id}` }),
  },
];

export const syncOwnRowOperations: OwnRowOperation[] = [
  {
    name: 'syncs.list, syncs.count, syncs.types and GET frontend/syncs show only B’s runs',
    async run(w) {
      const a = await createRun(w);
      const b = trpcOver(w.t.app, w.b.headers);
      const list = await b.query<SyncList>('syncs.list', { limit: 200 });
      expect(list.status).toBe(200);
      expect(list.data?.results.map((r) => r.id)).not.toContain(Number(a.id));
      expect(JSON.stringify(list.data)).not.toContain(a.marker);
      const listed = list.data?.total ?? -1;
      expect((await b.query<{ total: number }>('syncs.count', {})).data?.total).toBe(listed);
      expect((await b.query<SyncTypesOutput>('syncs.types')).data?.total).toBe(listed);
      const viaRest = await w.t.app.inject({ url: '/api/frontend/syncs?limit=200', headers: w.b.headers });
      expect(viaRest.body).not.toContain(a.marker);
    },
  },
  {
    name: 'syncs.list, syncs.count and GET frontend/syncs filtered by A’s channel_id find nothing',
    async run(w) {
      const a = await createRun(w);
      const b = trpcOver(w.t.app, w.b.headers);
      const list = await b.query<SyncList>('syncs.list', { channel_id: a.channelId });
      expect(list.status).toBe(200);
      expect(list.data).toEqual({ results: [], total: 0 });
      const count = await b.query<{ total: number }>('syncs.count', { channel_id: a.channelId });
      expect(count.status).toBe(200);
      expect(count.data).toEqual({ total: 0 });
      const viaRest = await w.t.app.inject({
        url: `/api/frontend/syncs?channel_id=${a.channelId}`,
        headers: w.b.headers,
      });
      expect(viaRest.statusCode).toBe(200);
      expect(viaRest.body).not.toContain(a.marker);
      expect(viaRest.json()).toEqual({ results: [], total: 0 });
    },
  },
  {
    name: 'exports and the v1 inventory report hold only B’s catalog',
    async run(w) {
      const marker = uniqueText('SKU');
      await insertProduct(w.t.services.db, w.a.accountId, { title: marker }, [{ sku: marker }]);
      for (const url of [
        '/api/frontend/export/catalogInventory',
        '/api/frontend/export/alu',
        '/api/v1/reports/catalog/inventory/simple?limit=1000',
        '/api/v1/reports/catalog/inventory/simple?format=csv',
      ]) {
        const res = await w.t.app.inject({ url, headers: w.b.headers });
        expect(res.statusCode, url).toBe(200);
        expect(res.body, url).not.toContain(marker);
      }
      const keyed = await w.t.app.inject({
        url: `/api/v1/reports/catalog/inventory/simple?skus=${marker}`,
        headers: w.b.apiKeyHeaders,
      });
      expect(keyed.json()).toMatchObject({ results: [], total: 0 });
    },
  },
];
