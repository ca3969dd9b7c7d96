/**
 * The Shopify connector: one connected shop, its name and locations here; each other part of the Connector is
 * a module of its own, called with the shop: catalog.ts, inventory.ts, orders.ts, fulfillment.ts, refunds.ts
 * (returns.ts maps them), webhook-subscriptions.ts. What they share is in graphql.ts; the requests go through
 * client.ts.
 */

import type { ProviderEndpoints } from '../../providers.ts';
import type {
  ChannelCredentials,
  Connector,
  ConnectorOptions,
  FulfillmentInput,
  InventoryLevel,
  InventorySet,
  InventorySetOptions,
  InventorySetResult,
  Page,
  ProductInput,
  ProviderLocation,
  ProviderOrder,
  ProviderProduct,
  ProviderReturn,
  RefundInput,
  RefundResult,
} from '../types.ts';
import { createProduct, listProducts, updateProduct } from './catalog.ts';
import { ShopifyClient } from './client.ts';
import { createFulfillment, updatePickup } from './fulfillment.ts';
import type { Connection } from './graphql.ts';
import { getInventoryLevels, readInventory, SHOPIFY_INVENTORY_BATCH, setInventory } from './inventory.ts';
import { cancelOrder, getOrder, getOrders, listOrderStamps, listOrders } from './orders.ts';
import { getReturn, listReturns, refund } from './refunds.ts';
import { subscribeWebhooks } from './webhook-subscriptions.ts';

export { addedOptionValues } from './catalog.ts';
export { SHOPIFY_INVENTORY_BATCH } from './inventory.ts';

/** One connected Shopify shop. */
export class ShopifyConnector implements Connector {
  readonly type = 'shopify' as const;
  readonly maxInventoryBatch = SHOPIFY_INVENTORY_BATCH;
  /** @internal */
  readonly client: ShopifyClient;
  /** @internal */
  readonly logger: ConnectorOptions['logger'];
  /** @internal The shop admin's orders page; an order's page is this plus its numeric id. */
  readonly adminOrdersUrl: string;

  constructor(endpoints: ProviderEndpoints, credentials: ChannelCredentials, options: ConnectorOptions) {
    if (!credentials.shop) throw new Error('Shopify credentials without a shop');
    this.adminOrdersUrl = `${endpoints.shopify.shopUrl(credentials.shop)}/admin/orders`;
    this.logger = options.logger;
    this.client = new ShopifyClient(endpoints, {
      shop: credentials.shop,
      credentials,
      logger: options.logger,
      timeoutMs: options.timeoutMs,
      maxRetries: options.maxRetries,
      onCredentials: options.onCredentials,
    });
  }

  async getShop() {
    const { shop } = await this.client.request<{
      shop: { name: string; myshopifyDomain: string; currencyCode: string; ianaTimezone: string | null };
    }>('{ shop { name myshopifyDomain currencyCode ianaTimezone } }', {}, 2);
    return {
      externalId: shop.myshopifyDomain.toLowerCase(),
      name: shop.name,
      currency: shop.currencyCode,
      timezone: shop.ianaTimezone,
    };
  }

  async listLocations(): Promise<ProviderLocation[]> {
    const out: ProviderLocation[] = [];
    let after: string | null = null;
    do {
      const data: {
        locations: Connection<{
          id: string;
          name: string;
          isActive: boolean;
          fulfillsOnlineOrders: boolean;
          localPickupSettingsV2: { pickupTime: string } | null;
          address: {
            address1: string | null;
            city: string | null;
            province: string | null;
            zip: string | null;
            countryCode: string | null;
          };
        }>;
      } = await this.client.request(
        `query($after: String) { locations(first: 100, after: $after, includeInactive: true) {
          nodes { id name isActive fulfillsOnlineOrders localPickupSettingsV2 { pickupTime }
            address { address1 city province zip countryCode } } pageInfo { hasNextPage endCursor } } }`,
        { after },
        302,
      );
      for (const l of data.locations.nodes)
        out.push({
          externalId: l.id,
          name: l.name,
          active: l.isActive,
          ships: l.fulfillsOnlineOrders,
          pickup: l.localPickupSettingsV2 !== null,
          address: {
            address1: l.address.address1 ?? undefined,
            city: l.address.city ?? undefined,
            province: l.address.province ?? undefined,
            zip: l.address.zip ?? undefined,
            country: l.address.countryCode ?? undefined,
          },
        });
      after = data.locations.pageInfo.hasNextPage ? data.locations.pageInfo.endCursor : null;
    } while (after);
    return out;
  }

  listProducts(cursor: string | null): Promise<Page<ProviderProduct>> {
    return listProducts(this, cursor);
  }

  getInventoryLevels(input: { cursor: string | null; locationExternalIds?: string[] }): Promise<Page<InventoryLevel>> {
    return getInventoryLevels(this, input);
  }

  readonly idempotentInventory = true;

  setInventory(changes: InventorySet[], options: InventorySetOptions = {}): Promise<InventorySetResult> {
    return setInventory(this, changes, options.idempotencyKey);
  }

  readInventory(pairs: { inventoryItemId: string; locationExternalId: string }[]): Promise<InventoryLevel[]> {
    return readInventory(this, pairs);
  }

  createProduct(input: ProductInput): Promise<ProviderProduct> {
    return createProduct(this, input);
  }

  updateProduct(externalId: string, input: Partial<ProductInput>): Promise<ProviderProduct> {
    return updateProduct(this, externalId, input);
  }

  listOrders(input: { cursor: string | null; since?: string }): Promise<Page<ProviderOrder>> {
    return listOrders(this, input);
  }

  listOrderStamps(input: { cursor: string | null; since?: string }) {
    return listOrderStamps(this, input);
  }

  getOrder(externalId: string): Promise<ProviderOrder | null> {
    return getOrder(this, externalId);
  }

  /** Orders read together, six a query (orders.ts). */
  getOrders(externalIds: string[]): Promise<Map<string, ProviderOrder | null>> {
    return getOrders(this, externalIds);
  }

  cancelOrder(input: { externalId: string; reason?: string | null }): Promise<{ ok: true } | { unsupported: string }> {
    return cancelOrder(this, input);
  }

  createFulfillment(input: FulfillmentInput): Promise<{ externalId: string }> {
    return createFulfillment(this, input);
  }

  updatePickup(input: {
    orderExternalId: string;
    state: 'ready' | 'picked_up';
  }): Promise<{ ok: true } | { unsupported: string }> {
    return updatePickup(this, input);
  }

  refund(input: RefundInput): Promise<RefundResult> {
    return refund(this, input);
  }

  listReturns(input: { cursor: string | null; since?: string }): Promise<Page<ProviderReturn>> {
    return listReturns(this, input);
  }

  getReturn(externalId: string): Promise<ProviderReturn | null> {
    return getReturn(this, externalId);
  }

  subscribeWebhooks(callbackUrl: string): Promise<void> {
    return subscribeWebhooks(this, callbackUrl);
  }
}
