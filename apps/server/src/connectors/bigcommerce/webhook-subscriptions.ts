/**
 * The store's webhooks: a hook for every scope the sync engine processes, pointing at our callback URL, and
 * stale ones of ours elsewhere removed. The deliveries' verification is in auth.ts.
 */

import type { z } from 'zod';
import { ProviderHttpError } from '../http.ts';
import type { BcClient } from './client.ts';
import * as S from './schemas.ts';

/**
 * The events the sync engine processes. Stock changes come through the location-aware event only: the
 * variant-level store/sku/inventory/updated names no location and would double the deliveries.
 */
export const WEBHOOK_SCOPES = [
  'store/order/created',
  'store/order/updated',
  'store/order/statusUpdated',
  'store/order/refund/created',
  'store/shipment/created',
  'store/product/created',
  'store/product/updated',
  'store/product/deleted',
  'store/sku/created',
  'store/sku/updated',
  'store/sku/deleted',
  'store/channel/*/inventory/product/stock_changed',
  'store/app/uninstalled',
];

/** Hooks for every scope we process, pointing at `callbackUrl`; stale ones of ours elsewhere are removed. */
export async function subscribeWebhooks(host: { readonly client: BcClient }, callbackUrl: string): Promise<void> {
  const hooks: z.infer<typeof S.Hook>[] = [];
  for (let page = 1; ; page++) {
    const res = await host.client.call(S.list(S.Hook), 'GET', '/v3/hooks', { query: { page, limit: 250 } });
    hooks.push(...res.data);
    if (!res.meta?.pagination || page >= res.meta.pagination.total_pages) break;
  }
  for (const scope of WEBHOOK_SCOPES) {
    const mine = hooks.filter((h) => h.scope === scope);
    const current = mine.find((h) => h.destination === callbackUrl);
    if (!current) {
      await host.client
        .send('POST', '/v3/hooks', { body: { scope, destination: callbackUrl, is_active: true } })
        .catch(async (err) => {
          // A retry after a lost answer meets the hook the first attempt made ("already exists").
          if (!(err instanceof ProviderHttpError && err.status === 422)) throw err;
          const again = await host.client.call(S.list(S.Hook), 'GET', '/v3/hooks', { query: { scope, limit: 250 } });
          if (!again.data.some((h) => h.destination === callbackUrl)) throw err;
        });
    } else if (!current.is_active) {
      await host.client.send('PUT', `/v3/hooks/${current.id}`, { body: { is_active: true } });
    }
    for (const stale of mine.filter((h) => h.destination !== callbackUrl)) {
      await host.client.send('DELETE', `/v3/hooks/${stale.id}`);
    }
  }
}
