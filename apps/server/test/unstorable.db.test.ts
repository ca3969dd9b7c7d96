// Issue 18: what PostgreSQL cannot hold is refused where input is parsed with a 400 naming the field, and a
// database error caused by a request's values alone is a validation error, on REST and tRPC alike.
import type { ChannelSummary, CreatedApiKey } from '@switchyard/contracts';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainError } from '../src/lib/errors.ts';
import { resolveSession } from '../src/modules/auth/auth.service.ts';
import { restRoute } from '../src/rest/route.ts';
import { createContextFactory } from '../src/trpc/context.ts';
import { authedProcedure, createCallerFactory, router } from '../src/trpc/init.ts';
import { createTestApp } from './app.ts';
import { createSignedInAccount } from './factories.ts';
import { trpcOver } from './trpc.ts';

type TestApp = Awaited<ReturnType<typeof createTestApp>>;

describe('values PostgreSQL cannot hold', () => {
  let t: TestApp;
  let owner: Awaited<ReturnType<typeof createSignedInAccount>>;
  let keyId: string;
  let channelId: string;

  beforeAll(async () => {
    t = await createTestApp({
      rest: {
        v1: [
          (app, services) =>
            restRoute(app, services, {
              method: 'GET',
              url: '/out-of-range',
              handler: async () => services.db.execute(sql`select ${'99999999999'}::integer as n`),
            }),
        ],
      },
    });
    owner = await createSignedInAccount(t.services);
    const key = await t.app.inject({
      method: 'POST',
      url: '/api/v1/settings/apps',
      headers: owner.headers,
      payload: { name: 'key' },
    });
    keyId = key.json<CreatedApiKey>().key.id;
    const channel = await t.app.inject({
      method: 'POST',
      url: '/api/frontend/integration/create',
      headers: owner.headers,
      payload: { type: 'shopify', name: 'Shop' },
    });
    channelId = channel.json<ChannelSummary>().id;
  });
  afterAll(() => t.close());

  const nul = 'a\u0000b';

  it.each([
    ['POST', '/api/v1/settings/apps', { name: nul }, 'Invalid body: name: must not contain the character U+0000'],
    ['POST', '/api/v1/locations', { name: 'Main', address: { city: nul } }, 'Invalid body: address.city: must not'],
    ['PATCH', '/api/v1/channels/{channel}', { name: nul }, 'Invalid body: name: must not contain'],
    ['PUT', '/api/v1/channels/{channel}/actions/features', { [nul]: true }, 'Invalid body: a\\u0000b: has a key that'],
    [
      'POST',
      '/api/v1/channels/{channel}/actions/inventory-push',
      { sku: '\uD800' },
      'Invalid body: sku: must be valid',
    ],
    ['GET', '/api/v1/settings/apps/%00', undefined, 'Invalid params: id: must not contain the character U+0000'],
    ['PUT', '/api/v2/settings/apps/{key}', { name: nul }, 'Invalid body: name: must not contain'],
    ['DELETE', '/api/v1/settings/apps/x%00', undefined, 'Invalid params: id: must not contain'],
    ['GET', '/api/v1/locations?search=%00', undefined, 'Invalid querystring: search: must not contain'],
  ] as const)('%s %s answers 400 naming the field', async (method, url, payload, message) => {
    const res = await t.app.inject({
      method,
      url: url.replace('{channel}', channelId).replace('{key}', keyId),
      headers: owner.headers,
      ...(payload ? { payload } : {}),
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ code: 400, message: expect.stringContaining(message) });
  });

  it('refuses U+0000 in a tRPC input, query or mutation, naming the field', async () => {
    const api = trpcOver(t.app, owner.headers);
    const mutation = await api.mutation('users.setColumnsFilter', { catalog_integration_id: nul, columns: [] });
    expect(mutation.status).toBe(400);
    expect(mutation.error?.message).toBe(
      'Invalid input: catalog_integration_id: must not contain the character U+0000',
    );
    const query = await api.query('channels.get', { id: nul });
    expect(query.error).toMatchObject({ message: 'Invalid input: id: must not contain the character U+0000' });
    expect(query.error?.data).toMatchObject({ code: 'BAD_REQUEST', httpStatus: 400, domainCode: 'VALIDATION' });
  });

  it('answers a database refusal of a value with 400 on REST, not 500 with its SQL', async () => {
    const res = await t.app.inject({ url: '/api/v1/out-of-range', headers: owner.headers });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ code: 400, message: expect.stringContaining('cannot be stored') });
    expect(t.logs.filter((l) => l.msg === 'unexpected error')).toEqual([]);
  });

  it('answers a database refusal of a value with BAD_REQUEST on tRPC', async () => {
    const testRouter = router({
      outOfRange: authedProcedure.query(({ ctx }) =>
        ctx.services.db.execute(sql`select ${'99999999999'}::integer as n`),
      ),
    });
    const req = { headers: owner.headers, actor: () => resolveSession(t.services, owner.token) };
    const caller = createCallerFactory(testRouter)(await createContextFactory(t.services)({ req } as never));
    await expect(caller.outOfRange()).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      cause: expect.any(DomainError),
    });
  });
});
