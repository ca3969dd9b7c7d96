import type { ProviderModule } from '../types.ts';
import { ShopifyConnector } from './connector.ts';
import { shopifyOAuth } from './oauth.ts';
import { orderFromWebhook, SHOPIFY_ORDER_TOPICS } from './order-webhook.ts';
import { shopifyWebhooks } from './webhooks.ts';

/** Shopify: OAuth (authorization-code grant, hex-hmac callback), the Admin GraphQL API, HMAC-signed webhooks. */
export const shopify: ProviderModule = {
  type: 'shopify',
  oauth: (endpoints) => shopifyOAuth(endpoints),
  connect: (endpoints, credentials, options) => new ShopifyConnector(endpoints, credentials, options),
  webhooks: (endpoints) => shopifyWebhooks(endpoints),
  // orders/create|updated|cancelled carry the whole order (REST shape); it names no fulfillment location.
  orderWebhook(topic, payload) {
    if (!SHOPIFY_ORDER_TOPICS.has(topic)) return null;
    const order = orderFromWebhook(payload, null);
    return order ? { order } : null;
  },
};
