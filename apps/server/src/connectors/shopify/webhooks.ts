import { createHmac } from 'node:crypto';
import { DomainError } from '../../lib/errors.ts';
import type { ProviderEndpoints } from '../../providers.ts';
import type { WebhookEvent, WebhookRequest, WebhookVerifier } from '../types.ts';
import { safeEqual } from './oauth.ts';

/** The topics the sync engine processes, as webhookSubscriptionCreate names them. */
export const SHOPIFY_WEBHOOK_TOPICS = [
  'INVENTORY_LEVELS_UPDATE',
  'ORDERS_CREATE',
  'ORDERS_UPDATED',
  'ORDERS_CANCELLED',
  'REFUNDS_CREATE',
  'PRODUCTS_UPDATE',
  'APP_UNINSTALLED',
  ...[
    'RETURNS_REQUEST',
    'RETURNS_APPROVE',
    'RETURNS_DECLINE',
    'RETURNS_CANCEL',
    'RETURNS_CLOSE',
    'RETURNS_REOPEN',
    'REVERSE_FULFILLMENT_ORDERS_DISPOSE',
  ],
] as const;

/** Topics Shopify gives only to an app granted read_returns: a shop authorised without it goes on without them. */
export const SHOPIFY_RETURN_WEBHOOK_TOPICS: ReadonlySet<string> = new Set([
  'RETURNS_REQUEST',
  'RETURNS_APPROVE',
  'RETURNS_DECLINE',
  'RETURNS_CANCEL',
  'RETURNS_CLOSE',
  'RETURNS_REOPEN',
  'REVERSE_FULFILLMENT_ORDERS_DISPOSE',
]);

const header = (req: WebhookRequest, name: string): string | undefined => {
  const value = req.headers[name] ?? req.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
};

/** X-Shopify-Hmac-Sha256: base64 HMAC-SHA256 of the raw body, keyed with the app's secret. */
export function shopifyWebhooks(endpoints: ProviderEndpoints): WebhookVerifier {
  const secret = endpoints.shopify.apiSecret;
  return {
    verify(req) {
      const signature = header(req, 'x-shopify-hmac-sha256');
      if (!signature || !secret) return false;
      const expected = createHmac('sha256', secret).update(req.rawBody).digest('base64');
      return safeEqual(expected, signature);
    },
    parse(req): WebhookEvent {
      const topic = header(req, 'x-shopify-topic');
      const shop = header(req, 'x-shopify-shop-domain');
      const eventId = header(req, 'x-shopify-event-id') ?? header(req, 'x-shopify-webhook-id');
      if (!topic || !shop || !eventId)
        throw new DomainError('VALIDATION', 'A Shopify webhook without topic, shop domain or event id');
      let payload: unknown;
      try {
        payload = JSON.parse(req.rawBody.toString('utf8'));
      } catch {
        throw new DomainError('VALIDATION', 'A Shopify webhook whose body is not JSON');
      }
      return {
        provider: 'shopify',
        eventId,
        topic,
        shopExternalId: shop.toLowerCase(),
        occurredAt: header(req, 'x-shopify-triggered-at') ?? null,
        payload,
      };
    },
  };
}
