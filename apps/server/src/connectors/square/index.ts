import type { ProviderModule } from '../types.ts';
import { squareConnector } from './connector.ts';
import { orderIdOfEvent } from './mapping.ts';
import { squareOAuth } from './oauth.ts';
import { squareWebhooks } from './webhooks.ts';

/** Square (POS): OAuth code flow with token refresh, the Connect v2 API, and signed app-level webhooks. */
export const square: ProviderModule = {
  type: 'square',
  oauth: squareOAuth,
  connect: squareConnector,
  webhooks: squareWebhooks,
  /** Square's order events carry the order's id, state and version, never the order: read it with getOrder. */
  orderWebhook(topic, payload) {
    const externalId = orderIdOfEvent(topic, payload);
    return externalId ? { externalId } : null;
  },
};
