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
    );
  },
  webhooks: (endpoints) => bigcommerceWebhooks(endpoints),
};
