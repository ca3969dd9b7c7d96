import { z } from 'zod';
import { DomainError } from '../../lib/errors.ts';
import type { Page, ProviderOrder, ProviderReturn, RefundInput, RefundResult } from '../types.ts';
import type { BcClient } from './client.ts';
import * as S from './schemas.ts';

/**
 * BigCommerce refunds (V3 payment actions) as ProviderReturns, and the refund write-back. BigCommerce has no
 * public returns (RMA) API: a refund's PRODUCT items are the goods given back. Its refund moves no stock and
 * names no location (the API has no restock option; stock comes back on its own only when an order becomes
 * Cancelled), so a return's units are put back by us at the return store and pushed (channelRestocked false),
 * by default where the order took them.
 */

export const REFUNDS_PAGE = 50;

export interface BcReturnsHost {
  readonly client: BcClient;
  getOrder(externalId: string): Promise<ProviderOrder | null>;
  createOnce<T>(create: () => Promise<T>, find: () => Promise<T | null>, refusal: string): Promise<T>;
  refused(err: unknown, message: string): Error;
}

const toMinor = (value: number | string | null | undefined) =>
  value === null || value === undefined || value === '' ? 0 : Math.round(Number(value) * 100);
const toDecimal = (minor: number) => minor / 100;
const marker = (key: string) => `[switchyard:${key}]`;

type Cursor = { since: string | null; page: number };
const encode = (c: Cursor) => Buffer.from(JSON.stringify(c)).toString('base64url');
function decode(cursor: string): Cursor {
  try {
    const c = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Cursor;
    if (typeof c.page === 'number' && c.page >= 1) return c;
  } catch {}
  throw new DomainError('VALIDATION', 'The returns cursor is not one this connector made');
}

async function orderRefunds(host: BcReturnsHost, orderId: number) {
  return (await host.client.call(S.list(S.Refund), 'GET', `/v3/orders/${orderId}/payment_actions/refunds`)).data;
}

/**
 * A refund as a ProviderReturn: PRODUCT items are the order's lines given back, to be restocked where the order
 * took them (BigCommerce does not); SHIPPING and ORDER items, and tax, make the rest of the total.
 */
export async function returnOf(
  host: BcReturnsHost,
  r: S.Refund,
  orders = new Map<string, ProviderOrder | null>(),
): Promise<ProviderReturn | null> {
  if (r.order_id === undefined) return null;
  const orderId = String(r.order_id);
  if (!orders.has(orderId)) orders.set(orderId, await host.getOrder(orderId));
  const order = orders.get(orderId) ?? null;
  const total = toMinor(r.total_amount);
  const items = (r.items ?? [])
    .filter((i) => i.item_type === 'PRODUCT' && i.quantity)
    .map((i) => {
      const line = order?.lines.find((l) => l.externalId === String(i.item_id));
      const quantity = i.quantity ?? 0;
      const unitTax = line && line.quantity > 0 ? Math.round((line.tax ?? 0) / line.quantity) : 0;
      return {
        lineExternalId: String(i.item_id),
        sku: line?.sku ?? null,
        variantExternalId: line?.variantExternalId ?? null,
        quantity,
        total: line ? (line.price + unitTax) * quantity : 0,
        restock: true,
        locationExternalId: line?.stockLocationExternalId ?? null,
        channelRestocked: false,
      };
    });
  const payments = r.payments ?? [];
  const at = r.created ? new Date(r.created).toISOString() : new Date().toISOString();
  return {
    externalId: String(r.id),
    orderExternalId: orderId,
    createdAt: at,
    updatedAt: at,
    status: payments.length > 0 && payments.every((p) => p.is_declined) ? 'failed' : 'completed',
    receiptNumber: null,
    billName: order?.billingAddress?.name ?? order?.customer?.name ?? null,
    currency: order?.currency ?? '',
    tax: toMinor(r.total_tax),
    adjustment: total - items.reduce((s, i) => s + i.total, 0),
    total,
    items,
  };
}

/**
 * Quotes the lines (and shipping), or a custom amount on the order when the lines' worth is not what is
 * refunded, then refunds the quoted amount to the original payment method. There is no idempotency key: ours
 * rides in the refund's reason, so a retry (after a crash, or an unanswered call) finds the refund it made.
 */
