/**
 * Shopify fulfillment: order lines fulfilled from their fulfillment orders (one fulfillment per location),
 * and a local pickup's progress (ready for pickup, picked up).
 */

import { DomainError } from '../../lib/errors.ts';
import type { FulfillmentInput } from '../types.ts';
import { describe, type ShopifyHost, type UserError } from './graphql.ts';

type FulfillmentHost = ShopifyHost & {
  createFulfillment(input: FulfillmentInput): Promise<{ externalId: string }>;
};

/**
 * Fulfils order lines from the order's fulfillment orders (one per location): the lines' open
 * quantities are taken from fulfillment orders at `locationExternalId` when given, and one
 * fulfillment is created per location involved. Without lines, everything still open is fulfilled.
 */
export async function createFulfillment(
  host: FulfillmentHost,
  input: FulfillmentInput,
): Promise<{ externalId: string }> {
  const data = await host.client.request<{
    order: {
      fulfillments: { id: string }[];
      fulfillmentOrders: {
        nodes: {
          id: string;
          status: string;
          assignedLocation: { location: { id: string } | null };
          lineItems: { nodes: { id: string; remainingQuantity: number; lineItem: { id: string } }[] };
        }[];
      };
    } | null;
  }>(
    `query($id: ID!) { order(id: $id) { fulfillments(first: 250) { id } fulfillmentOrders(first: 5) { nodes { id status assignedLocation { location { id } }
      lineItems(first: 50) { nodes { id remainingQuantity lineItem { id } } } } } } }`,
    { id: input.orderExternalId },
    529,
  );
  if (!data.order) throw new DomainError('NOT_FOUND', 'The order is not in the Shopify shop');
  const open = data.order.fulfillmentOrders.nodes.filter(
    (fo) =>
      (fo.status === 'OPEN' || fo.status === 'IN_PROGRESS') &&
      (!input.locationExternalId || fo.assignedLocation.location?.id === input.locationExternalId),
  );
  // location → fulfillment order → [fulfillment order line, quantity]
  const plan = new Map<string, Map<string, { id: string; quantity: number }[]>>();
  // No lines: everything still open (at the location, when one is given), as Shopify reads an empty list.
  const lines = input.lines.length
    ? input.lines
    : open.flatMap((fo) =>
        fo.lineItems.nodes
          .filter((l) => l.remainingQuantity > 0)
          .map((l) => ({ lineExternalId: l.lineItem.id, quantity: l.remainingQuantity })),
      );
  for (const line of lines) {
    let left = line.quantity;
    for (const fo of open) {
      for (const fl of fo.lineItems.nodes) {
        if (left === 0 || fl.lineItem.id !== line.lineExternalId || fl.remainingQuantity === 0) continue;
        const take = Math.min(left, fl.remainingQuantity);
        fl.remainingQuantity -= take;
        left -= take;
        const location = fo.assignedLocation.location?.id ?? '';
        const byFo = plan.get(location) ?? new Map<string, { id: string; quantity: number }[]>();
        byFo.set(fo.id, [...(byFo.get(fo.id) ?? []), { id: fl.id, quantity: take }]);
        plan.set(location, byFo);
      }
    }
    if (left > 0)
      throw new DomainError(
        'INVALID_STATE',
        `Shopify has ${line.quantity - left} of ${line.quantity} left to fulfil on that line`,
      );
  }
  if (plan.size === 0) throw new DomainError('VALIDATION', 'Nothing to fulfil');
  let firstId: string | null = null;
  const known = new Set(data.order.fulfillments.map((f) => f.id));
  type Created = { fulfillmentCreate: { fulfillment: { id: string } | null; userErrors: UserError[] } };
  // After an unanswered call: a fulfillment that was not there before is the one we made.
  const recover = async (): Promise<Created | null> => {
    const now = await host.client.request<{ order: { fulfillments: { id: string }[] } | null }>(
      'query($id: ID!) { order(id: $id) { fulfillments(first: 250) { id } } }',
      { id: input.orderExternalId },
      2,
    );
    const made = now.order?.fulfillments.find((f) => !known.has(f.id));
    return made ? { fulfillmentCreate: { fulfillment: made, userErrors: [] } } : null;
  };
  for (const byFo of plan.values()) {
    const res = await host.client.mutateOnce<Created>(
      `mutation($fulfillment: FulfillmentInput!) { fulfillmentCreate(fulfillment: $fulfillment) { fulfillment { id status } userErrors { field message } } }`,
      {
        fulfillment: {
          notifyCustomer: input.notifyCustomer ?? false,
          trackingInfo: input.tracking
            ? { company: input.tracking.company, number: input.tracking.number, url: input.tracking.url }
            : undefined,
          lineItemsByFulfillmentOrder: [...byFo].map(([fulfillmentOrderId, lines]) => ({
            fulfillmentOrderId,
            fulfillmentOrderLineItems: lines,
          })),
        },
      },
      recover,
    );
    const f = res.fulfillmentCreate.fulfillment;
    if (!f)
      throw new DomainError(
        'INVALID_STATE',
        `Shopify refused the fulfillment: ${describe(res.fulfillmentCreate.userErrors)}`,
      );
    known.add(f.id);
    firstId ??= f.id;
  }
  return { externalId: firstId as string };
}

