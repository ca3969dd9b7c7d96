import type { ProviderModule } from '../types.ts';
import { ShopifyConnector } from './connector.ts';
import { shopifyOAuth } from './oauth.ts';
import { orderFromWebhook, SHOPIFY_ORDER_TOPICS } from './order-webhook.ts';
import { refundCancelsLines, refundFromWebhook, returnNamedBy, returnOfRefund } from './returns.ts';
import { shopifyWebhooks } from './webhooks.ts';

/** Shopify: OAuth (authorization-code grant, hex-hmac callback), the Admin GraphQL API, HMAC-signed webhooks. */
export const shopify: ProviderModule = {
  type: 'shopify',
  oauth: (endpoints) => shopifyOAuth(endpoints),
  connect: (endpoints, credentials, options) => new ShopifyConnector(endpoints, credentials, options),
  webhooks: (endpoints) => shopifyWebhooks(endpoints),
  orderTopics: [...SHOPIFY_ORDER_TOPICS],
  // orders/create|updated|cancelled carry the whole order (REST shape); it names no fulfillment location.
  orderWebhook(topic, payload) {
    if (!SHOPIFY_ORDER_TOPICS.has(topic)) return null;
    const order = orderFromWebhook(payload, null);
    return order ? { order } : null;
  },
  // refunds/create carries the refund (REST shape) with its lines' restock type and location; one that cancels
  // lines is read whole (getReturn), since only the order says whether it is its cancel's refund.
  // A refund that pays for a return (returnRefund), the returns/* topics and a disposal's name a return of
  // Shopify's Returns API: it is read whole (getReturn), under the return's id, whichever of them comes first.
  returnWebhook(topic, payload) {
    const named = returnNamedBy(topic, payload);
    if (named) return named;
    if (topic !== 'refunds/create') return null;
    const ret = refundFromWebhook(payload);
    if (!ret) return null;
    const of = returnOfRefund(payload);
    if (of) return { externalId: of, orderExternalId: ret.orderExternalId };
    return refundCancelsLines(payload) ? { externalId: ret.externalId, orderExternalId: ret.orderExternalId } : { ret };
  },
};
