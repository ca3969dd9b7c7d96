/**
 * Shopify refunds and returns at the API: a refund made here written to Shopify (once, by the key in its
 * note), and refunds and returns listed and read as ProviderReturns (mapped in returns.ts).
 */

import { DomainError } from '../../lib/errors.ts';
import type { Page, ProviderReturn, RefundInput, RefundResult } from '../types.ts';
import { fromMinor } from './client.ts';
import { type Connection, decodeCursor, describe, encodeCursor, type ShopifyHost, type UserError } from './graphql.ts';
import {
  ORDER_REFUNDS_QUERY,
  REFUND_CREATE_MUTATION,
  REFUND_ORDER_QUERY,
  REFUND_QUERY,
  RETURN_QUERY,
  REVERSE_ORDER_RETURN_QUERY,
} from './return-queries.ts';
import { mapRefund, mapReturn, type RefundNode, type ReturnNode, refundMarker } from './returns.ts';

type RefundsHost = ShopifyHost & { getReturn(externalId: string): Promise<ProviderReturn | null> };

/**
 * Writes a refund made here to Shopify: money back against the order's sale, the lines refunded with
 * their restock type — RETURN at the return location for units that came back to be sold again (Shopify
 * puts them back on its own stock there, which the ledger meets as the return's channel restock), CANCEL
 * for restocked units that never left (released where they were committed), NO_RESTOCK otherwise — and
 * shipping. 2025-01 has no @idempotent: our key rides in the refund's note, so a retry after a crash or
 * an unanswered call finds the refund it made instead of refunding twice.
 */
export async function refund(host: RefundsHost, input: RefundInput): Promise<RefundResult> {
  type OrderForRefund = {
    id: string;
    currencyCode: string;
    transactions: { id: string; kind: string; status: string; gateway: string }[];
    refunds: { id: string; note: string | null }[];
    fulfillments: { location: { id: string } | null }[];
    lineItems: { nodes: { id: string; currentQuantity: number; unfulfilledQuantity: number }[] };
  };
  const read = async () =>
    (
      await host.client.request<{ order: OrderForRefund | null }>(
        REFUND_ORDER_QUERY,
        { id: input.orderExternalId },
        130,
      )
    ).order;
  const order = await read();
  if (!order) throw new DomainError('NOT_FOUND', 'The order is not in the Shopify shop');
  if (order.currencyCode !== input.currency.toUpperCase())
    throw new DomainError('VALIDATION', `The order is in ${order.currencyCode}, not ${input.currency}`);
  const marker = input.idempotencyKey ? refundMarker(input.idempotencyKey) : null;
  const ours = (o: OrderForRefund | null) =>
    marker ? (o?.refunds.find((r) => r.note?.includes(marker))?.id ?? null) : null;
  const done = ours(order);
  if (done) return { externalId: done, ret: await host.getReturn(done) };
  const sale = order.transactions.find((t) => (t.kind === 'SALE' || t.kind === 'CAPTURE') && t.status === 'SUCCESS');
  if (input.amount > 0 && !sale) throw new DomainError('INVALID_STATE', 'The order has no payment to refund');
  const refundLineItems: { lineItemId: string; quantity: number; restockType: string; locationId?: string }[] = [];
  for (const l of input.lines ?? []) {
    const line = order.lineItems.nodes.find((x) => x.id === l.lineExternalId);
    if (!line) throw new DomainError('VALIDATION', `The order has no line ${l.lineExternalId} at Shopify`);
    if (!l.restock) {
      refundLineItems.push({ lineItemId: line.id, quantity: l.quantity, restockType: 'NO_RESTOCK' });
      continue;
    }
    const shipped = Math.max(0, line.currentQuantity - line.unfulfilledQuantity);
    const returned = Math.min(l.quantity, shipped);
    const location = l.locationExternalId ?? input.locationExternalId ?? null;
    if (returned > 0)
      refundLineItems.push({
        lineItemId: line.id,
        quantity: returned,
        restockType: 'RETURN',
        ...(location ? { locationId: location } : {}),
      });
    if (l.quantity > returned)
      refundLineItems.push({ lineItemId: line.id, quantity: l.quantity - returned, restockType: 'CANCEL' });
  }
  const note = [input.reason, marker].filter(Boolean).join(' ') || null;
  type Created = { refundCreate: { refund: { id: string } | null; userErrors: UserError[] } };
  // After an unanswered call: the refund carrying our key is ours; without a key, a new one of this amount.
  const known = new Set(order.refunds.map((r) => r.id));
  const recover = async (): Promise<Created | null> => {
    const now = await read();
    const found =
      ours(now) ?? (marker ? null : (now?.refunds.find((r) => !known.has(r.id) && r.note === note)?.id ?? null));
    return found ? { refundCreate: { refund: { id: found }, userErrors: [] } } : null;
  };
  const res = await host.client.mutateOnce<Created>(
    REFUND_CREATE_MUTATION,
    {
      input: {
        orderId: input.orderExternalId,
        note,
        notify: false,
        refundLineItems,
        ...(input.shipping ? { shipping: { amount: fromMinor(input.shipping) } } : {}),
        transactions:
          input.amount > 0 && sale
            ? [
                {
                  orderId: input.orderExternalId,
                  gateway: sale.gateway,
                  kind: 'REFUND',
                  amount: fromMinor(input.amount),
                  parentId: sale.id,
                },
              ]
            : [],
      },
    },
    recover,
  );
  const refund = res.refundCreate.refund;
  if (!refund)
    throw new DomainError('INVALID_STATE', `Shopify refused the refund: ${describe(res.refundCreate.userErrors)}`);
  return { externalId: refund.id, ret: await host.getReturn(refund.id) };
}

