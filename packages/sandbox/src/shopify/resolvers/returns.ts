// Returns: the return and reverseFulfillmentOrder queries and the return mutations (create, request,
// approve, decline, cancel, close, reopen, refund, dispose), over the rules in ../returns.ts.

import { MAX_PAGE } from '../connection.ts';
import { gid, parseGid, parseMoney, type Shop, type ShopOrder, type ShopReturn } from '../model.ts';
import {
  approveReturn,
  cancelReturn,
  closeReturn,
  createReturn,
  declineReturn,
  disposeReturnLines,
  findReturn,
  findReverseLine,
  findReverseOrder,
  type ReturnRefusal,
  refundReturn,
  reopenReturn,
} from '../returns.ts';
import type { ShopifyStore } from '../store.ts';
import { refundView, returnView, reverseOrderView } from './order-views.ts';
import { type Args, cleanPath, findOrder, type RequestContext, requireScope } from './shared.ts';

export function returnQueries(ctx: RequestContext) {
  const { shop } = ctx;
  return {
    return: (args: Args) => {
      requireScope(ctx, 'return', 'read_returns', 'read_marketplace_returns');
      const hit = findReturn(shop, parseGid(args.id, 'Return'));
      return hit ? returnView(ctx, hit.order, hit.ret) : null;
    },
    reverseFulfillmentOrder: (args: Args) => {
      requireScope(ctx, 'reverseFulfillmentOrder', 'read_returns', 'read_marketplace_returns');
      const hit = findReverseOrder(shop, parseGid(args.id, 'ReverseFulfillmentOrder'));
      return hit ? reverseOrderView(ctx, hit.order, hit.ret, hit.rfo) : null;
    },
  };
}

type ReturnLineArg = {
  fulfillmentLineItemId: string;
  quantity: number;
  returnReason: string;
  returnReasonNote?: string;
  customerNote?: string;
};
const returnFailed = (refusal: ReturnRefusal) => ({
  return: null,
  userErrors: [{ code: refusal.code, field: refusal.field, message: refusal.message }],
});

