// What every /v1 route module shares: the route helper and the lookups that answer Stripe's "No such …",
// list paging (limit, cursors, created), expand on list items, and an update's previous attributes.

import type { FastifyInstance } from 'fastify';
import { noSuch } from '../errors.ts';
import { apiRoute } from '../http.ts';
import { child, int, type Params, str } from '../params.ts';
import type { StripeState } from '../state.ts';

export const LIST_PARAMS = ['limit', 'starting_after', 'ending_before', 'created'] as const;

export function pageOpts(params: Params) {
  return {
    limit: int(params, 'limit'),
    startingAfter: str(params, 'starting_after'),
    endingBefore: str(params, 'ending_before'),
    created: createdFilter(params),
  };
}

/** `created=<unix>` or `created[gt|gte|lt|lte]=<unix>`. */
function createdFilter(params: Params): ((created: number) => boolean) | undefined {
  const exact = typeof params.created === 'string' ? int(params, 'created') : undefined;
  if (exact !== undefined) return (c) => c === exact;
  const range = child(params, 'created');
  if (!range) return undefined;
  const bound = (k: string) => int(range, k, `created[${k}]`);
  const [gt, gte, lt, lte] = [bound('gt'), bound('gte'), bound('lt'), bound('lte')];
  return (c) =>
    (gt === undefined || c > gt) &&
    (gte === undefined || c >= gte) &&
    (lt === undefined || c < lt) &&
    (lte === undefined || c <= lte);
}

export const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** What each route module is given: the state, `route` (an apiRoute on the app) and the lookups they share. */
export function v1Api(app: FastifyInstance, state: StripeState) {
  const route = (method: 'GET' | 'POST' | 'DELETE', url: string, handler: Parameters<typeof apiRoute>[4]) =>
    apiRoute(app, state, method, url, handler);
  const customer = (id: string, param = 'customer') => {
    if (state.deletedCustomers.has(id)) throw noSuch('customer', id, param);
    return state.get(state.customers, 'customer', id, param);
  };
  const price = (id: string, param = 'price') => state.get(state.prices, 'price', id, param);
  const subscription = (id: string) => state.get(state.subscriptions, 'subscription', id);
  return { state, route, customer, price, subscription };
}

export type V1Api = ReturnType<typeof v1Api>;

/** `expand[]=data.customer` on a list expands `customer` in each item. */
export function subExpand(expand: string[]): string[] {
  return expand.filter((p) => p.startsWith('data.')).map((p) => p.slice(5));
}

export function diff(before: Record<string, unknown>, after: object): Record<string, unknown> {
  const prev: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(after))
    if (JSON.stringify(before[k]) !== JSON.stringify(v)) prev[k] = before[k] ?? null;
  return prev;
}
