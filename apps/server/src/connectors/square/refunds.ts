/**
 * Square refunds and returns at the API: a refund made here (RefundPayment, once per key), and returns listed
 * (return orders, then refunds without items) and read one at a time (mapped in returns.ts).
 */

import { createHash, randomUUID } from 'node:crypto';
import { DomainError } from '../../lib/errors.ts';
import { ProviderHttpError } from '../http.ts';
import type { Page, ProviderReturn, RefundInput, RefundResult } from '../types.ts';
import { asDomainError, locationIds, readOrder, rememberReturnSkus, type SquareContext, tryOrder } from './context.ts';
import { ORDER_LOCATIONS_PER_SEARCH, type OrdersCursor, searchOrdersUpdated } from './orders.ts';
import { mapRefund, mapReturnOrder, type PaymentRefund, type SquareReturnOrder } from './returns.ts';

/** listReturns: the return orders phase ('o', as OrdersCursor), then the refunds phase ('r', Square's cursor in q). */
interface ReturnsCursor extends OrdersCursor {
  p: 'o' | 'r';
}
const encodeReturns = (cursor: ReturnsCursor) => Buffer.from(JSON.stringify(cursor)).toString('base64url');
function decodeReturns(cursor: string): ReturnsCursor {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as ReturnsCursor;
    if ((parsed.p === 'o' || parsed.p === 'r') && Array.isArray(parsed.l) && typeof parsed.c === 'number')
      return parsed;
  } catch {
    // fall through
  }
  throw new DomainError('VALIDATION', 'The Square returns cursor is not valid.');
}

/**
 * Refunds against the order's payment (its card tender); Square settles it asynchronously. Square's API
 * makes no itemized return (a return order is the register's): the refund is of money, and its units are
 * ours to restock and push. Our key is Square's idempotency_key, so a retry makes no second refund.
 */
export async function refund(ctx: SquareContext, input: RefundInput): Promise<RefundResult> {
  const order = await readOrder(ctx, input.orderExternalId);
  const tender = (order.tenders ?? []).find((t) => t.id && t.type !== 'NO_SALE');
  if (!tender?.id) throw new DomainError('INVALID_STATE', `Square order ${order.id} has no payment to refund.`);
  const key = input.idempotencyKey
    ? input.idempotencyKey.length <= 45
      ? input.idempotencyKey
      : createHash('sha256').update(input.idempotencyKey).digest('hex').slice(0, 45)
    : randomUUID();
  try {
    const { refund } = await ctx.client.call<{ refund: PaymentRefund }>('POST', '/v2/refunds', {
      idempotency_key: key,
      payment_id: tender.id,
      amount_money: { amount: input.amount, currency: input.currency },
      ...(input.reason ? { reason: input.reason.slice(0, 192) } : {}),
    });
    return { externalId: refund.id, ret: mapRefund(refund) };
  } catch (err) {
    return asDomainError(err, `refund order ${order.id}`);
  }
}

/**
 * Returns changed since `since`: first the itemized returns (return orders found by SearchOrders, location
 * by location), then the refunds without items (ListPaymentRefunds by updated_at; a refund of a return order
 * is that return's and is left out).
 */
export async function listReturns(
  ctx: SquareContext,
  { cursor, since }: { cursor: string | null; since?: string },
): Promise<Page<ProviderReturn>> {
  const state: ReturnsCursor = cursor
    ? decodeReturns(cursor)
    : { p: 'o', s: since ?? null, l: await locationIds(ctx), c: 0, q: null };
  if (state.p === 'o') {
    const chunk = state.l.slice(state.c * ORDER_LOCATIONS_PER_SEARCH, (state.c + 1) * ORDER_LOCATIONS_PER_SEARCH);
    let next: ReturnsCursor = { ...state, p: 'r', q: null };
    const items: ProviderReturn[] = [];
    if (chunk.length > 0) {
      const res = await searchOrdersUpdated<SquareReturnOrder>(ctx, chunk, state.s, state.q);
      const returned = (res.orders ?? []).filter((o) => (o.returns?.length ?? 0) > 0);
      await rememberReturnSkus(ctx, returned);
      for (const o of returned) {
        const ret = mapReturnOrder(o, ctx.skus);
        if (ret) items.push(ret);
      }
      if (res.cursor) next = { ...state, q: res.cursor };
      else if ((state.c + 1) * ORDER_LOCATIONS_PER_SEARCH < state.l.length)
        next = { ...state, c: state.c + 1, q: null };
    }
    return { items, nextCursor: encodeReturns(next) };
  }
  const params = new URLSearchParams({ sort_field: 'UPDATED_AT', sort_order: 'ASC', limit: '100' });
  if (state.s) params.set('updated_at_begin_time', state.s);
  if (state.q) params.set('cursor', state.q);
  const res = await ctx.client.call<{ refunds?: PaymentRefund[]; cursor?: string }>('GET', `/v2/refunds?${params}`);
  const items: ProviderReturn[] = [];
  const orders = new Map<string, SquareReturnOrder | null>();
  for (const r of res.refunds ?? []) {
    if (r.order_id && !orders.has(r.order_id)) orders.set(r.order_id, await tryOrder(ctx, r.order_id));
    const order = r.order_id ? orders.get(r.order_id) : null;
    if (order && (order.returns?.length ?? 0) > 0) continue;
    items.push(mapRefund(r));
  }
  return { items, nextCursor: res.cursor ? encodeReturns({ ...state, q: res.cursor }) : null };
}

/** A return order by its id, or a refund by its id (read as its return order when it has one). */
export async function getReturn(ctx: SquareContext, externalId: string): Promise<ProviderReturn | null> {
  if (externalId.includes('_')) {
    let refund: PaymentRefund;
    try {
      ({ refund } = await ctx.client.call<{ refund: PaymentRefund }>(
        'GET',
        `/v2/refunds/${encodeURIComponent(externalId)}`,
      ));
    } catch (err) {
      if (err instanceof ProviderHttpError && err.status === 404) return null;
      throw err;
    }
    const order = refund.order_id ? await tryOrder(ctx, refund.order_id) : null;
    if (order && (order.returns?.length ?? 0) > 0) {
      await rememberReturnSkus(ctx, [order]);
      return mapReturnOrder(order, ctx.skus);
    }
    return mapRefund(refund);
  }
  const order = await tryOrder(ctx, externalId);
  if (!order || (order.returns?.length ?? 0) === 0) return null;
  await rememberReturnSkus(ctx, [order]);
  return mapReturnOrder(order, ctx.skus);
}
