// Views of an order and what hangs off it: line items, fulfillment orders, fulfillments, transactions,
// refunds and returns. An order's refunds and returns point back at the order and at each other, so they
// live together. Views as in catalog-views.ts: built from the shop's state when they are read.

import { type ConnectionArgs, connection, MAX_PAGE } from '../connection.ts';
import { gid, type ShopAddress, type ShopLineItem, type ShopOrder, type ShopReturn } from '../model.ts';
import { financialStatus, fulfillmentStatus, orderTotals, unfulfilledQuantity } from '../orders.ts';
import { findFulfillmentLine } from '../returns.ts';
import { matches, parseSearch } from '../search.ts';
import { locationView, productView, variantView } from './catalog-views.ts';
import { type Args, moneyBag, type RequestContext, requireScope } from './shared.ts';

function lineItemView(ctx: RequestContext, order: ShopOrder, l: ShopLineItem) {
  const variant = l.variantId === null ? undefined : ctx.shop.variants.get(l.variantId);
  const product = l.productId === null ? undefined : ctx.shop.products.get(l.productId);
  return {
    id: gid('LineItem', l.id),
    sku: l.sku,
    title: l.title,
    name: l.variantTitle ? `${l.title} - ${l.variantTitle}` : l.title,
    variantTitle: l.variantTitle,
    quantity: l.quantity,
    currentQuantity: l.quantity - l.refundedQuantity - l.cancelledQuantity,
    refundableQuantity: l.quantity - l.refundedQuantity - l.cancelledQuantity,
    unfulfilledQuantity: unfulfilledQuantity(order, l.id),
    nonFulfillableQuantity: l.quantity - unfulfilledQuantity(order, l.id),
    totalDiscountSet: moneyBag(l.discount, order.currency),
    discountedTotalSet: moneyBag(l.price * l.quantity - l.discount, order.currency),
    originalTotalSet: moneyBag(l.price * l.quantity, order.currency),
    taxLines: (args: Args) =>
      (l.tax > 0 ? [{ title: 'Sales Tax', rate: l.taxRate, priceSet: moneyBag(l.tax, order.currency) }] : []).slice(
        0,
        (args.first as number | undefined) ?? MAX_PAGE,
      ),
    variant: () => (variant ? variantView(ctx, variant) : null),
    product: () => (product ? productView(ctx, product) : null),
    originalUnitPriceSet: moneyBag(l.price, order.currency),
    discountedUnitPriceSet: moneyBag(l.price, order.currency),
  };
}

export function fulfillmentOrderView(
  ctx: RequestContext,
  order: ShopOrder,
  fo: ShopOrder['fulfillmentOrders'][number],
) {
  const location = ctx.shop.locations.find((l) => l.id === fo.locationId);
  return {
    __typename: 'FulfillmentOrder',
    id: gid('FulfillmentOrder', fo.id),
    status: fo.status,
    createdAt: fo.createdAt,
    updatedAt: fo.updatedAt,
    orderId: gid('Order', order.id),
    order: () => orderView(ctx, order),
    assignedLocation: {
      name: location?.name ?? '',
      location: () => (location ? locationView(ctx, location) : null),
    },
    deliveryMethod: { id: gid('DeliveryMethod', fo.id), methodType: fo.methodType },
    lineItems: (args: ConnectionArgs) =>
      connection(
        fo.lineItems,
        (l) => [l.id],
        args,
        (l) => {
          const line = order.lineItems.find((x) => x.id === l.lineItemId) as ShopLineItem;
          return {
            id: gid('FulfillmentOrderLineItem', l.id),
            totalQuantity: l.totalQuantity,
            remainingQuantity: l.remainingQuantity,
            sku: line.sku,
            lineItem: () => lineItemView(ctx, order, line),
          };
        },
      ),
  };
}

