import { describe, expect, it } from 'vitest';
import { createTestApp } from '../../test/app.ts';
import { createTestDatabase } from '../../test/db.ts';

describe('health', () => {
  it('is alive, and ready only when the database is migrated and reachable', async () => {
    const database = await createTestDatabase({ migrate: false });
    const t = await createTestApp({ database });
    expect((await t.app.inject({ url: '/healthz' })).json()).toEqual({ status: 'ok' });

    const before = await t.app.inject({ url: '/readyz' });
    expect(before.statusCode).toBe(503);
    await database.migrate();
    const after = await t.app.inject({ url: '/readyz' });
    expect(after.statusCode).toBe(200);
    expect(after.json()).toMatchObject({ status: 'ready' });

    await database.close();
    const closed = await t.app.inject({ url: '/readyz' });
    expect(closed.statusCode).toBe(503);
    await t.close();
  });
});

describe('client address', () => {
  it('ignores X-Forwarded-For unless told a proxy is in front', async () => {
    const seen: string[] = [];
    const direct = await createTestApp({
      rest: { v1: [(app) => app.get('/ip', async (req) => ({ ip: req.ip }))] },
    });
    const res = await direct.app.inject({ url: '/api/v1/ip', headers: { 'x-forwarded-for': '203.0.113.50' } });
    seen.push(res.json().ip);
    await direct.close();

    const proxied = await createTestApp({
      env: { TRUST_PROXY: 'loopback' },
      rest: { v1: [(app) => app.get('/ip', async (req) => ({ ip: req.ip }))] },
    });
    const res2 = await proxied.app.inject({ url: '/api/v1/ip', headers: { 'x-forwarded-for': '203.0.113.50' } });
    seen.push(res2.json().ip);
    await proxied.close();

    expect(seen).toEqual(['127.0.0.1', '203.0.113.50']);
  });
});
