/**
 * The Square connector: one connected seller, its merchant and locations here; each other part of the Connector
 * is a module of its own, called with the seller's context: catalog.ts, inventory.ts, orders.ts, fulfillment.ts,
 * refunds.ts (returns.ts maps them). What they share is in context.ts; the requests go through client.ts.
 */

import type { ProviderEndpoints } from '../../providers.ts';
import type { ChannelCredentials, Connector, ConnectorOptions, ProviderLocation } from '../types.ts';
import { createProduct, listProducts, updateProduct } from './catalog.ts';
import { SquareClient } from './client.ts';
import { merchant, type SquareContext } from './context.ts';
import { createFulfillment, updatePickup } from './fulfillment.ts';
import { getInventoryLevels, readInventory, SQUARE_INVENTORY_BATCH, setInventory } from './inventory.ts';
import { mapLocation, type SquareLocation } from './mapping.ts';
import { cancelOrder, getOrder, getOrders, listOrders } from './orders.ts';
import { getReturn, listReturns, refund } from './refunds.ts';

export { SQUARE_INVENTORY_BATCH } from './inventory.ts';

export function squareConnector(
  endpoints: ProviderEndpoints,
  credentials: ChannelCredentials,
  options: ConnectorOptions,
): Connector {
  const ctx: SquareContext = {
    client: new SquareClient(endpoints, credentials, options),
    logger: options.logger,
    currency: null,
    categories: new Map<string, string>(),
    categoriesLoaded: false,
    skus: new Map<string, string | null>(),
  };

  return {
    type: 'square',
    maxInventoryBatch: SQUARE_INVENTORY_BATCH,

    async getShop() {
      const m = await merchant(ctx);
      let timezone: string | null = null;
      if (m.main_location_id) {
        const { location } = await ctx.client.call<{ location?: SquareLocation }>(
          'GET',
          `/v2/locations/${encodeURIComponent(m.main_location_id)}`,
        );
        timezone = location?.timezone ?? null;
      }
      return { externalId: m.id, name: m.business_name ?? m.id, currency: m.currency ?? 'USD', timezone };
    },

    async listLocations(): Promise<ProviderLocation[]> {
      const { locations } = await ctx.client.call<{ locations?: SquareLocation[] }>('GET', '/v2/locations');
      return (locations ?? []).map(mapLocation);
    },

    listProducts: (cursor) => listProducts(ctx, cursor),
    getInventoryLevels: (input) => getInventoryLevels(ctx, input),
    readInventory: (pairs) => readInventory(ctx, pairs),
    setInventory: (changes, options) => setInventory(ctx, changes, options),
    idempotentInventory: true,
    createProduct: (input) => createProduct(ctx, input),
    updateProduct: (externalId, input) => updateProduct(ctx, externalId, input),
    listOrders: (input) => listOrders(ctx, input),
    updatePickup: (input) => updatePickup(ctx, input),
    createFulfillment: (input) => createFulfillment(ctx, input),
    refund: (input) => refund(ctx, input),
    listReturns: (input) => listReturns(ctx, input),
    getReturn: (externalId) => getReturn(ctx, externalId),
    getOrder: (externalId) => getOrder(ctx, externalId),
    getOrders: (externalIds) => getOrders(ctx, externalIds),
    cancelOrder: (input) => cancelOrder(ctx, input),

    /** Square's subscriptions belong to the application (developer console), not to each seller. */
    async subscribeWebhooks() {},
  };
}
