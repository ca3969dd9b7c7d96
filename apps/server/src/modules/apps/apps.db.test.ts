import { API_KEY_PREFIX, type ApiKey, type ApiKeyList, type CreatedApiKey } from '@switchyard/contracts';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../../../test/app.ts';
import { createSignedInAccount } from '../../../test/factories.ts';
import { trpcOver } from '../../../test/trpc.ts';
import type { RestModule } from '../../rest/api.ts';
import { restRoute } from '../../rest/route.ts';
import { hashApiKey, LAST_USED_RESOLUTION_MS, resolveApiKey } from './apps.service.ts';
import { apiKeys } from './apps.tables.ts';

type TestApp = Awaited<ReturnType<typeof createTestApp>>;

describe('API keys (settings/apps)', () => {
  let t: TestApp;
  let owner: Awaited<ReturnType<typeof createSignedInAccount>>;

  beforeAll(async () => {
    // What a key authenticates as, on each API (settings/apps itself needs a signed-in person).
    const whoami: RestModule = (app, services) =>
      restRoute(app, services, { method: 'GET', url: '/whoami', handler: ({ actor }) => actor });
    t = await createTestApp({ rest: { frontend: [whoami], v1: [whoami], v2: [whoami] } });
    owner = await createSignedInAccount(t.services);
  });
  afterAll(() => t.close());

  const create = async (name: string, version: 'v1' | 'v2' = 'v1', headers = owner.headers) => {
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/${version}/settings/apps`,
      headers,
      payload: { name },
    });
    expect(res.statusCode).toBe(201);
    return res.json<CreatedApiKey>();
  };

  it('shows the secret once at creation and stores only its hash', async () => {
    const created = await create('Warehouse sync');
    expect(created.secret).toMatch(/^sy_live_[A-Za-z0-9_-]{43}$/);
    expect(created.key).toMatchObject({ name: 'Warehouse sync', createdBy: owner.userId, lastUsedAt: null });
    expect(created.key.id).toMatch(/^key_/);
    expect(created.key.prefix).toBe(created.secret.slice(0, API_KEY_PREFIX.length + 4));

    const [row] = await t.services.db.select().from(apiKeys).where(eq(apiKeys.id, created.key.id));
    expect(row?.keyHash).toBe(hashApiKey(created.secret));
    expect(JSON.stringify(row)).not.toContain(created.secret);

    const got = await t.app.inject({ url: `/api/v1/settings/apps/${created.key.id}`, headers: owner.headers });
    expect(got.statusCode).toBe(200);
    expect(got.json()).toEqual(created.key);
    expect(got.body).not.toContain(created.secret);
  });

  it('lists the account keys on v1 and v2, newest first, paged, without secrets', async () => {
    const other = await createSignedInAccount(t.services);
    const a = await create('first', 'v1', other.headers);
    const b = await create('second', 'v2', other.headers);
    const page = await t.app.inject({ url: '/api/v2/settings/apps?limit=1&offset=0', headers: other.headers });
    expect(page.statusCode).toBe(200);
    const list = page.json<ApiKeyList>();
    expect(list).toMatchObject({ total: 2, limit: 1, offset: 0 });
    expect(list.results.map((k) => k.id)).toEqual([b.key.id]);
    const next = await t.app.inject({ url: '/api/v1/settings/apps?limit=1&offset=1', headers: other.headers });
    expect(next.json<ApiKeyList>().results.map((k) => k.id)).toEqual([a.key.id]);
    expect(page.body + next.body).not.toContain(API_KEY_PREFIX + a.secret.slice(12));
    expect(JSON.stringify(list.results[0])).not.toContain('keyHash');

    const bad = await t.app.inject({ url: '/api/v1/settings/apps?limit=0', headers: other.headers });
    expect(bad.statusCode).toBe(400);
  });

  it('renames and revokes; a revoked key leaves the list and stops working', async () => {
    const created = await create('temporary', 'v2');
    const renamed = await t.app.inject({
      method: 'PUT',
      url: `/api/v2/settings/apps/${created.key.id}`,
      headers: owner.headers,
      payload: { name: 'renamed' },
    });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json<ApiKey>().name).toBe('renamed');

    const bearer = { authorization: `Bearer ${created.secret}` };
    expect((await t.app.inject({ url: '/api/v2/whoami', headers: bearer })).statusCode).toBe(200);

    const revoked = await t.app.inject({
      method: 'DELETE',
      url: `/api/v2/settings/apps/${created.key.id}`,
      headers: owner.headers,
    });
    expect(revoked.statusCode).toBe(200);
    expect(revoked.json()).toEqual({ id: created.key.id, revoked: true });

    const again = await t.app.inject({ url: `/api/v1/settings/apps/${created.key.id}`, headers: owner.headers });
    expect(again.statusCode).toBe(404);
    const list = await t.app.inject({ url: '/api/v1/settings/apps?limit=200', headers: owner.headers });
    expect(list.json<ApiKeyList>().results.map((k) => k.id)).not.toContain(created.key.id);

    const refused = await t.app.inject({ url: '/api/v2/whoami', headers: bearer });
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toEqual({ code: 401, message: 'Please sign in to continue.' });
  });

  it('rejects an empty name and an unknown id', async () => {
    const empty = await t.app.inject({
      method: 'POST',
      url: '/api/v1/settings/apps',
      headers: owner.headers,
      payload: { name: '  ' },
    });
    expect(empty.statusCode).toBe(400);
    const missing = await t.app.inject({
      method: 'PUT',
      url: '/api/v1/settings/apps/key_nope',
      headers: owner.headers,
      payload: { name: 'x' },
    });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ code: 404, message: 'API key not found' });
  });

  it('needs a signed-in user to see or manage keys; a key cannot', async () => {
    const anonymous = await t.app.inject({ method: 'POST', url: '/api/v1/settings/apps', payload: { name: 'x' } });
    expect(anonymous.statusCode).toBe(401);
    const created = await create('robot');
    const asKey = await t.app.inject({
      method: 'POST',
      url: '/api/v1/settings/apps',
      headers: { authorization: `Bearer ${created.secret}` },
      payload: { name: 'minted by a key' },
    });
    expect(asKey.statusCode).toBe(403);
    const revokeByKey = await t.app.inject({
      method: 'DELETE',
      url: `/api/v1/settings/apps/${created.key.id}`,
      headers: { authorization: `Bearer ${created.secret}` },
    });
    expect(revokeByKey.statusCode).toBe(403);
    for (const url of ['/api/v1/settings/apps', `/api/v2/settings/apps/${created.key.id}`]) {
      const read = await t.app.inject({ url, headers: { authorization: `Bearer ${created.secret}` } });
      expect(read.statusCode).toBe(403);
      expect(read.json()).toEqual({ code: 403, message: 'Sign in to manage API keys.' });
    }
  });

  it('authenticates as the account on v1 and v2 only, never on frontend or tRPC', async () => {
    const created = await create('integration');
    const bearer = { authorization: `Bearer ${created.secret}` };
    for (const version of ['v1', 'v2']) {
      const res = await t.app.inject({ url: `/api/${version}/whoami`, headers: bearer });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        sessionId: `key:${created.key.id}`,
        userId: owner.userId,
        accountId: owner.accountId,
        authorizationLevel: 'user',
        superUserRole: null,
      });
    }
    const frontend = await t.app.inject({ url: '/api/frontend/whoami', headers: bearer });
    expect(frontend.statusCode).toBe(401);
    const trpc = await trpcOver(t.app, bearer).query('apps.list');
    expect(trpc.status).toBe(401);
    const hydration = await trpcOver(t.app, bearer).query('hydration.getBasicData');
    expect(hydration.status).toBe(401);

    const unknown = await t.app.inject({
      url: '/api/v1/whoami',
      headers: { authorization: `Bearer ${API_KEY_PREFIX}not-a-key` },
    });
    expect(unknown.statusCode).toBe(401);
  });

  it('records last use at most once a minute', async () => {
    const created = await create('metered');
    const start = new Date('2030-01-01T00:00:00Z');
    const actor = await resolveApiKey(t.services.db, created.secret, start);
    expect(actor).toEqual({
      sessionId: `key:${created.key.id}`,
      userId: owner.userId,
      accountId: owner.accountId,
      authorizationLevel: 'user',
      superUserRole: null,
    });
    const lastUsed = async () =>
      (await t.services.db.select().from(apiKeys).where(eq(apiKeys.id, created.key.id)))[0]?.lastUsedAt;
    expect(await lastUsed()).toEqual(start);
    await resolveApiKey(t.services.db, created.secret, new Date(start.getTime() + LAST_USED_RESOLUTION_MS - 1));
    expect(await lastUsed()).toEqual(start);
    const later = new Date(start.getTime() + LAST_USED_RESOLUTION_MS + 1);
    await resolveApiKey(t.services.db, created.secret, later);
    expect(await lastUsed()).toEqual(later);

    const shown = await t.app.inject({ url: `/api/v1/settings/apps/${created.key.id}`, headers: owner.headers });
    expect(shown.json<ApiKey>().lastUsedAt).toBe(later.toISOString());
    await t.app.inject({ url: '/api/v1/whoami', headers: { authorization: `Bearer ${created.secret}` } });
    // Used over HTTP within the minute (the recorded use is "later"): no second write.
    expect(await lastUsed()).toEqual(later);
  });

  it('apps.list over tRPC lists the signed-in account keys', async () => {
    const other = await createSignedInAccount(t.services);
    const created = await create('listed', 'v1', other.headers);
    const res = await trpcOver(t.app, other.headers).query<ApiKeyList>('apps.list');
    expect(res.status).toBe(200);
    expect(res.data?.results).toEqual([created.key]);
    expect(res.data?.total).toBe(1);
  });
});
