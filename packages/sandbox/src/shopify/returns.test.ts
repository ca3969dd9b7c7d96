import { createHmac } from 'node:crypto';
import type { AdminApiClient } from '@shopify/admin-api-client';
import { describe, expect, it } from 'vitest';
// The connector's own refund operations, so the official client runs exactly what the app sends.
import {
  ORDER_REFUNDS_QUERY,
  REFUND_CREATE_MUTATION,
  REFUND_ORDER_QUERY,
  REFUND_QUERY,
  RETURN_QUERY,
  REVERSE_ORDER_RETURN_QUERY,
} from '../../../../apps/server/src/connectors/shopify/return-queries.ts';
import { SANDBOX_APPS } from '../apps.ts';
import { shopifyTestWorld } from './test-world.ts';

const { apiSecret } = SANDBOX_APPS.shopify;
const SCOPE =
  'write_products,write_inventory,read_locations,write_orders,write_merchant_managed_fulfillment_orders,write_returns';

const world = shopifyTestWorld(SCOPE);
const { received, control, officialClient } = world;

async function available(client: AdminApiClient, variantId: string, locationId: string) {
  const res = await client.request<{
    productVariant: { inventoryItem: { inventoryLevel: { quantities: { quantity: number }[] } | null } };
  }>(
    `query($id: ID!, $loc: ID!) { productVariant(id: $id) { inventoryItem { inventoryLevel(locationId: $loc) {
      quantities(names: ["available"]) { quantity } } } } }`,
    { variables: { id: variantId, loc: locationId } },
  );
  return res.data?.productVariant.inventoryItem.inventoryLevel?.quantities[0]?.quantity ?? 0;
}

/** A shipped web order of `quantity` units of one SKU, fulfilled from the first location. */
async function shippedOrder(client: AdminApiClient, shop: string, quantity: number) {
  const snap = (await (await fetch(`${world.sandbox.url}/_control/shopify/${shop}`)).json()) as {
    locations: { id: string }[];
    stock: Record<string, Record<string, number>>;
  };
  const first = snap.locations[0]?.id as string;
  const sku = Object.entries(snap.stock).find(([, q]) => (q[first] ?? 0) >= quantity + 1)?.[0] as string;
  const placed = await control(`${shop}/orders`, {
    lines: [{ sku, quantity }],
    location: first,
    tax: 100 * quantity,
    shipping: 500,
  });
  const orderId = placed.body.orderId as string;
  const fo = await client.request<{ order: { fulfillmentOrders: { nodes: { id: string }[] } } }>(
    'query($id: ID!) { order(id: $id) { fulfillmentOrders(first: 5) { nodes { id } } } }',
    { variables: { id: orderId } },
  );
  const shipped = await client.request<{ fulfillmentCreate: { userErrors: unknown[] } }>(
    `mutation($f: FulfillmentInput!) { fulfillmentCreate(fulfillment: $f) { fulfillment { id } userErrors { message } } }`,
    {
      variables: {
        f: {
          lineItemsByFulfillmentOrder: fo.data?.order.fulfillmentOrders.nodes.map((n) => ({
            fulfillmentOrderId: n.id,
          })),
        },
      },
    },
  );
  expect(shipped.data?.fulfillmentCreate.userErrors).toEqual([]);
  return { orderId, sku, locations: snap.locations.map((l) => l.id) };
}

type RefundOrder = {
  id: string;
  currencyCode: string;
  transactions: { id: string; kind: string; status: string; gateway: string }[];
  refunds: { id: string; note: string | null }[];
  lineItems: { nodes: { id: string; currentQuantity: number; unfulfilledQuantity: number }[] };
};

