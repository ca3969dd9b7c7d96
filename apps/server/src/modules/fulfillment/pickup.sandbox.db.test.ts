// A pickup told to each channel's simulator over real HTTP (issue 15): an order placed for pickup in the sandbox
// shop is pulled in, goes ready for pickup and is picked up here, and the write-back job tells the channel, as a
// fulfillment write-back run on /syncs/. BigCommerce keeps it as the order's status (8 Awaiting Pickup, then 10
// Completed, each change a store/order/statusUpdated webhook); Shopify and Square as their pickup fulfillments.
// A retry sends nothing twice, and the channel's report of the change moves no stock here: the sale counts once.
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROVIDERS, type Provider, type SandboxWorld, startSandboxWorld } from '../../../test/sandbox-world.ts';
import { importOrders } from '../orders/orders.import.ts';
import { orderEvents, orders } from '../orders/orders.tables.ts';
import { syncs } from '../syncs/syncs.tables.ts';
import { pickedUp, pickupAtChannel, readyForPickup } from './fulfillment.pickup.ts';

let w: SandboxWorld;

beforeAll(async () => {
  w = await startSandboxWorld({
    shops: { shopify: 'pickup-h15', bigcommerce: 'pickh15', square: 'Pickup Corner Store' },
    seed: 16,
  });
}, 120_000);

afterAll(async () => {
  await w?.close();
});

/** BigCommerce's order status, as its API shows it. */
async function bcStatus(externalId: string) {
  const order = (await w.channelApi('bigcommerce', `/v2/orders/${externalId}`)) as {
    status_id: number;
    status: string;
  };
  return { status_id: order.status_id, status: order.status };
}

/** How many store/order/statusUpdated webhooks the BigCommerce simulator has sent. */
async function statusWebhooks() {
  const { deliveries } = (await w.control(
    'GET',
    `deliveries?provider=bigcommerce&shop=${w.controlShop('bigcommerce')}`,
  )) as {
    deliveries: { topic: string }[];
  };
  return deliveries.filter((d) => d.topic === 'store/order/statusUpdated').length;
}

/**
 * Switches the app's store/order/statusUpdated hook off and on again (PUT /v3/hooks/{id}): nothing listens at its
 * destination in this test, and BigCommerce deactivates a hook once a delivery has failed its last retry; after a
 * reactivation, the failures of deliveries sent before it no longer count.
 */
async function reactivateStatusHook() {
  const hooks = (await w.channelApi('bigcommerce', '/v3/hooks?scope=store/order/statusUpdated')) as {
    data: { id: number }[];
  };
  expect(hooks.data.length).toBeGreaterThan(0);
  for (const hook of hooks.data) {
    await w.channelApi('bigcommerce', `/v3/hooks/${hook.id}`, { is_active: false }, 'PUT');
    await w.channelApi('bigcommerce', `/v3/hooks/${hook.id}`, { is_active: true }, 'PUT');
  }
}

const runsOf = async (p: Provider, orderId: string) =>
  (
    await w.t.services.db
      .select({ status: syncs.status, trigger: syncs.trigger, message: syncs.message })
      .from(syncs)
      .where(
        and(
          eq(syncs.channelId, w.ch[p].id),
          eq(syncs.type, 'fulfillment_write_back'),
          sql`${syncs.options}->>'orderId' = ${orderId}`,
        ),
      )
      .orderBy(syncs.id)
  ).map((r) => `${r.trigger} ${r.status}`);

const tell = (orderId: string, stage: 'ready' | 'picked_up', retryCount = 0) =>
  pickupAtChannel(
    w.t.services,
    { orderId, accountId: w.tenant.accountId, stage },
    { retryCount, final: retryCount >= 5 },
  );

describe.each(PROVIDERS)('a pickup told to %s', (p) => {
  it('goes ready for pickup, then picked up, at the channel, once, as runs on /syncs/', async () => {
    const { externalId, order } = await w.placeOrder(p, { quantity: 1, fulfillmentType: 'pickup' });
    expect(order.fulfillmentType).toBe('pickup');
    const before = await w.level();
    const webhooksBefore = p === 'bigcommerce' ? await statusWebhooks() : 0;
    if (p === 'bigcommerce') await reactivateStatusHook();

    expect((await readyForPickup(w.t.services, w.actor(), order.id)).status).toBe(4);
    await tell(order.id, 'ready');
    if (p === 'bigcommerce') {
      expect(await bcStatus(externalId)).toEqual({ status_id: 8, status: 'Awaiting Pickup' });
      expect(await statusWebhooks()).toBe(webhooksBefore + 1);
      // A retry (its first answer lost) finds the status reached and changes nothing.
      await reactivateStatusHook();
      await tell(order.id, 'ready', 1);
      expect(await bcStatus(externalId)).toEqual({ status_id: 8, status: 'Awaiting Pickup' });
      expect(await statusWebhooks()).toBe(webhooksBefore + 1);
    } else {
      await tell(order.id, 'ready', 1);
    }

    expect((await pickedUp(w.t.services, w.actor(), order.id)).status).toBe(5);
    if (p === 'bigcommerce') await reactivateStatusHook();
    await tell(order.id, 'picked_up');
    if (p === 'bigcommerce') {
      expect(await bcStatus(externalId)).toEqual({ status_id: 10, status: 'Completed' });
      expect(await statusWebhooks()).toBe(webhooksBefore + 2);
    }
    expect(await runsOf(p, order.id)).toEqual(['change succeeded', 'retry succeeded', 'change succeeded']);
    const written = await w.t.services.db
      .select({ message: orderEvents.message })
      .from(orderEvents)
      .where(and(eq(orderEvents.orderId, order.id), eq(orderEvents.kind, 'write_back')));
    expect(written.map((e) => e.message)).toContain(`Marked picked up at ${w.ch[p].name}.`);

    // The units left the store once; the channel's own report of the change (pulled again) moves nothing more.
    const after = { onHand: (before?.onHand ?? 0) - 1, reserved: (before?.reserved ?? 0) - 1 };
    expect(await w.level()).toEqual(after);
    await importOrders(w.t.services, w.ch[p].id);
    expect(await w.level()).toEqual(after);
    const [row] = await w.t.services.db.select().from(orders).where(eq(orders.id, order.id));
    expect(row?.status).toBe(5);
  });
});

describe('a BigCommerce pickup the store cancelled meanwhile', () => {
  it('is not moved out of Cancelled: the run fails with the reason, and the timeline says so', async () => {
    const { externalId, order } = await w.placeOrder('bigcommerce', { quantity: 1, fulfillmentType: 'pickup' });
    await readyForPickup(w.t.services, w.actor(), order.id);
    await w.control('POST', `bigcommerce/${w.controlShop('bigcommerce')}/orders/${externalId}/cancel`);
    await tell(order.id, 'ready');
    expect(await bcStatus(externalId)).toEqual({ status_id: 5, status: 'Cancelled' });
    const reason = `BigCommerce order ${externalId} is Cancelled: its pickup cannot move there.`;
    const [run] = await w.t.services.db
      .select({ status: syncs.status, message: syncs.message })
      .from(syncs)
      .where(sql`${syncs.options}->>'orderId' = ${order.id}`);
    expect(run).toEqual({ status: 'failed', message: reason });
    const written = await w.t.services.db
      .select({ message: orderEvents.message })
      .from(orderEvents)
      .where(and(eq(orderEvents.orderId, order.id), eq(orderEvents.kind, 'write_back')));
    expect(written.map((e) => e.message)).toContain(reason);
  });
});
