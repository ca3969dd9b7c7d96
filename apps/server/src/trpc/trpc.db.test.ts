import { TRPC_MAX_BATCH } from '@switchyard/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../../test/app.ts';
import { createSignedInAccount } from '../../test/factories.ts';
import { DomainError } from '../lib/errors.ts';
import { resolveSession } from '../modules/auth/auth.service.ts';
import { createContextFactory } from './context.ts';
import { authedProcedure, createCallerFactory, publicProcedure, router, superuserProcedure } from './init.ts';

type TestApp = Awaited<ReturnType<typeof createTestApp>>;

const enc = (v: unknown) => encodeURIComponent(JSON.stringify(v));

describe('tRPC over HTTP', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { BUILD_ID: 'build-42' } });
  });
  afterAll(() => t.close());

  it('tells the client whether its build is the one served', async () => {
    const same = await t.app.inject({
      url: `/api/trpc/health.checkBuildId?input=${enc({ json: { buildId: 'build-42' } })}`,
    });
    expect(same.json()).toEqual({ result: { data: { json: { match: true } } } });
    const other = await t.app.inject({
      url: `/api/trpc/health.checkBuildId?input=${enc({ json: { buildId: 'build-41' } })}`,
    });
    expect(other.json()).toEqual({ result: { data: { json: { match: false } } } });
  });

  it('answers a batch of comma-joined paths in one response', async () => {
    const input = { 0: { json: { buildId: 'build-42' } }, 1: { json: { buildId: 'x' } } };
    const res = await t.app.inject({
      url: `/api/trpc/health.checkBuildId,health.checkBuildId?batch=1&input=${enc(input)}`,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([
      { result: { data: { json: { match: true } } } },
      { result: { data: { json: { match: false } } } },
    ]);
  });

  it('refuses a batch of more procedures than one request may call', async () => {
    const batch = (n: number) => {
      const input = Object.fromEntries(Array.from({ length: n }, (_, i) => [i, { json: { buildId: 'build-42' } }]));
      const paths = Array.from({ length: n }, () => 'health.checkBuildId').join(',');
      return t.app.inject({ url: `/api/trpc/${paths}?batch=1&input=${enc(input)}` });
    };
    expect((await batch(TRPC_MAX_BATCH)).statusCode).toBe(200);
    const res = await batch(TRPC_MAX_BATCH + 1);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.json.message).toBe('Batch call exceeds maximum size');
  });

  it("answers an unknown procedure with tRPC's NOT_FOUND", async () => {
    const res = await t.app.inject({ url: `/api/trpc/x.y?input=${enc({ json: null })}` });
    expect(res.statusCode).toBe(404);
    expect(res.json().error.json).toMatchObject({
      message: 'No "query"-procedure on path "x.y"',
      data: { code: 'NOT_FOUND', httpStatus: 404 },
    });
  });

  it('rejects invalid input with BAD_REQUEST and the zod details', async () => {
    const res = await t.app.inject({ url: `/api/trpc/health.checkBuildId?input=${enc({ json: { buildId: '' } })}` });
    expect(res.statusCode).toBe(400);
    // In words, naming the field (not the issues as JSON text); the details stay in data.zodError.
    expect(res.json().error.json.message).toMatch(/^buildId: \S/);
    expect(res.json().error.json.message).not.toContain('{');
    expect(res.json().error.json.data).toMatchObject({
      code: 'BAD_REQUEST',
      zodError: { fieldErrors: { buildId: expect.any(Array) } },
    });
  });
});

describe('procedure kinds', () => {
  const testRouter = router({
    open: publicProcedure.query(({ ctx }) => ctx.actor?.userId ?? 'anonymous'),
    mine: authedProcedure.query(({ ctx }) => ctx.actor.accountId),
    admin: superuserProcedure.query(() => 'secret'),
    conflict: authedProcedure.mutation(() => {
      throw new DomainError('INSUFFICIENT_STOCK', '2 units are free');
    }),
  });
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  /** A caller built by the server's own context factory from a request carrying these headers. */
  const callerFor = async (headers: Record<string, string> = {}) => {
    const fakeReq = { headers, actor: () => resolveActorFor(headers.authorization) };
    return createCallerFactory(testRouter)(await createContextFactory(t.services)({ req: fakeReq } as never));
  };
  const resolveActorFor = async (authorization?: string) =>
    authorization ? resolveSession(t.services, authorization.replace(/^Bearer /, '')) : undefined;

  it('lets anyone call a public procedure and only signed-in users an authed one', async () => {
    const anon = await callerFor();
    expect(await anon.open()).toBe('anonymous');
    await expect(anon.mine()).rejects.toMatchObject({ code: 'UNAUTHORIZED' });

    const owner = await createSignedInAccount(t.services);
    const user = await callerFor(owner.headers);
    expect(await user.mine()).toBe(owner.accountId);
    await expect(user.admin()).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(user.conflict()).rejects.toMatchObject({ code: 'CONFLICT', cause: { code: 'INSUFFICIENT_STOCK' } });

    const su = await callerFor((await createSignedInAccount(t.services, { authorizationLevel: 'superuser' })).headers);
    expect(await su.admin()).toBe('secret');
  });
});
