/**
 * BigCommerce fulfillment: a V2 shipment for order lines, made once (BigCommerce has no idempotency key: after
 * a failure that may have gone through, the shipment is looked for first). A pickup's progress is pickup.ts.
 */

import { z } from 'zod';
import { DomainError } from '../../lib/errors.ts';
import type { FulfillmentInput } from '../types.ts';
import type { BcClient } from './client.ts';
import { orderProducts } from './orders.ts';
import * as S from './schemas.ts';

export interface BcFulfillmentHost {
  readonly client: BcClient;
  createOnce<T>(create: () => Promise<T>, find: () => Promise<T | null>, refusal: string): Promise<T>;
  refused(err: unknown, message: string): Error;
}

/** BigCommerce's own shipping_provider values; anything else goes in tracking_carrier. */
const SHIPPING_PROVIDERS = new Set([
  'auspost',
  'canadapost',
  'endicia',
  'usps',
  'fedex',
  'royalmail',
  'ups',
  'upsready',
]);

/**
 * A V2 shipment for the lines given. BigCommerce has no idempotency key, so after a failure that may
 * have gone through (a timeout, a 5xx) we look for the shipment before trying again.
 */
export async function createFulfillment(
  host: BcFulfillmentHost,
  input: FulfillmentInput,
): Promise<{ externalId: string }> {
  const orderId = Number(input.orderExternalId);
  const lines = await orderProducts(host, orderId).catch((err) => {
    throw host.refused(err, 'BigCommerce could not find the order');
  });
  const items = input.lines.map((l) => {
    const line = lines.find((p) => String(p.id) === l.lineExternalId);
    if (!line) throw new DomainError('VALIDATION', `Line ${l.lineExternalId} is not part of order ${orderId}`);
    return { order_product_id: line.id, quantity: l.quantity, addressId: line.order_address_id };
  });
  const first = items[0];
  if (!first) throw new DomainError('VALIDATION', 'A fulfillment needs at least one line');
  const company = input.tracking?.company?.trim().toLowerCase().replace(/\s+/g, '-') ?? '';
  const body = {
    order_address_id: first.addressId,
    tracking_number: input.tracking?.number ?? '',
    tracking_link: input.tracking?.url ?? '',
    ...(company
      ? SHIPPING_PROVIDERS.has(company)
        ? { shipping_provider: company }
        : { tracking_carrier: company }
      : {}),
    items: items.map(({ order_product_id, quantity }) => ({ order_product_id, quantity })),
  };
  const before = await shipments(host, orderId);
  const shipment = await host.createOnce(
    () => host.client.call(S.Shipment, 'POST', `/v2/orders/${orderId}/shipments`, { body, maxRetries: 0 }),
    async () =>
      (await shipments(host, orderId)).find(
        (s) =>
          !before.some((b) => b.id === s.id) &&
          (s.tracking_number ?? '') === body.tracking_number &&
          sameItems(s.items, body.items),
      ) ?? null,
    'BigCommerce refused the shipment',
  );
  return { externalId: String(shipment.id) };
}

function shipments(host: BcFulfillmentHost, orderId: number) {
  return host.client.call(z.array(S.Shipment), 'GET', `/v2/orders/${orderId}/shipments`, {
    query: { limit: 250 },
    empty: [],
  });
}

function sameItems(
  a: { order_product_id: number; quantity: number }[],
  b: { order_product_id: number; quantity: number }[],
) {
  const key = (items: typeof a) =>
    items
      .map((i) => `${i.order_product_id}x${i.quantity}`)
      .sort()
      .join(',');
  return key(a) === key(b);
}
