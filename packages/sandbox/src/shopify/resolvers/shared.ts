// What every resolver module shares: the request context, scope and version checks, money and error-path
// shapes, the lookups by global id, and the input and sort rules of list fields.

import { GraphQLError } from 'graphql';
import { MAX_PAGE } from '../connection.ts';
import { money, parseGid, type Shop } from '../model.ts';
import type { ShopifyStore } from '../store.ts';

export interface RequestContext {
  store: ShopifyStore;
  shop: Shop;
  clientId: string;
  scope: string[];
  version: string;
}

export type Args = Record<string, unknown>;

export function requireScope(ctx: RequestContext, field: string, ...anyOf: string[]) {
  const granted = new Set(ctx.scope.flatMap((s) => (s.startsWith('write_') ? [s, `read_${s.slice(6)}`] : [s])));
  if (anyOf.some((s) => granted.has(s))) return;
  throw new GraphQLError(
    `Access denied for ${field} field. Required access: ${anyOf.map((s) => `\`${s}\``).join(' or ')} access scope.`,
    { extensions: { code: 'ACCESS_DENIED', documentation: 'https://shopify.dev/api/usage/access-scopes' } },
  );
}

/** API versions compare as strings (YYYY-MM). */
export const atLeast = (ctx: RequestContext, version: string) => ctx.version >= version;

export const moneyBag = (minor: number, currency: string) => ({
  shopMoney: { amount: money(minor), currencyCode: currency },
  presentmentMoney: { amount: money(minor), currencyCode: currency },
});

export const cleanPath = (...path: (string | number)[]) => path.map(String);

export const findLocation = (ctx: RequestContext, id: unknown) => {
  const n = parseGid(id, 'Location');
  return ctx.shop.locations.find((l) => l.id === n);
};
export const findOrder = (ctx: RequestContext, id: unknown) => {
  const n = parseGid(id, 'Order');
  return n === null ? undefined : ctx.shop.orders.get(n);
};
export const findProduct = (ctx: RequestContext, id: unknown) => {
  const n = parseGid(id, 'Product');
  return n === null ? undefined : ctx.shop.products.get(n);
};

export function sortKeyOf(sortKey: unknown, fields: Record<string, (x: never) => string | number>, fallback: string) {
  const key = typeof sortKey === 'string' && sortKey in fields ? sortKey : fallback;
  return fields[key] as (x: never) => string | number;
}

export const inputArray = (items: unknown[] | undefined, what: string) => {
  if (items && items.length > MAX_PAGE)
    throw new GraphQLError(
      `The input array size of ${items.length} is greater than the maximum allowed of ${MAX_PAGE}.`,
      { path: [what], extensions: { code: 'MAX_INPUT_SIZE_EXCEEDED' } },
    );
};
