import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type AdminApiClient, createAdminApiClient } from '@shopify/admin-api-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The connector's own order operations, so the official client runs exactly what the app sends.
import {
  ORDER_CANCEL_MUTATION,
  ORDER_FULFILLMENT_LINES_QUERY,
  ORDER_LINES_QUERY,
  ORDER_NODES_PER_QUERY,
  ORDER_NODES_QUERY,
  ORDER_QUERY,
  ORDER_STAMPS_QUERY,
  ORDERS_QUERY,
} from '../../../../apps/server/src/connectors/shopify/order-queries.ts';
import { SANDBOX_APPS } from '../apps.ts';
import { type RunningSandbox, startSandbox } from '../server.ts';

const { apiKey, apiSecret } = SANDBOX_APPS.shopify;
const SCOPE = 'write_products,write_inventory,read_locations,write_orders,write_merchant_managed_fulfillment_orders';

let sandbox: RunningSandbox;
let hooks: Server;
let hookUrl: string;
const received: { topic: string; body: Record<string, unknown> }[] = [];

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, webhookRetryDelayMs: 10, shopSize: { products: 12 } });
  hooks = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({
        topic: String(req.headers['x-shopify-topic']),
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
      });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => hooks.listen(0, '127.0.0.1', r));
  hookUrl = `http://127.0.0.1:${(hooks.address() as AddressInfo).port}/webhooks/shopify`;
});

afterAll(async () => {
  await sandbox.close();
  await new Promise((r) => hooks.close(r));
});

const control = async (path: string, body: unknown) => {
  const res = await fetch(`${sandbox.url}/_control/shopify/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

/** Installs the app (consent page, code exchange) and returns Shopify's official client for the shop. */
async function officialClient(shop: string): Promise<AdminApiClient> {
  const base = `${sandbox.url}/shopify/${shop}`;
  const redirectUri = 'https://app.example.com/channels/shopify/callback';
  const allow = await fetch(`${base}/admin/oauth/authorize`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: apiKey, scope: SCOPE, redirect_uri: redirectUri, state: 's' }),
    redirect: 'manual',
  });
  const code = new URL(allow.headers.get('location') as string).searchParams.get('code');
  const token = (await (
    await fetch(`${base}/admin/oauth/access_token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: apiKey, client_secret: apiSecret, code }),
    })
  ).json()) as { access_token: string };
  return createAdminApiClient({
    storeDomain: `${shop}.myshopify.com`,
    apiVersion: '2025-01',
    accessToken: token.access_token,
    logger: () => {},
    // https://{shop}.myshopify.com/… is served by the sandbox at /shopify/{shop}/…
    customFetchApi: (url, init) =>
      fetch(String(url).replace(`https://${shop}.myshopify.com`, `${sandbox.url}/shopify/${shop}`), init),
  });
}

async function subscribe(client: AdminApiClient, topics: string[]) {
  for (const topic of topics) {
    const res = await client.request(
      `mutation($topic: WebhookSubscriptionTopic!, $url: URL!) {
        webhookSubscriptionCreate(topic: $topic, webhookSubscription: { callbackUrl: $url, format: JSON }) { userErrors { message } } }`,
      { variables: { topic, url: hookUrl } },
    );
    expect(res.errors).toBeUndefined();
  }
}

interface LevelAnswer {
  inventoryItem: {
    inventoryLevel: { quantities: { name: string; quantity: number }[] } | null;
  } | null;
}
async function quantities(client: AdminApiClient, variantId: string, locationId: string) {
  const variant = await client.request<{ productVariant: { inventoryItem: { id: string } } }>(
    'query($id: ID!) { productVariant(id: $id) { inventoryItem { id } } }',
    { variables: { id: variantId } },
  );
  const item = variant.data?.productVariant.inventoryItem.id;
  const res = await client.request<LevelAnswer>(
    `query($item: ID!, $loc: ID!) { inventoryItem(id: $item) { inventoryLevel(locationId: $loc) {
      quantities(names: ["available", "committed", "on_hand"]) { name quantity } } } }`,
    { variables: { item, loc: locationId } },
  );
  return Object.fromEntries(
    (res.data?.inventoryItem?.inventoryLevel?.quantities ?? []).map((q) => [q.name, q.quantity]),
  ) as Record<'available' | 'committed' | 'on_hand', number>;
}

