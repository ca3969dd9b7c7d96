// Stock events judged as they are stored (channels.intake.ts): events that arrive together are stored together, and
// each is still judged alone: an echo of our push is stored as done, a real change (or a report of a level we do
// not know, or one made before our send) is left waiting for the channel's stock pass.
import { inArray } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestApp } from '../../../test/app.ts';
import { carriedReports } from '../inventory/inbound.events.ts';
import { inventoryMovements } from '../inventory/inventory.tables.ts';
import { type OrderWorld, orderWorld } from '../orders/orders.fixtures.ts';
import { ECHO_OUTCOME, storeReceived } from './channels.intake.ts';
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

/** Square's inventory.count.updated of these counts, as the acknowledgement receives it. */
function squareEvent(id: string, counts: { sku: string; store: string; quantity: number; at?: Date }[]) {
  const payload = {
    data: {
      object: {
        inventory_counts: counts.map((c) => ({
          catalog_object_id: `square-item-${c.sku}`,
          location_id: c.store,
          state: 'IN_STOCK',
          quantity: String(c.quantity),
          calculated_at: (c.at ?? new Date()).toISOString(),
        })),
      },
    },
  };
  return {
    id,
    event: {
      provider: 'square' as const,
      eventId: `evt-${id}-${Math.random()}`,
      topic: 'inventory.count.updated',
      shopExternalId: world.channel.square.row.externalId as string,
      payload,
      occurredAt: null,
    },
  };
}

it('judges each event stored in one write alone: echoes are stored done, anything else waits for the pass', async () => {
  const events = [
    squareEvent('echo_a', [{ sku: 'A', store: 'S1', quantity: 5 }]),
    squareEvent('echo_bc', [
      { sku: 'B', store: 'S1', quantity: 5 },
      { sku: 'C', store: 'S2', quantity: 5 },
    ]),
    // A sale at the store: not what we pushed.
    squareEvent('sale_a', [{ sku: 'A', store: 'S2', quantity: 3 }]),
    // One level an echo, the other a change: the event is the pass's.
    squareEvent('mixed_b', [
      { sku: 'B', store: 'S2', quantity: 5 },
      { sku: 'C', store: 'S1', quantity: 4 },
    ]),
    // A level we do not hold (an item of another catalog).
    squareEvent('unknown', [{ sku: 'Z', store: 'S1', quantity: 5 }]),
  ];
  const movementsBefore = (await t.services.db.select().from(inventoryMovements)).length;

  // Arriving together: the first is written at once, the rest wait for it and go in one write.
  const stored = await Promise.all(
    events.map((e) =>
      storeReceived(t.services, 'square', e.event, null, carriedReports({ ...e.event, receivedAt: new Date() })),
    ),
  );
  expect(stored.map((s) => s.echo)).toEqual([true, true, false, false, false]);
  const rows = await t.services.db
    .select()
    .from(webhookEvents)
    .where(
      inArray(
        webhookEvents.id,
        stored.map((s) => s.id as string),
      ),
    );
  const byId = new Map(rows.map((r) => [r.id, r]));
  const outcome = Object.fromEntries(
    events.map((e, i) => {
      const row = byId.get(stored[i]?.id as string);
      return [e.id, row?.processedAt ? `${row.outcome} (${row.attempts})` : 'waiting for the pass'];
    }),
  );
  expect(outcome).toEqual({
    echo_a: `${ECHO_OUTCOME} (1)`,
    echo_bc: `${ECHO_OUTCOME} (1)`,
    sale_a: 'waiting for the pass',
    mixed_b: 'waiting for the pass',
    unknown: 'waiting for the pass',
  });
  // Storing moves no stock: the sale is the pass's to count.
  expect((await t.services.db.select().from(inventoryMovements)).length).toBe(movementsBefore);
});

it('stores an event without reports (an order event, a thin BigCommerce one) as waiting', async () => {
  const e = squareEvent('no_reports', []);
  const stored = await storeReceived(t.services, 'square', { ...e.event, topic: 'order.created' }, null, null);
  expect(stored).toMatchObject({ echo: false, channelId: world.channel.square.id });
  const [row] = await t.services.db
    .select()
    .from(webhookEvents)
    .where(inArray(webhookEvents.id, [stored.id as string]));
  expect(row).toMatchObject({ processedAt: null, attempts: 0, outcome: null });
});
