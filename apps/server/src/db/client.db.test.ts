import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, usingServer } from '../../test/db.ts';
import { systemSettings } from '../modules/settings/settings.tables.ts';
import { openDatabase } from './client.ts';

describe('database', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('is ready only once every committed migration is applied', async () => {
    const database = await createTestDatabase({ migrate: false });
    expect(await database.isReady()).toBe(false);
    await database.migrate();
    expect(await database.isReady()).toBe(true);
    // Applying again is a no-op, as at every start.
    await database.migrate();
    expect(await database.isReady()).toBe(true);
    await database.close();
  });

  it.skipIf(usingServer())('keeps embedded data under the data folder across a restart', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sy-db-'));
    dirs.push(dataDir);
    const first = await openDatabase({ dataDir });
    await first.migrate();
    await first.db.insert(systemSettings).values({ key: 'support_email', value: 'help@switchyard.app' });
    await first.close();

    const second = await openDatabase({ dataDir });
    await second.migrate();
    const rows = await second.db.select().from(systemSettings).where(eq(systemSettings.key, 'support_email'));
    expect(rows.map((r) => r.value)).toEqual(['help@switchyard.app']);
    await second.close();
  });

  it('runs a transaction on either engine and rolls it back on failure', async () => {
    const database = await createTestDatabase();
    await expect(
      database.db.transaction(async (tx) => {
        await tx.insert(systemSettings).values({ key: 'a', value: 1 });
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect(await database.db.select().from(systemSettings)).toEqual([]);
    await database.close();
  });

  it.runIf(usingServer())('grants a named lock to one process at a time, and again once it is released', async () => {
    const database = await createTestDatabase();
    // A second process on the same database: a pool of its own.
    const other = await openDatabase({ url: database.connectionString as string, poolMax: 2 });
    try {
      const release = await database.exclusive('push:chn_a');
      expect(release).not.toBeNull();
      expect(await other.exclusive('push:chn_a')).toBeNull();
      const elsewhere = await other.exclusive('push:chn_b');
      expect(elsewhere).not.toBeNull();
      await release?.();
      const now = await other.exclusive('push:chn_a');
      expect(now).not.toBeNull();
      await now?.();
      await elsewhere?.();
    } finally {
      await other.close();
      await database.close();
    }
  });
});
