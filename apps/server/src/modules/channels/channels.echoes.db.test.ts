// Stock events settled after their answer (channels.echoes.ts): events that arrive together settle together, and
// each is still judged alone: an echo of our push is recorded, a real change (or an event a pass already took) is
// left for the channel's stock pass.
import { inArray } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestApp } from '../../../test/app.ts';
import { inventoryMovements } from '../inventory/inventory.tables.ts';
import { type OrderWorld, orderWorld } from '../orders/orders.fixtures.ts';
import { settleStockEvent } from './channels.echoes.ts';
import { webhookEvents } from './channels.tables.ts';

type TestApp = Awaited<ReturnType<typeof createTestApp>>;
let t: TestApp;
let world: OrderWorld;

beforeAll(async () => {
  t = await createTestApp();
  // Every channel holds 5 of each SKU at S1 and S2, as acknowledged by our last push a minute ago.
  world = await orderWorld(t.services, ['A', 'B', 'C'], 5);
});
afterAll(() => t.close());

/** Square's inventory.count.updated for one count, stored as the acknowledgement stores it. */
function squareEvent(id: string, sku: string, store: string, quantity: number, attempts = 0) {
  const channel = world.channel.square;
  const payload = {
    data: {
      object: {
        inventory_counts: [
          {
            catalog_object_id: `square-item-${sku}`,
            location_id: store,
            state: 'IN_STOCK',
            quantity: String(quantity),
            calculated_at: new Date().toISOString(),
          },
        ],
      },
    },
  };
  const row = {
    id,
    provider: 'square' as const,
    eventId: `evt-${id}`,
    topic: 'inventory.count.updated',
    shopExternalId: channel.row.externalId as string,
    accountId: world.accountId,
    channelId: channel.id,
    payload,
    attempts,
  };
  const event = {
    provider: 'square' as const,
    eventId: row.eventId,
    topic: row.topic,
    shopExternalId: row.shopExternalId,
    payload,
    occurredAt: null,
  };
  return { row, event };
}

it('settles a burst together and judges each event alone', async () => {
  const events = [
    squareEvent('whe_echo_a', 'A', 'S1', 5),
    squareEvent('whe_echo_b', 'B', 'S1', 5),
    squareEvent('whe_echo_c', 'C', 'S2', 5),
    // A sale at the store: not what we pushed.
    squareEvent('whe_sale_a', 'A', 'S2', 3),
    // An echo that a stock pass took meanwhile: left to that pass, which records it.
    squareEvent('whe_taken_b', 'B', 'S2', 5, 1),
  ];
  await t.services.db.insert(webhookEvents).values(events.map((e) => e.row));
  const movementsBefore = (await t.services.db.select().from(inventoryMovements)).length;

  // Arriving together: the first settles at once, the rest wait for it and go in one settlement.
  await Promise.all(events.map((e) => settleStockEvent(t.services, world.channel.square.id, e.row.id, e.event)));

  const rows = await t.services.db
    .select()
    .from(webhookEvents)
    .where(
      inArray(
        webhookEvents.id,
        events.map((e) => e.row.id),
      ),
    );
  const outcome = Object.fromEntries(rows.map((r) => [r.id, r.processedAt ? r.outcome : 'waiting for the pass']));
  expect(outcome).toEqual({
    whe_echo_a: 'echo of our push: nothing to do',
    whe_echo_b: 'echo of our push: nothing to do',
    whe_echo_c: 'echo of our push: nothing to do',
    whe_sale_a: 'waiting for the pass',
    whe_taken_b: 'waiting for the pass',
  });
  // Settling moves no stock: the sale is the pass's to count.
  expect((await t.services.db.select().from(inventoryMovements)).length).toBe(movementsBefore);
});
