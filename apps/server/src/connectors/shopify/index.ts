import type { ProviderModule } from '../types.ts';
import { ShopifyConnector } from './connector.ts';
import { shopifyOAuth } from './oauth.ts';
import { shopifyWebhooks } from './webhooks.ts';

/** Shopify: OAuth (authorization-code grant, hex-hmac callback), the Admin GraphQL API, HMAC-signed webhooks. */
export const shopify: ProviderModule = {
  type: 'shopify',
  oauth: (endpoints) => shopifyOAuth(endpoints),
  connect: (endpoints, credentials, options) => new ShopifyConnector(endpoints, credentials, options),
  webhooks: (endpoints) => shopifyWebhooks(endpoints),
};
