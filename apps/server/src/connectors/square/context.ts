/**
 * What the Square connector's modules share: the connection to one seller (SquareContext: the client and what
 * it has learnt of the seller so far), reads of the merchant, its locations and orders, the SKUs of order
 * lines, and Square's 4xx as DomainErrors.
 */

import { DomainError } from '../../lib/errors.ts';
import { ProviderHttpError } from '../http.ts';
import type { ConnectorOptions } from '../types.ts';
import { type SquareClient, squareErrors } from './client.ts';
import type { CatalogObject, SquareLocation, SquareOrder } from './mapping.ts';
import type { SquareReturnOrder } from './returns.ts';

/** One connected seller, as the connector's modules use it. */
export interface SquareContext {
  readonly client: SquareClient;
  readonly logger: ConnectorOptions['logger'];
  /** The merchant's currency, once read. */
  currency: string | null;
  /** Category id → name (the catalog's product types), once loaded. */
  readonly categories: Map<string, string>;
  categoriesLoaded: boolean;
  /** variation id → SKU, for order lines (Square's line items carry the variation id, not the SKU). */
  readonly skus: Map<string, string | null>;
}

/** Square answers a caller's mistake with 4xx: those become DomainErrors with Square's own wording. */
export function asDomainError(err: unknown, what: string): never {
  if (
    err instanceof ProviderHttpError &&
    err.status !== null &&
    err.status >= 400 &&
    err.status < 500 &&
    err.status !== 401 &&
    err.status !== 429
  ) {
    const code = err.status === 404 ? 'NOT_FOUND' : err.status === 403 ? 'FORBIDDEN' : 'VALIDATION';
    throw new DomainError(code, `Square could not ${what}: ${squareErrors(err)[0]?.detail ?? `HTTP ${err.status}`}`, {
      cause: err,
    });
  }
  throw err;
}

export async function merchant(ctx: SquareContext) {
  const { merchant: m } = await ctx.client.call<{
    merchant: { id: string; business_name?: string; currency?: string; main_location_id?: string };
  }>('GET', '/v2/merchants/me');
  ctx.currency = m.currency ?? ctx.currency;
  return m;
}

export async function merchantCurrency(ctx: SquareContext): Promise<string> {
  if (!ctx.currency) await merchant(ctx);
  return ctx.currency ?? 'USD';
}

export async function locationIds(ctx: SquareContext): Promise<string[]> {
  const { locations } = await ctx.client.call<{ locations?: SquareLocation[] }>('GET', '/v2/locations');
  return (locations ?? []).map((l) => l.id);
}

/** An order, or null when Square has none by that id. */
export async function tryOrder(ctx: SquareContext, id: string): Promise<SquareReturnOrder | null> {
  try {
    return (await ctx.client.call<{ order: SquareReturnOrder }>('GET', `/v2/orders/${encodeURIComponent(id)}`)).order;
  } catch (err) {
    if (err instanceof ProviderHttpError && err.status === 404) return null;
    throw err;
  }
}

/** The SKUs of return orders' returned lines (as rememberSkus does for sold lines). */
export async function rememberReturnSkus(ctx: SquareContext, orders: SquareReturnOrder[]) {
  await rememberSkus(
    ctx,
    orders.map((o) => ({
      ...o,
      line_items: (o.returns ?? []).flatMap((r) =>
        (r.return_line_items ?? []).map((l) => ({ uid: l.uid ?? '', catalog_object_id: l.catalog_object_id })),
      ),
    })),
  );
}

export async function rememberSkus(ctx: SquareContext, orders: SquareOrder[]) {
  const missing = [
    ...new Set(
      orders.flatMap((o) => (o.line_items ?? []).map((l) => l.catalog_object_id).filter((id): id is string => !!id)),
    ),
  ].filter((id) => !ctx.skus.has(id));
  for (let i = 0; i < missing.length; i += 1000) {
    const ids = missing.slice(i, i + 1000);
    const res = await ctx.client.call<{ objects?: CatalogObject[] }>('POST', '/v2/catalog/batch-retrieve', {
      object_ids: ids,
    });
    for (const id of ids) ctx.skus.set(id, null);
    for (const o of res.objects ?? []) {
      if (o.type === 'ITEM_VARIATION') ctx.skus.set(o.id, (o.item_variation_data?.sku as string | undefined) ?? null);
    }
  }
}

export async function readOrder(ctx: SquareContext, id: string): Promise<SquareOrder> {
  try {
    const { order } = await ctx.client.call<{ order: SquareOrder }>('GET', `/v2/orders/${encodeURIComponent(id)}`);
    return order;
  } catch (err) {
    return asDomainError(err, `find order ${id}`);
  }
}
