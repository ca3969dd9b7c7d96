import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SANDBOX_APPS } from '../apps.ts';
import { type RunningSandbox, startSandbox } from '../server.ts';
import { signedQueryText } from './oauth.ts';

const { apiKey, apiSecret } = SANDBOX_APPS.shopify;
const VERSION = '2025-01';

let sandbox: RunningSandbox;
let hooks: Server;
let hookUrl: string;
const received: { headers: Record<string, string | string[] | undefined>; body: string }[] = [];

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, webhookRetryDelayMs: 10, shopSize: { products: 40 } });
  hooks = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
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

beforeEach(() => {
  received.length = 0;
  sandbox.ctx.faults.clear();
});

const shopUrl = (shop: string) => `${sandbox.url}/shopify/${shop}`;

/** Runs the whole OAuth dance as a browser and the app would, returning the access token. */
async function install(
  shop: string,
  scope = 'read_products,write_products,write_inventory,read_locations,write_orders,write_merchant_managed_fulfillment_orders',
) {
  const redirectUri = 'https://app.example.com/channels/shopify/callback';
  const consent = await fetch(
    `${shopUrl(shop)}/admin/oauth/authorize?${new URLSearchParams({ client_id: apiKey, scope, redirect_uri: redirectUri, state: 'nonce-1' })}`,
  );
  expect(consent.status).toBe(200);
  const html = await consent.text();
  expect(html).toContain('Install app');
  const allow = await fetch(`${shopUrl(shop)}/admin/oauth/authorize`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: apiKey, scope, redirect_uri: redirectUri, state: 'nonce-1' }),
    redirect: 'manual',
  });
  expect(allow.status).toBe(302);
  const callback = new URL(allow.headers.get('location') as string);
  expect(callback.origin + callback.pathname).toBe(redirectUri);
  const params = Object.fromEntries(callback.searchParams);
  const token = await fetch(`${shopUrl(shop)}/admin/oauth/access_token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_id: apiKey, client_secret: apiSecret, code: params.code }),
  });
  expect(token.status).toBe(200);
  const body = (await token.json()) as { access_token: string; scope: string };
  return { token: body.access_token, scope: body.scope, params };
}

interface GqlAnswer<T = Record<string, unknown>> {
  data?: T;
  errors?: { message: string; extensions?: { code?: string } }[];
  extensions: {
    cost: {
      requestedQueryCost: number;
      actualQueryCost: number | null;
      throttleStatus: { maximumAvailable: number; currentlyAvailable: number; restoreRate: number };
    };
  };
}

async function gql<T = Record<string, unknown>>(
  shop: string,
  token: string,
  query: string,
  variables = {},
  version = VERSION,
) {
  const res = await fetch(`${shopUrl(shop)}/admin/api/${version}/graphql.json`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-shopify-access-token': token },
    body: JSON.stringify({ query, variables }),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as GqlAnswer<T> };
}

const snapshot = async (shop: string) =>
  (await (await fetch(`${sandbox.url}/_control/shopify/${shop}`)).json()) as {
    locations: { id: string; name: string }[];
    stock: Record<string, Record<string, number>>;
    variants: number;
    orders: number;
  };

describe('Shopify OAuth', () => {
  it('shows a consent page and redirects back with a code and a valid hex hmac over the sorted query', async () => {
    const { token, scope, params } = await install('oauth-shop');
    expect(token).toMatch(/^shpat_/);
    expect(scope).toContain('write_inventory');
    expect(params.shop).toBe('oauth-shop.myshopify.com');
    expect(params.state).toBe('nonce-1');
    const expected = createHmac('sha256', apiSecret).update(signedQueryText(params)).digest('hex');
    expect(params.hmac).toBe(expected);
    expect(Math.abs(Number(params.timestamp) - Date.now() / 1000)).toBeLessThan(5);
  });

  it('refuses an unknown client id and a bad redirect uri on the consent page', async () => {
    const unknown = await fetch(
      `${shopUrl('oauth-shop')}/admin/oauth/authorize?client_id=nope&scope=read_products&redirect_uri=https://x.example/cb`,
    );
    expect(unknown.status).toBe(400);
    expect(await unknown.text()).toContain('api_key is invalid');
    const badRedirect = await fetch(
      `${shopUrl('oauth-shop')}/admin/oauth/authorize?client_id=${apiKey}&scope=read_products&redirect_uri=javascript:alert(1)`,
    );
    expect(badRedirect.status).toBe(400);
  });

  it('uses a code once, and only with the right secret', async () => {
    const redirect = await fetch(`${shopUrl('oauth-shop')}/admin/oauth/authorize`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: apiKey, scope: 'read_products', redirect_uri: 'https://a.example/cb' }),
      redirect: 'manual',
    });
    const code = new URL(redirect.headers.get('location') as string).searchParams.get('code');
    const exchange = (secret: string) =>
      fetch(`${shopUrl('oauth-shop')}/admin/oauth/access_token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_id: apiKey, client_secret: secret, code }),
      });
    expect((await exchange('wrong-secret')).status).toBe(400);
    expect((await exchange(apiSecret)).status).toBe(200);
    const again = await exchange(apiSecret);
    expect(again.status).toBe(400);
    expect(((await again.json()) as { error: string }).error).toBe('invalid_request');
  });

  it('rejects API calls without a valid token for that shop', async () => {
    const { token } = await install('token-shop');
    expect((await gql('token-shop', 'shpat_forged', '{ shop { name } }')).status).toBe(401);
    expect((await gql('another-shop', token, '{ shop { name } }')).status).toBe(401);
    const ok = await gql<{ shop: { name: string; myshopifyDomain: string } }>(
      'token-shop',
      token,
      '{ shop { name myshopifyDomain } }',
    );
    expect(ok.status).toBe(200);
    expect(ok.body.data?.shop.myshopifyDomain).toBe('token-shop.myshopify.com');
  });

  it('denies fields outside the granted scopes', async () => {
    const { token } = await install('scoped-shop', 'read_products');
    const res = await gql('scoped-shop', token, '{ orders(first: 5) { nodes { id } } }');
    expect(res.body.errors?.[0]?.extensions?.code).toBe('ACCESS_DENIED');
  });
});

describe('Shopify Admin GraphQL', () => {
  let token: string;
  beforeAll(async () => {
    ({ token } = await install('catalog-shop'));
  });

  it('pages through every variant with cursors and reports the query cost', async () => {
    const skus: string[] = [];
    let after: string | null = null;
    let pages = 0;
    for (;;) {
      const res: Awaited<
        ReturnType<
          typeof gql<{
            productVariants: { nodes: { sku: string }[]; pageInfo: { hasNextPage: boolean; endCursor: string } };
          }>
        >
      > = await gql(
        'catalog-shop',
        token,
        'query($after: String) { productVariants(first: 25, after: $after) { nodes { sku inventoryItem { id } } pageInfo { hasNextPage endCursor } } }',
        { after },
      );
      const page = res.body.data?.productVariants;
      expect(res.body.extensions.cost.requestedQueryCost).toBe(2 + 25 * 2);
      expect(res.body.extensions.cost.throttleStatus.maximumAvailable).toBe(1000);
      skus.push(...(page?.nodes.map((n) => n.sku) ?? []));
      pages++;
      if (!page?.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor;
    }
    const snap = await snapshot('catalog-shop');
    expect(new Set(skus).size).toBe(snap.variants);
    expect(skus.length).toBe(snap.variants);
    expect(pages).toBe(Math.ceil(snap.variants / 25));
  });

  it('refuses a query over the single-query cost limit and page sizes over 250', async () => {
    const res = await gql(
      'catalog-shop',
      token,
      '{ products(first: 250) { nodes { variants(first: 100) { nodes { id } } } } }',
    );
    expect(res.body.errors?.[0]?.extensions?.code).toBe('MAX_COST_EXCEEDED');
    const big = await gql('catalog-shop', token, '{ locations(first: 251) { nodes { id } } }');
    expect(big.body.errors?.[0]?.message).toContain('250');
  });

  it('takes a bare query sent as application/graphql', async () => {
    const res = await fetch(`${shopUrl('catalog-shop')}/admin/api/${VERSION}/graphql.json`, {
      method: 'POST',
      headers: { 'content-type': 'application/graphql', 'x-shopify-access-token': token },
      body: '{ shop { myshopifyDomain } }',
    });
    expect(((await res.json()) as GqlAnswer<{ shop: { myshopifyDomain: string } }>).data?.shop.myshopifyDomain).toBe(
      'catalog-shop.myshopify.com',
    );
  });

  it('answers syntax errors as GraphQL errors', async () => {
    const res = await gql('catalog-shop', token, '{ shop { name ');
    expect(res.status).toBe(200);
    expect(res.body.errors?.[0]?.message).toMatch(/Syntax Error/);
  });

  it('reads named quantities per location and sets them with compare-and-set, all or nothing', async () => {
    const locs = await gql<{ locations: { nodes: { id: string }[] } }>(
      'catalog-shop',
      token,
      '{ locations(first: 10) { nodes { id name } } }',
    );
    const locationId = locs.body.data?.locations.nodes[0]?.id as string;
    const items = await gql<{
      productVariants: {
        nodes: {
          sku: string;
          inventoryItem: { id: string; inventoryLevel: { quantities: { name: string; quantity: number }[] } };
        }[];
      };
    }>(
      'catalog-shop',
      token,
      'query($loc: ID!) { productVariants(first: 2) { nodes { sku inventoryItem { id inventoryLevel(locationId: $loc) { quantities(names: ["available", "on_hand", "committed"]) { name quantity } } } } } }',
      { loc: locationId },
    );
    const [a, b] = items.body.data?.productVariants.nodes ?? [];
    if (!a || !b) throw new Error('no variants');
    const availableOf = (n: typeof a) =>
      n.inventoryItem.inventoryLevel.quantities.find((q) => q.name === 'available')?.quantity as number;
    const snap = await snapshot('catalog-shop');
    expect(availableOf(a)).toBe(snap.stock[a.sku]?.[locationId]);

    const mutation = `mutation($input: InventorySetQuantitiesInput!) { inventorySetQuantities(input: $input) {
      inventoryAdjustmentGroup { changes { name delta quantityAfterChange } } userErrors { code field message } } }`;
    const stale = await gql<{
      inventorySetQuantities: { inventoryAdjustmentGroup: null; userErrors: { code: string; field: string[] }[] };
    }>('catalog-shop', token, mutation, {
      input: {
        name: 'available',
        reason: 'correction',
        quantities: [
          { inventoryItemId: a.inventoryItem.id, locationId, quantity: 77, compareQuantity: availableOf(a) },
          { inventoryItemId: b.inventoryItem.id, locationId, quantity: 78, compareQuantity: availableOf(b) + 1 },
        ],
      },
    });
    expect(stale.body.data?.inventorySetQuantities.userErrors).toEqual([
      expect.objectContaining({
        code: 'COMPARE_QUANTITY_STALE',
        field: ['input', 'quantities', '1', 'compareQuantity'],
      }),
    ]);
    expect((await snapshot('catalog-shop')).stock[a.sku]?.[locationId]).toBe(availableOf(a));

    const ok = await gql<{
      inventorySetQuantities: {
        inventoryAdjustmentGroup: { changes: { name: string; delta: number; quantityAfterChange: number }[] };
        userErrors: unknown[];
      };
    }>('catalog-shop', token, mutation, {
      input: {
        name: 'available',
        reason: 'correction',
        quantities: [
          { inventoryItemId: a.inventoryItem.id, locationId, quantity: 77, compareQuantity: availableOf(a) },
          { inventoryItemId: b.inventoryItem.id, locationId, quantity: 78, compareQuantity: availableOf(b) },
        ],
      },
    });
    expect(ok.body.data?.inventorySetQuantities.userErrors).toEqual([]);
    expect(ok.body.data?.inventorySetQuantities.inventoryAdjustmentGroup.changes).toContainEqual({
      name: 'available',
      delta: 77 - availableOf(a),
      quantityAfterChange: 77,
    });
    const after = await snapshot('catalog-shop');
    expect(after.stock[a.sku]?.[locationId]).toBe(77);
    expect(after.stock[b.sku]?.[locationId]).toBe(78);

    const required = await gql<{ inventorySetQuantities: { userErrors: { code: string }[] } }>(
      'catalog-shop',
      token,
      mutation,
      {
        input: {
          name: 'available',
          reason: 'correction',
          quantities: [{ inventoryItemId: a.inventoryItem.id, locationId, quantity: 1 }],
        },
      },
    );
    expect(required.body.data?.inventorySetQuantities.userErrors[0]?.code).toBe('COMPARE_QUANTITY_REQUIRED');
  });

  it('adjusts by deltas, filters by search syntax, and honours the API version in the URL', async () => {
    const found = await gql<{ productVariants: { nodes: { sku: string; inventoryItem: { id: string } }[] } }>(
      'catalog-shop',
      token,
      'query($q: String) { productVariants(first: 5, query: $q) { nodes { sku inventoryItem { id } } } }',
      { q: 'sku:SY-00003-01' },
    );
    expect(found.body.data?.productVariants.nodes.map((n) => n.sku)).toEqual(['SY-00003-01']);
    const item = found.body.data?.productVariants.nodes[0]?.inventoryItem.id as string;
    const snap = await snapshot('catalog-shop');
    const locationId = snap.locations[2]?.id as string;
    const before = snap.stock['SY-00003-01']?.[locationId] as number;

    const adjust = await gql<{
      inventoryAdjustQuantities: {
        inventoryAdjustmentGroup: { changes: { name: string; delta: number }[] };
        userErrors: unknown[];
      };
    }>(
      'catalog-shop',
      token,
      `mutation($input: InventoryAdjustQuantitiesInput!) { inventoryAdjustQuantities(input: $input) {
        inventoryAdjustmentGroup { changes { name delta } } userErrors { code field message } } }`,
      { input: { name: 'available', reason: 'received', changes: [{ delta: 4, inventoryItemId: item, locationId }] } },
    );
    expect(adjust.body.data?.inventoryAdjustQuantities.userErrors).toEqual([]);
    expect(adjust.body.data?.inventoryAdjustQuantities.inventoryAdjustmentGroup.changes).toEqual([
      { name: 'available', delta: 4 },
      { name: 'on_hand', delta: 4 },
    ]);
    expect((await snapshot('catalog-shop')).stock['SY-00003-01']?.[locationId]).toBe(before + 4);

    // 2026-01: changeFromQuantity per row, stale ⇒ CHANGE_FROM_QUANTITY_STALE; the answer names the version.
    const set = (version: string, row: Record<string, unknown>) =>
      gql<{ inventorySetQuantities: { userErrors: { code: string }[] } }>(
        'catalog-shop',
        token,
        `mutation($input: InventorySetQuantitiesInput!) { inventorySetQuantities(input: $input) { userErrors { code field message } } }`,
        {
          input: {
            name: 'available',
            reason: 'correction',
            quantities: [{ inventoryItemId: item, locationId, quantity: 1, ...row }],
          },
        },
        version,
      );
    const stale = await set('2026-01', { changeFromQuantity: before });
    expect(stale.headers.get('x-shopify-api-version')).toBe('2026-01');
    expect(stale.body.data?.inventorySetQuantities.userErrors[0]?.code).toBe('CHANGE_FROM_QUANTITY_STALE');
    const ok = await set('2026-01', { changeFromQuantity: before + 4 });
    expect(ok.body.data?.inventorySetQuantities.userErrors).toEqual([]);
    const retired = await gql('catalog-shop', token, '{ shop { name } }', {}, '2023-01');
    expect(retired.headers.get('x-shopify-api-version')).toBe('2024-10');
    expect((await gql('catalog-shop', token, '{ shop { name } }', {}, 'latest')).status).toBe(404);
  });

  it('replays a 2026-01 @idempotent mutation instead of applying it twice, and refuses the key with other parameters', async () => {
    const snap = await snapshot('catalog-shop');
    const sku = 'SY-00004-01';
    const locationId = snap.locations[0]?.id as string;
    const before = snap.stock[sku]?.[locationId] as number;
    const item = (
      await gql<{ productVariants: { nodes: { inventoryItem: { id: string } }[] } }>(
        'catalog-shop',
        token,
        `{ productVariants(first: 1, query: "sku:${sku}") { nodes { inventoryItem { id } } } }`,
      )
    ).body.data?.productVariants.nodes[0]?.inventoryItem.id;
    const adjust = (delta: number, version = '2026-01') =>
      gql<{ inventoryAdjustQuantities: { inventoryAdjustmentGroup: { id: string } } }>(
        'catalog-shop',
        token,
        `mutation($input: InventoryAdjustQuantitiesInput!) { inventoryAdjustQuantities(input: $input) @idempotent(key: "adj-1") {
          inventoryAdjustmentGroup { id } userErrors { code message } } }`,
        { input: { name: 'available', reason: 'received', changes: [{ delta, inventoryItemId: item, locationId }] } },
        version,
      );
    const first = await adjust(2);
    const again = await adjust(2);
    expect(again.body.data?.inventoryAdjustQuantities.inventoryAdjustmentGroup.id).toBe(
      first.body.data?.inventoryAdjustQuantities.inventoryAdjustmentGroup.id,
    );
    expect((await snapshot('catalog-shop')).stock[sku]?.[locationId]).toBe(before + 2);
    expect((await adjust(3)).body.errors?.[0]?.extensions?.code).toBe('IDEMPOTENCY_KEY_PARAMETER_MISMATCH');
    expect((await adjust(2, '2025-01')).body.errors?.[0]?.message).toMatch(/idempotent/);
    expect((await snapshot('catalog-shop')).stock[sku]?.[locationId]).toBe(before + 2);
  });

  it('creates a product with variants and stock, then updates it', async () => {
    const created = await gql<{ productCreate: { product: { id: string; variants: { nodes: { id: string }[] } } } }>(
      'catalog-shop',
      token,
      `mutation { productCreate(product: { title: "Sandbox Tote", vendor: "Northwind", productOptions: [{ name: "Color", values: [{ name: "Red" }, { name: "Blue" }] }] }) {
        product { id variants(first: 5) { nodes { id } } } userErrors { field message } } }`,
    );
    const productId = created.body.data?.productCreate.product.id as string;
    expect(created.body.data?.productCreate.product.variants.nodes).toHaveLength(1);
    const locationId = (await snapshot('catalog-shop')).locations[1]?.id;
    const bulk = await gql<{
      productVariantsBulkCreate: {
        productVariants: { id: string; sku: string; price: string }[];
        userErrors: unknown[];
      };
    }>(
      'catalog-shop',
      token,
      `mutation($id: ID!, $variants: [ProductVariantsBulkInput!]!) { productVariantsBulkCreate(productId: $id, variants: $variants, strategy: REMOVE_STANDALONE_VARIANT) {
        productVariants { id sku price } userErrors { field message code } } }`,
      {
        id: productId,
        variants: [
          {
            optionValues: [{ optionName: 'Color', name: 'Red' }],
            price: '24.00',
            inventoryItem: { sku: 'TOTE-RED' },
            inventoryQuantities: [{ availableQuantity: 9, locationId }],
          },
          {
            optionValues: [{ optionName: 'Color', name: 'Blue' }],
            price: '24.50',
            inventoryItem: { sku: 'TOTE-BLUE' },
          },
        ],
      },
    );
    expect(bulk.body.data?.productVariantsBulkCreate.userErrors).toEqual([]);
    expect(bulk.body.data?.productVariantsBulkCreate.productVariants.map((v) => [v.sku, v.price])).toEqual([
      ['TOTE-RED', '24.00'],
      ['TOTE-BLUE', '24.50'],
    ]);
    const snap = await snapshot('catalog-shop');
    expect(snap.stock['TOTE-RED']?.[locationId as string]).toBe(9);
    expect(snap.stock['TOTE-BLUE']).toBeDefined();
    expect(Object.keys(snap.stock).filter((s) => s === '')).toHaveLength(0);

    const updated = await gql<{
      productUpdate: { product: { title: string; variants: { nodes: { sku: string }[] } } };
    }>(
      'catalog-shop',
      token,
      'mutation($id: ID!) { productUpdate(product: { id: $id, title: "Sandbox Tote Bag" }) { product { title variants(first: 5) { nodes { sku } } } userErrors { message } } }',
      { id: productId },
    );
    expect(updated.body.data?.productUpdate.product.title).toBe('Sandbox Tote Bag');
    expect(updated.body.data?.productUpdate.product.variants.nodes.map((n) => n.sku)).toEqual([
      'TOTE-RED',
      'TOTE-BLUE',
    ]);
  });
});

describe('Shopify orders, fulfillment and refunds', () => {
  let token: string;
  beforeAll(async () => {
    ({ token } = await install(
      'orders-shop',
      'read_products,write_inventory,read_locations,write_orders,write_merchant_managed_fulfillment_orders',
    ));
  });

  it('lists orders updated since a time, fulfils one and refunds it with a restock', async () => {
    const before = await snapshot('orders-shop');
    const [sku, perLocation] = Object.entries(before.stock).find(([, q]) => Object.values(q).some((n) => n >= 3)) as [
      string,
      Record<string, number>,
    ];
    const [locationId, available] = Object.entries(perLocation).find(([, n]) => n >= 3) as [string, number];
    const since = new Date(Date.now() - 1000).toISOString();
    const placed = (await (
      await fetch(`${sandbox.url}/_control/shopify/orders-shop/orders`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ lines: [{ sku, quantity: 2 }], location: locationId }),
      })
    ).json()) as { orderId: string };
    expect((await snapshot('orders-shop')).stock[sku]?.[locationId]).toBe(available - 2);

    type Orders = {
      orders: {
        nodes: {
          id: string;
          name: string;
          displayFulfillmentStatus: string;
          lineItems: { nodes: { id: string; sku: string; quantity: number }[] };
          fulfillmentOrders: {
            nodes: {
              id: string;
              assignedLocation: { location: { id: string } };
              lineItems: { nodes: { id: string; remainingQuantity: number }[] };
            }[];
          };
        }[];
      };
    };
    const list = await gql<Orders>(
      'orders-shop',
      token,
      `query($q: String) { orders(first: 10, query: $q, sortKey: UPDATED_AT) { nodes { id name displayFulfillmentStatus
      lineItems(first: 10) { nodes { id sku quantity } }
      fulfillmentOrders(first: 5) { nodes { id assignedLocation { location { id } } lineItems(first: 10) { nodes { id remainingQuantity } } } } } } }`,
      { q: `updated_at:>'${since}'` },
    );
    expect(list.body.errors).toBeUndefined();
    const orders = list.body.data?.orders.nodes ?? [];
    expect(orders.map((o) => o.id)).toEqual([placed.orderId]);
    const order = orders[0] as Orders['orders']['nodes'][number];
    expect(order.lineItems.nodes[0]).toMatchObject({ sku, quantity: 2 });
    const fo = order.fulfillmentOrders.nodes[0];
    expect(fo?.assignedLocation.location.id).toBe(locationId);

    const fulfil = await gql<{
      fulfillmentCreate: {
        fulfillment: { id: string; status: string; trackingInfo: { number: string }[] };
        userErrors: unknown[];
      };
    }>(
      'orders-shop',
      token,
      `mutation($f: FulfillmentInput!) { fulfillmentCreate(fulfillment: $f) {
      fulfillment { id status trackingInfo { number company url } } userErrors { field message } } }`,
      {
        f: {
          notifyCustomer: false,
          trackingInfo: { company: 'UPS', number: '1Z999' },
          lineItemsByFulfillmentOrder: [{ fulfillmentOrderId: fo?.id }],
        },
      },
    );
    expect(fulfil.body.data?.fulfillmentCreate.userErrors).toEqual([]);
    expect(fulfil.body.data?.fulfillmentCreate.fulfillment.trackingInfo[0]?.number).toBe('1Z999');
    const again = await gql<{ fulfillmentCreate: { userErrors: { message: string }[] } }>(
      'orders-shop',
      token,
      'mutation($f: FulfillmentInput!) { fulfillmentCreate(fulfillment: $f) { userErrors { field message } } }',
      {
        f: { lineItemsByFulfillmentOrder: [{ fulfillmentOrderId: fo?.id }] },
      },
    );
    expect(again.body.data?.fulfillmentCreate.userErrors[0]?.message).toMatch(/closed/);

    const refund = await gql<{
      refundCreate: { refund: { totalRefundedSet: { shopMoney: { amount: string } } }; userErrors: unknown[] };
    }>(
      'orders-shop',
      token,
      `mutation($input: RefundInput!) { refundCreate(input: $input) {
      refund { id totalRefundedSet { shopMoney { amount currencyCode } } } userErrors { field message } } }`,
      {
        input: {
          orderId: order.id,
          refundLineItems: [
            { lineItemId: order.lineItems.nodes[0]?.id, quantity: 1, restockType: 'RETURN', locationId },
          ],
          transactions: [{ orderId: order.id, gateway: 'shopify_payments', kind: 'REFUND', amount: '5.00' }],
        },
      },
    );
    expect(refund.body.data?.refundCreate.userErrors).toEqual([]);
    expect(refund.body.data?.refundCreate.refund.totalRefundedSet.shopMoney.amount).toBe('5.00');
    expect((await snapshot('orders-shop')).stock[sku]?.[locationId]).toBe(available - 1);
    const status = await gql<{ order: { displayFinancialStatus: string; displayFulfillmentStatus: string } }>(
      'orders-shop',
      token,
      'query($id: ID!) { order(id: $id) { displayFinancialStatus displayFulfillmentStatus } }',
      { id: order.id },
    );
    expect(status.body.data?.order).toEqual({
      displayFinancialStatus: 'PARTIALLY_REFUNDED',
      displayFulfillmentStatus: 'FULFILLED',
    });
  });
});

describe('Shopify webhooks', () => {
  it('subscribes, signs deliveries with the app secret, and sends app/uninstalled on uninstall', async () => {
    const { token } = await install('hooks-shop');
    const create = (topic: string) =>
      gql<{
        webhookSubscriptionCreate: { webhookSubscription: { id: string } | null; userErrors: { message: string }[] };
      }>(
        'hooks-shop',
        token,
        `mutation($topic: WebhookSubscriptionTopic!, $url: URL!) {
        webhookSubscriptionCreate(topic: $topic, webhookSubscription: { callbackUrl: $url, format: JSON }) { webhookSubscription { id } userErrors { field message } } }`,
        { topic, url: hookUrl },
      );
    expect((await create('INVENTORY_LEVELS_UPDATE')).body.data?.webhookSubscriptionCreate.userErrors).toEqual([]);
    expect((await create('APP_UNINSTALLED')).body.data?.webhookSubscriptionCreate.userErrors).toEqual([]);
    expect(
      (await create('INVENTORY_LEVELS_UPDATE')).body.data?.webhookSubscriptionCreate.userErrors[0]?.message,
    ).toMatch(/already been taken/);

    const snap = await snapshot('hooks-shop');
    const sku = Object.keys(snap.stock)[0] as string;
    await fetch(`${sandbox.url}/_control/shopify/hooks-shop/stock`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ sku, quantity: 31 }),
    });
    await sandbox.ctx.webhooks.settled();
    expect(received).toHaveLength(1);
    const delivery = received[0] as (typeof received)[number];
    expect(delivery.headers['x-shopify-topic']).toBe('inventory_levels/update');
    expect(delivery.headers['x-shopify-shop-domain']).toBe('hooks-shop.myshopify.com');
    expect(delivery.headers['x-shopify-webhook-id']).toBeTruthy();
    expect(delivery.headers['x-shopify-event-id']).toBeTruthy();
    expect(delivery.headers['x-shopify-hmac-sha256']).toBe(
      createHmac('sha256', apiSecret).update(delivery.body).digest('base64'),
    );
    expect(JSON.parse(delivery.body)).toMatchObject({
      available: 31,
      location_id: Number(snap.locations[0]?.id.split('/').pop()),
    });

    const admin = await (await fetch(`${shopUrl('hooks-shop')}/admin`)).text();
    expect(admin).toContain('Uninstall');
    const uninstall = await fetch(`${sandbox.url}/_control/shopify/hooks-shop/uninstall`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(uninstall.status).toBe(200);
    await sandbox.ctx.webhooks.settled();
    expect(received.map((r) => r.headers['x-shopify-topic'])).toContain('app/uninstalled');
    expect((await gql('hooks-shop', token, '{ shop { name } }')).status).toBe(401);
  });
});

describe('Shopify throttling and faults', () => {
  let token: string;
  beforeAll(async () => {
    ({ token } = await install('busy-shop'));
  });

  it('answers THROTTLED with HTTP 200 once the cost bucket runs dry, and restores 50 points a second', async () => {
    await fetch(`${sandbox.url}/_control/shopify/busy-shop/reset`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ products: 120, variantsPerProduct: 3 }),
    });
    const query = '{ productVariants(first: 250) { nodes { id } } }'; // 502 points
    const first = await gql('busy-shop', token, query);
    expect(first.body.errors).toBeUndefined();
    let throttled: GqlAnswer | null = null;
    for (let i = 0; i < 5 && !throttled; i++) {
      const res = await gql('busy-shop', token, query);
      if (res.body.errors?.[0]?.extensions?.code === 'THROTTLED') throttled = res.body;
    }
    expect(throttled).not.toBeNull();
    expect(throttled?.extensions.cost.actualQueryCost).toBeNull();
    expect(throttled?.extensions.cost.throttleStatus.restoreRate).toBe(50);
    const left = throttled?.extensions.cost.throttleStatus.currentlyAvailable as number;
    expect(left).toBeLessThan(502);
    await new Promise((r) => setTimeout(r, 400));
    const cheap = await gql('busy-shop', token, '{ shop { name } }');
    expect(cheap.body.extensions.cost.requestedQueryCost).toBe(1);
    expect(cheap.body.extensions.cost.throttleStatus.currentlyAvailable).toBeGreaterThanOrEqual(left + 15);
  });

  it('moves a shop to another plan’s bucket through the control API', async () => {
    const res = await fetch(`${sandbox.url}/_control/shopify/busy-shop/plan`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ plan: 'plus' }),
    });
    expect(await res.json()).toEqual({ maximumAvailable: 20000, restoreRate: 1000 });
    const after = await gql('busy-shop', token, '{ shop { name } }');
    expect(after.body.extensions.cost.throttleStatus).toMatchObject({ maximumAvailable: 20000, restoreRate: 1000 });
    expect(after.body.extensions.cost.throttleStatus.currentlyAvailable).toBeGreaterThan(19000);
  });

  it('starts new shops on the plan the sandbox was given, and refuses a plan Shopify does not have', async () => {
    const main = sandbox;
    sandbox = await startSandbox({ port: 0, shopify: { plan: 'plus' } });
    try {
      const { token: t } = await install('plus-shop');
      const answer = await gql('plus-shop', t, '{ shop { name } }');
      expect(answer.body.extensions.cost.throttleStatus).toMatchObject({ maximumAvailable: 20000, restoreRate: 1000 });
    } finally {
      await sandbox.close();
      sandbox = main;
    }
    await expect(startSandbox({ port: 0, shopify: { plan: 'platinum' as 'plus' } })).rejects.toThrow(
      'Unknown Shopify plan platinum',
    );
  });

  it('renders injected faults as Shopify does: THROTTLED, 503 and a dropped connection', async () => {
    const call = () => gql('faulty-shop', 'x', '{ shop { name } }').catch((err: Error) => err);
    sandbox.ctx.faults.set('shopify', 'faulty-shop', { rate429: 1 });
    const { token: t } = await install('faulty-shop');
    const throttled = await gql('faulty-shop', t, '{ shop { name } }');
    expect(throttled.status).toBe(200);
    expect(throttled.body.errors?.[0]?.extensions?.code).toBe('THROTTLED');
    sandbox.ctx.faults.set('shopify', 'faulty-shop', { rate429: 0, rate5xx: 1 });
    expect(((await call()) as { status: number }).status).toBe(503);
    sandbox.ctx.faults.set('shopify', 'faulty-shop', { rate5xx: 0, rateTimeout: 1, timeoutMs: 50 });
    expect(await call()).toBeInstanceOf(Error);
  });
});
