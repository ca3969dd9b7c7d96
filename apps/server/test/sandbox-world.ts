// A world for tests against the three channel simulators over real HTTP (shipments and pickups written back):
// one account with the sandbox's Shopify, BigCommerce and Square shops connected, one store of ours (Square's
// first location, with an address) that each shop's first location feeds, every shop's catalog linked by SKU,
// and a SKU that all three shops sell stocked at the store.
import type { ChannelDetail } from '@switchyard/contracts';
import type { RunningSandbox } from '@switchyard/sandbox';
import { and, eq } from 'drizzle-orm';
import type { ChannelCredentials } from '../src/connectors/types.ts';
import { decryptJson } from '../src/lib/crypto.ts';
import { newId } from '../src/lib/ids.ts';
import { connectorFor } from '../src/modules/channels/channels.service.ts';
import { channels } from '../src/modules/channels/channels.tables.ts';
import { inventoryLevels } from '../src/modules/inventory/inventory.tables.ts';
import { applyMovements } from '../src/modules/inventory/ledger.ts';
import { locations } from '../src/modules/locations/locations.tables.ts';
import { importOrders } from '../src/modules/orders/orders.import.ts';
import { orders } from '../src/modules/orders/orders.tables.ts';
import { listings, products, variants } from '../src/modules/products/products.tables.ts';
import type { Actor } from '../src/trpc/context.ts';
import { createTestApp } from './app.ts';
import { connectSandboxChannel } from './channels.ts';
import { createSignedInAccount } from './factories.ts';
import { startTestSandbox } from './sandbox.ts';

export const PROVIDERS = ['shopify', 'bigcommerce', 'square'] as const;
export type Provider = (typeof PROVIDERS)[number];

export interface SandboxWorldOptions {
  /** The sandbox's shop names per provider (distinct per test file). */
  shops: Record<Provider, string>;
  seed: number;
  products?: number;
  /** Units of the shared SKU on hand at our store. */
  stock?: number;
}

