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
  orderTopics: ['store/order/created', 'store/order/updated', 'store/order/statusUpdated'],
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
  // store/order/refund/created names the order and the refund: read the refund with getReturn.
  returnWebhook(topic, payload) {
    if (topic !== 'store/order/refund/created') return null;
    type Data = { type?: unknown; id?: unknown; refund?: { refund_id?: unknown } };
    const body = payload as (Data & { data?: Data }) | null;
    const data = body?.data ?? body;
    const refundId = data?.refund?.refund_id;
    if (typeof refundId !== 'number' && typeof refundId !== 'string') return null;
    const orderId = typeof data?.id === 'number' || typeof data?.id === 'string' ? String(data.id) : null;
    return { externalId: String(refundId), orderExternalId: orderId };
  },
};
