// A shipment written back to each channel's simulator over real HTTP: an order placed in the sandbox shop is
// pulled in, a label is bought from the sandbox's carrier, and the write-back job fulfils it at the channel
// with the tracking number (Shopify fulfillmentCreate on the store's fulfillment order, BigCommerce V2
// shipment, Square's SHIPMENT fulfillment), once: a retry of the job sends nothing twice. The channel's own
// stock moves as the real one's does (Shopify: committed falls, available stays), so our ledger counts the
// sale once.
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROVIDERS, type Provider, type SandboxWorld, startSandboxWorld } from '../../../test/sandbox-world.ts';
import { connectorFor } from '../channels/channels.service.ts';
import { importOrders } from '../orders/orders.import.ts';
import { orders } from '../orders/orders.tables.ts';
import { syncs } from '../syncs/syncs.tables.ts';
import { buyShipment } from './shipments.buy.ts';
import { createShipment } from './shipments.service.ts';
import { shipments } from './shipments.tables.ts';
import { writeBackShipment } from './shipments.writeback.ts';

let w: SandboxWorld;

beforeAll(async () => {
  w = await startSandboxWorld({
    shops: { shopify: 'ship-shop', bigcommerce: 'shiph15', square: 'Ship Corner Store' },
    seed: 15,
  });
}, 120_000);

afterAll(async () => {
  await w?.close();
});

/** The tracking numbers the channel shows on the order. */
async function trackingAt(p: Provider, externalId: string): Promise<string[]> {
  if (p === 'shopify') {
    const res = (await w.channelApi(p, '', {
      query: 'query($id: ID!) { order(id: $id) { displayFulfillmentStatus fulfillments { trackingInfo { number } } } }',
      variables: { id: externalId },
    })) as { data: { order: { fulfillments: { trackingInfo: { number: string }[] }[] } } };
    return res.data.order.fulfillments.flatMap((f) => f.trackingInfo.map((i) => i.number));
  }
  if (p === 'bigcommerce') {
    const res = await w.channelApi(p, `/v2/orders/${externalId}/shipments`);
    return (Array.isArray(res) ? res : []).map((s: { tracking_number: string }) => s.tracking_number);
  }
  const res = (await w.channelApi(p, `/v2/orders/${externalId}`)) as {
    order: { fulfillments?: { type: string; state: string; shipment_details?: { tracking_number?: string } }[] };
  };
  return (res.order.fulfillments ?? [])
    .filter((f) => f.type === 'SHIPMENT' && f.state === 'COMPLETED')
    .map((f) => f.shipment_details?.tracking_number ?? '');
}

describe.each(PROVIDERS)('shipment written back to %s', (p) => {
  it('fulfils the order at the channel with the tracking number, once', async () => {
    const { t, tenant, ch, sku, actor, control, controlShop, level } = w;
    const location = await w.channelLocation(p);
    const { externalId, order } = await w.placeOrder(p, { quantity: 2 });
    const placed = { orderId: externalId };
    const orderId = order.id;
    if (!order.shippingAddress?.address1)
      await t.services.db
        .update(orders)
        .set({
          shippingAddress: {
            name: 'Ada Lovelace',
            address1: '9 Pine St',
            city: 'Seattle',
            province: 'WA',
            zip: '98101',
            country: 'US',
          },
        })
        .where(eq(orders.id, orderId));
    const before = await level();
    const s = await createShipment(t.services, actor(), orderId, { packages: [{ weight: 16 }] });
    const bought = await buyShipment(t.services, actor(), orderId, {
      shipment_id: s.id,
      rate: s.rates.find((r) => r.cheapest)?.key as string,
    });
    expect(await level()).toEqual({ onHand: (before?.onHand ?? 0) - 2, reserved: (before?.reserved ?? 0) - 2 });
    // What the channel itself offers at the store: a shipment moves none of it (Shopify: committed falls, available
    // stays; BigCommerce and Square took the units when the order was placed).
    const offered = async () => {
      const snap = (await control('GET', `${p}/${controlShop(p)}`)) as {
        stock: Record<string, Record<string, number>>;
      };
      const row = snap.stock[sku] ?? {};
      return row[location] ?? row[location.split('/').pop() as string];
    };
    const offeredBefore = await offered();
    await writeBackShipment(
      t.services,
      { shipmentId: s.id, accountId: tenant.accountId },
      { retryCount: 0, final: false },
    );
    const [row] = await t.services.db.select().from(shipments).where(eq(shipments.id, s.id));
    expect(row?.writeBackStatus, row?.writeBackMessage ?? '').toBe('ok');
    expect(await trackingAt(p, placed.orderId)).toEqual([bought.trackingCode]);
    expect(offeredBefore).toBeTypeOf('number');
    expect(await offered()).toBe(offeredBefore);
    // A retried job (its first answer lost) sends nothing twice.
    await t.services.db
      .update(shipments)
      .set({ writeBackStatus: 'failed', channelFulfillmentId: null })
      .where(eq(shipments.id, s.id));
    await writeBackShipment(
      t.services,
      { shipmentId: s.id, accountId: tenant.accountId },
      { retryCount: 1, final: false },
    );
    expect(await trackingAt(p, placed.orderId)).toEqual([bought.trackingCode]);
    const runs = await t.services.db
      .select()
      .from(syncs)
      .where(and(eq(syncs.channelId, ch[p].id), eq(syncs.type, 'fulfillment_write_back')));
    expect(runs.map((r) => r.status)).toEqual(['succeeded', 'succeeded']);
    // The channel's report of its own fulfilment (pulled again) moves nothing more here.
    await importOrders(t.services, ch[p].id);
    expect(await level()).toEqual({ onHand: (before?.onHand ?? 0) - 2, reserved: (before?.reserved ?? 0) - 2 });
    const [after] = await t.services.db.select().from(orders).where(eq(orders.id, orderId));
    expect(after?.status).toBe(3);
  });
});

