import { z } from 'zod';
import { DomainError } from '../../lib/errors.ts';
import type { BcClient } from './client.ts';

/**
 * A pickup order's progress at BigCommerce (issue 15), told the way BigCommerce keeps it: the order's status
 * (`PUT /v2/orders/{id} {"status_id": …}`), 8 Awaiting Pickup when it is ready, 10 Completed when it was picked
 * up. BigCommerce then fires store/order/statusUpdated. Setting a status moves no stock and creates no
 * shipment (`quantity_shipped` stays 0), so our own import of the change finds nothing to consume.
 */
export const PICKUP_STATUS = { ready: 8, picked_up: 10 } as const;

/** Statuses a pickup no longer moves from: Refunded, Cancelled, Declined (and Completed, for "ready"). */
const CLOSED: Record<number, string> = { 4: 'Refunded', 5: 'Cancelled', 6: 'Declined' };

export interface BcPickupHost {
  readonly client: BcClient;
  refused(err: unknown, message: string): Error;
}

const OrderStatus = z.object({ id: z.number(), status_id: z.number() });

export async function updateBcPickup(
  host: BcPickupHost,
  input: { orderExternalId: string; state: 'ready' | 'picked_up' },
): Promise<{ ok: true } | { unsupported: string }> {
  if (!/^\d+$/.test(input.orderExternalId))
    throw new DomainError('NOT_FOUND', 'The order is not in the BigCommerce store');
  const path = `/v2/orders/${input.orderExternalId}`;
  const order = await host.client.call(OrderStatus, 'GET', path).catch((err) => {
    throw host.refused(err, 'BigCommerce could not find the order');
  });
  const target = PICKUP_STATUS[input.state];
  // Reached already (an earlier attempt whose answer was lost, or picked up before "ready" was told): done.
  if (order.status_id === target || order.status_id === PICKUP_STATUS.picked_up) return { ok: true };
  const closed = CLOSED[order.status_id];
  if (closed) return { unsupported: `BigCommerce order ${order.id} is ${closed}: its pickup cannot move there.` };
  await host.client.call(OrderStatus, 'PUT', path, { body: { status_id: target } }).catch((err) => {
    throw host.refused(
      err,
      `BigCommerce did not set order ${order.id} to ${input.state === 'ready' ? 'Awaiting Pickup' : 'Completed'}`,
    );
  });
  return { ok: true };
}
