import { gid, isoNow, type Shop, type ShopFulfillment, type ShopFulfillmentOrder, type ShopOrder } from './model.ts';
import type { ShopifyStore } from './store.ts';

/**
 * Changes to a fulfillment after it was made (Admin GraphQL 2025-01): `fulfillmentCancel` and
 * `fulfillmentTrackingInfoUpdate`. A cancelled fulfillment counts for nothing: its units are unfulfilled again
 * (as shopify.dev says: a fulfillment order partly fulfilled takes them back in its remaining quantities; one that
 * was entirely fulfilled stays closed and a new fulfillment order at the same location holds them), the units
 * that left on hand when it
 * was made come back as committed at its location, and the order's fulfillment status follows. Each change sends
 * fulfillments/update in the REST shape Shopify's webhooks carry, then orders/updated.
 */

export type FulfillmentRefusal = { field: string[]; message: string };

export function findFulfillment(
  shop: Shop,
  id: number | null,
): { order: ShopOrder; fulfillment: ShopFulfillment } | undefined {
  if (id === null) return undefined;
  for (const order of shop.orders.values()) {
    const fulfillment = order.fulfillments.find((f) => f.id === id);
    if (fulfillment) return { order, fulfillment };
  }
  return undefined;
}

export interface TrackingInput {
  company?: string | null;
  number?: string | null;
  url?: string | null;
  numbers?: string[] | null;
  urls?: string[] | null;
}

/** FulfillmentTrackingInput as the fulfillment holds it: one entry per number (a company alone: one, no number). */
export function trackingOf(t: TrackingInput | null | undefined): ShopFulfillment['tracking'] {
  const numbers = t?.numbers ?? (t?.number ? [t.number] : []);
  const urls = t?.urls ?? (t?.url ? [t.url] : []);
  return (numbers.length ? numbers : t?.company ? [null] : []).map((number, i) => ({
    company: t?.company ?? null,
    number,
    url: urls[i] ?? null,
  }));
}

/** A fulfillment as Shopify's REST resource (what fulfillments/create and fulfillments/update carry). */
export function fulfillmentPayload(store: ShopifyStore, shop: Shop, order: ShopOrder, f: ShopFulfillment) {
  const lines = store.orderPayload(shop, order).line_items;
  const numbers = f.tracking.map((x) => x.number).filter((x): x is string => Boolean(x));
  const urls = f.tracking.map((x) => x.url).filter((x): x is string => Boolean(x));
  return {
    id: f.id,
    admin_graphql_api_id: gid('Fulfillment', f.id),
    order_id: order.id,
    name: `${order.name}.${order.fulfillments.indexOf(f) + 1}`,
    status: f.status.toLowerCase(),
    service: 'manual',
    shipment_status: null,
    created_at: f.createdAt,
    updated_at: f.updatedAt ?? f.createdAt,
    location_id: f.locationId,
    tracking_company: f.tracking[0]?.company ?? null,
    tracking_number: numbers[0] ?? null,
    tracking_numbers: numbers,
    tracking_url: urls[0] ?? null,
    tracking_urls: urls,
    line_items: lines
      .filter((l) => f.lines.some((x) => x.lineItemId === l.id))
      .map((l) => ({ ...l, quantity: f.lines.find((x) => x.lineItemId === l.id)?.quantity ?? l.quantity })),
  };
}

function announce(store: ShopifyStore, shop: Shop, order: ShopOrder, f: ShopFulfillment) {
  store.emit(shop, 'FULFILLMENTS_UPDATE', fulfillmentPayload(store, shop, order, f));
  store.emit(shop, 'ORDERS_UPDATED', store.orderPayload(shop, order));
}

/** fulfillmentCancel: a SUCCESS fulfillment becomes CANCELLED and what it did is undone. */
export function cancelFulfillment(
  store: ShopifyStore,
  shop: Shop,
  order: ShopOrder,
  f: ShopFulfillment,
): FulfillmentRefusal | null {
  if (f.status !== 'SUCCESS') return { field: ['id'], message: 'Fulfillment is already cancelled.' };
  const returned = new Set(
    order.returns
      .filter((r) => r.status !== 'DECLINED' && r.status !== 'CANCELED')
      .flatMap((r) => r.lines.map((l) => l.fulfillmentLineItemId)),
  );
  if (f.lines.some((l) => returned.has(l.id)))
    return { field: ['id'], message: 'Fulfillment cannot be cancelled because it has returns.' };
  const at = isoNow();
  const touched = new Set<number>();
  // Units of fulfillment orders that were entirely fulfilled (closed): they go to new fulfillment orders.
  const anew = new Map<ShopFulfillmentOrder, { lineItemId: number; quantity: number }[]>();
  for (const l of f.lines) {
    // The units go back to the fulfillment order(s) at the fulfillment's location that hold the line item.
    let back = l.quantity;
    for (const fo of order.fulfillmentOrders) {
      if (fo.locationId !== f.locationId) continue;
      for (const fl of fo.lineItems) {
        if (fl.lineItemId !== l.lineItemId || back === 0) continue;
        const take = Math.min(back, fl.totalQuantity - fl.remainingQuantity);
        if (take <= 0) continue;
        back -= take;
        if (fo.status === 'CLOSED') {
          // Moved out of the closed one (its line counts only what stays fulfilled), into the new one.
          fl.totalQuantity -= take;
          fo.updatedAt = at;
          anew.set(fo, [...(anew.get(fo) ?? []), { lineItemId: fl.lineItemId, quantity: take }]);
          continue;
        }
        fl.remainingQuantity += take;
        fo.status =
          fo.lineItems.every((x) => x.remainingQuantity === x.totalQuantity) && !fo.preparedForPickupAt
            ? 'OPEN'
            : 'IN_PROGRESS';
        fo.updatedAt = at;
      }
    }
    const line = order.lineItems.find((x) => x.id === l.lineItemId);
    const variant = line?.variantId == null ? undefined : shop.variants.get(line.variantId);
    const level = variant && store.level(shop, variant.inventoryItemId, f.locationId);
    const left = l.left ?? l.quantity;
    if (variant && level && left > 0) {
      // The units are back in the building, held for the order again: on hand and committed rise.
      level.committed += left;
      level.updatedAt = at;
      touched.add(variant.inventoryItemId);
    }
  }
  for (const [closed, items] of anew) {
    order.fulfillmentOrders.push({
      id: shop.nextId(),
      locationId: closed.locationId,
      status: 'OPEN',
      methodType: closed.methodType,
      preparedForPickupAt: null,
      lineItems: items.map((i) => ({
        id: shop.nextId(),
        lineItemId: i.lineItemId,
        totalQuantity: i.quantity,
        remainingQuantity: i.quantity,
      })),
      createdAt: at,
      updatedAt: at,
    });
  }
  f.status = 'CANCELLED';
  f.updatedAt = at;
  order.updatedAt = at;
  announce(store, shop, order, f);
  for (const itemId of touched) store.emitLevel(shop, itemId, f.locationId);
  return null;
}

/** fulfillmentTrackingInfoUpdate: the fulfillment's tracking is replaced by the input's. */
export function updateFulfillmentTracking(
  store: ShopifyStore,
  shop: Shop,
  order: ShopOrder,
  f: ShopFulfillment,
  input: TrackingInput,
): FulfillmentRefusal | null {
  if (f.status !== 'SUCCESS')
    return { field: ['fulfillmentId'], message: 'Cannot update tracking info for a cancelled fulfillment.' };
  const at = isoNow();
  f.tracking = trackingOf(input);
  f.updatedAt = at;
  order.updatedAt = at;
  announce(store, shop, order, f);
  return null;
}
