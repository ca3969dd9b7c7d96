// Fulfillment orders and fulfillments: the fulfillmentOrder query, fulfillmentCreate, fulfillmentCancel,
// fulfillmentTrackingInfoUpdate and fulfillmentOrderLineItemsPreparedForPickup.

import {
  cancelFulfillment,
  findFulfillment,
  type TrackingInput,
  trackingOf,
  updateFulfillmentTracking,
} from '../fulfillments.ts';
import { isoNow, parseGid, type ShopLineItem, type ShopOrder } from '../model.ts';
import { fulfillmentStatus } from '../orders.ts';
import { fulfillmentOrderView, fulfillmentView } from './order-views.ts';
import { type Args, cleanPath, type RequestContext, requireScope } from './shared.ts';

export function fulfillmentQueries(ctx: RequestContext) {
  const { shop } = ctx;
  return {
    fulfillmentOrder: (args: Args) => {
      requireScope(
        ctx,
        'fulfillmentOrder',
        'read_merchant_managed_fulfillment_orders',
        'read_assigned_fulfillment_orders',
        'read_third_party_fulfillment_orders',
      );
      const n = parseGid(args.id, 'FulfillmentOrder');
      for (const order of shop.orders.values()) {
        const fo = order.fulfillmentOrders.find((f) => f.id === n);
        if (fo) return fulfillmentOrderView(ctx, order, fo);
      }
      return null;
    },
  };
}

