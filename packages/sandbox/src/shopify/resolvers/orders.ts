// Orders and refunds: the order, orders and refund queries, refundCreate and orderCancel.

import { randomUUID } from 'node:crypto';
import { type ConnectionArgs, connection } from '../connection.ts';
import { gid, isoNow, parseGid, parseMoney, type ShopOrder } from '../model.ts';
import { financialStatus, fulfillmentStatus } from '../orders.ts';
import { createRefund, type RefundRequest } from '../refunds.ts';
import { matches, parseSearch } from '../search.ts';
import { orderView, refundView } from './order-views.ts';
import { type Args, cleanPath, findOrder, type RequestContext, requireScope, sortKeyOf } from './shared.ts';

export function orderQueries(ctx: RequestContext) {
  const { shop } = ctx;
  return {
    order: (args: Args) => {
      requireScope(ctx, 'order', 'read_orders');
      const o = findOrder(ctx, args.id);
      return o ? orderView(ctx, o) : null;
    },
    refund: (args: Args) => {
      requireScope(ctx, 'refund', 'read_orders');
      const id = parseGid(args.id, 'Refund');
      for (const o of shop.orders.values()) {
        const r = o.refunds.find((x) => x.id === id);
        if (r) return refundView(ctx, o, r);
      }
      return null;
    },
    orders: (args: Args & ConnectionArgs) => {
      requireScope(ctx, 'orders', 'read_orders');
      const terms = parseSearch(args.query as string | undefined);
      const cutoff = isoNow(Date.now() - 60 * 86_400_000);
      const all = !ctx.scope.includes('read_all_orders');
      const rows = [...shop.orders.values()].filter(
        (o) =>
          (!all || o.createdAt >= cutoff) &&
          matches(terms, (f) => {
            switch (f) {
              case null:
              case 'name':
                return o.name;
              case 'updated_at':
                return o.updatedAt;
              case 'created_at':
              case 'processed_at':
                return o.createdAt;
              case 'id':
                return o.id;
              case 'financial_status':
                return financialStatus(o).toLowerCase();
              case 'fulfillment_status':
                return fulfillmentStatus(o) === 'FULFILLED'
                  ? 'shipped'
                  : fulfillmentStatus(o) === 'PARTIALLY_FULFILLED'
                    ? 'partial'
                    : 'unshipped';
              case 'email':
                return o.email;
              case 'sku':
                return o.lineItems.map((l) => l.sku ?? '');
              default:
                return undefined;
            }
          }),
      );
      const key = sortKeyOf(
        args.sortKey,
        {
          ID: (o: ShopOrder) => o.id,
          CREATED_AT: (o: ShopOrder) => o.createdAt,
          PROCESSED_AT: (o: ShopOrder) => o.createdAt,
          UPDATED_AT: (o: ShopOrder) => o.updatedAt,
          ORDER_NUMBER: (o: ShopOrder) => o.number,
        },
        'ID',
      );
      return connection(
        rows,
        (o) => [key(o as never), o.id],
        args,
        (o) => orderView(ctx, o),
      );
    },
  };
}

export function orderMutations(ctx: RequestContext) {
  const { shop, store } = ctx;
  return {
    refundCreate: (args: Args) => {
      requireScope(ctx, 'refundCreate', 'write_orders');
      const input = args.input as {
        orderId: string;
        note?: string;
        notify?: boolean;
        refundLineItems?: { lineItemId: string; quantity: number; restockType?: string; locationId?: string }[];
        transactions?: { orderId: string; gateway: string; kind: string; amount: string; parentId?: string }[];
        shipping?: { amount?: string; fullRefund?: boolean };
      };
      const fail = (field: (string | number)[], message: string) => ({
        refund: null,
        order: null,
        userErrors: [{ field: cleanPath(...field), message }],
      });
      const order = findOrder(ctx, input.orderId);
      if (!order) return fail(['orderId'], 'Order does not exist');
      const transactions: RefundRequest['transactions'] = [];
      for (const [i, t] of (input.transactions ?? []).entries()) {
        const value = parseMoney(t.amount);
        if (value === null || value <= 0) return fail(['transactions', i, 'amount'], 'Amount must be greater than 0');
        if (t.kind !== 'REFUND') return fail(['transactions', i, 'kind'], 'Kind must be refund');
        const parentId = t.parentId ? parseGid(t.parentId, 'OrderTransaction') : null;
        if (t.parentId && parentId === null)
          return fail(['transactions', i, 'parentId'], 'Parent transaction does not exist');
        transactions.push({ amount: value, gateway: t.gateway, parentId });
      }
      const shippingAmount = input.shipping?.amount == null ? null : parseMoney(input.shipping.amount);
      if (input.shipping?.amount != null && shippingAmount === null)
        return fail(['shipping', 'amount'], 'Amount is not valid');
      const made = createRefund(store, shop, order, {
        note: input.note ?? null,
        lines: (input.refundLineItems ?? []).map((r) => ({
          lineItemId: parseGid(r.lineItemId, 'LineItem'),
          quantity: r.quantity,
          restockType: r.restockType,
          locationId: r.locationId ? (parseGid(r.locationId, 'Location') ?? -1) : null,
        })),
        transactions,
        shipping: { amount: shippingAmount, fullRefund: input.shipping?.fullRefund === true },
      });
      if (!('refund' in made)) return fail(made.field, made.message);
      const refund = made.refund;
      return { refund: refundView(ctx, order, refund), order: orderView(ctx, order), userErrors: [] };
    },

    /**
     * orderCancel (2025-01): Shopify answers with a Job that cancels the order asynchronously; the
     * simulator has done it by the time it answers (the job reads done: true when asked).
     */
    orderCancel: (args: Args) => {
      requireScope(ctx, 'orderCancel', 'write_orders', 'write_marketplace_orders');
      const fail = (field: string[], message: string, code: string) => ({
        job: null,
        orderCancelUserErrors: [{ field, message, code }],
        userErrors: [{ field, message }],
      });
      const order = findOrder(ctx, args.orderId);
      if (!order) return fail(['orderId'], 'Order does not exist', 'NOT_FOUND');
      const refused = store.cancelOrder(shop, order, {
        reason: String(args.reason),
        refund: args.refund === true,
        restock: args.restock === true,
        staffNote: (args.staffNote as string | undefined) ?? null,
      });
      if (refused) return fail(['orderId'], refused.message, refused.code);
      return {
        job: { __typename: 'Job', id: gid('Job', randomUUID()), done: false },
        orderCancelUserErrors: [],
        userErrors: [],
      };
    },
  };
}
