/**
 * Square orders: sales listed (SearchOrders over every location, oldest change first) and read one or many at a
 * time, return orders left out (they are returns: refunds.ts), and an unpaid order's cancel.
 */

import { randomUUID } from 'node:crypto';
import { DomainError } from '../../lib/errors.ts';
import { ProviderHttpError } from '../http.ts';
import type { Page, ProviderOrder } from '../types.ts';
import { squareErrorCode, squareErrors } from './client.ts';
import { asDomainError, locationIds, readOrder, rememberSkus, type SquareContext } from './context.ts';
import { mapOrder, type SquareOrder } from './mapping.ts';
import { isReturnOrder } from './returns.ts';

/** SearchOrders takes at most 10 location ids. */
export const ORDER_LOCATIONS_PER_SEARCH = 10;
export const ORDERS_PAGE = 200;

export interface OrdersCursor {
  /** updated_at lower bound the scan started with. */
  s: string | null;
  /** Location ids, in chunks of 10, and which chunk we are on. */
  l: string[];
  c: number;
  /** Square's own cursor within the chunk. */
  q: string | null;
}

const encode = (cursor: OrdersCursor) => Buffer.from(JSON.stringify(cursor)).toString('base64url');
function decode(cursor: string): OrdersCursor {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as OrdersCursor;
    if (Array.isArray(parsed.l) && typeof parsed.c === 'number') return parsed;
  } catch {
    // fall through
  }
  throw new DomainError('VALIDATION', 'The Square orders cursor is not valid.');
}

/**
 * One SearchOrders page: the orders of up to 10 locations updated since `since` (or since the start), oldest
 * change first, from `cursor` on (Square's cursor keeps the original query).
 */
export function searchOrdersUpdated<T>(
  ctx: SquareContext,
  locationIds: string[],
  since: string | null,
  cursor: string | null,
): Promise<{ orders?: T[]; cursor?: string }> {
  return ctx.client.call<{ orders?: T[]; cursor?: string }>('POST', '/v2/orders/search', {
    location_ids: locationIds,
    limit: ORDERS_PAGE,
    return_entries: false,
    query: {
      filter: since ? { date_time_filter: { updated_at: { start_at: since } } } : {},
      sort: { sort_field: 'UPDATED_AT', sort_order: 'ASC' },
    },
    ...(cursor ? { cursor } : {}),
  });
}

/**
 * Orders updated since `since` (or since the start), oldest change first, over every location in
 * chunks of 10 (SearchOrders' limit). The cursor keeps the original query, as Square requires.
 */
export async function listOrders(
  ctx: SquareContext,
  { cursor, since }: { cursor: string | null; since?: string },
): Promise<Page<ProviderOrder>> {
  const state: OrdersCursor = cursor ? decode(cursor) : { s: since ?? null, l: await locationIds(ctx), c: 0, q: null };
  const chunk = state.l.slice(state.c * ORDER_LOCATIONS_PER_SEARCH, (state.c + 1) * ORDER_LOCATIONS_PER_SEARCH);
  if (chunk.length === 0) return { items: [], nextCursor: null };
  const res = await searchOrdersUpdated<SquareOrder>(ctx, chunk, state.s, state.q);
  const orders = (res.orders ?? []).filter((o) => !isReturnOrder(o));
  await rememberSkus(ctx, orders);
  let next: OrdersCursor | null = null;
  if (res.cursor) next = { ...state, q: res.cursor };
  else if ((state.c + 1) * ORDER_LOCATIONS_PER_SEARCH < state.l.length) next = { ...state, c: state.c + 1, q: null };
  return { items: orders.map((o) => mapOrder(o, ctx.skus)), nextCursor: next ? encode(next) : null };
}

