// Webhook subscriptions: the webhookSubscription(s) queries and the create and delete mutations. An app
// sees and changes only its own subscriptions.

import { type ConnectionArgs, connection } from '../connection.ts';
import {
  gid,
  isoNow,
  parseGid,
  RETURN_TOPICS,
  topicHeader,
  WEBHOOK_TOPICS,
  type WebhookSubscription,
  type WebhookTopic,
} from '../model.ts';
import type { Args, RequestContext } from './shared.ts';

function subscriptionView(sub: WebhookSubscription) {
  return {
    __typename: 'WebhookSubscription',
    id: gid('WebhookSubscription', sub.id),
    topic: sub.topic,
    format: sub.format,
    callbackUrl: sub.callbackUrl,
    uri: sub.callbackUrl,
    endpoint: { __typename: 'WebhookHttpEndpoint', callbackUrl: sub.callbackUrl },
    createdAt: sub.createdAt,
    updatedAt: sub.updatedAt,
  };
}

export function webhookQueries(ctx: RequestContext) {
  const { shop } = ctx;
  return {
    webhookSubscription: (args: Args) => {
      const n = parseGid(args.id, 'WebhookSubscription');
      const sub = n === null ? undefined : shop.subscriptions.get(n);
      return sub && sub.clientId === ctx.clientId ? subscriptionView(sub) : null;
    },
    webhookSubscriptions: (args: Args & ConnectionArgs) => {
      const topics = args.topics as string[] | undefined;
      const rows = [...shop.subscriptions.values()].filter(
        (s) =>
          s.clientId === ctx.clientId &&
          (!topics || topics.includes(s.topic)) &&
          (!args.callbackUrl || s.callbackUrl === args.callbackUrl),
      );
      return connection(rows, (s) => [s.id], args, subscriptionView);
    },
  };
}

export function webhookMutations(ctx: RequestContext) {
  const { shop } = ctx;
  return {
    webhookSubscriptionCreate: (args: Args) => {
      const topic = args.topic as WebhookTopic;
      const input = args.webhookSubscription as { callbackUrl?: string; format?: string };
      const fail = (message: string) => ({
        webhookSubscription: null,
        userErrors: [{ field: ['webhookSubscription', 'callbackUrl'], message }],
      });
      if (!WEBHOOK_TOPICS.includes(topic)) return fail('Topic is not supported');
      const granted = new Set(ctx.scope.flatMap((x) => (x.startsWith('write_') ? [x, `read_${x.slice(6)}`] : [x])));
      if (RETURN_TOPICS.has(topic) && !granted.has('read_returns') && !granted.has('read_marketplace_returns'))
        return fail(
          `You do not have permission to create webhooks with ${topicHeader(topic)} topic. Required access: read_returns.`,
        );
      if (!input.callbackUrl) return fail("Address can't be blank");
      try {
        const url = new URL(input.callbackUrl);
        if (url.protocol !== 'https:' && url.protocol !== 'http:') return fail('Address protocol is not supported');
      } catch {
        return fail('Address is invalid');
      }
      if (input.format === 'XML') return fail('Format XML is not supported by this API version');
      for (const s of shop.subscriptions.values())
        if (s.clientId === ctx.clientId && s.topic === topic && s.callbackUrl === input.callbackUrl)
          return fail('Address for this topic has already been taken');
      const at = isoNow();
      const sub: WebhookSubscription = {
        id: shop.nextId(),
        topic,
        callbackUrl: input.callbackUrl,
        format: 'JSON',
        clientId: ctx.clientId,
        createdAt: at,
        updatedAt: at,
      };
      shop.subscriptions.set(sub.id, sub);
      return { webhookSubscription: subscriptionView(sub), userErrors: [] };
    },

    webhookSubscriptionDelete: (args: Args) => {
      const n = parseGid(args.id, 'WebhookSubscription');
      const sub = n === null ? undefined : shop.subscriptions.get(n);
      if (!sub || sub.clientId !== ctx.clientId || n === null)
        return {
          deletedWebhookSubscriptionId: null,
          userErrors: [{ field: ['id'], message: 'Webhook subscription does not exist' }],
        };
      shop.subscriptions.delete(n);
      return { deletedWebhookSubscriptionId: gid('WebhookSubscription', n), userErrors: [] };
    },
  };
}
