// A channel's level rows locked for a transaction: made when first named, each once, in (variant, location) order,
// and a second transaction naming the same level waits for the first. On PGlite and, with TEST_DATABASE_URL, a server.
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../../../test/app.ts';
import { createSignedInAccount } from '../../../test/factories.ts';
import { newId } from '../../lib/ids.ts';
import { locations } from '../locations/locations.tables.ts';
import { insertChannel, insertProduct } from '../syncs/syncs.fixtures.ts';
import { type ChannelLevelRef, lockLevelRows } from './channel-levels.ts';
import { channelStock } from './inventory.tables.ts';

let t: Awaited<ReturnType<typeof createTestApp>>;
let accountId: string;
let channelId: string;
let variantIds: string[];
const locationId = newId('loc');

beforeAll(async () => {
  t = await createTestApp();
  ({ accountId } = await createSignedInAccount(t.services));
  ({ id: channelId } = await insertChannel(t.services.db, accountId));
  await t.services.db.insert(locations).values({ id: locationId, accountId, name: 'Main', storeId: 'S-1' });
  const { variantIds: bySku } = await insertProduct(t.services.db, accountId, { title: 'Levels' }, [
    { sku: 'LVL-A' },
    { sku: 'LVL-B' },
    { sku: 'LVL-C' },
  ]);
  variantIds = ['LVL-A', 'LVL-B', 'LVL-C'].map((sku) => bySku[sku] as string);
});
afterAll(async () => {
  await t?.close();
});

const level = (variantId: string, externalLocationId: string): ChannelLevelRef => ({
  variantId,
  externalLocationId,
  locationId,
  inventoryItemId: `item-${variantId}`,
});

const lock = (levels: ChannelLevelRef[], during?: () => Promise<void>) =>
  t.services.db.transaction(async (tx) => {
    const rows = await lockLevelRows(tx, accountId, channelId, levels, (named) =>
      tx
        .select({ variantId: channelStock.variantId, externalLocationId: channelStock.externalLocationId })
        .from(channelStock)
        .where(and(eq(channelStock.channelId, channelId), named))
        .orderBy(channelStock.variantId, channelStock.externalLocationId)
        .for('update'),
    );
    await during?.();
    return rows;
  });

const stored = async () =>
  (
    await t.services.db
      .select({
        variantId: channelStock.variantId,
        externalLocationId: channelStock.externalLocationId,
        inventoryItemId: channelStock.inventoryItemId,
        locationId: channelStock.locationId,
      })
      .from(channelStock)
      .where(eq(channelStock.channelId, channelId))
  )
    .map((r) => `${r.variantId}|${r.externalLocationId}|${r.inventoryItemId}|${r.locationId}`)
    .sort();

describe('lockLevelRows', () => {
  it('makes the levels first named, with the ids given, and answers every level named once', async () => {
    const [a, b] = variantIds as [string, string];
    const first = await lock([level(b, 'X-1'), level(a, 'X-2')]);
    expect(first.map((r) => `${r.variantId}|${r.externalLocationId}`).sort()).toEqual([`${a}|X-2`, `${b}|X-1`].sort());
    expect(await stored()).toEqual([`${a}|X-2|item-${a}|${locationId}`, `${b}|X-1|item-${b}|${locationId}`].sort());

    // Known and new together: the known one is not made again, the new one is made, both are answered.
    const second = await lock([level(a, 'X-2'), level(a, 'X-1')]);
    expect(second.map((r) => `${r.variantId}|${r.externalLocationId}`).sort()).toEqual([`${a}|X-1`, `${a}|X-2`]);
    expect(await stored()).toHaveLength(3);
  });

  it('holds the levels until the transaction ends: a second one naming the same level waits for it', async () => {
    const c = variantIds[2] as string;
    const order: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    let locked!: () => void;
    const firstHolds = new Promise<void>((r) => {
      locked = r;
    });
    const first = lock([level(c, 'Y-1')], async () => {
      locked();
      await held;
      order.push('first ends');
    });
    await firstHolds;
    const second = lock([level(c, 'Y-1')]).then((rows) => {
      order.push('second locked');
      return rows;
    });
    await new Promise((r) => setTimeout(r, 150));
    expect(order).toEqual([]);
    release();
    const [, rows] = await Promise.all([first, second]);
    expect(order).toEqual(['first ends', 'second locked']);
    expect(rows).toHaveLength(1);
    expect((await stored()).filter((s) => s.startsWith(`${c}|`))).toHaveLength(1);
  });
});
