// The ledger under concurrency: adjustments of one level in separate transactions at once all count, and a
// cause replayed at the same time is applied once. On PGlite and, with TEST_DATABASE_URL, on a server.
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../../../test/app.ts';
import { createSignedInAccount } from '../../../test/factories.ts';
import { newId } from '../../lib/ids.ts';
import { locations } from '../locations/locations.tables.ts';
import { products, variants } from '../products/products.tables.ts';
import { inventoryLevels, inventoryMovements } from './inventory.tables.ts';
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