export async function startSandboxWorld(options: SandboxWorldOptions) {
  const sandbox: RunningSandbox = await startTestSandbox({ products: options.products ?? 4, seed: options.seed });
  const t = await createTestApp({ sandboxUrl: sandbox.url });
  const tenant = await createSignedInAccount(t.services);
  const ch = {} as Record<Provider, ChannelDetail>;
  const variantOf = new Map<string, string>();
  const db = t.services.db;

  const rowOf = async (p: Provider) => {
    const [row] = await db.select().from(channels).where(eq(channels.id, ch[p].id));
    return row as typeof channels.$inferSelect;
  };

  async function linkCatalog(p: Provider) {
    const connector = connectorFor(t.services, await rowOf(p));
    let cursor: string | null = null;
    do {
      const page = await connector.listProducts(cursor);
      for (const product of page.items) {
        for (const v of product.variants) {
          if (!v.sku) continue;
          let variantId = variantOf.get(v.sku);
          if (!variantId) {
            const productId = newId('prd');
            await db.insert(products).values({ id: productId, accountId: tenant.accountId, title: product.title });
            variantId = newId('var');
            await db
              .insert(variants)
              .values({ id: variantId, accountId: tenant.accountId, productId, sku: v.sku, title: v.title });
            variantOf.set(v.sku, variantId);
          }
          await db.insert(listings).values({
            id: newId('lst'),
            accountId: tenant.accountId,
            channelId: ch[p].id,
            variantId,
            externalProductId: product.externalId,
            externalVariantId: v.externalId,
            inventoryItemId: v.inventoryItemId,
          });
        }
      }
      cursor = page.nextCursor;
    } while (cursor);
  }

  for (const p of ['square', 'shopify', 'bigcommerce'] as const)
    ch[p] = await connectSandboxChannel(t, tenant, p, options.shops[p]);
  // Our one store is Square's first location; each shop's first location is it.
  const squareFirst = (await rowOf('square')).settings?.channel?.locationMap[0];
  const store = { id: newId('loc'), storeId: squareFirst?.externalLocationId as string };
  await db.insert(locations).values({
    id: store.id,
    accountId: tenant.accountId,
    name: 'Main St',
    storeId: store.storeId,
    address: { address1: '1 Main St', city: 'Brooklyn', province: 'NY', zip: '11201', country: 'US' },
  });
  for (const p of PROVIDERS) {
    const row = await rowOf(p);
    const settings = structuredClone(row.settings) as NonNullable<typeof row.settings>;
    settings.channel.locationMap = settings.channel.locationMap.map((m, i) => ({
      ...m,
      storeId: i === 0 ? store.storeId : null,
      feeds: i === 0,
    }));
    await db.update(channels).set({ settings }).where(eq(channels.id, ch[p].id));
    await linkCatalog(p);
  }
  const listed = await db.select().from(listings).where(eq(listings.accountId, tenant.accountId));
  const sku =
    [...variantOf].find(([, v]) => listed.filter((l) => l.variantId === v).length === 3)?.[0] ??
    (() => {
      throw new Error('no SKU in all three shops');
    })();
  await db.transaction((tx) =>
    applyMovements(tx, tenant.accountId, [
      {
        variantId: variantOf.get(sku) as string,
        locationId: store.id,
        setTo: options.stock ?? 20,
        reason: 'import',
        source: 'test',
      },
    ]),
  );

  const actor = (): Actor => ({
    sessionId: 'test',
    userId: tenant.userId,
    accountId: tenant.accountId,
    authorizationLevel: 'user',
    superUserRole: null,
  });

  /** The simulator's control API (not a provider's): place orders, read snapshots and webhook deliveries. */
  const control = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${sandbox.url}/_control/${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (res.status >= 300) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
    return res.json() as Promise<Record<string, unknown>>;
  };
  const controlShop = (p: Provider) => (p === 'square' ? (ch.square.externalId as string) : options.shops[p]);

  /** The channel's API, with the channel's own token, for reading what it shows. */
  async function channelApi(p: Provider, path: string, body?: unknown, method = body ? 'POST' : 'GET') {
    const row = await rowOf(p);
    const creds = decryptJson<ChannelCredentials>(t.services.credentialsKey, row.credentials as never, row.id);
    const url =
      p === 'shopify'
        ? `${sandbox.url}/shopify/${options.shops.shopify}/admin/api/2025-01/graphql.json`
        : p === 'bigcommerce'
          ? `${sandbox.url}/bigcommerce/api/stores/${options.shops.bigcommerce}${path}`
          : `${sandbox.url}/square${path}`;
    const headers: Record<string, string> =
      p === 'shopify'
        ? { 'x-shopify-access-token': creds.accessToken, 'content-type': 'application/json' }
        : p === 'bigcommerce'
          ? { 'x-auth-token': creds.accessToken, accept: 'application/json', 'content-type': 'application/json' }
          : { authorization: `Bearer ${creds.accessToken}` };
    const res = await fetch(url, {
      method,
      headers,
      body: body ? JSON.stringify(body) : undefined,
    });
    return res.json() as Promise<Record<string, unknown>>;
  }

  /** The channel's id of our store's location at that channel. */
  const channelLocation = async (p: Provider) =>
    p === 'square' ? store.storeId : ((await rowOf(p)).settings?.channel?.locationMap[0]?.externalLocationId as string);

  /** An order placed in the shop (the shared SKU at our store), pulled in: the channel's id and ours. */
  async function placeOrder(
    p: Provider,
    input: { quantity: number; fulfillmentType?: 'ship' | 'pickup' | 'curbside_pickup'; email?: string },
  ) {
    const placed = (await control('POST', `${p}/${controlShop(p)}/orders`, {
      lines: [{ sku, quantity: input.quantity }],
      location: await channelLocation(p),
      fulfillmentType: input.fulfillmentType ?? 'ship',
      customer: { name: 'Ada Lovelace', email: input.email ?? 'ada@example.com' },
    })) as { orderId: string };
    await importOrders(t.services, ch[p].id);
    const [order] = await db
      .select()
      .from(orders)
      .where(and(eq(orders.channelId, ch[p].id), eq(orders.externalId, placed.orderId)));
    if (!order) throw new Error(`${p} order ${placed.orderId} was not imported`);
    return { externalId: placed.orderId, order };
  }

  /** On hand and reserved of the shared SKU at our store. */
  const level = async () =>
    (
      await db
        .select({ onHand: inventoryLevels.onHand, reserved: inventoryLevels.reserved })
        .from(inventoryLevels)
        .where(
          and(eq(inventoryLevels.variantId, variantOf.get(sku) as string), eq(inventoryLevels.locationId, store.id)),
        )
    )[0];

  const close = async () => {
    await t.close();
    await sandbox.close();
  };

  return {
    sandbox,
    t,
    tenant,
    ch,
    store,
    sku,
    variantOf,
    actor,
    rowOf,
    control,
    controlShop,
    channelApi,
    channelLocation,
    placeOrder,
    level,
    close,
  };
}

export type SandboxWorld = Awaited<ReturnType<typeof startSandboxWorld>>;