/**
 * Refunds of the orders updated since `since` (a refund updates its order), oldest order change first;
 * each refund read whole. Refunds older than `since` on those orders are left out.
 */
export async function listReturns(
  host: RefundsHost,
  input: { cursor: string | null; since?: string },
): Promise<Page<ProviderReturn>> {
  let since = input.since ?? null;
  let after: string | null = null;
  if (input.cursor) ({ since, after } = decodeCursor<{ since: string | null; after: string | null }>(input.cursor));
  const query = since ? `updated_at:>='${new Date(since).toISOString().replace(/\.\d{3}Z$/, 'Z')}'` : null;
  const data = await host.client.request<{
    orders: Connection<{
      id: string;
      refunds: { id: string; updatedAt: string; return: { id: string } | null }[];
      returns: { nodes: { id: string }[] };
    }>;
  }>(ORDER_REFUNDS_QUERY, { after, query }, 380);
  const from = since ? new Date(since).getTime() - 1000 : null;
  const items: ProviderReturn[] = [];
  for (const o of data.orders.nodes) {
    // A refund that pays for a return is read with that return, which its order lists (2025-01's Return has no
    // updated-at: the returns of an order that changed are read again, and change nothing when they did not).
    for (const r of o.refunds) {
      if (r.return || (from !== null && new Date(r.updatedAt).getTime() < from)) continue;
      const ret = await host.getReturn(r.id);
      if (ret) items.push(ret);
    }
    for (const r of o.returns.nodes) {
      const ret = await host.getReturn(r.id);
      if (ret) items.push(ret);
    }
  }
  return {
    items,
    nextCursor: data.orders.pageInfo.hasNextPage
      ? encodeCursor({ since, after: data.orders.pageInfo.endCursor })
      : null,
  };
}

/**
 * One refund or return, read now. A refund that pays for a return is read as that return; a reverse
 * fulfillment order (a disposal's webhook) is read as the return it belongs to.
 */
export async function getReturn(host: RefundsHost, externalId: string): Promise<ProviderReturn | null> {
  if (/^gid:\/\/shopify\/Return\/\d+$/.test(externalId)) {
    const data = await host.client.request<{ return: ReturnNode | null }>(RETURN_QUERY, { id: externalId }, 310);
    return data.return ? mapReturn(data.return) : null;
  }
  if (/^gid:\/\/shopify\/ReverseFulfillmentOrder\/\d+$/.test(externalId)) {
    const data = await host.client.request<{
      reverseFulfillmentOrder: {
        order: { returns: { nodes: { id: string; reverseFulfillmentOrders: { nodes: { id: string }[] } }[] } } | null;
      } | null;
    }>(REVERSE_ORDER_RETURN_QUERY, { id: externalId }, 60);
    const owner = data.reverseFulfillmentOrder?.order?.returns.nodes.find((r) =>
      r.reverseFulfillmentOrders.nodes.some((o) => o.id === externalId),
    );
    return owner ? host.getReturn(owner.id) : null;
  }
  if (!/^gid:\/\/shopify\/Refund\/\d+$/.test(externalId)) return null;
  const data = await host.client.request<{ refund: RefundNode | null }>(REFUND_QUERY, { id: externalId }, 320);
  if (data.refund?.return) return host.getReturn(data.refund.return.id);
  return data.refund ? mapRefund(data.refund) : null;
}