/**
 * A local pickup's progress (issue 15): `ready` marks the order's open pickup fulfillment orders prepared for
 * pickup (fulfillmentOrderLineItemsPreparedForPickup; Shopify tells the customer, the fulfillment order is in
 * progress); `picked_up` fulfils what they still hold (fulfillmentCreate, no tracking). A state already reached
 * is a success; an order without a pickup fulfillment order is `unsupported`.
 */
export async function updatePickup(
  host: FulfillmentHost,
  input: {
    orderExternalId: string;
    state: 'ready' | 'picked_up';
  },
): Promise<{ ok: true } | { unsupported: string }> {
  const data = await host.client.request<{
    order: {
      fulfillmentOrders: {
        nodes: {
          id: string;
          status: string;
          deliveryMethod: { methodType: string } | null;
          lineItems: { nodes: { remainingQuantity: number; lineItem: { id: string } }[] };
        }[];
      };
    } | null;
  }>(
    `query($id: ID!) { order(id: $id) { fulfillmentOrders(first: 5) { nodes { id status deliveryMethod { methodType }
      lineItems(first: 50) { nodes { remainingQuantity lineItem { id } } } } } } }`,
    { id: input.orderExternalId },
    265,
  );
  if (!data.order) throw new DomainError('NOT_FOUND', 'The order is not in the Shopify shop');
  const pickups = data.order.fulfillmentOrders.nodes.filter((fo) => fo.deliveryMethod?.methodType === 'PICK_UP');
  if (pickups.length === 0) return { unsupported: 'This Shopify order has no local pickup: mark it at Shopify.' };
  const open = pickups.filter(
    (fo) =>
      (fo.status === 'OPEN' || fo.status === 'IN_PROGRESS') && fo.lineItems.nodes.some((l) => l.remainingQuantity > 0),
  );
  if (open.length === 0) return { ok: true };
  if (input.state === 'ready') {
    const waiting = open.filter((fo) => fo.status === 'OPEN');
    if (waiting.length === 0) return { ok: true };
    const res = await host.client.request<{
      fulfillmentOrderLineItemsPreparedForPickup: { userErrors: UserError[] };
    }>(
      `mutation($input: FulfillmentOrderLineItemsPreparedForPickupInput!) { fulfillmentOrderLineItemsPreparedForPickup(input: $input) { userErrors { field message } } }`,
      { input: { lineItemsByFulfillmentOrder: waiting.map((fo) => ({ fulfillmentOrderId: fo.id })) } },
      10,
    );
    const errors = res.fulfillmentOrderLineItemsPreparedForPickup.userErrors;
    if (errors.length > 0)
      throw new DomainError('INVALID_STATE', `Shopify refused ready for pickup: ${describe(errors)}`);
    return { ok: true };
  }
  await host.createFulfillment({
    orderExternalId: input.orderExternalId,
    lines: open.flatMap((fo) =>
      fo.lineItems.nodes
        .filter((l) => l.remainingQuantity > 0)
        .map((l) => ({ lineExternalId: l.lineItem.id, quantity: l.remainingQuantity })),
    ),
    notifyCustomer: false,
  });
  return { ok: true };
}
