import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Square, SquareClient, SquareError, serialization, WebhooksHelper } from 'square';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_APPS } from '../apps.ts';
import type { ShopSnapshot } from '../context.ts';
import { type RunningSandbox, startSandbox } from '../server.ts';

/**
 * Square refunds and POS itemized returns through the official `square` SDK over real HTTP: every call the
 * connector makes for returns (RefundPayment, GetPaymentRefund, ListPaymentRefunds, RetrieveOrder and
 * SearchOrders of a return order), each answer checked strictly against the SDK's schema, and the refund
 * webhooks verified with WebhooksHelper and parsed with the SDK's event schemas.
 */

const APP = SANDBOX_APPS.square;
const SIGNATURE_KEY = 'square-returns-signature-key';
const REDIRECT = 'https://app.example.com/channels/square/callback';
const STRICT = { unrecognizedObjectKeys: 'fail', skipValidation: false } as const;

let sandbox: RunningSandbox;
let receiver: Server;
let receiverUrl: string;
const received: { signature: string; body: string }[] = [];
const answers: unknown[] = [];
const lastAnswer = () => answers[answers.length - 1];

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

async function post(url: string, body: unknown) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  // biome-ignore lint/suspicious/noExplicitAny: test helper over JSON answers
  return { status: res.status, body: (await res.json()) as any };
}

async function seller(business: string) {
  const base = `${sandbox.url}/square`;
  const scope = 'MERCHANT_PROFILE_READ ITEMS_READ INVENTORY_READ ORDERS_READ PAYMENTS_READ PAYMENTS_WRITE';
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
  const control = (path: string, body: unknown) => post(`${sandbox.url}/_control/square/${merchantId}/${path}`, body);
  return { client, merchantId, snapshot, control };
}

/** The refund and order deliveries so far, verified with the SDK's helper and parsed with its event schemas. */
async function webhooks() {
  await sandbox.ctx.webhooks.settled();
  const out: { type: string; object: Record<string, unknown> }[] = [];
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
      'refund.created': serialization.RefundCreatedEvent,
      'refund.updated': serialization.RefundUpdatedEvent,
      'order.created': serialization.OrderCreatedEvent,
      'order.updated': serialization.OrderUpdatedEvent,
      'inventory.count.updated': serialization.InventoryCountUpdatedEvent,
    }[raw.type as string];
    if (schema) schema.parseOrThrow(raw, STRICT);
    out.push({ type: raw.type, object: raw.data.object });
  }
  return out;
}