describe('Shopify refunds through @shopify/admin-api-client', () => {
  it('refunds a shipped line with RETURN at a store: Shopify’s stock goes back there, refunds/create tells it whole', async () => {
    const shop = 'refunds-official';
    const client = await officialClient(shop);
    for (const topic of ['REFUNDS_CREATE', 'INVENTORY_LEVELS_UPDATE'])
      await client.request(
        `mutation($topic: WebhookSubscriptionTopic!, $url: URL!) {
          webhookSubscriptionCreate(topic: $topic, webhookSubscription: { callbackUrl: $url, format: JSON }) { userErrors { message } } }`,
        { variables: { topic, url: world.hookUrl } },
      );
    const since = new Date(Date.now() - 1000).toISOString().slice(0, 19);
    const { orderId, locations } = await shippedOrder(client, shop, 2);
    const store = locations[1] as string;

    const read = await client.request<{ order: RefundOrder }>(REFUND_ORDER_QUERY, { variables: { id: orderId } });
    expect(read.errors).toBeUndefined();
    const order = read.data?.order as RefundOrder;
    const line = order.lineItems.nodes[0] as RefundOrder['lineItems']['nodes'][number];
    expect(line).toMatchObject({ currentQuantity: 2, unfulfilledQuantity: 0 });
    const sale = order.transactions.find((t) => t.kind === 'SALE');
    expect(sale).toMatchObject({ status: 'SUCCESS', gateway: 'shopify_payments' });
    const variant = (
      await client.request<{ order: { lineItems: { nodes: { variant: { id: string } }[] } } }>(
        'query($id: ID!) { order(id: $id) { lineItems(first: 1) { nodes { variant { id } } } } }',
        { variables: { id: orderId } },
      )
    ).data?.order.lineItems.nodes[0]?.variant.id as string;
    const before = await available(client, variant, store);
    received.length = 0;

    const created = await client.request<{ refundCreate: { refund: { id: string } | null; userErrors: unknown[] } }>(
      REFUND_CREATE_MUTATION,
      {
        variables: {
          input: {
            orderId,
            note: 'Too small [switchyard:key-1]',
            notify: false,
            refundLineItems: [{ lineItemId: line.id, quantity: 1, restockType: 'RETURN', locationId: store }],
            shipping: { amount: '5.00' },
            transactions: [{ orderId, gateway: sale?.gateway, kind: 'REFUND', amount: '10.00', parentId: sale?.id }],
          },
        },
      },
    );
    expect(created.errors).toBeUndefined();
    expect(created.data?.refundCreate.userErrors).toEqual([]);
    const refundId = created.data?.refundCreate.refund?.id as string;
    expect(await available(client, variant, store)).toBe(before + 1);

    const one = await client.request<{ refund: Record<string, unknown> }>(REFUND_QUERY, {
      variables: { id: refundId },
    });
    expect(one.errors).toBeUndefined();
    expect(one.data?.refund).toMatchObject({
      id: refundId,
      note: 'Too small [switchyard:key-1]',
      totalRefundedSet: { shopMoney: { amount: '10.00', currencyCode: 'USD' } },
      order: { id: orderId },
      refundLineItems: {
        nodes: [{ quantity: 1, restockType: 'RETURN', location: { id: store }, lineItem: { id: line.id } }],
        pageInfo: { hasNextPage: false },
      },
      refundShippingLines: { nodes: [{ subtotalAmountSet: { shopMoney: { amount: '5.00' } } }] },
    });
    const listed = await client.request<{ orders: { nodes: { id: string; refunds: { id: string }[] }[] } }>(
      ORDER_REFUNDS_QUERY,
      { variables: { after: null, query: `updated_at:>='${since}Z'` } },
    );
    expect(listed.errors).toBeUndefined();
    expect(listed.data?.orders.nodes.find((o) => o.id === orderId)?.refunds.map((r) => r.id)).toEqual([refundId]);

    await world.sandbox.ctx.webhooks.settled();
    const hook = received.find((r) => r.topic === 'refunds/create');
    if (!hook) throw new Error('no refunds/create');
    expect(hook.hmac).toBe(createHmac('sha256', apiSecret).update(hook.raw, 'utf8').digest('base64'));
    const numeric = (gid: string) => Number(gid.split('/').pop());
    expect(hook.body).toMatchObject({
      id: numeric(refundId),
      admin_graphql_api_id: refundId,
      order_id: numeric(orderId),
      restock: true,
      refund_line_items: [
        {
          line_item_id: numeric(line.id),
          quantity: 1,
          restock_type: 'return',
          location_id: numeric(store),
          line_item: { id: numeric(line.id), admin_graphql_api_id: line.id },
        },
      ],
      transactions: [{ kind: 'refund', status: 'success', amount: '10.00', parent_id: numeric(sale?.id as string) }],
      order_adjustments: [{ kind: 'shipping_refund', amount: '-5.00' }, { kind: 'refund_discrepancy' }],
    });
    const refundLine = (hook.body.refund_line_items as Record<string, unknown>[])[0];
    expect(typeof refundLine?.subtotal).toBe('number');
    expect(refundLine?.total_tax).toBe(1);
    expect(
      received.some(
        (r) =>
          r.topic === 'inventory_levels/update' &&
          r.body.location_id === numeric(store) &&
          r.body.available === before + 1,
      ),
    ).toBe(true);
  });

  it('refuses to return more than shipped or cancel more than is open, and replays a 2026-01 @idempotent refund', async () => {
    const shop = 'refunds-idempotent';
    const client = await officialClient(shop);
    const { orderId } = await shippedOrder(client, shop, 1);
    const order = (await client.request<{ order: RefundOrder }>(REFUND_ORDER_QUERY, { variables: { id: orderId } }))
      .data?.order as RefundOrder;
    const line = order.lineItems.nodes[0]?.id as string;
    const refund = (restockType: string, quantity = 1) =>
      client.request<{ refundCreate: { refund: { id: string } | null; userErrors: { message: string }[] } }>(
        REFUND_CREATE_MUTATION,
        { variables: { input: { orderId, refundLineItems: [{ lineItemId: line, quantity, restockType }] } } },
      );
    expect((await refund('RETURN', 2)).data?.refundCreate.userErrors[0]?.message).toMatch(
      /more items than were purchased/,
    );
    expect((await refund('CANCEL')).data?.refundCreate.userErrors[0]?.message).toMatch(/unfulfilled/);

    const v2026 = await officialClient(shop, '2026-01');
    const idempotent = (amount: string) =>
      v2026.request<{ refundCreate: { refund: { id: string } | null } }>(
        `mutation($input: RefundInput!) { refundCreate(input: $input) @idempotent(key: "refund-77") { refund { id } userErrors { message } } }`,
        {
          variables: {
            input: { orderId, transactions: [{ orderId, gateway: 'shopify_payments', kind: 'REFUND', amount }] },
          },
        },
      );
    const first = await idempotent('1.00');
    const again = await idempotent('1.00');
    expect(again.data?.refundCreate.refund?.id).toBe(first.data?.refundCreate.refund?.id);
    expect((await idempotent('2.00')).errors?.graphQLErrors?.[0]?.extensions?.code).toBe(
      'IDEMPOTENCY_KEY_PARAMETER_MISMATCH',
    );
    const refunds = (await client.request<{ order: RefundOrder }>(REFUND_ORDER_QUERY, { variables: { id: orderId } }))
      .data?.order.refunds;
    expect(refunds).toHaveLength(1);
  });
});