function fulfillmentLineView(
  ctx: RequestContext,
  order: ShopOrder,
  l: ShopOrder['fulfillments'][number]['lines'][number],
) {
  const line = order.lineItems.find((x) => x.id === l.lineItemId) as ShopLineItem;
  const share = line.quantity > 0 ? l.quantity / line.quantity : 0;
  return {
    id: gid('FulfillmentLineItem', l.id),
    lineItem: () => lineItemView(ctx, order, line),
    quantity: l.quantity,
    originalTotalSet: moneyBag(line.price * l.quantity, order.currency),
    discountedTotalSet: moneyBag(line.price * l.quantity - Math.round(line.discount * share), order.currency),
  };
}

export function fulfillmentView(ctx: RequestContext, order: ShopOrder, f: ShopOrder['fulfillments'][number]) {
  const location = ctx.shop.locations.find((l) => l.id === f.locationId);
  return {
    __typename: 'Fulfillment',
    id: gid('Fulfillment', f.id),
    status: f.status,
    createdAt: f.createdAt,
    location: () => (location ? locationView(ctx, location) : null),
    trackingInfo: (args: Args) => f.tracking.slice(0, (args.first as number | undefined) ?? f.tracking.length),
    totalQuantity: f.lines.reduce((s, l) => s + l.quantity, 0),
    fulfillmentLineItems: (args: ConnectionArgs) =>
      connection(
        f.lines,
        (l) => [l.id],
        args,
        (l) => fulfillmentLineView(ctx, order, l),
      ),
  };
}

function transactionView(order: ShopOrder, t: ShopOrder['transactions'][number]): unknown {
  return {
    id: gid('OrderTransaction', t.id),
    kind: t.kind,
    status: t.status,
    gateway: t.gateway,
    createdAt: t.createdAt,
    amountSet: moneyBag(t.amount, order.currency),
    parentTransaction: () => {
      const parent = order.transactions.find((x) => x.id === t.parentId);
      return parent ? transactionView(order, parent) : null;
    },
  };
}

export function refundView(ctx: RequestContext, order: ShopOrder, r: ShopOrder['refunds'][number]) {
  const bag = (minor: number) => moneyBag(minor, order.currency);
  return {
    __typename: 'Refund',
    id: gid('Refund', r.id),
    legacyResourceId: String(r.id),
    createdAt: r.createdAt,
    updatedAt: r.createdAt,
    note: r.note,
    totalRefundedSet: bag(r.amount),
    order: () => orderView(ctx, order),
    return: () => {
      const ret = r.returnId ? order.returns.find((x) => x.id === r.returnId) : undefined;
      if (!ret) return null;
      requireScope(ctx, 'return', 'read_returns', 'read_marketplace_returns');
      return returnView(ctx, order, ret);
    },
    refundLineItems: (args: ConnectionArgs) =>
      connection(
        r.lines,
        (l) => [l.id],
        args,
        (l) => {
          const line = order.lineItems.find((x) => x.id === l.lineItemId) as ShopLineItem;
          const location = ctx.shop.locations.find((x) => x.id === l.locationId);
          return {
            id: gid('RefundLineItem', l.id),
            lineItem: () => lineItemView(ctx, order, line),
            quantity: l.quantity,
            restockType: l.restockType,
            restocked: l.restockType !== 'NO_RESTOCK',
            location: () => (location ? locationView(ctx, location) : null),
            priceSet: bag(line.price),
            subtotalSet: bag(l.subtotal),
            totalTaxSet: bag(l.tax),
          };
        },
      ),
    refundShippingLines: (args: ConnectionArgs) =>
      connection(
        r.shipping > 0 ? [r] : [],
        (x) => [x.id],
        args,
        (x) => ({ id: gid('RefundShippingLine', x.id), subtotalAmountSet: bag(x.shipping), taxAmountSet: bag(0) }),
      ),
    orderAdjustments: (args: ConnectionArgs) =>
      connection(
        r.adjustments.filter((a) => a.kind === 'refund_discrepancy'),
        (a) => [a.id],
        args,
        (a) => ({
          id: gid('OrderAdjustment', a.id),
          amountSet: bag(a.amount),
          taxAmountSet: bag(a.tax),
          reason: 'REFUND_DISCREPANCY',
        }),
      ),
    transactions: (args: ConnectionArgs) =>
      connection(
        order.transactions.filter((t) => r.transactionIds.includes(t.id)),
        (t) => [t.id],
        args,
        (t) => transactionView(order, t),
      ),
  };
}