describe.each(PROVIDERS)('part of a line written back to %s', (p) => {
  it('carries the shipped quantity to the channel, twice, and the sale moves stock once', async () => {
    const { t, tenant, ch, actor, level } = w;
    const { externalId, order } = await w.placeOrder(p, { quantity: 2 });
    if (!order.shippingAddress?.address1)
      await t.services.db
        .update(orders)
        .set({
          shippingAddress: { name: 'Ada', address1: '9 Pine St', city: 'Seattle', zip: '98101', country: 'US' },
        })
        .where(eq(orders.id, order.id));
    const before = await level();
    const [allocation] = (await createShipment(t.services, actor(), order.id, { packages: [{ weight: 8 }] })).items;
    const fulfilledThere = async () => {
      const there = await connectorFor(t.services, await w.rowOf(p)).getOrder?.(externalId);
      return there?.lines.reduce((n, l) => n + (l.fulfilledQuantity ?? 0), 0);
    };
    const ship = async (quantity?: number) => {
      const s = await createShipment(t.services, actor(), order.id, {
        packages: [{ weight: 8 }],
        items: [{ allocation_id: allocation?.allocationId as string, ...(quantity ? { quantity } : {}) }],
      });
      return buyShipment(t.services, actor(), order.id, { shipment_id: s.id, rate: s.rates[0]?.key as string });
    };
    const write = async (shipmentId: string, retryCount = 0) => {
      await writeBackShipment(t.services, { shipmentId, accountId: tenant.accountId }, { retryCount, final: false });
      const [row] = await t.services.db.select().from(shipments).where(eq(shipments.id, shipmentId));
      expect(row?.writeBackStatus, row?.writeBackMessage ?? '').toBe('ok');
    };

    const first = await ship(1);
    expect(first.items.map((i) => i.quantity)).toEqual([1]);
    await write(first.id);
    expect(await fulfilledThere()).toBe(1);
    expect(await trackingAt(p, externalId)).toEqual([first.trackingCode]);
    expect(await level()).toEqual({ onHand: (before?.onHand ?? 0) - 1, reserved: (before?.reserved ?? 0) - 1 });
    // Pulled again, the channel's one fulfilled unit is the one we shipped: nothing more moves.
    await importOrders(t.services, ch[p].id);
    expect(await level()).toEqual({ onHand: (before?.onHand ?? 0) - 1, reserved: (before?.reserved ?? 0) - 1 });

    // The rest ships; before its write-back, a retry of the first one (its answer lost) finds it at the
    // channel and sends nothing twice.
    const second = await ship();
    expect(second.items.map((i) => i.quantity)).toEqual([1]);
    await t.services.db
      .update(shipments)
      .set({ writeBackStatus: 'failed', channelFulfillmentId: null })
      .where(eq(shipments.id, first.id));
    await write(first.id, 1);
    expect(await fulfilledThere()).toBe(1);
    await write(second.id);
    expect(await fulfilledThere()).toBe(2);
    expect((await trackingAt(p, externalId)).sort()).toEqual(
      [first.trackingCode, second.trackingCode].sort() as string[],
    );

    await importOrders(t.services, ch[p].id);
    expect(await level()).toEqual({ onHand: (before?.onHand ?? 0) - 2, reserved: (before?.reserved ?? 0) - 2 });
    const [after] = await t.services.db.select().from(orders).where(eq(orders.id, order.id));
    expect(after?.status).toBe(3);
  });
});