export function fulfillmentMutations(ctx: RequestContext) {
  const { shop, store } = ctx;

  /** fulfillmentCancel and fulfillmentTrackingInfoUpdate (../fulfillments.ts): same scopes as fulfillmentCreate. */
  function fulfillmentChange(
    field: string,
    arg: string,
    id: unknown,
    change: typeof cancelFulfillment,
  ): { fulfillment: unknown; userErrors: { field: string[]; message: string }[] } {
    requireScope(
      ctx,
      field,
      'write_merchant_managed_fulfillment_orders',
      'write_assigned_fulfillment_orders',
      'write_third_party_fulfillment_orders',
      'write_fulfillments',
    );
    const hit = findFulfillment(shop, parseGid(id, 'Fulfillment'));
    if (!hit) return { fulfillment: null, userErrors: [{ field: [arg], message: 'Fulfillment does not exist.' }] };
    const refused = change(store, shop, hit.order, hit.fulfillment);
    if (refused) return { fulfillment: null, userErrors: [refused] };
    return { fulfillment: fulfillmentView(ctx, hit.order, hit.fulfillment), userErrors: [] };
  }

  return {
    fulfillmentCreate: (args: Args) => {
      requireScope(
        ctx,
        'fulfillmentCreate',
        'write_merchant_managed_fulfillment_orders',
        'write_assigned_fulfillment_orders',
        'write_third_party_fulfillment_orders',
        'write_fulfillments',
      );
      const input = args.fulfillment as {
        notifyCustomer?: boolean;
        trackingInfo?: { company?: string; number?: string; url?: string; numbers?: string[]; urls?: string[] };
        lineItemsByFulfillmentOrder: {
          fulfillmentOrderId: string;
          fulfillmentOrderLineItems?: { id: string; quantity: number }[];
        }[];
      };
      const fail = (field: (string | number)[], message: string) => ({
        fulfillment: null,
        userErrors: [{ field: cleanPath('fulfillment', ...field), message }],
      });
      if (!input.lineItemsByFulfillmentOrder.length) return fail(['lineItemsByFulfillmentOrder'], 'must not be empty');
      let order: ShopOrder | undefined;
      const plan: {
        fo: ShopOrder['fulfillmentOrders'][number];
        line: { id: number; remainingQuantity: number; lineItemId: number };
        quantity: number;
      }[] = [];
      for (const [i, group] of input.lineItemsByFulfillmentOrder.entries()) {
        const foId = parseGid(group.fulfillmentOrderId, 'FulfillmentOrder');
        let fo: ShopOrder['fulfillmentOrders'][number] | undefined;
        for (const o of shop.orders.values()) {
          fo = o.fulfillmentOrders.find((f) => f.id === foId);
          if (fo) {
            if (order && order !== o)
              return fail(['lineItemsByFulfillmentOrder', i], 'All fulfillment orders must belong to the same order.');
            order = o;
            break;
          }
        }
        if (!fo)
          return fail(['lineItemsByFulfillmentOrder', i, 'fulfillmentOrderId'], 'Fulfillment order does not exist.');
        if (fo.status !== 'OPEN' && fo.status !== 'IN_PROGRESS')
          return fail(
            ['lineItemsByFulfillmentOrder', i],
            `Fulfillment order ${group.fulfillmentOrderId} has an unfulfillable status= ${fo.status.toLowerCase()}.`,
          );
        const current = fo;
        const lines = group.fulfillmentOrderLineItems?.length
          ? group.fulfillmentOrderLineItems.map((l) => ({
              line: current.lineItems.find((x) => x.id === parseGid(l.id, 'FulfillmentOrderLineItem')),
              quantity: l.quantity,
            }))
          : current.lineItems
              .filter((l) => l.remainingQuantity > 0)
              .map((l) => ({ line: l, quantity: l.remainingQuantity }));
        for (const [j, l] of lines.entries()) {
          const path = ['lineItemsByFulfillmentOrder', i, 'fulfillmentOrderLineItems', j];
          if (!l.line) return fail(path, 'Fulfillment order line item does not exist.');
          if (l.quantity <= 0 || l.quantity > l.line.remainingQuantity)
            return fail(
              path,
              `Invalid fulfillment order line item quantity requested (${l.quantity}, ${l.line.remainingQuantity} remaining).`,
            );
          plan.push({ fo: current, line: l.line, quantity: l.quantity });
        }
      }
      if (!order || plan.length === 0) return fail(['lineItemsByFulfillmentOrder'], 'Nothing left to fulfill.');
      const at = isoNow();
      const t = input.trackingInfo;
      const numbers = t?.numbers ?? (t?.number ? [t.number] : []);
      const urls = t?.urls ?? (t?.url ? [t.url] : []);
      const fulfillment = {
        id: shop.nextId(),
        status: 'SUCCESS' as const,
        locationId: (plan[0] as (typeof plan)[number]).fo.locationId,
        tracking: trackingOf(t),
        lines: plan.map((p) => ({
          id: shop.nextId(),
          lineItemId: p.line.lineItemId,
          quantity: p.quantity,
          left: undefined as number | undefined,
        })),
        createdAt: at,
      };
      for (const [k, p] of plan.entries()) {
        p.line.remainingQuantity -= p.quantity;
        p.fo.status = p.fo.lineItems.every((l) => l.remainingQuantity === 0) ? 'CLOSED' : 'IN_PROGRESS';
        p.fo.updatedAt = at;
        const line = order.lineItems.find((l) => l.id === p.line.lineItemId) as ShopLineItem;
        const variant = line.variantId === null ? undefined : shop.variants.get(line.variantId);
        const level = variant && store.level(shop, variant.inventoryItemId, p.fo.locationId);
        // Shipping takes the units out of the building: committed and on hand fall, available stays. What left
        // is what a fulfillmentCancel puts back.
        const left = level ? Math.min(level.committed, p.quantity) : 0;
        if (level) {
          level.committed -= left;
          level.updatedAt = at;
        }
        (fulfillment.lines[k] as (typeof fulfillment.lines)[number]).left = left;
      }
      order.fulfillments.push(fulfillment);
      order.updatedAt = at;
      const payload = store.orderPayload(shop, order);
      store.emit(shop, 'FULFILLMENTS_CREATE', {
        id: fulfillment.id,
        order_id: order.id,
        status: 'success',
        created_at: at,
        location_id: fulfillment.locationId,
        tracking_company: t?.company ?? null,
        tracking_numbers: numbers,
        tracking_urls: urls,
        line_items: payload.line_items.filter((l) => fulfillment.lines.some((f) => f.lineItemId === l.id)),
      });
      store.emit(shop, 'ORDERS_UPDATED', payload);
      if (fulfillmentStatus(order) === 'FULFILLED') store.emit(shop, 'ORDERS_FULFILLED', payload);
      return { fulfillment: fulfillmentView(ctx, order, fulfillment), userErrors: [] };
    },

    fulfillmentCancel: (args: Args) => fulfillmentChange('fulfillmentCancel', 'id', args.id, cancelFulfillment),
    fulfillmentTrackingInfoUpdate: (args: Args) =>
      fulfillmentChange('fulfillmentTrackingInfoUpdate', 'fulfillmentId', args.fulfillmentId, (st, sh, o, f) =>
        updateFulfillmentTracking(st, sh, o, f, args.trackingInfoInput as TrackingInput),
      ),

    // Marks a local pickup fulfillment order's items ready: the order shows ready for pickup (the fulfillment
    // order in progress) and Shopify tells the customer. Only open pickup fulfillment orders with items left.
    fulfillmentOrderLineItemsPreparedForPickup: (args: Args) => {
      requireScope(ctx, 'fulfillmentOrderLineItemsPreparedForPickup', 'write_merchant_managed_fulfillment_orders');
      const input = args.input as { lineItemsByFulfillmentOrder: { fulfillmentOrderId: string }[] };
      const fail = (i: number, code: string, message: string) => ({
        userErrors: [
          { code, field: cleanPath('input', 'lineItemsByFulfillmentOrder', i, 'fulfillmentOrderId'), message },
        ],
      });
      const found: { order: ShopOrder; fo: ShopOrder['fulfillmentOrders'][number] }[] = [];
      for (const [i, group] of input.lineItemsByFulfillmentOrder.entries()) {
        const foId = parseGid(group.fulfillmentOrderId, 'FulfillmentOrder');
        let hit: (typeof found)[number] | undefined;
        for (const o of shop.orders.values()) {
          const fo = o.fulfillmentOrders.find((f) => f.id === foId);
          if (fo) hit = { order: o, fo };
        }
        if (!hit) return fail(i, 'FULFILLMENT_ORDER_INVALID', 'Fulfillment order does not exist.');
        if (hit.fo.methodType !== 'PICK_UP' || (hit.fo.status !== 'OPEN' && hit.fo.status !== 'IN_PROGRESS'))
          return fail(
            i,
            'FULFILLMENT_ORDER_INVALID',
            'Fulfillment order is not an open local pickup fulfillment order.',
          );
        if (hit.fo.lineItems.every((l) => l.remainingQuantity === 0))
          return fail(i, 'NO_LINE_ITEMS_TO_PREPARE_FOR_FULFILLMENT_ORDER', 'There are no line items to prepare.');
        found.push(hit);
      }
      const at = isoNow();
      for (const { order, fo } of found) {
        fo.status = 'IN_PROGRESS';
        fo.preparedForPickupAt ??= at;
        fo.updatedAt = at;
        order.updatedAt = at;
      }
      for (const order of new Set(found.map((f) => f.order)))
        store.emit(shop, 'ORDERS_UPDATED', store.orderPayload(shop, order));
      return { userErrors: [] };
    },
  };
}