export async function getOrder(ctx: SquareContext, externalId: string): Promise<ProviderOrder | null> {
  let order: SquareOrder;
  try {
    ({ order } = await ctx.client.call<{ order: SquareOrder }>('GET', `/v2/orders/${encodeURIComponent(externalId)}`));
  } catch (err) {
    if (err instanceof ProviderHttpError && err.status === 404) return null;
    throw err;
  }
  // A return order (items given back at the register) is a return, not a sale (listReturns).
  if (isReturnOrder(order)) return null;
  await rememberSkus(ctx, [order]);
  return mapOrder(order, ctx.skus);
}

export async function getOrders(ctx: SquareContext, externalIds: string[]): Promise<Map<string, ProviderOrder | null>> {
  const found = new Map<string, ProviderOrder | null>(externalIds.map((id) => [id, null]));
  for (let i = 0; i < externalIds.length; i += 100) {
    const { orders = [] } = await ctx.client.call<{ orders?: SquareOrder[] }>('POST', '/v2/orders/batch-retrieve', {
      order_ids: externalIds.slice(i, i + 100),
    });
    // Return orders are returns, not sales (as getOrder); ids Square does not know are left out of its answer.
    const sales = orders.filter((o) => !isReturnOrder(o));
    await rememberSkus(ctx, sales);
    for (const order of sales) found.set(order.id, mapOrder(order, ctx.skus));
  }
  return found;
}

/**
 * UpdateOrder to CANCELED at the order's current version, its open fulfillments cancelled with the reason.
 * Square cancels only what has not been paid: a paid order ("Orders cannot be canceled after payments
 * have been processed") or a completed one is the seller's to cancel and refund in Square's Order
 * Manager, so it answers `unsupported`. Cancelling a cancelled order is a success.
 */
export async function cancelOrder(
  ctx: SquareContext,
  { externalId, reason }: { externalId: string; reason?: string | null },
): Promise<{ ok: true } | { unsupported: string }> {
  for (let attempt = 0; ; attempt++) {
    const order = await readOrder(ctx, externalId);
    if (order.state === 'CANCELED') return { ok: true };
    if (order.state === 'COMPLETED')
      return { unsupported: `Square order ${order.id} is completed: refund or return it in Square.` };
    // A card only authorized (delayed capture), voided or failed has not been processed.
    const processed = (order.tenders ?? []).filter(
      (t) => !['AUTHORIZED', 'VOIDED', 'FAILED'].includes(t.card_details?.status ?? ''),
    );
    if (processed.length > 0)
      return {
        unsupported: `Square order ${order.id} has been paid, and Square cancels only unpaid orders: cancel and refund it in Square's Order Manager.`,
      };
    const cancelReason = reason ? reason.slice(0, 100) : undefined;
    const fulfillments = cancelReason
      ? (order.fulfillments ?? [])
          .filter((f) => f.uid && !['COMPLETED', 'CANCELED', 'FAILED'].includes(String(f.state)))
          .map((f) => ({
            uid: f.uid,
            ...(f.type === 'PICKUP' ? { pickup_details: { cancel_reason: cancelReason } } : {}),
            ...(f.type === 'SHIPMENT' ? { shipment_details: { cancel_reason: cancelReason } } : {}),
          }))
      : [];
    try {
      await ctx.client.call('PUT', `/v2/orders/${encodeURIComponent(order.id)}`, {
        idempotency_key: randomUUID(),
        order: {
          location_id: order.location_id,
          version: order.version,
          state: 'CANCELED',
          ...(fulfillments.length > 0 ? { fulfillments } : {}),
        },
      });
      return { ok: true };
    } catch (err) {
      // Someone changed the order between our read and write: read it again once.
      if (squareErrorCode(err) === 'VERSION_MISMATCH' && attempt === 0) continue;
      const first = squareErrors(err)[0];
      if (err instanceof ProviderHttpError && err.status === 400 && first?.field === 'order.state')
        return { unsupported: `Square would not cancel order ${order.id}: ${first.detail ?? first.code}` };
      return asDomainError(err, `cancel order ${order.id}`);
    }
  }
}
