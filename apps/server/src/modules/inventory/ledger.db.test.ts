// The ledger under concurrency: adjustments of one level in separate transactions at once all count, and a
// cause replayed at the same time is applied once; movements a batch keeps are written in order, or not at all.
// On PGlite and, with TEST_DATABASE_URL, on a server.
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../../../test/app.ts';
import { createSignedInAccount } from '../../../test/factories.ts';
import { newId } from '../../lib/ids.ts';
import { locations } from '../locations/locations.tables.ts';
import { products, variants } from '../products/products.tables.ts';
import { inventoryLevels, inventoryMovements } from './inventory.tables.ts';
import { DeferredLedger } from './ledger.deferred.ts';
import { applyMovements } from './ledger.ts';

let t: Awaited<ReturnType<typeof createTestApp>>;
let accountId: string;
const variantId = newId('var');
const locationId = newId('loc');

beforeAll(async () => {
  t = await createTestApp();
  ({ accountId } = await createSignedInAccount(t.services));
  const productId = newId('prd');
  await t.services.db.insert(products).values({ id: productId, accountId, title: 'Trail Tee' });
  await t.services.db.insert(variants).values({ id: variantId, accountId, productId, sku: 'TEE-CONC' });
  await t.services.db.insert(locations).values({ id: locationId, accountId, name: 'Main', storeId: 'S-1' });
});
afterAll(async () => {
  await t?.close();
});

const onHand = async () => {
  const [row] = await t.services.db
    .select({ onHand: inventoryLevels.onHand })
    .from(inventoryLevels)
    .where(and(eq(inventoryLevels.variantId, variantId), eq(inventoryLevels.locationId, locationId)));
  return row?.onHand ?? 0;
};

const adjust = (delta: number, idempotencyKey?: string) =>
  t.services.db.transaction((tx) =>
    applyMovements(tx, accountId, [
      { variantId, locationId, delta, reason: 'adjustment', source: 'manual', idempotencyKey },
    ]),
  );

describe('ledger concurrency', () => {
  it('counts every one of many concurrent adjustments of one level', async () => {
    const deltas = [5, -1, 3, 2, -4, 7, 1, 1, -2, 6];
    await Promise.all(deltas.map((d) => adjust(d)));
    expect(await onHand()).toBe(deltas.reduce((a, b) => a + b, 0));
    const movements = await t.services.db
      .select()
      .from(inventoryMovements)
      .where(eq(inventoryMovements.variantId, variantId));
    expect(movements).toHaveLength(deltas.length);
    // Each movement's on_hand_after follows from the one before: no read-modify-write was lost.
    const after = movements.sort((a, b) => a.id - b.id).map((m) => m.onHandAfter);
    let running = 0;
    for (const [i, m] of movements.entries()) {
      running += m.delta;
      expect(after[i]).toBe(running);
    }
  });

  it('applies a cause delivered twice at the same time once', async () => {
    const before = await onHand();
    const results = await Promise.all([adjust(-3, 'evt-42'), adjust(-3, 'evt-42'), adjust(-3, 'evt-42')]);
    expect(results.flat().filter((r) => r.applied)).toHaveLength(1);
    expect(await onHand()).toBe(before - 3);
  });
});

describe('several movements of one level in one call (a stock pass with many reports of one SKU)', () => {
  it('applies them in the order given: a key seen before or given twice once, a count against the level then', async () => {
    await adjust(1, 'seen-before-in-a-call');
    const start = await onHand();
    const run = `s${Date.now()}`;
    const m = (change: { delta?: number; setTo?: number; reservedDelta?: number }, key: string) => ({
      variantId,
      locationId,
      ...change,
      reason: 'adjustment' as const,
      source: 'manual',
      idempotencyKey: key,
    });
    const results = await t.services.db.transaction((tx) =>
      applyMovements(tx, accountId, [
        m({ delta: -2 }, `${run}:a`),
        m({ delta: 5 }, 'seen-before-in-a-call'),
        m({ setTo: start + 10 }, `${run}:b`),
        m({ delta: -2 }, `${run}:a`),
        m({ delta: 0 }, `${run}:zero`),
        m({ delta: 3, reservedDelta: 1 }, `${run}:c`),
      ]),
    );
    expect(results.map((r) => [r.applied, r.delta, r.onHand])).toEqual([
      [true, -2, start - 2],
      [false, 0, start - 2],
      [true, 12, start + 10],
      [false, 0, start + 10],
      [false, 0, start + 10],
      [true, 3, start + 13],
    ]);
    expect(await onHand()).toBe(start + 13);
    const written = await t.services.db
      .select()
      .from(inventoryMovements)
      .where(eq(inventoryMovements.accountId, accountId))
      .orderBy(inventoryMovements.id);
    expect(
      written.filter((w) => w.idempotencyKey?.startsWith(run)).map((w) => [w.idempotencyKey, w.delta, w.onHandAfter]),
    ).toEqual([
      [`${run}:a`, -2, start - 2],
      [`${run}:b`, 12, start + 10],
      [`${run}:c`, 3, start + 13],
    ]);
  });
});

