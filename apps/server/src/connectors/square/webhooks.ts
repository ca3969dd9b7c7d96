import { createHmac, timingSafeEqual } from 'node:crypto';
import type { ProviderEndpoints } from '../../providers.ts';
import type { WebhookEvent, WebhookRequest, WebhookVerifier } from '../types.ts';

const header = (req: WebhookRequest, name: string): string | undefined => {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/**
 * Square signs each delivery with the subscription's signature key: base64 HMAC-SHA256 over the
 * notification URL followed by the raw body (the URL byte for byte as registered).
 */
export function squareWebhooks(endpoints: ProviderEndpoints): WebhookVerifier {
  const key = endpoints.square.webhookSignatureKey;
  return {
    verify(req) {
      const given = header(req, 'x-square-hmacsha256-signature');
      if (!key || !given) return false;
      const expected = createHmac('sha256', key).update(req.url, 'utf8').update(req.rawBody).digest();
      const received = Buffer.from(given, 'base64');
      return received.length === expected.length && timingSafeEqual(received, expected);
    },

    parse(req): WebhookEvent {
      const body = JSON.parse(req.rawBody.toString('utf8')) as {
        merchant_id?: unknown;
        type?: unknown;
        event_id?: unknown;
        created_at?: unknown;
      };
      if (typeof body.event_id !== 'string' || typeof body.type !== 'string' || typeof body.merchant_id !== 'string') {
        throw new Error('Not a Square event: event_id, type and merchant_id are required');
      }
      return {
        provider: 'square',
        eventId: body.event_id,
        topic: body.type,
        shopExternalId: body.merchant_id,
        occurredAt: typeof body.created_at === 'string' ? body.created_at : null,
        payload: body,
      };
    },
  };
}