type ReturnRead = {
  id: string;
  name: string;
  status: string;
  returnLineItems: {
    nodes: {
      id: string;
      quantity: number;
      fulfillmentLineItem: { id: string; lineItem: { id: string; sku: string } };
    }[];
  };
  reverseFulfillmentOrders: {
    nodes: {
      lineItems: {
        nodes: {
          totalQuantity: number;
          fulfillmentLineItem: { id: string };
          dispositions: { quantity: number; type: string; location: { id: string } | null }[];
        }[];
      };
    }[];
  };
  refunds: { nodes: { id: string; totalRefundedSet: { shopMoney: { amount: string } } }[] };
};

describe("Shopify's Returns API through @shopify/admin-api-client", () => {
  const RETURN_TOPICS = [
    'RETURNS_REQUEST',
    'RETURNS_APPROVE',
    'RETURNS_DECLINE',
    'RETURNS_CLOSE',
    'RETURNS_REOPEN',
    'REVERSE_FULFILLMENT_ORDERS_DISPOSE',
    'REFUNDS_CREATE',
    'INVENTORY_LEVELS_UPDATE',
  ];

  it('requests, declines, opens, disposes (RESTOCKED puts the unit back on sale there), refunds, closes and reopens a return, each with its webhook', async () => {
    const shop = 'returns-official';
    const client = await officialClient(shop);
    for (const topic of RETURN_TOPICS) {
      const made = await client.request<{ webhookSubscriptionCreate: { userErrors: unknown[] } }>(
        `mutation($topic: WebhookSubscriptionTopic!, $url: URL!) {
          webhookSubscriptionCreate(topic: $topic, webhookSubscription: { callbackUrl: $url, format: JSON }) { userErrors { message } } }`,
        { variables: { topic, url: world.hookUrl } },
      );
      expect(made.data?.webhookSubscriptionCreate.userErrors).toEqual([]);
    }
    const { orderId, locations } = await shippedOrder(client, shop, 2);
    const store = locations[1] as string;
    const numeric = (id: string) => Number(id.split('/').pop());
    const shipped = await client.request<{
      order: {
        name: string;
        transactions: { id: string; kind: string }[];
        lineItems: { nodes: { variant: { id: string } }[] };
        fulfillments: {
          fulfillmentLineItems: { nodes: { id: string; quantity: number; lineItem: { id: string } }[] };
        }[];
      };
    }>(
      `query($id: ID!) { order(id: $id) { name transactions(first: 5) { id kind } lineItems(first: 5) { nodes { variant { id } } }
        fulfillments(first: 5) { fulfillmentLineItems(first: 5) { nodes { id quantity lineItem { id } } } } } }`,
      { variables: { id: orderId } },
    );
    const order = shipped.data?.order as NonNullable<typeof shipped.data>['order'];
    const fli = order.fulfillments[0]?.fulfillmentLineItems.nodes[0] as {
      id: string;
      quantity: number;
      lineItem: { id: string };
    };
    expect(fli.quantity).toBe(2);
    const variant = order.lineItems.nodes[0]?.variant.id as string;
    received.length = 0;

    // The customer asks; the merchant declines.
    const requested = await client.request<{
      returnRequest: { return: { id: string; status: string } | null; userErrors: unknown[] };
    }>(
      `mutation($input: ReturnRequestInput!) { returnRequest(input: $input) { return { id status } userErrors { code field message } } }`,
      {
        variables: {
          input: {
            orderId,
            returnLineItems: [{ fulfillmentLineItemId: fli.id, quantity: 1, returnReason: 'SIZE_TOO_SMALL' }],
          },
        },
      },
    );
    expect(requested.data?.returnRequest).toMatchObject({ return: { status: 'REQUESTED' }, userErrors: [] });
    const declined = await client.request<{ returnDeclineRequest: { return: { status: string } | null } }>(
      `mutation($input: ReturnDeclineRequestInput!) { returnDeclineRequest(input: $input) { return { status } userErrors { message } } }`,
      { variables: { input: { id: requested.data?.returnRequest.return?.id, declineReason: 'FINAL_SALE' } } },
    );
    expect(declined.data?.returnDeclineRequest.return?.status).toBe('DECLINED');

    // The merchant opens one for both units; a third cannot be returned.
    const tooMany = await client.request<{ returnCreate: { userErrors: { code: string; field: string[] }[] } }>(
      `mutation($input: ReturnInput!) { returnCreate(returnInput: $input) { return { id } userErrors { code field message } } }`,
      {
        variables: {
          input: {
            orderId,
            returnLineItems: [{ fulfillmentLineItemId: fli.id, quantity: 3, returnReason: 'UNKNOWN' }],
          },
        },
      },
    );
    expect(tooMany.data?.returnCreate.userErrors[0]).toMatchObject({
      code: 'GREATER_THAN',
      field: ['returnInput', 'returnLineItems', '0', 'quantity'],
    });
    const created = await client.request<{
      returnCreate: { return: { id: string; name: string; status: string } | null };
    }>(
      `mutation($input: ReturnInput!) { returnCreate(returnInput: $input) { return { id name status } userErrors { message } } }`,
      {
        variables: {
          input: {
            orderId,
            returnLineItems: [{ fulfillmentLineItemId: fli.id, quantity: 2, returnReason: 'DEFECTIVE' }],
          },
        },
      },
    );
    const returnId = created.data?.returnCreate.return?.id as string;
    expect(created.data?.returnCreate.return).toMatchObject({ name: `${order.name}-R2`, status: 'OPEN' });

    const read = async () => {
      const res = await client.request<{ return: ReturnRead }>(RETURN_QUERY, { variables: { id: returnId } });
      expect(res.errors).toBeUndefined();
      return res.data?.return as ReturnRead;
    };
    const open = await read();
    expect(open.returnLineItems.nodes).toEqual([
      expect.objectContaining({ quantity: 2, fulfillmentLineItem: expect.objectContaining({ id: fli.id }) }),
    ]);
    const rfoLine = open.reverseFulfillmentOrders.nodes[0]?.lineItems.nodes[0];
    expect(rfoLine).toMatchObject({ totalQuantity: 2, fulfillmentLineItem: { id: fli.id }, dispositions: [] });

    // One unit back on sale at the store, one damaged.
    const rfoLineId = (
      await client.request<{
        return: { reverseFulfillmentOrders: { nodes: { id: string; lineItems: { nodes: { id: string }[] } }[] } };
      }>(
        'query($id: ID!) { return(id: $id) { reverseFulfillmentOrders(first: 1) { nodes { id lineItems(first: 1) { nodes { id } } } } } }',
        { variables: { id: returnId } },
      )
    ).data?.return.reverseFulfillmentOrders.nodes[0];
    const before = await available(client, variant, store);
    const disposed = await client.request<{
      reverseFulfillmentOrderDispose: { userErrors: unknown[]; reverseFulfillmentOrderLineItems: unknown[] };
    }>(
      `mutation($inputs: [ReverseFulfillmentOrderDisposeInput!]!) { reverseFulfillmentOrderDispose(dispositionInputs: $inputs) {
        reverseFulfillmentOrderLineItems { id dispositions { type quantity } } userErrors { code field message } } }`,
      {
        variables: {
          inputs: [
            {
              reverseFulfillmentOrderLineItemId: rfoLineId?.lineItems.nodes[0]?.id,
              quantity: 1,
              dispositionType: 'RESTOCKED',
              locationId: store,
            },
            {
              reverseFulfillmentOrderLineItemId: rfoLineId?.lineItems.nodes[0]?.id,
              quantity: 1,
              dispositionType: 'NOT_RESTOCKED',
            },
          ],
        },
      },
    );
    expect(disposed.data?.reverseFulfillmentOrderDispose.userErrors).toEqual([]);
    expect(await available(client, variant, store)).toBe(before + 1);
    expect((await read()).reverseFulfillmentOrders.nodes[0]?.lineItems.nodes[0]?.dispositions).toEqual([
      { quantity: 1, type: 'RESTOCKED', location: { id: store } },
      { quantity: 1, type: 'NOT_RESTOCKED', location: null },
    ]);
    const again = await client.request<{ reverseFulfillmentOrderDispose: { userErrors: { code: string }[] } }>(
      `mutation($inputs: [ReverseFulfillmentOrderDisposeInput!]!) { reverseFulfillmentOrderDispose(dispositionInputs: $inputs) { userErrors { code message } } }`,
      {
        variables: {
          inputs: [
            {
              reverseFulfillmentOrderLineItemId: rfoLineId?.lineItems.nodes[0]?.id,
              quantity: 1,
              dispositionType: 'RESTOCKED',
              locationId: store,
            },
          ],
        },
      },
    );
    expect(again.data?.reverseFulfillmentOrderDispose.userErrors[0]?.code).toBe('INVALID_STATE');

    // Paid for: the refund names its return.
    const sale = order.transactions.find((t) => t.kind === 'SALE');
    const returnLine = open.returnLineItems.nodes[0]?.id as string;
    const refunded = await client.request<{ returnRefund: { refund: { id: string } | null; userErrors: unknown[] } }>(
      `mutation($input: ReturnRefundInput!) { returnRefund(returnRefundInput: $input) { refund { id } userErrors { code field message } } }`,
      {
        variables: {
          input: {
            returnId,
            returnRefundLineItems: [{ returnLineItemId: returnLine, quantity: 2 }],
            orderTransactions: [{ transactionAmount: { amount: '12.00', currencyCode: 'USD' }, parentId: sale?.id }],
          },
        },
      },
    );
    expect(refunded.data?.returnRefund.userErrors).toEqual([]);
    const refundId = refunded.data?.returnRefund.refund?.id as string;
    const refund = await client.request<{ refund: { id: string; return: { id: string } | null } }>(REFUND_QUERY, {
      variables: { id: refundId },
    });
    expect(refund.data?.refund.return).toEqual({ id: returnId });
    expect((await read()).refunds.nodes).toEqual([
      expect.objectContaining({
        id: refundId,
        totalRefundedSet: expect.objectContaining({ shopMoney: expect.objectContaining({ amount: '12.00' }) }),
      }),
    ]);

    const step = (name: string) =>
      client.request<Record<string, { return: { status: string } | null; userErrors: { code: string }[] }>>(
        `mutation($id: ID!) { ${name}(id: $id) { return { status } userErrors { code message } } }`,
        { variables: { id: returnId } },
      );
    expect((await step('returnClose')).data?.returnClose?.return?.status).toBe('CLOSED');
    expect((await step('returnClose')).data?.returnClose?.userErrors[0]?.code).toBe('INVALID_STATE');
    expect((await step('returnReopen')).data?.returnReopen?.return?.status).toBe('OPEN');
    expect((await step('returnClose')).data?.returnClose?.return?.status).toBe('CLOSED');

    // The pull finds the return on its order, and its refund naming it; the disposal's reverse order leads to it.
    const listed = await client.request<{
      orders: {
        nodes: {
          id: string;
          refunds: { id: string; return: { id: string } | null }[];
          returns: { nodes: { id: string }[] };
        }[];
      };
    }>(ORDER_REFUNDS_QUERY, { variables: { after: null, query: null } });
    expect(listed.errors).toBeUndefined();
    const listedOrder = listed.data?.orders.nodes.find((o) => o.id === orderId);
    expect(listedOrder?.returns.nodes.map((r) => r.id)).toEqual([requested.data?.returnRequest.return?.id, returnId]);
    expect(listedOrder?.refunds).toEqual([expect.objectContaining({ id: refundId, return: { id: returnId } })]);

    await world.sandbox.ctx.webhooks.settled();
    const topics = received.map((r) => r.topic);
    expect(topics.filter((t) => t.startsWith('returns/'))).toEqual([
      'returns/request',
      'returns/decline',
      'returns/approve',
      'returns/close',
      'returns/reopen',
      'returns/close',
    ]);
    for (const r of received)
      expect(r.hmac).toBe(createHmac('sha256', apiSecret).update(r.raw, 'utf8').digest('base64'));
    const byTopic = (topic: string) => received.filter((r) => r.topic === topic).map((r) => r.body);
    expect(byTopic('returns/request')[0]).toMatchObject({
      admin_graphql_api_id: requested.data?.returnRequest.return?.id,
      status: 'requested',
      order: { id: numeric(orderId), admin_graphql_api_id: orderId },
      return_line_items: [
        {
          quantity: 1,
          return_reason: 'size_too_small',
          fulfillment_line_item: { admin_graphql_api_id: fli.id, line_item: { admin_graphql_api_id: fli.lineItem.id } },
        },
      ],
    });
    expect(byTopic('returns/decline')[0]).toMatchObject({ status: 'declined', decline: { reason: 'final_sale' } });
    expect(byTopic('returns/approve')[0]).toMatchObject({
      admin_graphql_api_id: returnId,
      status: 'open',
      name: `${order.name}-R2`,
    });
    expect(byTopic('returns/close')[0]).toEqual({
      id: numeric(returnId),
      admin_graphql_api_id: returnId,
      order_id: numeric(orderId),
      status: 'closed',
    });
    expect(byTopic('reverse_fulfillment_orders/dispose')[0]).toMatchObject({
      total_dispositions: 2,
      dispositions: [
        { type: 'restocked', quantity: 1, location: { id: numeric(store) } },
        { type: 'not_restocked', quantity: 1, location: null },
      ],
    });
    const rfoId = (byTopic('reverse_fulfillment_orders/dispose')[0] as { admin_graphql_api_id: string })
      .admin_graphql_api_id;
    expect(byTopic('refunds/create')[0]).toMatchObject({
      admin_graphql_api_id: refundId,
      return: { id: numeric(returnId), admin_graphql_api_id: returnId },
      refund_line_items: [{ quantity: 2, restock_type: 'no_restock' }],
    });
    expect(
      byTopic('inventory_levels/update').some((b) => b.location_id === numeric(store) && b.available === before + 1),
    ).toBe(true);
    const owner = await client.request<{
      reverseFulfillmentOrder: {
        order: { returns: { nodes: { id: string; reverseFulfillmentOrders: { nodes: { id: string }[] } }[] } };
      };
    }>(REVERSE_ORDER_RETURN_QUERY, { variables: { id: rfoId } });
    expect(
      owner.data?.reverseFulfillmentOrder.order.returns.nodes.find((r) =>
        r.reverseFulfillmentOrders.nodes.some((o) => o.id === rfoId),
      )?.id,
    ).toBe(returnId);
  });

  it('keeps returns from an app without read_returns: no return query, no return webhooks', async () => {
    const client = await officialClient(
      'returns-unscoped',
      '2025-01',
      'write_products,write_inventory,read_locations,write_orders,write_merchant_managed_fulfillment_orders',
    );
    const res = await client.request('query { return(id: "gid://shopify/Return/1") { id } }');
    expect(res.errors?.graphQLErrors?.[0]?.extensions?.code).toBe('ACCESS_DENIED');
    const sub = await client.request<{ webhookSubscriptionCreate: { userErrors: { message: string }[] } }>(
      `mutation { webhookSubscriptionCreate(topic: RETURNS_CLOSE, webhookSubscription: { callbackUrl: "${world.hookUrl}", format: JSON }) { userErrors { message } } }`,
    );
    expect(sub.data?.webhookSubscriptionCreate.userErrors[0]?.message).toMatch(/read_returns/);
  });
});
