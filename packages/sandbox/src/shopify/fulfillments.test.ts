import { createHmac } from 'node:crypto';
import type { AdminApiClient } from '@shopify/admin-api-client';
import { describe, expect, it } from 'vitest';
import { SANDBOX_APPS } from '../apps.ts';
import { shopifyTestWorld } from './test-world.ts';

const { apiSecret } = SANDBOX_APPS.shopify;
const SCOPE = 'write_products,write_inventory,read_locations,write_orders,write_merchant_managed_fulfillment_orders';

const world = shopifyTestWorld(SCOPE);
const { received, control, officialClient } = world;

async function subscribe(client: AdminApiClient, topics: string[]) {
  for (const topic of topics) {
    const res = await client.request(
      `mutation($topic: WebhookSubscriptionTopic!, $url: URL!) {
        webhookSubscriptionCreate(topic: $topic, webhookSubscription: { callbackUrl: $url, format: JSON }) { userErrors { message } } }`,
      { variables: { topic, url: world.hookUrl } },
    );
    expect(res.errors).toBeUndefined();
  }
}

async function quantities(client: AdminApiClient, variantId: string, locationId: string) {
  const res = await client.request<{
    productVariant: { inventoryItem: { inventoryLevel: { quantities: { name: string; quantity: number }[] } | null } };
  }>(
    `query($id: ID!, $loc: ID!) { productVariant(id: $id) { inventoryItem { inventoryLevel(locationId: $loc) {
      quantities(names: ["available", "committed", "on_hand"]) { name quantity } } } } }`,
    { variables: { id: variantId, loc: locationId } },
  );
  return Object.fromEntries(
    (res.data?.productVariant.inventoryItem.inventoryLevel?.quantities ?? []).map((q) => [q.name, q.quantity]),
  ) as Record<'available' | 'committed' | 'on_hand', number>;
}

const ORDER_STATE = `query($id: ID!) { order(id: $id) {
  displayFulfillmentStatus
  lineItems(first: 5) { nodes { variant { id } unfulfilledQuantity } }
  fulfillmentOrders(first: 5) { nodes { id status lineItems(first: 5) { nodes { id totalQuantity remainingQuantity } } } }
  fulfillments(first: 5) { id status trackingInfo { company number url } }
} }`;
type OrderState = {
  order: {
    displayFulfillmentStatus: string;
    lineItems: { nodes: { variant: { id: string }; unfulfilledQuantity: number }[] };
    fulfillmentOrders: {
      nodes: {
        id: string;
        status: string;
        lineItems: { nodes: { id: string; totalQuantity: number; remainingQuantity: number }[] };
      }[];
    };
    fulfillments: { id: string; status: string; trackingInfo: { company: string; number: string; url: string }[] }[];
  };
};
const orderState = async (client: AdminApiClient, id: string) =>
  (await client.request<OrderState>(ORDER_STATE, { variables: { id } })).data?.order as OrderState['order'];

const CANCEL = `mutation($id: ID!) { fulfillmentCancel(id: $id) {
  fulfillment { id status } userErrors { field message } } }`;
type CancelAnswer = {
  fulfillmentCancel: {
    fulfillment: { id: string; status: string } | null;
    userErrors: { field: string[]; message: string }[];
  };
};
const TRACKING = `mutation($id: ID!, $t: FulfillmentTrackingInput!, $notify: Boolean) {
  fulfillmentTrackingInfoUpdate(fulfillmentId: $id, trackingInfoInput: $t, notifyCustomer: $notify) {
    fulfillment { id status trackingInfo { company number url } } userErrors { field message } } }`;
type TrackingAnswer = {
  fulfillmentTrackingInfoUpdate: {
    fulfillment: { id: string; trackingInfo: { company: string; number: string; url: string }[] } | null;
    userErrors: { field: string[]; message: string }[];
  };
};