const topicsSent = (shop: string, from: number) =>
  sandbox.ctx.webhooks.log
    .filter((d) => d.shop === shop)
    .slice(from)
    .map((d) => d.topic);

describe('Shopify web orders and orderCancel through @shopify/admin-api-client', () => {
  it('places a web order that commits stock, answers the connector’s order queries, and cancels with a restock', async () => {
    const shop = 'orders-official';
    const client = await officialClient(shop);
    await subscribe(client, [
      'ORDERS_CREATE',
      'ORDERS_UPDATED',
      'ORDERS_CANCELLED',
      'REFUNDS_CREATE',
      'INVENTORY_LEVELS_UPDATE',
    ]);
    const snap = (await (await fetch(`${sandbox.url}/_control/shopify/${shop}`)).json()) as {
      locations: { id: string }[];
      stock: Record<string, Record<string, number>>;
    };
    const location = snap.locations[1]?.id as string;
    const skus = Object.entries(snap.stock)
      .filter(([, q]) => (q[location] ?? 0) >= 3)
      .map(([sku]) => sku)
      .slice(0, 2) as [string, string];
    const sentBefore = topicsSent(shop, 0).length;

    const placed = await control(`${shop}/orders`, {
      lines: [
        { sku: skus[0], quantity: 2 },
        { sku: skus[1], quantity: 1 },
      ],
      location,
      customer: { name: 'Dana Whitfield', email: 'dana@example.com', phone: '+15035550199' },
      shippingAddress: {
        name: 'Dana Whitfield',
        address1: '12 Oak Ave',
        city: 'Salem',
        province: 'OR',
        zip: '97301',
        country: 'US',
      },
      billingAddress: {
        name: 'Dana W. Billing',
        address1: 'PO Box 9',
        city: 'Salem',
        province: 'OR',
        zip: '97302',
        country: 'US',
      },
      note: 'Leave at the door',
      tags: ['gift', 'vip'],
      discount: 300,
      tax: 250,
      shipping: 799,
    });
    expect(placed.status).toBe(200);
    const orderId = placed.body.orderId as string;

    // The connector's list query, as Shopify's client sends it.
    const list = await client.request<{ orders: { nodes: Record<string, unknown>[] } }>(ORDERS_QUERY, {
      variables: { after: null, query: `updated_at:>='${new Date(Date.now() - 60_000).toISOString().slice(0, 19)}Z'` },
    });
    expect(list.errors).toBeUndefined();
    const listed = list.data?.orders.nodes.find((o) => o.id === orderId);
    // The periodic pull's stamps of the same search: the order's id and updatedAt, for about a point each.
    const stamps = await client.request<{ orders: { nodes: { id: string; updatedAt: string }[] } }>(
      ORDER_STAMPS_QUERY,
      {
        variables: {
          after: null,
          query: `updated_at:>='${new Date(Date.now() - 60_000).toISOString().slice(0, 19)}Z'`,
        },
      },
    );
    expect(stamps.errors).toBeUndefined();
    expect(stamps.data?.orders.nodes.find((o) => o.id === orderId)).toEqual({
      id: orderId,
      updatedAt: listed?.updatedAt,
    });
    const cost = (stamps.extensions as { cost?: { requestedQueryCost?: number } } | undefined)?.cost;
    expect(cost?.requestedQueryCost).toBeLessThanOrEqual(252);
    const one = await client.request<{
      order: Record<string, unknown> & { lineItems: { nodes: Record<string, unknown>[] } };
    }>(ORDER_QUERY, { variables: { id: orderId } });
    expect(one.errors).toBeUndefined();
    const order = one.data?.order;
    expect(listed).toEqual(order);
    // The same order read with others by id (nodes): in the order asked, null for an id that names nothing,
    // and costed an order an id, so that a full query stays under the 1,000-point cap.
    const together = await client.request<{ nodes: (Record<string, unknown> | null)[] }>(ORDER_NODES_QUERY, {
      variables: { ids: ['gid://shopify/Order/999999999', orderId] },
    });
    expect(together.errors).toBeUndefined();
    expect(together.data?.nodes).toEqual([null, order]);
    const costOf = (r: { extensions?: unknown }) =>
      (r.extensions as { cost: { requestedQueryCost: number; actualQueryCost: number } }).cost;
    const single = costOf(one);
    expect(costOf(together).requestedQueryCost).toBe(2 * single.requestedQueryCost);
    expect(costOf(together).actualQueryCost).toBe(single.actualQueryCost);
    const full = await client.request(ORDER_NODES_QUERY, {
      variables: { ids: Array.from({ length: ORDER_NODES_PER_QUERY }, () => orderId) },
    });
    expect(full.errors).toBeUndefined();
    expect(costOf(full).requestedQueryCost).toBeLessThanOrEqual(1000);
    expect(
      (await client.request(ORDER_NODES_QUERY, { variables: { ids: Array(ORDER_NODES_PER_QUERY + 2).fill(orderId) } }))
        .errors?.graphQLErrors?.[0],
    ).toMatchObject({ extensions: { code: 'MAX_COST_EXCEEDED' } });
    const tooMany = await client.request('query($ids: [ID!]!) { nodes(ids: $ids) { id } }', {
      variables: { ids: Array.from({ length: 251 }, (_, i) => `gid://shopify/Order/${i + 1}`) },
    });
    expect(tooMany.errors?.graphQLErrors?.[0]).toMatchObject({
      message: 'The input array size of 251 is greater than the maximum allowed of 250.',
      extensions: { code: 'MAX_INPUT_SIZE_EXCEEDED' },
    });
    expect(order).toMatchObject({
      email: 'dana@example.com',
      phone: '+15035550199',
      note: 'Leave at the door',
      tags: ['gift', 'vip'],
      cancelledAt: null,
      displayFinancialStatus: 'PAID',
      displayFulfillmentStatus: 'UNFULFILLED',
      customer: { displayName: 'Dana Whitfield', email: 'dana@example.com' },
      shippingAddress: { address1: '12 Oak Ave', city: 'Salem', provinceCode: 'OR', countryCodeV2: 'US' },
      billingAddress: { name: 'Dana W. Billing', address1: 'PO Box 9' },
      totalShippingPriceSet: { shopMoney: { amount: '7.99' } },
      totalTaxSet: { shopMoney: { amount: '2.50' } },
      totalDiscountsSet: { shopMoney: { amount: '3.00' } },
      fulfillmentOrders: {
        nodes: [
          {
            status: 'OPEN',
            assignedLocation: { location: { id: location } },
            deliveryMethod: { methodType: 'SHIPPING' },
          },
        ],
      },
    });
    const lines = order?.lineItems.nodes as {
      id: string;
      quantity: number;
      variant: { id: string };
      originalUnitPriceSet: { shopMoney: { amount: string } };
      totalDiscountSet: { shopMoney: { amount: string } };
      taxLines: { priceSet: { shopMoney: { amount: string } } }[];
    }[];
    const cents = (a: string) => Math.round(Number(a) * 100);
    const gross = lines.reduce((s, l) => s + cents(l.originalUnitPriceSet.shopMoney.amount) * l.quantity, 0);
    expect(lines.reduce((s, l) => s + cents(l.totalDiscountSet.shopMoney.amount), 0)).toBe(300);
    expect(lines.reduce((s, l) => s + l.taxLines.reduce((t, x) => t + cents(x.priceSet.shopMoney.amount), 0), 0)).toBe(
      250,
    );
    expect(order?.subtotalPriceSet).toEqual({ shopMoney: { amount: ((gross - 300) / 100).toFixed(2) } });
    expect(order?.totalPriceSet).toEqual({ shopMoney: { amount: ((gross - 300 + 250 + 799) / 100).toFixed(2) } });

    const more = await client.request(ORDER_LINES_QUERY, { variables: { id: orderId, after: null } });
    expect(more.errors).toBeUndefined();
    const split = await client.request<{
      order: {
        fulfillmentOrders: { nodes: { lineItems: { nodes: { totalQuantity: number; lineItem: { id: string } }[] } }[] };
      };
    }>(ORDER_FULFILLMENT_LINES_QUERY, { variables: { id: orderId } });
    expect(split.errors).toBeUndefined();
    expect(
      split.data?.order.fulfillmentOrders.nodes[0]?.lineItems.nodes.map((l) => [l.lineItem.id, l.totalQuantity]),
    ).toEqual(lines.map((l) => [l.id, l.quantity]));

    // Shopify commits the units where the fulfillment order is: available fell by 2, committed rose by 2.
    const first = lines[0] as (typeof lines)[number];
    const held = await quantities(client, first.variant.id, location);
    expect(held).toEqual({
      available: (snap.stock[skus[0]]?.[location] ?? 0) - 2,
      committed: held.committed,
      on_hand: held.available + held.committed,
    });
    expect(held.committed).toBeGreaterThanOrEqual(2);
    // The control API's snapshot says the same: `stock` what the shop can sell there, `onHand` what it holds.
    const now = (await (await fetch(`${sandbox.url}/_control/shopify/${shop}`)).json()) as {
      stock: Record<string, Record<string, number>>;
      onHand: Record<string, Record<string, number>>;
    };
    expect(now.stock[skus[0]]?.[location]).toBe(held.available);
    expect(now.onHand[skus[0]]?.[location]).toBe(held.on_hand);

    await sandbox.ctx.webhooks.settled();
    expect(topicsSent(shop, sentBefore)).toEqual([
      'orders/create',
      'inventory_levels/update',
      'inventory_levels/update',
    ]);
    const created = received.find((r) => r.topic === 'orders/create' && r.body.admin_graphql_api_id === orderId)?.body;
    expect(created).toMatchObject({
      name: expect.stringMatching(/^#\d+$/),
      order_number: expect.any(Number),
      email: 'dana@example.com',
      phone: '+15035550199',
      cancelled_at: null,
      cancel_reason: null,
      currency: 'USD',
      total_tax: '2.50',
      total_discounts: '3.00',
      total_shipping_price_set: { shop_money: { amount: '7.99', currency_code: 'USD' } },
      financial_status: 'paid',
      fulfillment_status: null,
      note: 'Leave at the door',
      tags: 'gift, vip',
      location_id: null,
      customer: { first_name: 'Dana', last_name: 'Whitfield', email: 'dana@example.com', phone: '+15035550199' },
      billing_address: { name: 'Dana W. Billing', city: 'Salem', country_code: 'US' },
      shipping_address: { address1: '12 Oak Ave', province_code: 'OR', zip: '97301' },
      shipping_lines: [{ price: '7.99' }],
    });
    expect((created?.line_items as Record<string, unknown>[] | undefined)?.[0]).toMatchObject({
      id: expect.any(Number),
      sku: skus[0],
      variant_id: Number(first.variant.id.split('/').pop()),
      quantity: 2,
      current_quantity: 2,
      fulfillable_quantity: 2,
      price: first.originalUnitPriceSet.shopMoney.amount,
      total_discount: first.totalDiscountSet.shopMoney.amount,
      tax_lines: [{ price: first.taxLines[0]?.priceSet.shopMoney.amount, title: expect.any(String) }],
    });
    expect(created?.total_price).toBe(
      order?.totalPriceSet && (order.totalPriceSet as { shopMoney: { amount: string } }).shopMoney.amount,
    );

    // orderCancel with restock: committed units go back to available where they were committed.
    const sentBeforeCancel = topicsSent(shop, 0).length;
    const cancel = await client.request<{
      orderCancel: {
        job: { id: string; done: boolean } | null;
        orderCancelUserErrors: { code: string; message: string }[];
      };
    }>(ORDER_CANCEL_MUTATION, {
      variables: {
        orderId,
        reason: 'CUSTOMER',
        refund: true,
        restock: true,
        notifyCustomer: false,
        staffNote: 'Asked by phone',
      },
    });
    expect(cancel.errors).toBeUndefined();
    expect(cancel.data?.orderCancel).toMatchObject({
      job: { id: expect.stringMatching(/^gid:\/\/shopify\/Job\//) },
      orderCancelUserErrors: [],
    });
    const job = await client.request<{ job: { done: boolean } }>('query($id: ID!) { job(id: $id) { done } }', {
      variables: { id: cancel.data?.orderCancel.job?.id },
    });
    expect(job.data?.job.done).toBe(true);
    expect(await quantities(client, first.variant.id, location)).toEqual({
      available: held.available + 2,
      committed: held.committed - 2,
      on_hand: held.on_hand,
    });
    const after = await client.request<{ order: Record<string, unknown> }>(ORDER_QUERY, { variables: { id: orderId } });
    expect(after.data?.order).toMatchObject({
      cancelledAt: expect.any(String),
      cancelReason: 'CUSTOMER',
      displayFinancialStatus: 'REFUNDED',
      lineItems: {
        nodes: [
          { currentQuantity: 0, unfulfilledQuantity: 0 },
          { currentQuantity: 0, unfulfilledQuantity: 0 },
        ],
      },
      fulfillmentOrders: { nodes: [{ status: 'CLOSED' }] },
    });
    await sandbox.ctx.webhooks.settled();
    expect(topicsSent(shop, sentBeforeCancel)).toEqual([
      'orders/cancelled',
      'refunds/create',
      'orders/updated',
      'inventory_levels/update',
      'inventory_levels/update',
    ]);
    expect(received.find((r) => r.topic === 'orders/cancelled')?.body).toMatchObject({
      admin_graphql_api_id: orderId,
      cancelled_at: expect.any(String),
      cancel_reason: 'customer',
      financial_status: 'refunded',
    });

    // Again: Shopify refuses, and names an unknown order.
    const again = await client.request<{ orderCancel: { job: null; orderCancelUserErrors: { code: string }[] } }>(
      ORDER_CANCEL_MUTATION,
      { variables: { orderId, reason: 'OTHER', refund: false, restock: true } },
    );
    expect(again.data?.orderCancel).toMatchObject({ job: null, orderCancelUserErrors: [{ code: 'INVALID' }] });
    const missing = await client.request<{
      orderCancel: { orderCancelUserErrors: { code: string; field: string[] }[] };
    }>(ORDER_CANCEL_MUTATION, {
      variables: { orderId: 'gid://shopify/Order/1', reason: 'OTHER', refund: false, restock: true },
    });
    expect(missing.data?.orderCancel.orderCancelUserErrors).toEqual([
      { code: 'NOT_FOUND', field: ['orderId'], message: 'Order does not exist' },
    ]);
  });

  it('places a pickup order at a store, and a cancel without restock takes the committed units off hand', async () => {
    const shop = 'orders-pickup';
    const client = await officialClient(shop);
    await subscribe(client, ['ORDERS_CANCELLED', 'INVENTORY_LEVELS_UPDATE']);
    const snap = (await (await fetch(`${sandbox.url}/_control/shopify/${shop}`)).json()) as {
      locations: { id: string }[];
      stock: Record<string, Record<string, number>>;
    };
    const location = snap.locations[2]?.id as string;
    const sku = Object.entries(snap.stock).find(([, q]) => (q[location] ?? 0) >= 1)?.[0] as string;
    const placed = await control(`${shop}/orders`, {
      lines: [{ sku, quantity: 1 }],
      location,
      fulfillmentType: 'pickup',
    });
    const orderId = placed.body.orderId as string;
    const res = await client.request<{
      order: {
        shippingAddress: null;
        totalShippingPriceSet: { shopMoney: { amount: string } };
        fulfillmentOrders: {
          nodes: { assignedLocation: { location: { id: string } }; deliveryMethod: { methodType: string } }[];
        };
        lineItems: { nodes: { variant: { id: string } }[] };
      };
    }>(ORDER_QUERY, { variables: { id: orderId } });
    expect(res.data?.order).toMatchObject({
      shippingAddress: null,
      totalShippingPriceSet: { shopMoney: { amount: '0.00' } },
      fulfillmentOrders: {
        nodes: [{ assignedLocation: { location: { id: location } }, deliveryMethod: { methodType: 'PICK_UP' } }],
      },
    });
    const variant = res.data?.order.lineItems.nodes[0]?.variant.id as string;
    const before = await quantities(client, variant, location);

    const sent = topicsSent(shop, 0).length;
    const cancelled = await control(`${shop}/orders/${encodeURIComponent(orderId)}/cancel`, {
      restock: false,
      refund: false,
    });
    expect(cancelled.status).toBe(200);
    expect(await quantities(client, variant, location)).toEqual({
      available: before.available,
      committed: before.committed - 1,
      on_hand: before.on_hand - 1,
    });
    await sandbox.ctx.webhooks.settled();
    expect(topicsSent(shop, sent)).toEqual(['orders/cancelled']);
    expect((await control(`${shop}/orders/${encodeURIComponent(orderId)}/cancel`, {})).status).toBe(400);
    expect((await control(`${shop}/orders/gid%3A%2F%2Fshopify%2FOrder%2F1/cancel`, {})).status).toBe(404);
    expect(
      (
        await control(`${shop}/orders`, {
          lines: [{ sku, quantity: 1 }],
          location: snap.locations[1]?.id,
          fulfillmentType: 'pickup',
        })
      ).status,
    ).toBe(400);
  });
});
