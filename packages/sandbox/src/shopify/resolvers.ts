import { gid } from './model.ts';
import { fulfillmentMutations, fulfillmentQueries } from './resolvers/fulfillments.ts';
import { inventoryMutations, inventoryQueries } from './resolvers/inventory.ts';
import { orderMutations, orderQueries } from './resolvers/orders.ts';
import { productMutations, productQueries } from './resolvers/products.ts';
import { returnMutations, returnQueries } from './resolvers/returns.ts';
import { type Args, inputArray, type RequestContext } from './resolvers/shared.ts';
import { webhookMutations, webhookQueries } from './resolvers/webhooks.ts';
import { API_VERSIONS } from './store.ts';

/**
 * Resolvers for the schema in sdl.ts, assembled from one module a domain under resolvers/: inventory
 * (locations, items, levels), products and variants, orders and refunds, fulfillments, returns and webhook
 * subscriptions. The views they answer with are in resolvers/catalog-views.ts and resolvers/order-views.ts.
 */

export type { RequestContext } from './resolvers/shared.ts';

export function rootValue(ctx: RequestContext) {
  const { shop } = ctx;

  const query = {
    shop: () => ({
      __typename: 'Shop',
      id: gid('Shop', shop.shopId),
      name: shop.name,
      email: `owner@${shop.name}.example.com`,
      myshopifyDomain: `${shop.name}.myshopify.com`,
      currencyCode: shop.currency,
      ianaTimezone: 'America/Los_Angeles',
      url: `https://${shop.name}.myshopify.com`,
      primaryDomain: { host: `${shop.name}.myshopify.com`, url: `https://${shop.name}.myshopify.com` },
      createdAt: shop.createdAt,
    }),
    node: (args: Args) => {
      const id = String(args.id);
      const type = /^gid:\/\/shopify\/([A-Za-z]+)\//.exec(id)?.[1];
      const resolver = type && (nodeResolvers as Record<string, (a: Args) => unknown>)[type];
      return resolver ? resolver({ id }) : null;
    },
    // In the order asked, null for an id that names nothing; at most 250 ids, as every array argument.
    nodes: (args: Args) => {
      const ids = args.ids as unknown[];
      inputArray(ids, 'nodes');
      return ids.map((id) => query.node({ id }));
    },
    job: (args: Args) => {
      const id = String(args.id);
      return /^gid:\/\/shopify\/Job\/[0-9a-f-]+$/.test(id) ? { __typename: 'Job', id, done: true } : null;
    },
    ...inventoryQueries(ctx),
    ...productQueries(ctx),
    ...orderQueries(ctx),
    ...returnQueries(ctx),
    ...fulfillmentQueries(ctx),
    ...webhookQueries(ctx),
  };

  const nodeResolvers = {
    Location: (a: Args) => query.location(a),
    Product: (a: Args) => query.product(a),
    ProductVariant: (a: Args) => query.productVariant(a),
    InventoryItem: (a: Args) => query.inventoryItem(a),
    InventoryLevel: (a: Args) => query.inventoryLevel(a),
    Order: (a: Args) => query.order(a),
    Return: (a: Args) => query.return(a),
    ReverseFulfillmentOrder: (a: Args) => query.reverseFulfillmentOrder(a),
    FulfillmentOrder: (a: Args) => query.fulfillmentOrder(a),
    WebhookSubscription: (a: Args) => query.webhookSubscription(a),
  };

  const mutation = {
    ...inventoryMutations(ctx),
    ...productMutations(ctx),
    ...fulfillmentMutations(ctx),
    ...orderMutations(ctx),
    ...returnMutations(ctx),
    ...webhookMutations(ctx),
  };

  return { ...query, ...mutation };
}

export const SUPPORTED_VERSIONS: readonly string[] = API_VERSIONS;
