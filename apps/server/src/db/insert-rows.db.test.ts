// insertRows stores what drizzle's insert stores (JSON, arrays, times, big numbers, nulls and defaults), in the
// order given, and answers the rows inserted. PGlite, and PostgreSQL with TEST_DATABASE_URL.
import { eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../../test/app.ts';
import { inventoryMovements } from '../modules/inventory/inventory.tables.ts';
import { orderWorld } from '../modules/orders/orders.fixtures.ts';
import { orders } from '../modules/orders/orders.tables.ts';
import { insertRows } from './insert-rows.ts';

let t: Awaited<ReturnType<typeof createTestApp>>;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

describe('insertRows', () => {
  it('stores what drizzle stores, defaults included, and answers the rows a conflict left in', async () => {
    const world = await orderWorld(t.services, ['TEE-1'], 1);
    const channel = world.channel.shopify;
    const placed = new Date('2026-11-20T10:11:12.345Z');
    const row = (externalId: string, extra: Partial<typeof orders.$inferInsert> = {}) => ({
      id: `ord_${externalId}_${Date.now()}`,
      accountId: world.accountId,
      channelId: channel.id,
      externalId,
      number: `#${externalId}`,
      status: 1,
      currency: 'EUR',
      customerName: "Zoë O'Neil",
      shippingAddress: { name: 'Zoë', address1: '1 "Quoted" St', city: null },
      tags: ['vip', 'a,b', '{odd}'],
      total: 9_007_199_254_740_991,
      placedAt: placed,
      providerUpdatedAt: placed,
      cancelReason: null,
      ...extra,
    });
    const viaDrizzle = [row('d1'), row('d2', { tags: [], note: 'x' })];
    const viaRows = [row('r1'), row('r2', { tags: [], note: 'x' })];
    await t.services.db.insert(orders).values(viaDrizzle);
    const returned = await insertRows(t.services.db, orders, [...viaRows, { ...row('d1'), id: 'ord_conflict' }], {
      onConflictDoNothing: true,
      returning: { id: orders.id, externalId: orders.externalId, total: orders.total },
    });
    // The third met the unique (channel, external id) of d1: left out, and not answered.
    expect(returned).toEqual(viaRows.map((r) => ({ id: r.id, externalId: r.externalId, total: r.total })));
    const read = async (ids: string[]) =>
      (await t.services.db.select().from(orders).where(inArray(orders.id, ids)).orderBy(orders.externalId)).map(
        ({ id, externalId, number, createdAt, updatedAt, ...rest }) => ({
          ...rest,
          recent: Date.now() - createdAt.getTime() < 60_000 && Date.now() - updatedAt.getTime() < 60_000,
        }),
      );
    const stored = await read(viaRows.map((r) => r.id));
    expect(stored).toEqual(await read(viaDrizzle.map((r) => r.id)));
    expect(stored[0]).toMatchObject({
      fulfillmentType: 'ship',
      flagged: false,
      subtotal: 0,
      tags: ['vip', 'a,b', '{odd}'],
      shippingAddress: { name: 'Zoë', address1: '1 "Quoted" St', city: null },
      placedAt: placed,
      recent: true,
    });
  });

  it('keeps the order given (serial ids follow it) and refuses a column some rows leave to the database', async () => {
    const world = await orderWorld(t.services, ['TEE-2'], 1);
    const variantId = world.variant['TEE-2'] as string;
    const locationId = world.location.S1 as string;
    const keys = Array.from({ length: 30 }, (_, i) => `order-${Date.now()}-${29 - i}`);
    const movement = (key: string) => ({
      accountId: world.accountId,
      variantId,
      locationId,
      delta: 1,
      onHandAfter: 1,
      reason: 'adjustment' as const,
      source: 'manual',
      idempotencyKey: key,
    });
    await insertRows(t.services.db, inventoryMovements, keys.map(movement));
    const written = await t.services.db
      .select({ key: inventoryMovements.idempotencyKey })
      .from(inventoryMovements)
      .where(eq(inventoryMovements.accountId, world.accountId))
      .orderBy(inventoryMovements.id);
    expect(written.map((w) => w.key).filter((k) => keys.includes(k as string))).toEqual(keys);
    const at = new Date();
    await expect(
      insertRows(t.services.db, inventoryMovements, [
        movement('with-time'),
        { ...movement('with-time-2'), createdAt: at },
      ]),
    ).rejects.toThrow(/createdAt is left out of some rows/);
  });
});
