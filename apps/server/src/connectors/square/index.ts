import type { ProviderModule } from '../types.ts';
import { squareConnector } from './connector.ts';
import { orderIdOfEvent, SQUARE_ORDER_TOPICS } from './mapping.ts';
import { squareOAuth } from './oauth.ts';
import { refundOfEvent } from './returns.ts';
import { squareWebhooks } from './webhooks.ts';

/** Square (POS): OAuth code flow with token refresh, the Connect v2 API, and signed app-level webhooks. */
export const square: ProviderModule = {
  type: 'square',
  oauth: squareOAuth,
  connect: squareConnector,
  webhooks: squareWebhooks,
  orderTopics: SQUARE_ORDER_TOPICS,
  /** Square's order events carry the order's id, state and version, never the order: read it with getOrder. */
  orderWebhook(topic, payload) {
    const externalId = orderIdOfEvent(topic, payload);
    return externalId ? { externalId } : null;
  },
  /** refund.created|updated name the PaymentRefund: getReturn reads it (as its return order, for a POS return). */
  returnWebhook(topic, payload) {
    const refund = refundOfEvent(topic, payload);
    return refund ? { externalId: refund.id } : null;
  },
};
