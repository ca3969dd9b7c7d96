import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../../../test/app.ts';
import { createAccount } from '../../../test/factories.ts';
import { newId } from '../../lib/ids.ts';
import { accountLocations, countLocations, locationById, locationByStoreId, locationsByIds } from './locations.read.ts';
import { locations } from './locations.tables.ts';

type TestApp = Awaited<ReturnType<typeof createTestApp>>;

describe('locations reads for other modules', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  async function place(accountId: string, name: string, storeId: string, priority: number) {
    const id = newId('loc');
    await t.services.db.insert(locations).values({ id, accountId, name, storeId, priority });
    return id;
  }

  it('answers only the account’s locations, in the order asked, by id, ids and store id, and counts them', async () => {
    const a = await createAccount(t.services);
    const b = await createAccount(t.services);
    const zed = await place(a.accountId, 'Zed', 'S-1', 5);
    const alpha = await place(a.accountId, 'Alpha', 'S-3', 5);
    const first = await place(a.accountId, 'Mid', 'S-2', 1);
    const theirs = await place(b.accountId, 'Theirs', 'S-1', 0);
    const db = t.services.db;

    expect((await accountLocations(db, a.accountId, ['priority', 'name', 'id'])).map((l) => l.id)).toEqual([
      first,
      alpha,
      zed,
    ]);
    expect((await accountLocations(db, a.accountId, ['storeId'])).map((l) => l.id)).toEqual([zed, first, alpha]);
    expect((await accountLocations(db, a.accountId, ['priority', 'storeId'])).map((l) => l.id)).toEqual([
      first,
      zed,
      alpha,
    ]);
    expect((await accountLocations(db, a.accountId)).map((l) => l.id).sort()).toEqual([zed, alpha, first].sort());

    expect(await locationById(db, a.accountId, zed)).toMatchObject({ id: zed, name: 'Zed', storeId: 'S-1' });
    expect(await locationById(db, a.accountId, theirs)).toBeUndefined();

    expect((await locationsByIds(db, a.accountId, [zed, theirs, zed, 'loc_none'])).map((l) => l.id)).toEqual([zed]);
    expect(await locationsByIds(db, a.accountId, [])).toEqual([]);

    expect((await locationByStoreId(db, a.accountId, 'S-1'))?.id).toBe(zed);
    expect((await locationByStoreId(db, b.accountId, 'S-1'))?.id).toBe(theirs);
    expect(await locationByStoreId(db, b.accountId, 'S-2')).toBeUndefined();

    expect(await countLocations(db, a.accountId)).toBe(3);
    expect(await countLocations(db, b.accountId)).toBe(1);

    // In the caller's transaction: a row it added and has not committed is seen.
    await db.transaction(async (tx) => {
      await tx.insert(locations).values({ id: newId('loc'), accountId: b.accountId, name: 'New', storeId: 'S-9' });
      expect(await countLocations(tx, b.accountId)).toBe(2);
      expect((await locationByStoreId(tx, b.accountId, 'S-9'))?.name).toBe('New');
    });
  });
});
