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
