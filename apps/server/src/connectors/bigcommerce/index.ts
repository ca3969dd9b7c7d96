import type { ProviderModule } from '../types.ts';
import { bigcommerceOAuth, bigcommerceWebhooks } from './auth.ts';
import { BcClient } from './client.ts';
import { BigCommerceConnector } from './connector.ts';

export { SCOPES, verifySignedPayload } from './auth.ts';
export { MAX_ADJUSTMENT_ITEMS, WEBHOOK_SCOPES } from './connector.ts';

/** BigCommerce: single-click app OAuth, the REST Management API (V2/V3) and Standard Webhooks deliveries. */
export const bigcommerce: ProviderModule = {
  type: 'bigcommerce',
  oauth: (endpoints) => bigcommerceOAuth(endpoints),
  connect(endpoints, credentials, options) {
    if (!credentials.storeHash) throw new Error('BigCommerce credentials need the store hash');
    return new BigCommerceConnector(
      new BcClient({
        apiUrl: endpoints.bigcommerce.apiUrl,
        storeHash: credentials.storeHash,
        accessToken: credentials.accessToken,
        logger: options.logger,
        timeoutMs: options.timeoutMs,
        maxRetries: options.maxRetries,
      }),
      endpoints.bigcommerce.mode === 'live'
        ? `https://store-${credentials.storeHash}.mybigcommerce.com/manage/orders`
        : null,
    );
  },
  webhooks: (endpoints) => bigcommerceWebhooks(endpoints),
  // store/order/* carry only the order's id: read it with getOrder. The stored event's payload is the body's
  // `data` (webhooks.parse); the whole body is taken too.
  orderWebhook(topic, payload) {
    if (!topic.startsWith('store/order/')) return null;
    type Data = { type?: unknown; id?: unknown };
    const body = payload as (Data & { data?: Data }) | null;
    const data = body?.data ?? body;
    if (data?.type !== 'order' || (typeof data.id !== 'number' && typeof data.id !== 'string')) return null;
    return { externalId: String(data.id) };
  },
};
