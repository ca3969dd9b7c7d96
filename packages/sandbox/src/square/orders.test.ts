import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Square, SquareClient, SquareError, serialization, WebhooksHelper } from 'square';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SANDBOX_APPS } from '../apps.ts';
import type { ShopSnapshot } from '../context.ts';
import { type RunningSandbox, startSandbox } from '../server.ts';

/**
 * Square orders through the official `square` SDK over real HTTP: every Orders call the connector makes
 * (CreateOrder, RetrieveOrder, BatchRetrieveOrders, SearchOrders, UpdateOrder), each answer also checked
 * strictly against the SDK's own schema (no missing required field, no field Square does not have), and
 * the order webhooks verified with the SDK's WebhooksHelper and parsed with its event schemas.
 */

const APP = SANDBOX_APPS.square;
const SIGNATURE_KEY = 'square-orders-signature-key';
const REDIRECT = 'https://app.example.com/channels/square/callback';

let sandbox: RunningSandbox;
let receiver: Server;
let receiverUrl: string;
const received: { signature: string; body: string }[] = [];
/** Every raw answer the SDK was given, newest last. */
const answers: unknown[] = [];

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      received.push({ signature: String(req.headers['x-square-hmacsha256-signature']), body });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks/square`;
  sandbox = await startSandbox({
    port: 0,
    shopSize: { products: 12, locations: 2 },
    webhookRetryDelayMs: 10,
    square: { webhookUrl: receiverUrl, signatureKey: SIGNATURE_KEY },
  });
});

afterAll(async () => {
  await sandbox.close();
  await new Promise((r) => receiver.close(r));
});

beforeEach(() => {
  received.length = 0;
});

const STRICT = { unrecognizedObjectKeys: 'fail', skipValidation: false } as const;
const lastAnswer = () => answers[answers.length - 1];

async function post(url: string, body: unknown) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  // biome-ignore lint/suspicious/noExplicitAny: test helper over JSON answers
  return { status: res.status, body: (await res.json()) as any };
}

/** A seller who granted the app everything, and an SDK client with its token pointed at the sandbox. */
async function seller(business: string) {
  const base = `${sandbox.url}/square`;
  const scope = 'MERCHANT_PROFILE_READ ITEMS_READ INVENTORY_READ ORDERS_READ ORDERS_WRITE PAYMENTS_READ';
  const decision = await fetch(`${base}/oauth2/authorize`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      client_id: APP.applicationId,
      scope,
      state: 's',
      redirect_uri: REDIRECT,
      business,
      decision: 'allow',
    }),
  });
  const code = new URL(decision.headers.get('location') as string).searchParams.get('code');
  const token = await post(`${base}/oauth2/token`, {
    client_id: APP.applicationId,
    client_secret: APP.applicationSecret,
    code,
    grant_type: 'authorization_code',
    redirect_uri: REDIRECT,
  });
  expect(token.status).toBe(200);
  const client = new SquareClient({
    token: token.body.access_token,
    baseUrl: base,
    maxRetries: 0,
    fetch: async (input, init) => {
      const res = await fetch(input, init);
      answers.push(await res.clone().json());
      return res;
    },
  });
  const merchantId = token.body.merchant_id as string;
  const snapshot = async () =>
    (await (await fetch(`${sandbox.url}/_control/square/${merchantId}`)).json()) as ShopSnapshot;
  const { locations = [] } = await client.locations.list();
  const variations = (await client.catalog.list({ types: 'ITEM_VARIATION' })).data;
  return { client, merchantId, snapshot, locations, variations };
}

/** The deliveries so far, each verified with the SDK's helper and parsed with the SDK's event schema. */
async function webhooks() {
  await sandbox.ctx.webhooks.settled();
  const out: { type: string; data: Record<string, unknown> }[] = [];
  for (const d of received) {
    expect(
      await WebhooksHelper.verifySignature({
        requestBody: d.body,
        signatureHeader: d.signature,
        signatureKey: SIGNATURE_KEY,
        notificationUrl: receiverUrl,
      }),
    ).toBe(true);
    const raw = JSON.parse(d.body);
    const schema = {
      'order.created': serialization.OrderCreatedEvent,
      'order.updated': serialization.OrderUpdatedEvent,
      'order.fulfillment.updated': serialization.OrderFulfillmentUpdatedEvent,
    }[raw.type as string];
    if (schema) schema.parseOrThrow(raw, STRICT);
    const key = raw.data.type as string;
    const inner = raw.data.object[key];
    out.push({ type: raw.type, data: Array.isArray(inner) ? { type: key, [key]: inner } : { type: key, ...inner } });
  }
  return out;
}

const sdkError = async (promise: Promise<unknown>) => {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SquareError);
  return err as SquareError;
};

describe('Square orders through the official SDK', () => {
  it('creates a curbside pickup order, reads, searches, advances and cancels it; no stock moves while unpaid', async () => {
    const { client, snapshot, locations, variations } = await seller('Pickup Pantry');
    const location = locations[1]?.id as string;
    const variation = variations[0] as Square.CatalogObject.ItemVariation;
    const before = await snapshot();
    const since = new Date().toISOString();
    const request: Square.CreateOrderRequest = {
      idempotencyKey: 'create-1',
      order: {
        locationId: location,
        referenceId: 'web-77',
        lineItems: [{ catalogObjectId: variation.id, quantity: '2' }],
        fulfillments: [
          {
            type: 'PICKUP',
            pickupDetails: {
              recipient: { displayName: 'Ada Lovelace', emailAddress: 'ada@example.com', phoneNumber: '+15035550100' },
              scheduleType: 'SCHEDULED',
              pickupAt: new Date(Date.now() + 3_600_000).toISOString(),
              isCurbsidePickup: true,
              curbsidePickupDetails: { curbsideDetails: 'Red van' },
            },
          },
        ],
      },
    };
    const { order } = await client.orders.create(request);
    serialization.CreateOrderResponse.parseOrThrow(lastAnswer(), STRICT);
    if (!order?.id) throw new Error('no order');
    expect(order).toMatchObject({ locationId: location, state: 'OPEN', version: 1, referenceId: 'web-77' });
    const price = (variation.itemVariationData?.priceMoney?.amount ?? 0n) as bigint;
    expect(order.lineItems?.[0]).toMatchObject({ quantity: '2', basePriceMoney: { amount: price } });
    expect(order.totalMoney?.amount).toBe(price * 2n);
    expect(order.netAmountDueMoney?.amount).toBe(price * 2n);
    expect(order.fulfillments?.[0]).toMatchObject({
      type: 'PICKUP',
      state: 'PROPOSED',
      pickupDetails: {
        isCurbsidePickup: true,
        curbsidePickupDetails: { curbsideDetails: 'Red van' },
        recipient: { displayName: 'Ada Lovelace', emailAddress: 'ada@example.com' },
      },
    });
    expect(order.tenders ?? []).toEqual([]);

    // The same key gives the same order; the same key with another body is refused.
    expect((await client.orders.create(request)).order?.id).toBe(order.id);
    const reused = await sdkError(
      client.orders.create({ ...request, order: { ...request.order, locationId: location, referenceId: 'x' } }),
    );
    expect(reused.statusCode).toBe(400);
    expect(reused.errors[0]).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
    const noRecipient = await sdkError(
      client.orders.create({
        order: {
          locationId: location,
          lineItems: [{ catalogObjectId: variation.id, quantity: '1' }],
          fulfillments: [{ type: 'PICKUP', pickupDetails: { scheduleType: 'ASAP' } }],
        },
      }),
    );
    expect(noRecipient.errors[0]).toMatchObject({ code: 'MISSING_REQUIRED_PARAMETER' });
    expect((await snapshot()).stock).toEqual(before.stock);

    const got = await client.orders.get({ orderId: order.id });
    serialization.GetOrderResponse.parseOrThrow(lastAnswer(), STRICT);
    expect(got.order).toEqual(order);
    const batch = await client.orders.batchGet({ locationId: location, orderIds: [order.id, 'NOSUCHORDER'] });
    serialization.BatchGetOrdersResponse.parseOrThrow(lastAnswer(), STRICT);
    expect(batch.orders?.map((o) => o.id)).toEqual([order.id]);

    const search = (states: Square.OrderState[]) =>
      client.orders.search({
        locationIds: locations.map((l) => l.id as string),
        query: {
          filter: { dateTimeFilter: { updatedAt: { startAt: since } }, stateFilter: { states } },
          sort: { sortField: 'UPDATED_AT', sortOrder: 'ASC' },
        },
      });
    const open = await search(['OPEN', 'COMPLETED']);
    serialization.SearchOrdersResponse.parseOrThrow(lastAnswer(), STRICT);
    expect(open.orders?.map((o) => o.id)).toEqual([order.id]);
    expect((await search(['CANCELED'])).orders ?? []).toEqual([]);

    const uid = order.fulfillments?.[0]?.uid as string;
    const accepted = await client.orders.update({
      orderId: order.id,
      idempotencyKey: 'accept-1',
      order: { locationId: location, version: 1, fulfillments: [{ uid, state: 'RESERVED' }] },
    });
    serialization.UpdateOrderResponse.parseOrThrow(lastAnswer(), STRICT);
    expect(accepted.order).toMatchObject({ version: 2, fulfillments: [{ uid, state: 'RESERVED' }] });
    expect(accepted.order?.fulfillments?.[0]?.pickupDetails?.acceptedAt).toBeTruthy();
    const stale = await sdkError(
      client.orders.update({
        orderId: order.id,
        idempotencyKey: 'cancel-stale',
        order: { locationId: location, version: 1, state: 'CANCELED' },
      }),
    );
    expect(stale.errors[0]).toMatchObject({ code: 'VERSION_MISMATCH', field: 'order.version' });
    const canceled = await client.orders.update({
      orderId: order.id,
      idempotencyKey: 'cancel-1',
      order: {
        locationId: location,
        version: 2,
        state: 'CANCELED',
        fulfillments: [{ uid, pickupDetails: { cancelReason: 'Out of stock' } }],
      },
    });
    expect(canceled.order).toMatchObject({
      state: 'CANCELED',
      version: 3,
      fulfillments: [{ state: 'CANCELED', pickupDetails: { cancelReason: 'Out of stock' } }],
    });
    expect(canceled.order?.closedAt).toBeTruthy();
    expect((await search(['CANCELED'])).orders?.map((o) => o.id)).toEqual([order.id]);
    expect((await snapshot()).stock).toEqual(before.stock);

    expect((await webhooks()).map((w) => [w.type, w.data.state, w.data.version])).toEqual([
      ['order.created', 'OPEN', 1],
      ['order.updated', 'OPEN', 2],
      ['order.fulfillment.updated', 'OPEN', 2],
      ['order.updated', 'CANCELED', 3],
      ['order.fulfillment.updated', 'CANCELED', 3],
    ]);
    const hooks = await webhooks();
    expect(hooks[0]?.data).toEqual({
      type: 'order_created',
      order_id: order.id,
      location_id: location,
      state: 'OPEN',
      version: 1,
      created_at: order.createdAt,
    });
    expect(hooks[2]?.data.fulfillment_update).toEqual([
      { fulfillment_uid: uid, old_state: 'PROPOSED', new_state: 'RESERVED' },
    ]);
    expect(hooks[4]?.data.fulfillment_update).toEqual([
      { fulfillment_uid: uid, old_state: 'RESERVED', new_state: 'CANCELED' },
    ]);
  });

  it('a pickup order paid at checkout moves IN_STOCK to SOLD at once; the API cannot cancel it, the seller can', async () => {
    const { client, merchantId, snapshot, locations } = await seller('Curbside Corner');
    const before = await snapshot();
    const sku = Object.keys(before.stock)[2] as string;
    const location = locations[0]?.id as string;
    const at = (s: ShopSnapshot) => s.stock[sku]?.[location];
    const placed = await post(`${sandbox.url}/_control/square/${merchantId}/orders`, {
      lines: [{ sku, quantity: 2 }],
      location,
      fulfillmentType: 'pickup',
      customer: { name: 'Grace Hopper', email: 'grace@example.com', phone: '+15035550101' },
    });
    expect(placed.status).toBe(200);
    const orderId = placed.body.orderId as string;
    expect(at(await snapshot())).toBe((at(before) as number) - 2);
    const { order } = await client.orders.get({ orderId });
    serialization.GetOrderResponse.parseOrThrow(lastAnswer(), STRICT);
    expect(order).toMatchObject({ state: 'OPEN', version: 2, source: { name: 'Square Online' } });
    expect(order?.netAmountDueMoney?.amount).toBe(0n);
    expect(order?.tenders?.[0]?.cardDetails?.status).toBe('CAPTURED');
    expect(order?.fulfillments?.[0]?.pickupDetails?.recipient).toMatchObject({
      displayName: 'Grace Hopper',
      phoneNumber: '+15035550101',
    });
    const payment = await client.payments.get({ paymentId: order?.tenders?.[0]?.id as string });
    expect(payment.payment?.receiptNumber).toBe(order?.tenders?.[0]?.id?.slice(0, 4));
    const placedHooks = await webhooks();
    expect(placedHooks.map((w) => [w.type, w.data.state ?? null, w.data.version ?? null])).toEqual([
      ['order.created', 'OPEN', 1],
      ['order.updated', 'OPEN', 2],
      ['inventory.count.updated', null, null],
    ]);
    const counts = placedHooks[2]?.data.inventory_counts as { state: string; location_id: string }[];
    expect(counts.map((c) => c.state).sort()).toEqual(['IN_STOCK', 'SOLD']);
    expect(counts.every((c) => c.location_id === location)).toBe(true);

    const refused = await sdkError(
      client.orders.update({
        orderId,
        idempotencyKey: 'cancel-paid',
        order: { locationId: location, version: 2, state: 'CANCELED' },
      }),
    );
    expect(refused.statusCode).toBe(400);
    expect(refused.errors[0]).toMatchObject({ code: 'BAD_REQUEST', field: 'order.state' });

    received.length = 0;
    const cancel = await post(`${sandbox.url}/_control/square/${merchantId}/orders/${orderId}/cancel`, {});
    expect(cancel.body).toMatchObject({ orderId, state: 'CANCELED', refunds: [expect.any(String)] });
    expect(at(await snapshot())).toBe(at(before));
    expect((await webhooks()).map((w) => w.type)).toEqual([
      'order.updated',
      'order.fulfillment.updated',
      'inventory.count.updated',
      'refund.created',
      'order.updated',
    ]);
    expect((await post(`${sandbox.url}/_control/square/${merchantId}/orders/${orderId}/cancel`, {})).status).toBe(400);
    const sale = await post(`${sandbox.url}/_control/square/${merchantId}/orders`, { lines: [{ sku, quantity: 1 }] });
    expect(
      (await post(`${sandbox.url}/_control/square/${merchantId}/orders/${sale.body.orderId}/cancel`, {})).status,
    ).toBe(400);
  });

  it('an order paid at pickup moves its stock when paid, and only then; completing it moves nothing more', async () => {
    const { client, merchantId, snapshot, locations } = await seller('Pay Later Provisions');
    const before = await snapshot();
    const sku = Object.keys(before.stock)[1] as string;
    const location = locations[1]?.id as string;
    const at = async () => (await snapshot()).stock[sku]?.[location];
    const placed = await post(`${sandbox.url}/_control/square/${merchantId}/orders`, {
      lines: [{ sku, quantity: 1 }],
      location,
      fulfillmentType: 'curbside_pickup',
      paid: false,
    });
    const orderId = placed.body.orderId as string;
    expect(await at()).toBe(before.stock[sku]?.[location]);
    const unpaid = (await client.orders.get({ orderId })).order;
    expect(unpaid?.fulfillments?.[0]?.pickupDetails?.isCurbsidePickup).toBe(true);
    const early = await sdkError(
      client.orders.update({
        orderId,
        idempotencyKey: 'c0',
        order: { locationId: location, version: 1, state: 'COMPLETED' },
      }),
    );
    expect(early.errors[0]).toMatchObject({ code: 'BAD_REQUEST', field: 'order.state' });
    const paid = await post(`${sandbox.url}/_control/square/${merchantId}/pay`, { order_id: orderId });
    expect(paid.body).toMatchObject({ state: 'OPEN', version: 2 });
    expect(await at()).toBe((before.stock[sku]?.[location] as number) - 1);
    const uid = unpaid?.fulfillments?.[0]?.uid as string;
    const done = await client.orders.update({
      orderId,
      idempotencyKey: 'c1',
      order: { locationId: location, version: 2, state: 'COMPLETED', fulfillments: [{ uid, state: 'COMPLETED' }] },
    });
    expect(done.order).toMatchObject({ state: 'COMPLETED', fulfillments: [{ state: 'COMPLETED' }] });
    expect(done.order?.fulfillments?.[0]?.pickupDetails?.pickedUpAt).toBeTruthy();
    expect(await at()).toBe((before.stock[sku]?.[location] as number) - 1);
  });
});
