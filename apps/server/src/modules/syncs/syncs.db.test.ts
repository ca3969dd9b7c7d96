import type { DeadLetterList, SyncDetail, SyncList, SyncType, SyncTypesOutput } from '@switchyard/contracts';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../../../test/app.ts';
import { createSignedInAccount } from '../../../test/factories.ts';
import { trpcOver } from '../../../test/trpc.ts';
import { startJobs } from '../../bootstrap.ts';
import { inventoryDirty } from '../inventory/inventory.tables.ts';
import { MAIL_SEND_JOB } from '../mail/mail.service.ts';
import { insertChannel, insertListing, insertProduct, uniqueText } from './syncs.fixtures.ts';
import { finishSync, recordSyncProgress, startSync } from './syncs.records.ts';
import { syncItems } from './syncs.tables.ts';

type TestApp = Awaited<ReturnType<typeof createTestApp>>;
type Tenant = Awaited<ReturnType<typeof createSignedInAccount>>;

describe('sync records', () => {
  let t: TestApp;
  let owner: Tenant;
  let other: Tenant;
  let shopify: { id: string };
  let square: { id: string };
  const api = () => trpcOver(t.app, owner.headers);

  /** A finished run with `failures` failed items (labels f1, f2, …) and `ok` succeeded ones. */
  async function run(
    options: {
      type?: SyncType;
      channelId?: string | null;
      ok?: number;
      failures?: { label: string; variantId?: string | null }[];
      error?: string;
      running?: boolean;
      accountId?: string;
    } = {},
  ) {
    const { db } = t.services;
    const accountId = options.accountId ?? owner.accountId;
    const id = await startSync(db, {
      accountId,
      channelId: options.channelId === undefined ? shopify.id : options.channelId,
      type: options.type ?? 'inventory_push',
      trigger: 'change',
      total: (options.ok ?? 0) + (options.failures?.length ?? 0),
    });
    await recordSyncProgress(db, id, accountId, {
      succeeded: options.ok ?? 0,
      failures: (options.failures ?? []).map((f) => ({ ...f, error: `refused ${f.label}` })),
    });
    if (!options.running) await finishSync(db, id, { error: options.error ?? null });
    return id;
  }

  beforeAll(async () => {
    t = await createTestApp();
    owner = await createSignedInAccount(t.services);
    other = await createSignedInAccount(t.services);
    shopify = await insertChannel(t.services.db, owner.accountId, 'shopify', 'Main Shopify');
    square = await insertChannel(t.services.db, owner.accountId, 'square', 'Downtown till');
  });
  afterAll(() => t.close());

  it('lists runs newest first with channel, counts and duration, filters by type and errors, and sorts', async () => {
    const fine = await run({ ok: 3 });
    const partial = await run({ type: 'reconcile', channelId: square.id, ok: 1, failures: [{ label: 'A-1' }] });
    const failed = await run({ type: 'catalog_import', error: 'Shopify refused our access' });
    const running = await run({ ok: 2, running: true });
    await run({ accountId: other.accountId, channelId: null, failures: [{ label: 'theirs' }] });

    const all = await api().query<SyncList>('syncs.list', {});
    expect(all.status).toBe(200);
    expect(all.data?.results.map((r) => r.id)).toEqual([running, failed, partial, fine]);
    expect(all.data?.total).toBe(4);
    const [runningRow, failedRow, partialRow, fineRow] = all.data?.results ?? [];
    expect(fineRow).toMatchObject({
      type: 'inventory_push',
      typeLabel: 'Stock push',
      channel: { id: shopify.id, name: 'Main Shopify', type: 'shopify' },
      status: 'succeeded',
      trigger: 'change',
      total: 3,
      processed: 3,
      succeeded: 3,
      failed: 0,
    });
    expect(fineRow?.finishedAt).toBeInstanceOf(Date);
    expect(fineRow?.durationMs).toBeGreaterThanOrEqual(0);
    expect(partialRow).toMatchObject({ status: 'partial', failed: 1, channel: { name: 'Downtown till' } });
    expect(failedRow).toMatchObject({ status: 'failed', message: 'Shopify refused our access' });
    expect(runningRow).toMatchObject({ status: 'running', finishedAt: null, processed: 2 });
    expect(runningRow?.durationMs).toBeGreaterThanOrEqual(0);

    const errors = await api().query<SyncList>('syncs.list', { has_errors: true });
    expect(errors.data?.results.map((r) => r.id)).toEqual([failed, partial]);
    const reconciles = await api().query<SyncList>('syncs.list', { type: 'reconcile' });
    expect(reconciles.data?.results.map((r) => r.id)).toEqual([partial]);
    const oldest = await api().query<SyncList>('syncs.list', { sort: 'asc', limit: 2, offset: 1 });
    expect(oldest.data?.results.map((r) => r.id)).toEqual([partial, failed]);
    expect(oldest.data?.total).toBe(4);

    expect((await api().query('syncs.count', { has_errors: true })).data).toEqual({ total: 2 });
    expect((await api().query('syncs.count', { type: 'catalog_import' })).data).toEqual({ total: 1 });
    const types = await api().query<SyncTypesOutput>('syncs.types');
    expect(types.data?.types).toEqual([
      { type: 'inventory_push', label: 'Stock push', count: 2 },
      { type: 'catalog_import', label: 'Catalog import', count: 1 },
      { type: 'catalog_publish', label: 'Catalog publish', count: 0 },
      { type: 'order_import', label: 'Order import', count: 0 },
      { type: 'reconcile', label: 'Reconciliation', count: 1 },
      { type: 'refund', label: 'Refund', count: 0 },
      { type: 'fulfillment_write_back', label: 'Fulfillment write-back', count: 0 },
    ]);
    expect(types.data?.total).toBe(4);

    // The other account sees only its own run.
    const theirs = await trpcOver(t.app, other.headers).query<SyncList>('syncs.list', {});
    expect(theirs.data?.total).toBe(1);
    expect(theirs.data?.results[0]?.channel).toBeNull();
  });

  it('answers frontend GET syncs and syncs/{id} with the same rows, and 404 for unknown ids', async () => {
    const id = await run({ failures: [{ label: 'SKU-REST' }] });
    const list = await t.app.inject({ url: '/api/frontend/syncs?has_errors=true&limit=1', headers: owner.headers });
    expect(list.statusCode).toBe(200);
    const body = list.json<{ results: { id: number; startedAt: string }[]; total: number }>();
    expect(body.results).toHaveLength(1);
    expect(body.results[0]?.id).toBe(id);
    expect(body.total).toBeGreaterThan(1);
    expect(typeof body.results[0]?.startedAt).toBe('string');

    const one = await t.app.inject({ url: `/api/frontend/syncs/${id}?items_limit=5`, headers: owner.headers });
    expect(one.statusCode).toBe(200);
    expect(one.json()).toMatchObject({ sync: { id, failed: 1 }, items: { total: 1, limit: 5 }, retryable: 1 });
    for (const url of ['/api/frontend/syncs/999999999', '/api/frontend/syncs/abc']) {
      const missing = await t.app.inject({ url, headers: owner.headers });
      expect(missing.statusCode).toBe(404);
      expect(missing.json()).toEqual({ code: 404, message: 'Sync not found' });
    }
    expect((await t.app.inject({ url: '/api/frontend/syncs' })).statusCode).toBe(401);
  });

  it('opens a run with its failed items paged and its channel', async () => {
    const failures = Array.from({ length: 30 }, (_, i) => ({ label: `SKU-${String(i).padStart(2, '0')}` }));
    const id = await run({ ok: 5, failures });
    const first = await api().query<SyncDetail>('syncs.get', { id, items_limit: 25 });
    expect(first.data?.sync).toMatchObject({ id, status: 'partial', processed: 35, failed: 30 });
    expect(first.data?.items.total).toBe(30);
    expect(first.data?.items.results).toHaveLength(25);
    expect(first.data?.items.results[0]).toMatchObject({ label: 'SKU-00', status: 'failed', error: 'refused SKU-00' });
    const second = await api().query<SyncDetail>('syncs.get', { id, items_limit: 25, items_offset: 25 });
    expect(second.data?.items.results.map((i) => i.label)).toEqual(['SKU-25', 'SKU-26', 'SKU-27', 'SKU-28', 'SKU-29']);
    expect(second.data?.retryable).toBe(30);

    const missing = await api().query('syncs.get', { id: 987654321 });
    expect(missing.status).toBe(404);
    for (const bad of [api().query('syncs.get', { id: 'abc' }), api().mutation('syncs.retry', { id: 'abc' })]) {
      const res = await bad;
      expect(res.status).toBe(400);
      expect(res.error?.message).toBe('id: Sync ids are whole numbers');
    }
    const theirs = await trpcOver(t.app, other.headers).query('syncs.get', { id });
    expect(theirs.status).toBe(404);
  });

  it('retries a push run: marks the listed variants dirty on its channel and the items retried', async () => {
    const { db } = t.services;
    const { variantIds } = await insertProduct(db, owner.accountId, { title: 'Tee' }, [
      { sku: uniqueText('listed') },
      { sku: uniqueText('unlisted') },
    ]);
    const [listed, unlisted] = Object.values(variantIds) as [string, string];
    await insertListing(db, owner.accountId, shopify.id, listed);
    const id = await run({
      ok: 4,
      failures: [
        { label: 'listed @ store-1', variantId: listed },
        { label: 'unlisted @ store-1', variantId: unlisted },
      ],
    });

    const retried = await api().mutation<{ id: number }>('syncs.retry', { id });
    expect(retried.status).toBe(200);
    const newId = retried.data?.id as number;
    expect(newId).toBeGreaterThan(id);

    const dirty = await db
      .select({ variantId: inventoryDirty.variantId })
      .from(inventoryDirty)
      .where(eq(inventoryDirty.channelId, shopify.id));
    expect(dirty.map((d) => d.variantId)).toContain(listed);
    expect(dirty.map((d) => d.variantId)).not.toContain(unlisted);

    const fresh = await api().query<SyncDetail>('syncs.get', { id: newId });
    expect(fresh.data?.sync).toMatchObject({
      type: 'inventory_push',
      trigger: 'retry',
      retryOf: id,
      status: 'partial',
      total: 2,
      succeeded: 1,
      failed: 1,
      channel: { id: shopify.id },
      message: '1 of 2 items queued again for the next stock push.',
    });
    expect(fresh.data?.items.results).toEqual([
      expect.objectContaining({ label: 'unlisted @ store-1', variantId: unlisted, status: 'failed' }),
    ]);

    const old = await api().query<SyncDetail>('syncs.get', { id });
    expect(old.data?.items.results.map((i) => i.status)).toEqual(['retried', 'retried']);
    expect(old.data?.retryable).toBe(0);
    expect(old.data?.retries.map((r) => r.id)).toEqual([newId]);

    // Nothing is left to retry: a second retry (a double click) is refused and makes no run.
    const again = await api().mutation('syncs.retry', { id });
    expect(again.status).toBe(409);
    expect(again.error?.message).toBe('This sync has no failed items left to retry.');
  });

  it('refuses to retry a running run, and another account’s run as not found', async () => {
    const running = await run({ failures: [{ label: 'x' }], running: true });
    const refused = await api().mutation('syncs.retry', { id: running });
    expect(refused.status).toBe(409);
    expect(refused.error?.message).toMatch(/still running/);

    const done = await run({ failures: [{ label: 'y' }] });
    const theirs = await trpcOver(t.app, other.headers).mutation('syncs.retry', { id: done });
    expect(theirs.status).toBe(404);
    const [item] = await t.services.db
      .select({ status: syncItems.status })
      .from(syncItems)
      .where(and(eq(syncItems.syncId, done)));
    expect(item?.status).toBe('failed');
  });

  it('retries catalog runs through their jobs: an import runs again, a publish takes its failed products', async () => {
    const { db } = t.services;
    const failedImport = await run({ type: 'catalog_import', error: 'Shopify answered 503' });
    const publish = await run({ type: 'catalog_publish', failures: [{ label: 'Linen shirt' }] });
    await db
      .update(syncItems)
      .set({ payload: { productId: 'prd_missing' } })
      .where(eq(syncItems.syncId, publish));

    // Without the job queue nothing can be queued, and the items stay failed for a later retry.
    const notNow = await api().mutation('syncs.retry', { id: publish });
    expect(notNow.status).toBe(409);
    expect((await api().query<SyncDetail>('syncs.get', { id: publish })).data?.retryable).toBe(1);

    const queue = await startJobs(t.services, { work: false });
    try {
      const again = await api().mutation<{ id: number }>('syncs.retry', { id: failedImport });
      expect(again.status).toBe(200);
      const rerun = await api().query<SyncDetail>('syncs.get', { id: again.data?.id });
      expect(rerun.data?.sync).toMatchObject({
        type: 'catalog_import',
        status: 'queued',
        trigger: 'retry',
        retryOf: failedImport,
        channel: { id: shopify.id },
      });
      const published = await api().mutation<{ id: number }>('syncs.retry', { id: publish });
      expect(published.status).toBe(200);
      const republish = await api().query<SyncDetail>('syncs.get', { id: published.data?.id });
      expect(republish.data?.sync).toMatchObject({ type: 'catalog_publish', status: 'queued', retryOf: publish });
      expect((await api().query<SyncDetail>('syncs.get', { id: publish })).data?.retryable).toBe(0);
      const jobs = await queue.boss.fetch<{ syncId: number }>('catalog.publish', { batchSize: 5 });
      expect(jobs.map((j) => j.data.syncId)).toContain(published.data?.id);
    } finally {
      await queue.stop({ timeoutMs: 1000 });
      t.services.queue = undefined;
    }
  });

  it('retries a failed order import as a new pull of the channel, shown queued', async () => {
    const failed = await run({ type: 'order_import', error: 'Orders could not be read from Shopify: 503' });
    const succeeded = await run({ type: 'order_import' });
    const queue = await startJobs(t.services, { work: false });
    try {
      // A pull that went well has nothing to retry.
      expect((await api().mutation('syncs.retry', { id: succeeded })).status).toBe(409);
      const again = await api().mutation<{ id: number }>('syncs.retry', { id: failed });
      expect(again.status).toBe(200);
      const rerun = await api().query<SyncDetail>('syncs.get', { id: again.data?.id });
      expect(rerun.data?.sync).toMatchObject({
        type: 'order_import',
        status: 'queued',
        trigger: 'retry',
        retryOf: failed,
        channel: { id: shopify.id },
      });
      const jobs = await queue.boss.fetch<{ channelId: string }>('orders.import', { batchSize: 5 });
      expect(jobs.map((j) => j.data.channelId)).toEqual([shopify.id]);
    } finally {
      await queue.stop({ timeoutMs: 1000 });
      t.services.queue = undefined;
    }
  });

  it('lists the account’s dead-lettered sync jobs with their last error', async () => {
    const empty = await api().query<DeadLetterList>('syncs.deadLetters', {});
    expect(empty.data).toEqual({ results: [], total: 0 });

    const queue = await startJobs(t.services, { work: false });
    try {
      // A job that fails with no retries left goes to its queue's dead letters, as a push would.
      const jobId = await queue.send(MAIL_SEND_JOB, { channelId: shopify.id }, { retryLimit: 0 });
      await queue.send(MAIL_SEND_JOB, { channelId: uniqueText('someone-else') }, { retryLimit: 0 });
      const jobs = await queue.boss.fetch(MAIL_SEND_JOB, { batchSize: 5 });
      expect(jobs.map((j) => j.id)).toContain(jobId);
      for (const job of jobs) await queue.boss.fail(MAIL_SEND_JOB, job.id, new Error('Shopify answered 503'));

      const dead = await api().query<DeadLetterList>('syncs.deadLetters', {});
      expect(dead.data?.total).toBe(1);
      expect(dead.data?.results[0]).toMatchObject({
        queue: MAIL_SEND_JOB,
        channel: { id: shopify.id, name: 'Main Shopify' },
        error: 'Shopify answered 503',
        data: { channelId: shopify.id },
      });
      const theirs = await trpcOver(t.app, other.headers).query<DeadLetterList>('syncs.deadLetters', {});
      expect(theirs.data?.total).toBe(0);
    } finally {
      await queue.stop({ timeoutMs: 1000 });
      t.services.queue = undefined;
    }
  });
});