describe('Square refunds and POS returns through the official SDK', () => {
  it('takes an itemized return at another store’s register: a return order, the restock there, the card refund', async () => {
    const { client, snapshot, control } = await seller('Return Register');
    const shop = await snapshot();
    const [saleStore, returnStore] = shop.locations.map((l) => l.id) as [string, string];
    const sku = Object.entries(shop.stock).find(([, q]) => (q[saleStore] ?? 0) >= 2)?.[0] as string;
    const sale = await control('orders', { lines: [{ sku, quantity: 2 }], location: saleStore });
    const saleId = sale.body.orderId as string;
    const since = new Date().toISOString();
    received.length = 0;
    const made = await control(`orders/${saleId}/return`, { lines: [{ sku, quantity: 1 }], location: returnStore });
    expect(made.status).toBe(200);
    const returnId = made.body.orderId as string;
    const refundId = made.body.refundId as string;
    expect((await snapshot()).stock[sku]?.[returnStore]).toBe((shop.stock[sku]?.[returnStore] ?? 0) + 1);
    expect((await snapshot()).stock[sku]?.[saleStore]).toBe((shop.stock[sku]?.[saleStore] ?? 0) - 2);

    const { order } = await client.orders.get({ orderId: returnId });
    serialization.GetOrderResponse.parseOrThrow(lastAnswer(), STRICT);
    const saleOrder = (await client.orders.get({ orderId: saleId })).order as Square.Order;
    const saleLine = saleOrder.lineItems?.[0] as Square.OrderLineItem;
    expect(order).toMatchObject({
      locationId: returnStore,
      state: 'COMPLETED',
      returns: [
        {
          sourceOrderId: saleId,
          returnLineItems: [
            {
              sourceLineItemUid: saleLine.uid,
              catalogObjectId: saleLine.catalogObjectId,
              quantity: '1',
              totalMoney: { amount: saleLine.basePriceMoney?.amount },
            },
          ],
        },
      ],
      returnAmounts: { totalMoney: { amount: saleLine.basePriceMoney?.amount } },
      refunds: [{ id: refundId, tenderId: saleOrder.tenders?.[0]?.id }],
    });

    const found = await client.orders.search({
      locationIds: [returnStore],
      query: {
        filter: { dateTimeFilter: { updatedAt: { startAt: since } } },
        sort: { sortField: 'UPDATED_AT', sortOrder: 'ASC' },
      },
    });
    serialization.SearchOrdersResponse.parseOrThrow(lastAnswer(), STRICT);
    expect(found.orders?.map((o) => o.id)).toContain(returnId);

    const { refund } = await client.refunds.get({ refundId });
    serialization.GetPaymentRefundResponse.parseOrThrow(lastAnswer(), STRICT);
    expect(refund).toMatchObject({ orderId: returnId, paymentId: saleOrder.tenders?.[0]?.id });

    const events = await webhooks();
    expect(events.map((e) => e.type)).toEqual(
      expect.arrayContaining(['order.created', 'inventory.count.updated', 'refund.created', 'order.updated']),
    );
    // Deliveries of the sale's own events may still be arriving: find the return's restock among them.
    const counted = events
      .filter((e) => e.type === 'inventory.count.updated')
      .flatMap((e) => e.object.inventory_counts as { location_id: string; state: string; catalog_object_id: string }[]);
    expect(counted).toContainEqual(
      expect.objectContaining({
        location_id: returnStore,
        state: 'IN_STOCK',
        catalog_object_id: saleLine.catalogObjectId,
      }),
    );
    // The refund settles a little later: refund.updated with COMPLETED.
    await expect.poll(async () => (await client.refunds.get({ refundId })).refund?.status).toBe('COMPLETED');
    const settled = (await webhooks()).filter((e) => e.type === 'refund.updated');
    expect((settled.at(-1)?.object.refund as { status?: string } | undefined)?.status).toBe('COMPLETED');

    // Nothing more comes back than was sold.
    expect((await control(`orders/${saleId}/return`, { lines: [{ sku, quantity: 2 }] })).status).toBe(400);
  });

  it('refunds a payment once per idempotency key and lists refunds by update time, a page at a time', async () => {
    const { client, control, snapshot } = await seller('Refund Rack');
    const shop = await snapshot();
    const store = shop.locations[0]?.id as string;
    const sku = Object.entries(shop.stock).find(([, q]) => (q[store] ?? 0) >= 3)?.[0] as string;
    const since = new Date().toISOString();
    const ids: string[] = [];
    const paid: Square.Order[] = [];
    for (let i = 0; i < 3; i++) {
      const made = await control('orders', { lines: [{ sku, quantity: 1 }], location: store });
      paid.push((await client.orders.get({ orderId: made.body.orderId as string })).order as Square.Order);
    }
    for (const [i, o] of paid.entries()) {
      const request: Square.RefundPaymentRequest = {
        idempotencyKey: `refund-${i}`,
        paymentId: o.tenders?.[0]?.id as string,
        amountMoney: { amount: 100n, currency: 'USD' },
        reason: 'Goodwill',
      };
      const { refund } = await client.refunds.refundPayment(request);
      serialization.RefundPaymentResponse.parseOrThrow(lastAnswer(), STRICT);
      expect(refund).toMatchObject({ status: 'PENDING', orderId: o.id, amountMoney: { amount: 100n } });
      expect((await client.refunds.refundPayment(request)).refund?.id).toBe(refund?.id);
      ids.push(refund?.id as string);
    }
    const reused = await client.refunds
      .refundPayment({
        idempotencyKey: 'refund-0',
        paymentId: paid[0]?.tenders?.[0]?.id as string,
        amountMoney: { amount: 200n, currency: 'USD' },
      })
      .catch((e: unknown) => e);
    expect(reused).toBeInstanceOf(SquareError);
    expect((reused as SquareError).errors[0]?.code).toBe('IDEMPOTENCY_KEY_REUSED');

    // Once they have settled (settling moves a refund's updated_at, and with it its place in this order).
    for (const refundId of ids)
      await expect.poll(async () => (await client.refunds.get({ refundId })).refund?.status).toBe('COMPLETED');
    const listed: string[] = [];
    const page = await client.refunds.list({
      updatedAtBeginTime: since,
      sortField: 'UPDATED_AT',
      sortOrder: 'ASC',
      limit: 2,
    });
    serialization.ListPaymentRefundsResponse.parseOrThrow(lastAnswer(), STRICT);
    for await (const r of page) listed.push(r.id);
    expect(listed).toEqual(ids);
    const none = await client.refunds.list({ beginTime: new Date(Date.now() + 60_000).toISOString() });
    expect(none.data).toEqual([]);
    expect(lastAnswer()).toEqual({});
  });
});
