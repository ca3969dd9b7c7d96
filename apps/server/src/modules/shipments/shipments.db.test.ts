// Shipments against the sandbox's carrier over real HTTP: rates, buying once (a double click, a retry, a crash
// between the carrier's answer and our commit), a carrier's refusal, stock moved once, partial shipments, the
// label PDF, and tracking webhooks (signed, stored once) moving the shipment and the order's timeline.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Shipment } from '@switchyard/contracts';
import type { RunningSandbox } from '@switchyard/sandbox';
import { SANDBOX_APPS } from '@switchyard/sandbox';
import { and, eq, isNull } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../../../test/app.ts';
import { startTestSandbox } from '../../../test/sandbox.ts';
import type { Actor } from '../../trpc/context.ts';
import { inventoryMovements } from '../inventory/inventory.tables.ts';
import { locations } from '../locations/locations.tables.ts';
import { ingestOrder } from '../orders/ingest.ts';
import { channelOrder, invariantViolations, level, type OrderWorld, orderWorld } from '../orders/orders.fixtures.ts';
import { orderAllocations, orderEvents, orders } from '../orders/orders.tables.ts';
import { buyShipment, recoverPurchases } from './shipments.buy.ts';
import { createShipment } from './shipments.service.ts';
import { getLabelSettings, updateLabelSettings } from './shipments.settings.ts';
import { carrierEvents, shipments } from './shipments.tables.ts';
import { processCarrierEvent } from './shipments.tracking.ts';

let sandbox: RunningSandbox;
let relay: Server;
let t: Awaited<ReturnType<typeof createTestApp>>;
let world: OrderWorld;
const SKUS = ['SHP-A', 'SHP-B', 'SHP-C'];

const actor = (): Actor => ({
  sessionId: 'test',
  userId: 'nobody',
  accountId: world.accountId,
  authorizationLevel: 'user',
  superUserRole: null,
});