export function reverseOrderView(
  ctx: RequestContext,
  order: ShopOrder,
  ret: ShopReturn,
  rfo: ShopReturn['reverseFulfillmentOrders'][number],
) {
  const fulfillmentLine = (returnLineId: number) => {
    const fli = ret.lines.find((x) => x.id === returnLineId)?.fulfillmentLineItemId ?? null;
    const found = findFulfillmentLine(order, fli);
    return found ? fulfillmentLineView(ctx, order, found.line) : null;
  };
  return {
    __typename: 'ReverseFulfillmentOrder',
    id: gid('ReverseFulfillmentOrder', rfo.id),
    status: rfo.status,
    order: () => orderView(ctx, order),
    lineItems: (args: ConnectionArgs) =>
      connection(
        rfo.lines,
        (l) => [l.id],
        args,
        (l) => ({
          __typename: 'ReverseFulfillmentOrderLineItem',
          id: gid('ReverseFulfillmentOrderLineItem', l.id),
          totalQuantity: l.totalQuantity,
          fulfillmentLineItem: () => fulfillmentLine(l.returnLineId),
          dispositions: l.dispositions.map((d) => {
            const location = ctx.shop.locations.find((x) => x.id === d.locationId);
            return {
              __typename: 'ReverseFulfillmentOrderDisposition',
              id: gid('ReverseFulfillmentOrderDisposition', d.id),
              location: () => (location ? locationView(ctx, location) : null),
              quantity: d.quantity,
              type: d.type,
            };
          }),
        }),
      ),
  };
}

export function returnView(ctx: RequestContext, order: ShopOrder, ret: ShopReturn): Record<string, unknown> {
  const refunds = order.refunds.filter((r) => r.returnId === ret.id);
  const refundedOf = (lineItemId: number) =>
    refunds
      .flatMap((r) => r.lines)
      .filter((l) => l.lineItemId === lineItemId)
      .reduce((s, l) => s + l.quantity, 0);
  return {
    __typename: 'Return',
    id: gid('Return', ret.id),
    name: ret.name,
    status: ret.status,
    order: () => orderView(ctx, order),
    totalQuantity: ret.lines.reduce((s, l) => s + l.quantity, 0),
    decline: ret.decline && { reason: ret.decline.reason, note: ret.decline.note },
    returnLineItems: (args: ConnectionArgs) =>
      connection(
        ret.lines,
        (l) => [l.id],
        args,
        (l) => {
          const found = findFulfillmentLine(order, l.fulfillmentLineItemId);
          const refunded = Math.min(l.quantity, refundedOf(l.lineItemId));
          return {
            __typename: 'ReturnLineItem',
            id: gid('ReturnLineItem', l.id),
            quantity: l.quantity,
            returnReason: l.returnReason,
            returnReasonNote: l.returnReasonNote,
            customerNote: l.customerNote,
            refundedQuantity: refunded,
            refundableQuantity: l.quantity - refunded,
            fulfillmentLineItem: () => (found ? fulfillmentLineView(ctx, order, found.line) : null),
          };
        },
      ),
    reverseFulfillmentOrders: (args: ConnectionArgs) =>
      connection(
        ret.reverseFulfillmentOrders,
        (o) => [o.id],
        args,
        (o) => reverseOrderView(ctx, order, ret, o),
      ),
    refunds: (args: ConnectionArgs) =>
      connection(
        refunds,
        (r) => [r.id],
        args,
        (r) => refundView(ctx, order, r),
      ),
  };
}

