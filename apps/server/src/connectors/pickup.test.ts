// The pickup write-back (issue 15) against the simulators over real HTTP: Shopify's pickup fulfillment order
// prepared for pickup, then fulfilled; Square's PICKUP fulfillment PROPOSED → RESERVED → PREPARED → COMPLETED.
// Each state a second time is a success that changes nothing; an order without a pickup says so.
import type { RunningSandbox } from '@switchyard/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryLogger, TEST_PROVIDER_SECRETS } from '../../test/app.ts';
import { approveConsent } from '../../test/channels.ts';
import { startTestSandbox } from '../../test/sandbox.ts';
import { Config } from '../config.ts';
import { type ProviderEndpoints, resolveProviders } from '../providers.ts';
import { SHOPIFY_API_VERSION } from './shopify/client.ts';
import { shopify } from './shopify/index.ts';
import { connectShop, controlApi } from './shopify/testing.ts';
import { square } from './square/index.ts';

let sandbox: RunningSandbox;
let endpoints: ProviderEndpoints;

beforeAll(async () => {
  sandbox = await startTestSandbox({ products: 6 });
  endpoints = resolveProviders(
    Config.parse({ NODE_ENV: 'test', DATA_DIR: '/nonexistent' }),
    sandbox.url,
    TEST_PROVIDER_SECRETS,
  );
});
afterAll(async () => {
  await sandbox.close();
});

describe('Shopify local pickup', () => {
  it('prepares the pickup fulfillment order, then fulfils it; again changes nothing', async () => {
    const shop = 'pickup-shop';
    const ctl = controlApi(sandbox.url);
    const credentials = await connectShop(endpoints, shop);
    const connector = shopify.connect(endpoints, credentials, { logger: memoryLogger().logger });
    const snap = await ctl.snapshot(shop);
    const sku = Object.keys(snap.stock)[0] as string;
    const store = Object.keys(snap.stock[sku] ?? {})[0] as string;
    const { orderId } = (await ctl.call(`/shopify/${shop}/orders`, {
      lines: [{ sku, quantity: 2 }],
      location: store,
      fulfillmentType: 'pickup',
    })) as { orderId: string };
    const fulfillmentOrders = async () => {
      const res = await fetch(`${endpoints.shopify.shopUrl(shop)}/admin/api/${SHOPIFY_API_VERSION}/graphql.json`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-shopify-access-token': credentials.accessToken },
        body: JSON.stringify({
          query:
            'query($id: ID!) { order(id: $id) { displayFulfillmentStatus fulfillmentOrders(first: 5) { nodes { status deliveryMethod { methodType } } } } }',
          variables: { id: orderId },
        }),
      });
      const body = (await res.json()) as {
        data: { order: { displayFulfillmentStatus: string; fulfillmentOrders: { nodes: { status: string }[] } } };
      };
      return body.data.order;
    };
    expect((await fulfillmentOrders()).fulfillmentOrders.nodes).toEqual([
      { status: 'OPEN', deliveryMethod: { methodType: 'PICK_UP' } },
    ]);

    expect(await connector.updatePickup?.({ orderExternalId: orderId, state: 'ready' })).toEqual({ ok: true });
    expect((await fulfillmentOrders()).fulfillmentOrders.nodes[0]?.status).toBe('IN_PROGRESS');
    expect(await connector.updatePickup?.({ orderExternalId: orderId, state: 'ready' })).toEqual({ ok: true });

    expect(await connector.updatePickup?.({ orderExternalId: orderId, state: 'picked_up' })).toEqual({ ok: true });
    const done = await fulfillmentOrders();
    expect(done).toMatchObject({
      displayFulfillmentStatus: 'FULFILLED',
      fulfillmentOrders: { nodes: [{ status: 'CLOSED' }] },
    });
    expect((await connector.getOrder?.(orderId))?.lines[0]?.fulfilledQuantity).toBe(2);
    // Picked up twice: still one fulfillment.
    expect(await connector.updatePickup?.({ orderExternalId: orderId, state: 'picked_up' })).toEqual({ ok: true });
    expect((await connector.getOrder?.(orderId))?.lines[0]?.fulfilledQuantity).toBe(2);

    // A shipping order has no pickup to mark, and the simulator refuses to prepare a shipping fulfillment order.
    const shipped = (await ctl.call(`/shopify/${shop}/orders`, { lines: [{ sku, quantity: 1 }], location: store })) as {
      orderId: string;
    };
    expect(await connector.updatePickup?.({ orderExternalId: shipped.orderId, state: 'ready' })).toMatchObject({
      unsupported: expect.stringContaining('no local pickup'),
    });
  });
});

describe('Square pickup fulfillment', () => {
  it('moves PROPOSED → RESERVED → PREPARED on ready, COMPLETED on picked up; again changes nothing', async () => {
    const oauth = square.oauth(endpoints);
    const redirectUri = 'https://switchyard.example.com/channels/square/callback';
    const query = await approveConsent(oauth.authorizeUrl({ state: 's', redirectUri, environment: 'production' }), {
      business: 'Pickup Bakery',
    });
    const seller = await oauth.completeAuthorization(query, redirectUri);
    const connector = square.connect(endpoints, seller.credentials, { logger: memoryLogger().logger });
    const control = `${sandbox.url}/_control/square/${seller.externalId}`;
    const snap = (await (await fetch(control)).json()) as {
      stock: Record<string, unknown>;
      locations: { id: string }[];
    };
    const sku = Object.keys(snap.stock)[0] as string;
    const location = snap.locations[0]?.id as string;
    const placed = await fetch(`${control}/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        lines: [{ sku, quantity: 1 }],
        location,
        fulfillmentType: 'curbside_pickup',
        customer: { name: 'Grace Hopper', email: 'grace@example.com' },
      }),
    });
    const { orderId } = (await placed.json()) as { orderId: string };
    const pickup = async () => {
      const res = await fetch(`${endpoints.square.baseUrl('production')}/v2/orders/${orderId}`, {
        headers: { authorization: `Bearer ${seller.credentials.accessToken}`, 'square-version': '2025-01-23' },
      });
      const { order } = (await res.json()) as {
        order: {
          state: string;
          fulfillments: { type: string; state: string; pickup_details: Record<string, unknown> }[];
        };
      };
      return order.fulfillments.find((f) => f.type === 'PICKUP');
    };
    expect((await pickup())?.state).toBe('PROPOSED');

    expect(await connector.updatePickup?.({ orderExternalId: orderId, state: 'ready' })).toEqual({ ok: true });
    const ready = await pickup();
    expect(ready?.state).toBe('PREPARED');
    expect(ready?.pickup_details).toMatchObject({ accepted_at: expect.any(String), ready_at: expect.any(String) });
    expect(await connector.updatePickup?.({ orderExternalId: orderId, state: 'ready' })).toEqual({ ok: true });

    expect(await connector.updatePickup?.({ orderExternalId: orderId, state: 'picked_up' })).toEqual({ ok: true });
    expect((await pickup())?.state).toBe('COMPLETED');
    expect((await pickup())?.pickup_details.picked_up_at).toEqual(expect.any(String));
    expect(await connector.updatePickup?.({ orderExternalId: orderId, state: 'picked_up' })).toEqual({ ok: true });
    expect((await connector.getOrder?.(orderId))?.lines[0]?.fulfilledQuantity).toBe(1);
  });
});