beforeAll(async () => {
  sandbox = await startTestSandbox();
  // A real address for the app (driven with inject), where the carrier posts its tracking webhooks.
  relay = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const { host: _h, 'content-length': _l, ...headers } = req.headers;
    const out = await t.app.inject({
      method: 'POST',
      url: req.url ?? '/',
      headers: headers as Record<string, string>,
      payload: Buffer.concat(chunks),
    });
    res.writeHead(out.statusCode).end(out.rawPayload);
  });
  await new Promise<void>((r) => relay.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(relay.address() as AddressInfo).port}`;
  t = await createTestApp({ sandboxUrl: sandbox.url, env: { PUBLIC_URL: url } });
  world = await orderWorld(t.services, SKUS, 10);
  await t.services.db
    .update(locations)
    .set({ address: { address1: '1 Main St', city: 'Brooklyn', province: 'NY', zip: '11201', country: 'US' } })
    .where(eq(locations.accountId, world.accountId));
});

afterAll(async () => {
  await t?.close();
  await sandbox?.close();
  await new Promise((r) => relay?.close(r));
});

async function newOrder(lines: Record<string, number>, street = '9 Pine St') {
  const order = channelOrder(world, 'shopify', lines, {
    shippingAddress: {
      name: 'Grace Hopper',
      address1: street,
      city: 'Seattle',
      province: 'WA',
      zip: '98101',
      country: 'US',
    },
  });
  const { orderId } = await ingestOrder(t.services, world.channel.shopify, order);
  return orderId;
}

const orderRow = async (id: string) =>
  (await t.services.db.select().from(orders).where(eq(orders.id, id)))[0] as typeof orders.$inferSelect;

/** What the carrier holds for our shipment's parcel (by the reference we send). */
async function carrierShipments(shipment: Shipment) {
  const res = await fetch(`${sandbox.url}/easypost/v2/shipments?reference=${encodeURIComponent(`${shipment.id}/1`)}`, {
    headers: { authorization: `Basic ${Buffer.from(`${SANDBOX_APPS.easypost.apiKey}:`).toString('base64')}` },
  });
  return ((await res.json()) as { shipments: { tracking_code: string | null }[] }).shipments;
}

const movementsOf = async (orderId: string) =>
  t.services.db.select().from(inventoryMovements).where(eq(inventoryMovements.reference, orderId));

describe('shipments', () => {
  it('shops every carrier service for the parcels, cheapest and fastest marked', async () => {
    const orderId = await newOrder({ 'SHP-A': 1 });
    const s = await createShipment(t.services, actor(), orderId, { packages: [{ weight: 20 }, { weight: 8 }] });
    expect(s.status).toBe('rated');
    expect(s.rates).toHaveLength(9);
    expect(s.rates.filter((r) => r.cheapest)).toHaveLength(1);
    expect(s.rates.filter((r) => r.fastest)).toHaveLength(1);
    const cheapest = s.rates.find((r) => r.cheapest);
    expect(cheapest?.amount).toBe(Math.min(...s.rates.map((r) => r.amount)));
    expect(s.rates.find((r) => r.fastest)?.deliveryDays).toBe(1);
    expect(s.packages.map((p) => p.weight)).toEqual([20, 8]);
    expect(s.items).toHaveLength(1);
  });

  it('buys one label however it is asked (a double click, a retry): stock leaves once, the order is shipped', async () => {
    const orderId = await newOrder({ 'SHP-A': 2 });
    expect(await level(t.services, world, 'SHP-A')).toMatchObject({ reserved: expect.any(Number) });
    const before = await level(t.services, world, 'SHP-A');
    const s = await createShipment(t.services, actor(), orderId, { packages: [{ weight: 16 }] });
    const rate = s.rates.find((r) => r.cheapest)?.key as string;
    // A double click: two requests at once.
    const [a, b] = await Promise.all([
      buyShipment(t.services, actor(), orderId, { shipment_id: s.id, rate }),
      buyShipment(t.services, actor(), orderId, { shipment_id: s.id, rate }),
    ]);
    expect(a.status).toBe('purchased');
    expect(b.trackingCode).toBe(a.trackingCode);
    // And a retry later.
    const c = await buyShipment(t.services, actor(), orderId, { shipment_id: s.id, rate });
    expect(c.trackingCode).toBe(a.trackingCode);
    const atCarrier = await carrierShipments(s);
    expect(atCarrier.filter((x) => x.tracking_code)).toHaveLength(1);
    const after = await level(t.services, world, 'SHP-A');
    expect(after.onHand).toBe(before.onHand - 2);
    expect(after.reserved).toBe(before.reserved - 2);
    expect((await movementsOf(orderId)).filter((m) => m.delta !== 0)).toHaveLength(1);
    expect((await orderRow(orderId)).status).toBe(3);
    const allocations = await t.services.db
      .select()
      .from(orderAllocations)
      .where(eq(orderAllocations.orderId, orderId));
    expect(allocations.map((x) => x.status)).toEqual([3]);
    expect(await invariantViolations(t.services, world.accountId)).toEqual([]);
  });

  it('a crash between the carrier answer and our commit still ends with one label and one stock movement', async () => {
    const orderId = await newOrder({ 'SHP-B': 1 });
    const before = await level(t.services, world, 'SHP-B');
    const s = await createShipment(t.services, actor(), orderId, { packages: [{ weight: 10 }] });
    const rate = s.rates[0]?.key as string;
    await expect(
      buyShipment(
        t.services,
        actor(),
        orderId,
        { shipment_id: s.id, rate },
        {
          hooks: {
            afterCarrier: () => {
              throw new Error('process died');
            },
          },
        },
      ),
    ).rejects.toThrow('process died');
    const [stuck] = await t.services.db.select().from(shipments).where(eq(shipments.id, s.id));
    expect(stuck?.status).toBe('buying');
    expect(await level(t.services, world, 'SHP-B')).toEqual(before);
    // The merchant retries once the purchase is stale: it is finished from what the carrier has, not bought again.
    await t.services.db
      .update(shipments)
      .set({ buyingAt: new Date(Date.now() - 60_000) })
      .where(eq(shipments.id, s.id));
    const done = await buyShipment(t.services, actor(), orderId, { shipment_id: s.id, rate });
    expect(done.status).toBe('purchased');
    expect(await recoverPurchases(t.services, 0)).toBe(0);
    const atCarrier = await carrierShipments(s);
    expect(atCarrier).toHaveLength(1);
    expect(atCarrier[0]?.tracking_code).toBe(done.trackingCode);
    const after = await level(t.services, world, 'SHP-B');
    expect(after).toEqual({ onHand: before.onHand - 1, reserved: before.reserved - 1 });
  });

  it('the recovery job finishes a purchase a crash left behind', async () => {
    const orderId = await newOrder({ 'SHP-C': 1 });
    const s = await createShipment(t.services, actor(), orderId, { packages: [{ weight: 10 }] });
    await buyShipment(
      t.services,
      actor(),
      orderId,
      { shipment_id: s.id, rate: s.rates[0]?.key as string },
      {
        hooks: {
          afterCarrier: () => {
            throw new Error('crash');
          },
        },
      },
    ).catch(() => undefined);
    expect(await recoverPurchases(t.services, 0)).toBe(1);
    const [row] = await t.services.db.select().from(shipments).where(eq(shipments.id, s.id));
    expect(row?.status).toBe('purchased');
    expect((await orderRow(orderId)).status).toBe(3);
  });

  it("a carrier's refusal shows its reason and leaves nothing half-done", async () => {
    const orderId = await newOrder({ 'SHP-A': 1 }, 'UNDELIVERABLE 1 Nowhere Rd');
    const before = await level(t.services, world, 'SHP-A');
    const s = await createShipment(t.services, actor(), orderId, { packages: [{ weight: 12 }] });
    await expect(
      buyShipment(t.services, actor(), orderId, { shipment_id: s.id, rate: s.rates[0]?.key as string }),
    ).rejects.toMatchObject({ code: 'UPSTREAM_FAILED', message: expect.stringContaining('Address not found') });
    const [row] = await t.services.db.select().from(shipments).where(eq(shipments.id, s.id));
    expect(row).toMatchObject({ status: 'rated', trackingCode: null });
    expect(row?.error).toContain('Address not found');
    expect(await level(t.services, world, 'SHP-A')).toEqual(before);
    expect((await orderRow(orderId)).status).toBe(1);
    // The carrier down when rating: no shipment is left behind.
    const me = (await (
      await fetch(`${sandbox.url}/easypost/v2/users`, {
        headers: { authorization: `Basic ${Buffer.from(`${SANDBOX_APPS.easypost.apiKey}:`).toString('base64')}` },
      })
    ).json()) as { id: string };
    await fetch(`${sandbox.url}/_control/easypost/${me.id}/faults`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ rate5xx: 1 }),
    });
    try {
      const count = (await t.services.db.select().from(shipments).where(eq(shipments.orderId, orderId))).length;
      await expect(createShipment(t.services, actor(), orderId, { packages: [{ weight: 12 }] })).rejects.toMatchObject({
        code: 'UPSTREAM_FAILED',
      });
      expect((await t.services.db.select().from(shipments).where(eq(shipments.orderId, orderId))).length).toBe(count);
    } finally {
      await fetch(`${sandbox.url}/_control/easypost/${me.id}/faults`, { method: 'DELETE' });
    }
  });

  it('ships part of an order, then the rest', async () => {
    const orderId = await newOrder({ 'SHP-A': 1, 'SHP-B': 1 });
    const allocations = await t.services.db
      .select()
      .from(orderAllocations)
      .where(eq(orderAllocations.orderId, orderId));
    const first = allocations[0] as (typeof allocations)[number];
    const s1 = await createShipment(t.services, actor(), orderId, {
      packages: [{ weight: 8 }],
      items: [{ allocation_id: first.id }],
    });
    await buyShipment(t.services, actor(), orderId, { shipment_id: s1.id, rate: s1.rates[0]?.key as string });
    expect((await orderRow(orderId)).status).toBe(2);
    const s2 = await createShipment(t.services, actor(), orderId, { packages: [{ weight: 8 }] });
    expect(s2.items.map((i) => i.allocationId)).not.toContain(first.id);
    await buyShipment(t.services, actor(), orderId, { shipment_id: s2.id, rate: s2.rates[0]?.key as string });
    expect((await orderRow(orderId)).status).toBe(3);
    await expect(createShipment(t.services, actor(), orderId, { packages: [{ weight: 8 }] })).rejects.toMatchObject({
      code: 'VALIDATION',
    });
  });

  it('serves the label PDF and the REST calls, and refuses bad input with a clear message', async () => {
    const orderId = await newOrder({ 'SHP-C': 1 });
    const bad = await t.app.inject({
      method: 'POST',
      url: `/api/v2/orders/${orderId}/shipments`,
      headers: world.headers,
      payload: { packages: [{ weight: 0 }] },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toContain('Weight must be more than 0 ounces.');
    const created = await t.app.inject({
      method: 'POST',
      url: `/api/v2/orders/${orderId}/shipments`,
      headers: world.headers,
      payload: { packages: [{ weight: 18 }], label_size: 'letter' },
    });
    expect(created.statusCode).toBe(200);
    const s = created.json<Shipment>();
    const fastest = s.rates.find((r) => r.fastest)?.key;
    const bought = await t.app.inject({
      method: 'POST',
      url: `/api/v2/orders/${orderId}/shipments/buy`,
      headers: world.headers,
      payload: { shipment_id: s.id, rate: fastest },
    });
    expect(bought.statusCode).toBe(200);
    expect(bought.json<Shipment>().trackingCode).toBeTruthy();
    const list = await t.app.inject({
      method: 'GET',
      url: `/api/v2/orders/${orderId}/shipments`,
      headers: world.headers,
    });
    expect(list.json<{ results: Shipment[] }>().results.map((x) => x.id)).toEqual([s.id]);
    const label = await t.app.inject({
      method: 'POST',
      url: '/api/frontend/shipping/getShippingLabel',
      headers: world.headers,
      payload: { shipment_id: s.id },
    });
    expect(label.statusCode).toBe(200);
    expect(label.headers['content-type']).toContain('application/pdf');
    expect(label.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    expect(label.rawPayload.toString('latin1')).toMatch(/MediaBox \[0 0 612 792\]/);
    for (const pkg of ['abc', 0, 11]) {
      const badPackage = await t.app.inject({
        method: 'POST',
        url: '/api/frontend/shipping/getShippingLabel',
        headers: world.headers,
        payload: { shipment_id: s.id, package: pkg },
      });
      expect(badPackage.statusCode).toBe(400);
      expect(badPackage.json()).toEqual({
        code: 400,
        message: 'Invalid body: package: Package must be a whole number from 1 to 10',
      });
    }
  });

  it('tracking webhooks (signed, stored once) move the shipment and write the timeline', async () => {
    const orderId = await newOrder({ 'SHP-A': 1 });
    const s = await createShipment(t.services, actor(), orderId, { packages: [{ weight: 8 }] });
    const bought = await buyShipment(t.services, actor(), orderId, {
      shipment_id: s.id,
      rate: s.rates.find((r) => r.key === 'USPS:GroundAdvantage')?.key as string,
    });
    await fetch(`${sandbox.url}/_control/easypost/clock`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ hours: 13 }),
    });
    await fetch(`${sandbox.url}/_control/deliveries/settle`, { method: 'POST' });
    const stored = await t.services.db
      .select()
      .from(carrierEvents)
      .where(and(eq(carrierEvents.trackingCode, bought.trackingCode as string), isNull(carrierEvents.processedAt)));
    expect(stored.map((e) => e.description).sort()).toEqual(['tracker.created', 'tracker.updated']);
    for (const e of stored) await processCarrierEvent(t.services, e.id);
    const [row] = await t.services.db.select().from(shipments).where(eq(shipments.id, s.id));
    expect(row?.trackingStatus).toBe('in_transit');
    const timeline = await t.services.db.select().from(orderEvents).where(eq(orderEvents.orderId, orderId));
    expect(timeline.some((e) => e.kind === 'shipment' && e.message.includes('In transit'))).toBe(true);
    // The purchase is told with the service's name as the screens say it.
    expect(timeline.find((e) => e.message.startsWith('Label bought'))?.message).toMatch(
      /^Label bought: USPS Ground Advantage, 1 parcel, tracking /,
    );
    // A forged delivery is refused.
    const forged = await t.app.inject({
      method: 'POST',
      url: '/webhooks/easypost',
      headers: { 'content-type': 'application/json', 'x-hmac-signature': 'hmac-sha256-hex=00' },
      payload: JSON.stringify({ id: 'evt_forged', description: 'tracker.updated', result: { tracking_code: 'x' } }),
    });
    expect(forged.statusCode).toBe(401);
  });

  it('shops only the services offered in the settings, on the label size they set', async () => {
    expect(await getLabelSettings(t.services.db, world.accountId)).toMatchObject({ label_size: '4x6', services: [] });
    await updateLabelSettings(t.services.db, actor(), {
      label_size: 'letter',
      weight_unit: 'lb',
      default_package: { weight: 32, length: 10, width: 8, height: 4 },
      services: ['USPS:Priority', 'UPS:Ground', 'USPS:Priority'],
    });
    try {
      const orderId = await newOrder({ 'SHP-B': 1 });
      const s = await createShipment(t.services, actor(), orderId, { packages: [{ weight: 16 }] });
      expect(s.rates.map((r) => r.key).sort()).toEqual(['UPS:Ground', 'USPS:Priority']);
      expect(s.labelSize).toBe('letter');
      expect((await getLabelSettings(t.services.db, world.accountId)).services).toEqual([
        'USPS:Priority',
        'UPS:Ground',
      ]);
    } finally {
      await updateLabelSettings(t.services.db, actor(), {});
    }
  });
});