/** A web order of `quantity` units of one SKU at the first location, `shipped` of them fulfilled with tracking. */
async function orderWithFulfillment(client: AdminApiClient, shop: string, quantity: number, shipped: number) {
  const snap = (await (await fetch(`${world.sandbox.url}/_control/shopify/${shop}`)).json()) as {
    locations: { id: string }[];
    stock: Record<string, Record<string, number>>;
  };
  const location = snap.locations[0]?.id as string;
  const sku = Object.entries(snap.stock).find(([, q]) => (q[location] ?? 0) >= quantity + 1)?.[0] as string;
  const placed = await control(`${shop}/orders`, { lines: [{ sku, quantity }], location, shipping: 500 });
  expect(placed.status).toBe(200);
  const orderId = placed.body.orderId as string;
  const before = await orderState(client, orderId);
  const fo = before.fulfillmentOrders.nodes[0] as OrderState['order']['fulfillmentOrders']['nodes'][number];
  const variantId = before.lineItems.nodes[0]?.variant.id as string;
  const held = await quantities(client, variantId, location);
  const made = await client.request<{
    fulfillmentCreate: { fulfillment: { id: string } | null; userErrors: unknown[] };
  }>(
    `mutation($f: FulfillmentInput!) { fulfillmentCreate(fulfillment: $f) { fulfillment { id } userErrors { message } } }`,
    {
      variables: {
        f: {
          trackingInfo: { company: 'UPS', number: '1ZFIRST' },
          lineItemsByFulfillmentOrder: [
            {
              fulfillmentOrderId: fo.id,
              fulfillmentOrderLineItems: [{ id: fo.lineItems.nodes[0]?.id, quantity: shipped }],
            },
          ],
        },
      },
    },
  );
  expect(made.data?.fulfillmentCreate.userErrors).toEqual([]);
  return {
    orderId,
    location,
    variantId,
    held,
    fulfillmentId: made.data?.fulfillmentCreate.fulfillment?.id as string,
  };
}

const hooksFor = (topic: string, id: string) =>
  received.filter((r) => r.topic === topic && r.body.admin_graphql_api_id === id);

