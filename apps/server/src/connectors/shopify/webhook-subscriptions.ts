/**
 * The shop's webhook subscriptions: every topic we process subscribed to our callback URL (idempotent).
 * The topics and the deliveries' verification are in webhooks.ts.
 */

import { DomainError } from '../../lib/errors.ts';
import { type Connection, describe, type ShopifyHost, type UserError } from './graphql.ts';
import { SHOPIFY_RETURN_WEBHOOK_TOPICS, SHOPIFY_WEBHOOK_TOPICS } from './webhooks.ts';

export async function subscribeWebhooks(host: ShopifyHost, callbackUrl: string): Promise<void> {
  const existing = new Set<string>();
  let after: string | null = null;
  do {
    const data: { webhookSubscriptions: Connection<{ topic: string; callbackUrl: string }> } =
      await host.client.request(
        `query($after: String) { webhookSubscriptions(first: 100, after: $after) { nodes { topic callbackUrl } pageInfo { hasNextPage endCursor } } }`,
        { after },
        102,
      );
    for (const s of data.webhookSubscriptions.nodes) if (s.callbackUrl === callbackUrl) existing.add(s.topic);
    after = data.webhookSubscriptions.pageInfo.hasNextPage ? data.webhookSubscriptions.pageInfo.endCursor : null;
  } while (after);
  for (const topic of SHOPIFY_WEBHOOK_TOPICS) {
    if (existing.has(topic)) continue;
    const res = await host.client.request<{ webhookSubscriptionCreate: { userErrors: UserError[] } }>(
      `mutation($topic: WebhookSubscriptionTopic!, $sub: WebhookSubscriptionInput!) {
        webhookSubscriptionCreate(topic: $topic, webhookSubscription: $sub) { webhookSubscription { id } userErrors { field message } } }`,
      { topic, sub: { callbackUrl, format: 'JSON' } },
    );
    const errors = res.webhookSubscriptionCreate.userErrors.filter((e) => !/already been taken/i.test(e.message));
    // A shop authorised before we asked for read_returns: its returns come in as refunds until it re-authorises.
    if (
      errors.length &&
      SHOPIFY_RETURN_WEBHOOK_TOPICS.has(topic) &&
      errors.every((e) => /read_returns|permission|access/i.test(e.message))
    ) {
      host.logger.warn({ topic }, 'Shopify refused a return webhook: the shop has not granted read_returns');
      continue;
    }
    if (errors.length)
      throw new DomainError('UPSTREAM_FAILED', `Shopify refused the ${topic} webhook: ${describe(errors)}`);
  }
}