describe('movements a batch keeps until its end (DeferredLedger)', () => {
  const level = async (db: Pick<typeof t.services.db, 'select'> = t.services.db) => {
    const [row] = await db
      .select({ onHand: inventoryLevels.onHand, reserved: inventoryLevels.reserved })
      .from(inventoryLevels)
      .where(and(eq(inventoryLevels.variantId, variantId), eq(inventoryLevels.locationId, locationId)));
    return row;
  };
  const move = (delta: number, reservedDelta: number, key: string) => ({
    variantId,
    locationId,
    delta,
    reservedDelta,
    reason: 'order' as const,
    source: 'order',
    reference: 'ord_batch',
    idempotencyKey: key,
  });

  it('routes on a view that follows each kept movement, then writes them in order, one level many times', async () => {
    await adjust(20);
    const before = await level();
    const run = `k${Date.now()}`;
    const seen: number[] = [];
    await t.services.db.transaction(async (tx) => {
      const ledger = new DeferredLedger(tx, accountId, [variantId], [locationId]);
      const view = await ledger.available();
      seen.push(view.get(`${variantId}|${locationId}`) ?? 0);
      ledger.move(move(0, 4, `${run}:reserve:1`));
      ledger.move(move(3, 0, `${run}:claim:1`));
      ledger.move(move(-2, -2, `${run}:consume:1`));
      seen.push((await ledger.available()).get(`${variantId}|${locationId}`) ?? 0);
      // A level the batch did not lock is never kept.
      expect(() => ledger.move({ ...move(0, 1, `${run}:x`), locationId: 'loc_other' })).toThrow(/not locked/);
      // Nothing is written before the end.
      expect(await level(tx)).toEqual(before);
      await ledger.flush();
    });
    const free = (before?.onHand ?? 0) - (before?.reserved ?? 0);
    expect(seen).toEqual([free, free - 4 + 3 - 2 + 2]);
    expect(await level()).toEqual({ onHand: (before?.onHand ?? 0) + 1, reserved: (before?.reserved ?? 0) + 2 });
    const written = await t.services.db
      .select()
      .from(inventoryMovements)
      .where(eq(inventoryMovements.reference, 'ord_batch'))
      .orderBy(inventoryMovements.id);
    expect(written.map((m) => [m.idempotencyKey, m.delta, m.reservedDelta, m.onHandAfter])).toEqual([
      [`${run}:reserve:1`, 0, 4, before?.onHand],
      [`${run}:claim:1`, 3, 0, (before?.onHand ?? 0) + 3],
      [`${run}:consume:1`, -2, -2, (before?.onHand ?? 0) + 1],
    ]);
  });

  it('counts what it keeps in its view when the view is read after (a reversal before routing, after a settle)', async () => {
    await adjust(5);
    const run = `v${Date.now()}`;
    await t.services.db.transaction(async (tx) => {
      const ledger = new DeferredLedger(tx, accountId, [variantId], [locationId]);
      const before = (await ledger.available()).get(`${variantId}|${locationId}`) ?? 0;
      // Written and forgotten; then a claim's reversal is kept before anything reads the view again.
      ledger.move(move(0, 1, `${run}:reserve`));
      await ledger.settle();
      ledger.move(move(2, 0, `${run}:reversal`));
      expect((await ledger.available()).get(`${variantId}|${locationId}`)).toBe(before - 1 + 2);
      await ledger.flush();
      // Written, the view holds the same.
      expect((await ledger.available()).get(`${variantId}|${locationId}`)).toBe(before + 1);
    });
  });

  it('throws on a key used before and writes nothing of the batch', async () => {
    await adjust(1, 'used-before');
    const before = await level();
    const count = async () => (await t.services.db.select().from(inventoryMovements)).length;
    const movements = await count();
    await expect(
      t.services.db.transaction(async (tx) => {
        const ledger = new DeferredLedger(tx, accountId, [variantId], [locationId]);
        ledger.move(move(0, 1, `fresh-${Date.now()}`));
        ledger.move(move(-1, 0, 'used-before'));
        await ledger.flush();
      }),
    ).rejects.toThrow(/used before/);
    expect(await level()).toEqual(before);
    expect(await count()).toBe(movements);
  });
});