export async function writeRefund(host: BcReturnsHost, input: RefundInput): Promise<RefundResult> {
  const orderId = Number(input.orderExternalId);
  if (!Number.isInteger(orderId)) throw new DomainError('NOT_FOUND', 'The order is not in the BigCommerce store');
  const base = `/v3/orders/${orderId}/payment_actions`;
  const mark = input.idempotencyKey ? marker(input.idempotencyKey) : null;
  const before = await orderRefunds(host, orderId);
  const done = mark ? before.find((r) => r.reason?.includes(mark)) : undefined;
  if (done) return { externalId: String(done.id), ret: await returnOf(host, { ...done, order_id: orderId }) };
  const lineItems: unknown[] = (input.lines ?? []).map((l) => ({
    item_type: 'PRODUCT',
    item_id: Number(l.lineExternalId),
    quantity: l.quantity,
  }));
  if (input.shipping) {
    const addresses = await host.client.call(
      z.array(S.ShippingAddress),
      'GET',
      `/v2/orders/${orderId}/shipping_addresses`,
      { empty: [] },
    );
    const id = addresses[0]?.id;
    if (id !== undefined) lineItems.push({ item_type: 'SHIPPING', item_id: id, amount: toDecimal(input.shipping) });
  }
  const quoteFor = (items: unknown[]) =>
    host.client.call(S.RefundQuote, 'POST', `${base}/refund_quotes`, { body: { items } }).catch((err) => {
      throw host.refused(err, 'BigCommerce refused the refund');
    });
  let items: unknown[] = lineItems;
  let quote = lineItems.length > 0 ? await quoteFor(lineItems) : null;
  // The lines' value is not what the merchant refunds (a partial or goodwill amount): refund the amount.
  if (!quote || toMinor(quote.data.total_refund_amount) !== input.amount) {
    items = [{ item_type: 'ORDER', item_id: orderId, amount: toDecimal(input.amount) }];
    quote = await quoteFor(items);
  }
  const methods = quote.data.refund_methods;
  const method =
    methods.find((m) => m.length === 1 && !m[0]?.offline && m[0]?.provider_id !== 'storecredit') ?? methods[0];
  if (!method || method.length === 0) throw new DomainError('UPSTREAM_FAILED', 'BigCommerce offered no way to refund');
  const total = toMinor(quote.data.total_refund_amount);
  const reason = [input.reason, mark].filter(Boolean).join(' ');
  const body = { items, payments: method, ...(reason ? { reason } : {}) };
  const refund = await host.createOnce(
    async () => (await host.client.call(S.one(S.Refund), 'POST', `${base}/refunds`, { body, maxRetries: 0 })).data,
    async () =>
      (await orderRefunds(host, orderId)).find(
        (r) =>
          !before.some((b) => b.id === r.id) && (mark ? !!r.reason?.includes(mark) : toMinor(r.total_amount) === total),
      ) ?? null,
    'BigCommerce refused the refund',
  );
  return { externalId: String(refund.id), ret: await returnOf(host, { ...refund, order_id: orderId }) };
}

/** The store's refunds created since `since` (a refund does not change once made), oldest first. */
export async function listRefunds(
  host: BcReturnsHost,
  input: { cursor: string | null; since?: string },
): Promise<Page<ProviderReturn>> {
  const cursor = input.cursor ? decode(input.cursor) : { since: input.since ?? null, page: 1 };
  const res = await host.client.call(S.list(S.Refund), 'GET', '/v3/orders/payment_actions/refunds', {
    query: {
      ...(cursor.since ? { 'created:min': new Date(Date.parse(cursor.since) - 1000).toISOString() } : {}),
      page: cursor.page,
      limit: REFUNDS_PAGE,
    },
  });
  const orders = new Map<string, ProviderOrder | null>();
  const items: ProviderReturn[] = [];
  for (const r of res.data) {
    const ret = await returnOf(host, r, orders);
    if (ret) items.push(ret);
  }
  const pages = res.meta?.pagination?.total_pages ?? 1;
  return { items, nextCursor: cursor.page < pages ? encode({ since: cursor.since, page: cursor.page + 1 }) : null };
}

export async function readRefund(host: BcReturnsHost, externalId: string): Promise<ProviderReturn | null> {
  if (!/^\d+$/.test(externalId)) return null;
  const res = await host.client.call(S.list(S.Refund), 'GET', '/v3/orders/payment_actions/refunds', {
    query: { 'id:in': externalId },
  });
  const refund = res.data[0];
  return refund ? returnOf(host, refund) : null;
}
