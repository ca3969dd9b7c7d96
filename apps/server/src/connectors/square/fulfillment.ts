/**
 * Square fulfillment: an order shipped through its SHIPMENT fulfillment, and a pickup's progress through its
 * PICKUP fulfillment's states.
 */

import { randomUUID } from 'node:crypto';
import { DomainError } from '../../lib/errors.ts';
import type { FulfillmentInput } from '../types.ts';
import { squareErrorCode } from './client.ts';
import { asDomainError, readOrder, type SquareContext } from './context.ts';

/**
 * A pickup's progress (issue 15): the order's PICKUP fulfillment moves PROPOSED → RESERVED → PREPARED (`ready`)
 * and on to COMPLETED (`picked_up`), one state per UpdateOrder at the order's current version, as the Square
 * Dashboard moves it (keyed by order, version and state, so a retry sends nothing new). A state already reached
 * is a success; an order without a pickup fulfillment, or no longer open, is `unsupported`.
 */
export async function updatePickup(
  ctx: SquareContext,
  input: { orderExternalId: string; state: 'ready' | 'picked_up' },
) {
  const flow = ['PROPOSED', 'RESERVED', 'PREPARED', 'COMPLETED'];
  const target = flow.indexOf(input.state === 'ready' ? 'PREPARED' : 'COMPLETED');
  for (let attempt = 0; attempt < 8; attempt++) {
    const order = await readOrder(ctx, input.orderExternalId);
    const pickup = (order.fulfillments ?? []).find(
      (f) => f.type === 'PICKUP' && f.state !== 'CANCELED' && f.state !== 'FAILED',
    );
    if (!pickup?.uid)
      return { unsupported: `Square order ${order.id} has no pickup fulfillment: update it in Square.` };
    const at = flow.indexOf(String(pickup.state));
    if (at >= target) return { ok: true as const };
    if (order.state !== 'OPEN')
      return { unsupported: `Square order ${order.id} is ${order.state}: its pickup cannot move.` };
    const next = flow[at + 1] as string;
    try {
      await ctx.client.call('PUT', `/v2/orders/${encodeURIComponent(order.id)}`, {
        idempotency_key: `pickup-${order.id}-${order.version}-${next}`.slice(0, 192),
        order: {
          location_id: order.location_id,
          version: order.version,
          fulfillments: [{ uid: pickup.uid, state: next }],
        },
      });
    } catch (err) {
      // Someone changed the order between our read and write: read it again.
      if (squareErrorCode(err) === 'VERSION_MISMATCH') continue;
      return asDomainError(err, `update the pickup of order ${order.id}`);
    }
  }
  throw new DomainError('UPSTREAM_FAILED', `Square kept changing order ${input.orderExternalId}; try again.`);
}

/**
 * Ships through the order's SHIPMENT fulfillment: completes the open one with the tracking details,
 * or adds one. Only open orders can change (a POS sale is handed over at the counter and is complete).
 */
export async function createFulfillment(ctx: SquareContext, input: FulfillmentInput) {
  for (let attempt = 0; ; attempt++) {
    const order = await readOrder(ctx, input.orderExternalId);
    if (order.state !== 'OPEN') {
      throw new DomainError('INVALID_STATE', `Square order ${order.id} is ${order.state} and cannot be fulfilled.`);
    }
    const open = (order.fulfillments ?? []).find(
      (f) => f.type === 'SHIPMENT' && !['COMPLETED', 'CANCELED', 'FAILED'].includes(String(f.state)),
    );
    const lines = order.line_items ?? [];
    const partial =
      input.lines.length > 0 &&
      !lines.every((l) => input.lines.some((x) => x.lineExternalId === l.uid && x.quantity >= Number(l.quantity ?? 0)));
    // A new SHIPMENT fulfillment needs its recipient (Square refuses one without a display_name or
    // customer_id): the one the order's shipment fulfillments already name.
    const recipient = (order.fulfillments ?? []).find((f) => f.type === 'SHIPMENT' && f.shipment_details?.recipient)
      ?.shipment_details?.recipient;
    const shipment = {
      ...(recipient && (partial || !open) ? { recipient } : {}),
      ...(input.tracking?.company ? { carrier: input.tracking.company } : {}),
      ...(input.tracking?.number ? { tracking_number: input.tracking.number } : {}),
      ...(input.tracking?.url ? { tracking_url: input.tracking.url } : {}),
    };
    const uid = open && !partial ? String(open.uid) : randomUUID().replaceAll('-', '').slice(0, 22);
    const fulfillment =
      open && !partial
        ? { uid, state: 'COMPLETED', shipment_details: shipment }
        : {
            uid,
            type: 'SHIPMENT',
            state: 'COMPLETED',
            ...(partial
              ? {
                  line_item_application: 'ENTRY_LIST',
                  entries: input.lines.map((l) => ({
                    line_item_uid: l.lineExternalId,
                    quantity: String(l.quantity),
                  })),
                }
              : { line_item_application: 'ALL' }),
            shipment_details: shipment,
          };
    try {
      await ctx.client.call('PUT', `/v2/orders/${encodeURIComponent(order.id)}`, {
        idempotency_key: randomUUID(),
        order: { location_id: order.location_id, version: order.version, fulfillments: [fulfillment] },
      });
      return { externalId: uid };
    } catch (err) {
      // Someone changed the order between our read and write: read it again once.
      if (squareErrorCode(err) === 'VERSION_MISMATCH' && attempt === 0) continue;
      return asDomainError(err, `fulfill order ${order.id}`);
    }
  }
}