describe('Shopify fulfillmentCancel and fulfillmentTrackingInfoUpdate through @shopify/admin-api-client', () => {
  it('cancels a partial fulfillment: units unfulfilled again, fulfillment order reopens, stock back to committed', async () => {
    const shop = 'fulfil-cancel';
    const client = await officialClient(shop);
    await subscribe(client, ['FULFILLMENTS_UPDATE', 'INVENTORY_LEVELS_UPDATE', 'ORDERS_UPDATED']);
    const o = await orderWithFulfillment(client, shop, 3, 2);

    // After shipping 2 of 3: committed and on hand fell by 2, available stayed; the fulfillment order is in progress.
    const shipped = await quantities(client, o.variantId, o.location);
    expect(shipped).toEqual({
      available: o.held.available,
      committed: o.held.committed - 2,
      on_hand: o.held.on_hand - 2,
    });
    const mid = await orderState(client, o.orderId);
    expect(mid.displayFulfillmentStatus).toBe('PARTIALLY_FULFILLED');
    expect(mid.fulfillmentOrders.nodes[0]?.status).toBe('IN_PROGRESS');

    await world.sandbox.ctx.webhooks.settled();
    const levelHooksBefore = received.filter((r) => r.topic === 'inventory_levels/update').length;
    const cancelled = await client.request<CancelAnswer>(CANCEL, { variables: { id: o.fulfillmentId } });
    expect(cancelled.errors).toBeUndefined();
    expect(cancelled.data?.fulfillmentCancel).toEqual({
      fulfillment: { id: o.fulfillmentId, status: 'CANCELLED' },
      userErrors: [],
    });

    const after = await orderState(client, o.orderId);
    expect(after.displayFulfillmentStatus).toBe('UNFULFILLED');
    expect(after.lineItems.nodes[0]?.unfulfilledQuantity).toBe(3);
    expect(after.fulfillmentOrders.nodes[0]?.status).toBe('OPEN');
    expect(after.fulfillmentOrders.nodes[0]?.lineItems.nodes[0]).toMatchObject({
      totalQuantity: 3,
      remainingQuantity: 3,
    });
    expect(after.fulfillments.map((f) => [f.id, f.status])).toEqual([[o.fulfillmentId, 'CANCELLED']]);
    // The units are back in the building, held for the order: as before the fulfillment.
    expect(await quantities(client, o.variantId, o.location)).toEqual(o.held);

    await world.sandbox.ctx.webhooks.settled();
    const updates = hooksFor('fulfillments/update', o.fulfillmentId);
    expect(updates).toHaveLength(1);
    const hook = updates[0] as (typeof updates)[number];
    expect(hook.hmac).toBe(createHmac('sha256', apiSecret).update(hook.raw, 'utf8').digest('base64'));
    expect(hook.body).toMatchObject({
      id: Number(o.fulfillmentId.split('/').pop()),
      order_id: Number(o.orderId.split('/').pop()),
      status: 'cancelled',
      tracking_company: 'UPS',
      tracking_numbers: ['1ZFIRST'],
      line_items: [{ quantity: 2 }],
    });
    expect(received.filter((r) => r.topic === 'inventory_levels/update').length).toBe(levelHooksBefore + 1);

    // The order can be fulfilled again, in full.
    const again = await client.request<{ fulfillmentCreate: { userErrors: unknown[] } }>(
      `mutation($f: FulfillmentInput!) { fulfillmentCreate(fulfillment: $f) { userErrors { message } } }`,
      {
        variables: {
          f: { lineItemsByFulfillmentOrder: [{ fulfillmentOrderId: after.fulfillmentOrders.nodes[0]?.id }] },
        },
      },
    );
    expect(again.data?.fulfillmentCreate.userErrors).toEqual([]);
    expect((await orderState(client, o.orderId)).displayFulfillmentStatus).toBe('FULFILLED');
  });

  it('cancels a full fulfillment: the closed fulfillment order stays closed, a new one holds the units, and the order is unfulfilled', async () => {
    const shop = 'fulfil-cancel-full';
    const client = await officialClient(shop);
    const o = await orderWithFulfillment(client, shop, 2, 2);
    const mid = await orderState(client, o.orderId);
    expect(mid.displayFulfillmentStatus).toBe('FULFILLED');
    expect(mid.fulfillmentOrders.nodes[0]?.status).toBe('CLOSED');
    const res = await client.request<CancelAnswer>(CANCEL, { variables: { id: o.fulfillmentId } });
    expect(res.data?.fulfillmentCancel.userErrors).toEqual([]);
    const after = await orderState(client, o.orderId);
    expect(after.displayFulfillmentStatus).toBe('UNFULFILLED');
    // shopify.dev (fulfillmentCancel): an entirely fulfilled fulfillment order closes; the cancelled items go to a
    // new fulfillment order at the same location.
    expect(after.fulfillmentOrders.nodes[0]?.status).toBe('CLOSED');
    expect(after.fulfillmentOrders.nodes[1]?.status).toBe('OPEN');
    expect(after.fulfillmentOrders.nodes[1]?.lineItems.nodes).toEqual([
      expect.objectContaining({ totalQuantity: 2, remainingQuantity: 2 }),
    ]);
    expect(await quantities(client, o.variantId, o.location)).toEqual(o.held);
  });

  it('answers userErrors for a cancelled fulfillment and an unknown id', async () => {
    const shop = 'fulfil-errors';
    const client = await officialClient(shop);
    await subscribe(client, ['FULFILLMENTS_UPDATE']);
    const o = await orderWithFulfillment(client, shop, 2, 1);
    expect((await client.request<CancelAnswer>(CANCEL, { variables: { id: o.fulfillmentId } })).errors).toBeUndefined();
    const stock = await quantities(client, o.variantId, o.location);

    const twice = await client.request<CancelAnswer>(CANCEL, { variables: { id: o.fulfillmentId } });
    expect(twice.errors).toBeUndefined();
    expect(twice.data?.fulfillmentCancel.fulfillment).toBeNull();
    expect(twice.data?.fulfillmentCancel.userErrors).toEqual([{ field: ['id'], message: expect.any(String) }]);
    const unknown = await client.request<CancelAnswer>(CANCEL, {
      variables: { id: 'gid://shopify/Fulfillment/999999999' },
    });
    expect(unknown.errors).toBeUndefined();
    expect(unknown.data?.fulfillmentCancel).toEqual({
      fulfillment: null,
      userErrors: [{ field: ['id'], message: 'Fulfillment does not exist.' }],
    });

    const track = await client.request<TrackingAnswer>(TRACKING, {
      variables: { id: o.fulfillmentId, t: { company: 'FedEx', number: '999' } },
    });
    expect(track.errors).toBeUndefined();
    expect(track.data?.fulfillmentTrackingInfoUpdate.fulfillment).toBeNull();
    expect(track.data?.fulfillmentTrackingInfoUpdate.userErrors).toEqual([
      { field: ['fulfillmentId'], message: expect.any(String) },
    ]);
    const trackUnknown = await client.request<TrackingAnswer>(TRACKING, {
      variables: { id: 'gid://shopify/Fulfillment/999999999', t: { number: '1' } },
    });
    expect(trackUnknown.data?.fulfillmentTrackingInfoUpdate).toEqual({
      fulfillment: null,
      userErrors: [{ field: ['fulfillmentId'], message: 'Fulfillment does not exist.' }],
    });

    // Nothing moved: stock as after the one cancel, the tracking as it was, one fulfillments/update.
    expect(await quantities(client, o.variantId, o.location)).toEqual(stock);
    expect((await orderState(client, o.orderId)).fulfillments[0]?.trackingInfo).toEqual([
      { company: 'UPS', number: '1ZFIRST', url: null },
    ]);
    await world.sandbox.ctx.webhooks.settled();
    expect(hooksFor('fulfillments/update', o.fulfillmentId)).toHaveLength(1);
  });

  it('replaces a fulfillment’s tracking and sends fulfillments/update', async () => {
    const shop = 'fulfil-tracking';
    const client = await officialClient(shop);
    await subscribe(client, ['FULFILLMENTS_UPDATE']);
    const o = await orderWithFulfillment(client, shop, 2, 2);
    const res = await client.request<TrackingAnswer>(TRACKING, {
      variables: {
        id: o.fulfillmentId,
        notify: true,
        t: {
          company: 'FedEx',
          numbers: ['7001', '7002'],
          urls: ['https://track.example.com/7001', 'https://track.example.com/7002'],
        },
      },
    });
    expect(res.errors).toBeUndefined();
    expect(res.data?.fulfillmentTrackingInfoUpdate.userErrors).toEqual([]);
    const expected = [
      { company: 'FedEx', number: '7001', url: 'https://track.example.com/7001' },
      { company: 'FedEx', number: '7002', url: 'https://track.example.com/7002' },
    ];
    expect(res.data?.fulfillmentTrackingInfoUpdate.fulfillment?.trackingInfo).toEqual(expected);
    const state = await orderState(client, o.orderId);
    expect(state.fulfillments).toEqual([{ id: o.fulfillmentId, status: 'SUCCESS', trackingInfo: expected }]);
    // Tracking changes nothing else.
    expect(state.displayFulfillmentStatus).toBe('FULFILLED');

    // A single number replaces them all.
    const single = await client.request<TrackingAnswer>(TRACKING, {
      variables: { id: o.fulfillmentId, t: { company: 'UPS', number: '1ZNEW', url: 'https://ups.example.com/1ZNEW' } },
    });
    expect(single.data?.fulfillmentTrackingInfoUpdate.fulfillment?.trackingInfo).toEqual([
      { company: 'UPS', number: '1ZNEW', url: 'https://ups.example.com/1ZNEW' },
    ]);

    await world.sandbox.ctx.webhooks.settled();
    const updates = hooksFor('fulfillments/update', o.fulfillmentId);
    expect(updates).toHaveLength(2);
    for (const u of updates)
      expect(u.hmac).toBe(createHmac('sha256', apiSecret).update(u.raw, 'utf8').digest('base64'));
    expect(updates[0]?.body).toMatchObject({
      status: 'success',
      tracking_company: 'FedEx',
      tracking_number: '7001',
      tracking_numbers: ['7001', '7002'],
      tracking_urls: ['https://track.example.com/7001', 'https://track.example.com/7002'],
    });
    expect(updates[1]?.body).toMatchObject({
      tracking_numbers: ['1ZNEW'],
      tracking_url: 'https://ups.example.com/1ZNEW',
    });
  });

  it('refuses both mutations to an app without a fulfillment write scope', async () => {
    const shop = 'fulfil-scopes';
    const client = await officialClient(shop);
    const o = await orderWithFulfillment(client, shop, 1, 1);
    const reader = await officialClient(shop, '2025-01', 'read_products,read_orders,read_locations');
    const cancel = await reader.request<CancelAnswer>(CANCEL, { variables: { id: o.fulfillmentId } });
    expect(cancel.errors?.graphQLErrors?.[0]?.extensions?.code).toBe('ACCESS_DENIED');
    expect(cancel.errors?.graphQLErrors?.[0]?.message).toMatch(/write_merchant_managed_fulfillment_orders/);
    const track = await reader.request<TrackingAnswer>(TRACKING, {
      variables: { id: o.fulfillmentId, t: { number: '1' } },
    });
    expect(track.errors?.graphQLErrors?.[0]?.extensions?.code).toBe('ACCESS_DENIED');
    // Nothing changed.
    const state = await orderState(client, o.orderId);
    expect(state.fulfillments[0]).toMatchObject({ status: 'SUCCESS', trackingInfo: [{ number: '1ZFIRST' }] });
  });
});
