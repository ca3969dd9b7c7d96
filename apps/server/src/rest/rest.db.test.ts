import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createTestApp } from '../../test/app.ts';
import { createSignedInAccount } from '../../test/factories.ts';
import { DomainError } from '../lib/errors.ts';
import { JSON_PROTOTYPE_KEY_MESSAGE } from './errors.ts';
import { restRoute } from './route.ts';

type TestApp = Awaited<ReturnType<typeof createTestApp>>;

describe('REST plumbing', () => {
  let t: TestApp;
  let auth: { authorization: string };
  let owner: Awaited<ReturnType<typeof createSignedInAccount>>;

  beforeAll(async () => {
    t = await createTestApp({
      rest: {
        v1: [
          (app, services) => {
            restRoute(app, services, {
              method: 'GET',
              url: '/echo',
              input: z.object({ limit: z.coerce.number().int().min(1).max(200), search: z.string().optional() }),
              handler: ({ input }) => ({ got: input }),
            });
            restRoute(app, services, {
              method: 'POST',
              url: '/echo',
              input: z.object({ name: z.string().min(1) }),
              handler: ({ input, actor }) => ({ got: input, account: actor.accountId }),
            });
            restRoute(app, services, {
              method: 'DELETE',
              url: '/things/:id',
              params: z.object({ id: z.string() }),
              input: z.object({ hard: z.enum(['true', 'false']).optional() }),
              handler: ({ params, input }) => {
                if (params.id === 'missing') throw new DomainError('NOT_FOUND', 'Thing not found');
                return { deleted: params.id, hard: input.hard === 'true' };
              },
            });
            restRoute(app, services, {
              method: 'GET',
              url: '/boom',
              handler: () => {
                throw new Error('Failed query: select * from users where email = $1\nparams: owner@shop.test');
              },
            });
            restRoute(app, services, {
              method: 'GET',
              url: '/admin-only',
              access: 'superuser',
              handler: () => ({ ok: true }),
            });
          },
        ],
      },
    });
    owner = await createSignedInAccount(t.services);
    auth = owner.headers;
  });
  afterAll(() => t.close());

  it('reads GET input from the query string and validates it', async () => {
    const ok = await t.app.inject({ method: 'GET', url: '/api/v1/echo?limit=25&search=shoe', headers: auth });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ got: { limit: 25, search: 'shoe' } });

    const bad = await t.app.inject({ method: 'GET', url: '/api/v1/echo?limit=0', headers: auth });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({ code: 400, message: expect.stringMatching(/^Invalid querystring: limit: /) });
  });

  it('reads POST input from the JSON body', async () => {
    const ok = await t.app.inject({ method: 'POST', url: '/api/v1/echo', headers: auth, payload: { name: 'Main St' } });
    expect(ok.json()).toEqual({ got: { name: 'Main St' }, account: owner.accountId });

    const bad = await t.app.inject({ method: 'POST', url: '/api/v1/echo', headers: auth, payload: { name: '' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: 400, message: expect.stringContaining('name') });
  });

  it('answers malformed JSON with 400 in the error shape', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/echo',
      headers: { ...auth, 'content-type': 'application/json' },
      payload: '{"name":',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ code: 400, message: expect.any(String) });
  });

  it('refuses a JSON body with a __proto__ or constructor.prototype key with 400, saying so (it is valid JSON)', async () => {
    for (const payload of [
      '{"name":"Main St","__proto__":{"isAdmin":true}}',
      '{"name":"Main St","tags":[{"constructor":{"prototype":{"isAdmin":true}}}]}',
    ]) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/echo',
        headers: { ...auth, 'content-type': 'application/json' },
        payload,
      });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ code: 400, message: JSON_PROTOTYPE_KEY_MESSAGE });
    }
    // Broken JSON is still called that.
    const broken = await t.app.inject({
      method: 'POST',
      url: '/api/v1/echo',
      headers: { ...auth, 'content-type': 'application/json' },
      payload: '{"__proto__":',
    });
    expect(broken.json()).toEqual({ code: 400, message: expect.stringMatching(/not valid JSON/) });
  });

  it('reads DELETE input from the query and maps domain errors to their status', async () => {
    const ok = await t.app.inject({ method: 'DELETE', url: '/api/v1/things/t1?hard=true', headers: auth });
    expect(ok.json()).toEqual({ deleted: 't1', hard: true });
    const missing = await t.app.inject({ method: 'DELETE', url: '/api/v1/things/missing', headers: auth });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ code: 404, message: 'Thing not found' });
  });

  it('refuses callers without a valid, unexpired token', async () => {
    const none = await t.app.inject({ method: 'GET', url: '/api/v1/echo?limit=1' });
    expect(none.statusCode).toBe(401);
    expect(none.json()).toEqual({ code: 401, message: 'Please sign in to continue.' });

    const expired = await t.services.tokens.sign(
      {
        sessionId: 'ses_x',
        userId: owner.userId,
        accountId: owner.accountId,
        authorizationLevel: 'user',
        superUserRole: null,
      },
      -10,
    );
    const old = await t.app.inject({
      method: 'GET',
      url: '/api/v1/echo?limit=1',
      headers: { authorization: `Bearer ${expired}` },
    });
    expect(old.statusCode).toBe(401);

    const forged = `${owner.token.slice(0, -4)}AAAA`;
    const bad = await t.app.inject({
      method: 'GET',
      url: '/api/v1/echo?limit=1',
      headers: { authorization: `Bearer ${forged}` },
    });
    expect(bad.statusCode).toBe(401);
  });

  it('tells a signed-out caller to sign in before it judges the input, and a user that the route is not theirs', async () => {
    const body = await t.app.inject({ method: 'POST', url: '/api/v1/echo', payload: {} });
    expect(body.statusCode).toBe(401);
    expect(body.json()).toEqual({ code: 401, message: 'Please sign in to continue.' });
    const query = await t.app.inject({ method: 'GET', url: '/api/v1/echo?limit=0' });
    expect(query.statusCode).toBe(401);
    const user = await t.app.inject({ method: 'GET', url: '/api/v1/admin-only?x=1', headers: auth });
    expect(user.statusCode).toBe(403);
    const signedIn = await t.app.inject({ method: 'POST', url: '/api/v1/echo', payload: {}, headers: auth });
    expect(signedIn.statusCode).toBe(400);
  });

  it('answers 403 to a signed-in user on a superuser route', async () => {
    const user = await t.app.inject({ method: 'GET', url: '/api/v1/admin-only', headers: auth });
    expect(user.statusCode).toBe(403);
    expect(user.json()).toEqual({ code: 403, message: 'This needs a superuser.' });
    const su = await createSignedInAccount(t.services, { authorizationLevel: 'superuser' });
    const ok = await t.app.inject({ method: 'GET', url: '/api/v1/admin-only', headers: su.headers });
    expect(ok.json()).toEqual({ ok: true });
  });

  it('answers an unexpected error without stack or SQL, and logs it with the request id', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/v1/boom',
      headers: { ...auth, 'x-request-id': 'req-boom-1' },
    });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ code: 500, message: 'Internal server error' });
    expect(res.body).not.toMatch(/select|owner@shop|at .*\.ts/);
    expect(res.headers['x-request-id']).toBe('req-boom-1');
    const logged = t.logs.find((l) => l.msg === 'unexpected error');
    expect(logged).toMatchObject({ reqId: 'req-boom-1' });
    expect(JSON.stringify(logged)).not.toMatch(/owner@shop|select \*/);
  });

  it('answers an unknown API route with 404 in the error shape', async () => {
    for (const url of ['/api/v1/nope', '/api/v2/orders/1/unknown', '/api/frontend/nope', '/api/elsewhere']) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ code: 404, message: expect.stringContaining('not found') });
    }
  });

  it('tells an API client its version, build and clock without signing in', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v2/status' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      status: 'ok',
      apiVersion: 'v2',
      buildId: 'test-build',
      serverTime: expect.any(String),
    });
    expect(Math.abs(Date.parse(res.json().serverTime) - Date.now())).toBeLessThan(5000);
  });

  it('says v2 options list and get are not implemented', async () => {
    for (const url of ['/api/v2/options', '/api/v2/options/7']) {
      const res = await t.app.inject({ method: 'GET', url, headers: auth });
      expect(res.statusCode).toBe(501);
      expect(res.json()).toEqual({ code: 501, message: 'Not implemented yet' });
    }
  });

  it('publishes an OpenAPI document of v1 and v2 only, and a reference page', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/docs/json' })).json() as {
      paths: Record<string, unknown>;
    };
    const paths = Object.keys(doc.paths);
    expect(paths).toContain('/api/v1/echo');
    expect(paths).toContain('/api/v2/options');
    expect(paths.some((p) => p.startsWith('/api/frontend') || p.startsWith('/api/trpc') || p === '/healthz')).toBe(
      false,
    );
    const page = await t.app.inject({ method: 'GET', url: '/api/docs/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
  });

  it('sends security headers with a strict script policy', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/healthz' });
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe/);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });
});