export function returnMutations(ctx: RequestContext) {
  const { shop, store } = ctx;

  function madeReturn(root: string, orderId: string, requested: boolean, lines: ReturnLineArg[]) {
    const order = findOrder(ctx, orderId);
    if (!order) return returnFailed({ field: [root, 'orderId'], message: 'Order does not exist.', code: 'NOT_FOUND' });
    const made = createReturn(store, shop, order, {
      requested,
      lines: lines.map((l) => ({
        fulfillmentLineItemId: parseGid(l.fulfillmentLineItemId, 'FulfillmentLineItem'),
        quantity: l.quantity,
        returnReason: l.returnReason,
        returnReasonNote: l.returnReasonNote ?? null,
        customerNote: l.customerNote ?? null,
      })),
    });
    if (!('ret' in made)) return returnFailed(made);
    return { return: returnView(ctx, order, made.ret), userErrors: [] };
  }
  function returnStep(
    field: string,
    id: string,
    path: string[],
    step: (store: ShopifyStore, shop: Shop, order: ShopOrder, ret: ShopReturn) => ReturnRefusal | null,
  ) {
    requireScope(ctx, field, 'write_returns', 'write_marketplace_returns');
    const hit = findReturn(shop, parseGid(id, 'Return'));
    if (!hit) return returnFailed({ field: path, message: 'Return does not exist.', code: 'NOT_FOUND' });
    const refused = step(store, shop, hit.order, hit.ret);
    if (refused) return returnFailed({ ...refused, field: path });
    return { return: returnView(ctx, hit.order, hit.ret), userErrors: [] };
  }

  return {
    returnCreate: (args: Args) => {
      requireScope(ctx, 'returnCreate', 'write_returns', 'write_marketplace_returns');
      const input = args.returnInput as {
        orderId: string;
        returnLineItems: {
          fulfillmentLineItemId: string;
          quantity: number;
          returnReason: string;
          returnReasonNote?: string;
        }[];
      };
      return madeReturn('returnInput', input.orderId, false, input.returnLineItems);
    },
    returnRequest: (args: Args) => {
      requireScope(ctx, 'returnRequest', 'write_returns', 'write_marketplace_returns');
      const input = args.input as {
        orderId: string;
        returnLineItems: {
          fulfillmentLineItemId: string;
          quantity: number;
          returnReason: string;
          customerNote?: string;
        }[];
      };
      return madeReturn('input', input.orderId, true, input.returnLineItems);
    },
    returnApproveRequest: (args: Args) =>
      returnStep('returnApproveRequest', (args.input as { id: string }).id, ['input', 'id'], approveReturn),
    returnDeclineRequest: (args: Args) => {
      const input = args.input as { id: string; declineReason: string; declineNote?: string | null };
      return returnStep('returnDeclineRequest', input.id, ['input', 'id'], (st, sh, o, r) =>
        declineReturn(st, sh, o, r, { reason: input.declineReason, note: input.declineNote ?? null }),
      );
    },
    returnCancel: (args: Args) => returnStep('returnCancel', args.id as string, ['id'], cancelReturn),
    returnClose: (args: Args) => returnStep('returnClose', args.id as string, ['id'], closeReturn),
    returnReopen: (args: Args) => returnStep('returnReopen', args.id as string, ['id'], reopenReturn),

    returnRefund: (args: Args) => {
      requireScope(ctx, 'returnRefund', 'write_returns', 'write_marketplace_returns');
      requireScope(ctx, 'returnRefund', 'write_orders', 'write_marketplace_orders');
      const input = args.returnRefundInput as {
        returnId: string;
        returnRefundLineItems: { returnLineItemId: string; quantity: number }[];
        refundShipping?: { shippingRefundAmount?: { amount: string } | null; fullRefund?: boolean | null } | null;
        orderTransactions?: { transactionAmount: { amount: string }; parentId: string }[] | null;
      };
      const fail = (field: (string | number)[], message: string, code = 'INVALID') => ({
        refund: null,
        userErrors: [{ code, field: cleanPath(...field), message }],
      });
      const hit = findReturn(shop, parseGid(input.returnId, 'Return'));
      if (!hit) return fail(['returnRefundInput', 'returnId'], 'Return does not exist.', 'NOT_FOUND');
      const transactions: { amount: number; parentId: number | null }[] = [];
      for (const [i, t] of (input.orderTransactions ?? []).entries()) {
        const amount = parseMoney(t.transactionAmount.amount);
        if (amount === null || amount <= 0)
          return fail(
            ['returnRefundInput', 'orderTransactions', i, 'transactionAmount'],
            'Amount must be greater than 0.',
          );
        transactions.push({ amount, parentId: parseGid(t.parentId, 'OrderTransaction') });
      }
      const shippingAmount = input.refundShipping?.shippingRefundAmount
        ? parseMoney(input.refundShipping.shippingRefundAmount.amount)
        : null;
      const made = refundReturn(store, shop, hit.order, hit.ret, {
        lines: input.returnRefundLineItems.map((l) => ({
          returnLineItemId: parseGid(l.returnLineItemId, 'ReturnLineItem'),
          quantity: l.quantity,
        })),
        shipping: { amount: shippingAmount, fullRefund: input.refundShipping?.fullRefund === true },
        transactions,
      });
      if ('refund' in made) return { refund: refundView(ctx, hit.order, made.refund), userErrors: [] };
      return fail(['returnRefundInput', ...made.field], made.message, 'code' in made ? made.code : 'INVALID');
    },

    reverseFulfillmentOrderDispose: (args: Args) => {
      requireScope(ctx, 'reverseFulfillmentOrderDispose', 'write_returns', 'write_marketplace_returns');
      const inputs = args.dispositionInputs as {
        reverseFulfillmentOrderLineItemId: string;
        quantity: number;
        dispositionType: string;
        locationId?: string | null;
      }[];
      const done = disposeReturnLines(
        store,
        shop,
        inputs.map((d) => ({
          lineId: parseGid(d.reverseFulfillmentOrderLineItemId, 'ReverseFulfillmentOrderLineItem'),
          quantity: d.quantity,
          type: d.dispositionType,
          locationId: d.locationId ? (parseGid(d.locationId, 'Location') ?? -1) : null,
        })),
      );
      if (!('lineIds' in done))
        return {
          reverseFulfillmentOrderLineItems: null,
          userErrors: [{ code: done.code, field: done.field, message: done.message }],
        };
      return {
        reverseFulfillmentOrderLineItems: done.lineIds.map((id) => {
          const hit = findReverseLine(shop, id) as NonNullable<ReturnType<typeof findReverseLine>>;
          const view = reverseOrderView(ctx, hit.order, hit.ret, hit.rfo).lineItems({ first: MAX_PAGE }) as {
            nodes: { id: string }[];
          };
          return view.nodes.find((n) => n.id === gid('ReverseFulfillmentOrderLineItem', id));
        }),
        userErrors: [],
      };
    },
  };
}