function mailingAddress(a: ShopAddress | null) {
  return (
    a && {
      firstName: a.firstName,
      lastName: a.lastName,
      name: [a.firstName, a.lastName].filter(Boolean).join(' ') || null,
      company: a.company,
      address1: a.address1,
      address2: a.address2,
      city: a.city,
      province: a.province,
      provinceCode: a.provinceCode,
      zip: a.zip,
      country: a.country,
      countryCodeV2: a.countryCode,
      phone: a.phone,
    }
  );
}

export function orderView(ctx: RequestContext, order: ShopOrder): Record<string, unknown> {
  const t = orderTotals(order);
  const c = order.customer;
  return {
    __typename: 'Order',
    id: gid('Order', order.id),
    legacyResourceId: String(order.id),
    name: order.name,
    email: order.email,
    phone: order.phone,
    note: order.note,
    tags: order.tags,
    createdAt: order.createdAt,
    updatedAt: order.updatedAt,
    processedAt: order.createdAt,
    cancelledAt: order.cancelledAt,
    cancelReason: order.cancelReason,
    closed: fulfillmentStatus(order) === 'FULFILLED',
    currencyCode: order.currency,
    displayFinancialStatus: financialStatus(order),
    displayFulfillmentStatus: fulfillmentStatus(order),
    customer: c && {
      id: gid('Customer', c.id),
      firstName: c.firstName,
      lastName: c.lastName,
      displayName: `${c.firstName} ${c.lastName}`.trim(),
      email: c.email,
      phone: c.phone,
    },
    shippingAddress: mailingAddress(order.shippingAddress),
    billingAddress: mailingAddress(order.billingAddress),
    totalPriceSet: moneyBag(t.total, order.currency),
    currentTotalPriceSet: moneyBag(t.currentTotal, order.currency),
    subtotalPriceSet: moneyBag(t.subtotal, order.currency),
    currentSubtotalPriceSet: moneyBag(t.currentSubtotal, order.currency),
    totalShippingPriceSet: moneyBag(order.shippingPrice, order.currency),
    totalTaxSet: moneyBag(t.tax, order.currency),
    currentTotalTaxSet: moneyBag(t.currentTax, order.currency),
    totalDiscountsSet: moneyBag(t.discounts, order.currency),
    currentTotalDiscountsSet: moneyBag(t.currentDiscounts, order.currency),
    totalRefundedSet: moneyBag(t.refunded, order.currency),
    totalReceivedSet: moneyBag(t.total, order.currency),
    lineItems: (args: ConnectionArgs) =>
      connection(
        order.lineItems,
        (l) => [l.id],
        args,
        (l) => lineItemView(ctx, order, l),
      ),
    fulfillmentOrders: (args: ConnectionArgs) => {
      requireScope(
        ctx,
        'fulfillmentOrders',
        'read_merchant_managed_fulfillment_orders',
        'read_assigned_fulfillment_orders',
        'read_third_party_fulfillment_orders',
      );
      return connection(
        order.fulfillmentOrders,
        (f) => [f.id],
        args,
        (f) => fulfillmentOrderView(ctx, order, f),
      );
    },
    fulfillments: (args: Args) =>
      order.fulfillments
        .slice(0, (args.first as number | undefined) ?? MAX_PAGE)
        .map((f) => fulfillmentView(ctx, order, f)),
    refunds: (args: Args) =>
      order.refunds.slice(0, (args.first as number | undefined) ?? MAX_PAGE).map((r) => refundView(ctx, order, r)),
    returns: (args: Args & ConnectionArgs) => {
      requireScope(ctx, 'returns', 'read_returns', 'read_marketplace_returns');
      const terms = parseSearch(args.query as string | undefined);
      const rows = order.returns.filter((r) =>
        matches(terms, (f) => (f === 'status' ? r.status.toLowerCase() : f === 'id' ? r.id : undefined)),
      );
      return connection(
        rows,
        (r) => [r.id],
        args,
        (r) => returnView(ctx, order, r),
      );
    },
    transactions: (args: Args) =>
      order.transactions.slice(0, (args.first as number | undefined) ?? MAX_PAGE).map((t) => transactionView(order, t)),
  };
}
