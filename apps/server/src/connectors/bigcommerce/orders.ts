/**
 * BigCommerce orders: listed by modification time (V2, lines and addresses in the same answer), read one at a
 * time or several by id range, mapped to ProviderOrders, and cancelled (status 5).
 */

import { z } from 'zod';
import { DomainError } from '../../lib/errors.ts';
import { ProviderHttpError } from '../http.ts';
import type { Page, ProviderOrder } from '../types.ts';
import type { BcClient } from './client.ts';
import { toMinor } from './money.ts';
import * as S from './schemas.ts';

export interface BcOrdersHost {
  readonly client: BcClient;
  /** The control panel's orders page (live stores only: the sandbox has no control panel for orders). */
  readonly adminOrdersUrl: string | null;
  refused(err: unknown, message: string): Error;
}

const ORDERS_PAGE = 250;

const orderStatus = {
  fulfillment(statusId: number): string {
    if (statusId === 2 || statusId === 10) return 'fulfilled';
    if (statusId === 3) return 'partial';
    if (statusId === 5 || statusId === 6) return 'cancelled';
    return 'unfulfilled';
  },
  financial(paymentStatus: string | null | undefined, statusId: number): string | null {
    if (statusId === 4) return 'refunded';
    if (statusId === 14) return 'partially_refunded';
    if (statusId === 7) return 'pending';
    if (!paymentStatus) return null;
    return paymentStatus === 'captured' ? 'paid' : paymentStatus.replace(/\s+/g, '_');
  },
};

/**
 * Where the next page of orders starts: from `since` (whole seconds, inclusive), leaving out the orders
 * already returned that were modified in that very second. Keyed on the modification time rather than a
 * page number, so an order modified while we read moves to the end without pushing another one past us.
 */
interface OrderCursor {
  since: string | null;
  seen: number[];
  /** Only past 1 when a whole page was modified in the same second. */
  page: number;
}
const encodeCursor = (c: OrderCursor) => Buffer.from(JSON.stringify(c)).toString('base64url');
function decodeCursor(cursor: string): OrderCursor {
  try {
    const c = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as OrderCursor;
    if (typeof c.page === 'number' && c.page >= 1 && Array.isArray(c.seen)) return c;
  } catch {}
  throw new DomainError('VALIDATION', 'The order cursor is not one this connector made');
}

/** Every BigCommerce store has location 1, its default: where a shipped storefront order takes its units. */
const DEFAULT_LOCATION = '1';

/** BigCommerce V2 dates are RFC 2822; V2 filters take ISO 8601 too. */
const isoDate = (rfc: string) => new Date(rfc).toISOString();

/**
 * Orders modified since `since` (or the cursor's), oldest change first, 250 a page. Each order's lines
 * and shipping address are separate V2 resources. The caller keeps the newest updatedAt as its next `since`.
 */
export async function listOrders(
  host: BcOrdersHost,
  input: { cursor: string | null; since?: string },
): Promise<Page<ProviderOrder>> {
  const cursor: OrderCursor = input.cursor
    ? decodeCursor(input.cursor)
    : { since: input.since ?? null, seen: [], page: 1 };
  const orders = await host.client.call(z.array(S.Order), 'GET', '/v2/orders', {
    query: {
      min_date_modified: cursor.since ?? undefined,
      sort: 'date_modified:asc',
      limit: ORDERS_PAGE,
      page: cursor.page,
      // Lines and addresses in the same answer, instead of two more requests per order.
      include: 'consignments.line_items',
      consignment_structure: 'object',
    },
    empty: [],
  });
  const sinceMs = cursor.since ? Date.parse(cursor.since) : null;
  const fresh = orders.filter((o) => !(cursor.seen.includes(o.id) && Date.parse(o.date_modified) === sinceMs));
  const items: ProviderOrder[] = [];
  for (const order of fresh) items.push(await fullOrder(host, order));
  const last = orders.at(-1);
  let nextCursor: string | null = null;
  if (orders.length === ORDERS_PAGE && last) {
    const lastMs = Date.parse(last.date_modified);
    const sameSecond = orders.filter((o) => Date.parse(o.date_modified) === lastMs).map((o) => o.id);
    nextCursor = encodeCursor(
      lastMs === sinceMs
        ? { since: cursor.since, seen: [...cursor.seen, ...sameSecond], page: cursor.page + 1 }
        : { since: new Date(lastMs).toISOString(), seen: sameSecond, page: 1 },
    );
  }
  return { items, nextCursor };
}

async function fullOrder(host: BcOrdersHost, order: S.Order): Promise<ProviderOrder> {
  const included = S.Consignments.safeParse(order.consignments);
  let lines: z.infer<typeof S.OrderProduct>[];
  let address: z.infer<typeof S.ShippingAddress> | undefined;
  let pickup: S.Consignments['pickups'][number] | undefined;
  if (included.success) {
    const { shipping, pickups } = included.data;
    lines = [...shipping, ...pickups].flatMap((c) => c.line_items);
    address = shipping[0];
    pickup = pickups[0];
  } else {
    // An answer without consignments: read the order's lines and addresses on their own.
    const [products, addresses] = await Promise.all([
      orderProducts(host, order.id),
      host.client.call(z.array(S.ShippingAddress), 'GET', `/v2/orders/${order.id}/shipping_addresses`, { empty: [] }),
    ]);
    lines = products;
    address = addresses[0];
  }
  const billing = order.billing_address;
  const customerName = [billing?.first_name, billing?.last_name].filter(Boolean).join(' ') || null;
  const cancelled = order.status_id === 5 || order.status_id === 6;
  const discountTotal = (toMinor(order.discount_amount) ?? 0) + (toMinor(order.coupon_discount) ?? 0);
  const pickupLocation = pickup?.location ? String(pickup.location.id) : null;
  const mapAddress = (a: z.infer<typeof S.ShippingAddress> | undefined) =>
    a
      ? {
          name: [a.first_name, a.last_name].filter(Boolean).join(' ') || null,
          company: a.company || null,
          address1: a.street_1 ?? null,
          address2: a.street_2 || null,
          city: a.city ?? null,
          province: a.state ?? null,
          zip: a.zip ?? null,
          country: a.country_iso2 ?? a.country ?? null,
          phone: a.phone || null,
        }
      : null;
  return {
    externalId: String(order.id),
    name: String(order.id),
    createdAt: isoDate(order.date_created),
    updatedAt: isoDate(order.date_modified),
    currency: order.currency_code,
    total: toMinor(order.total_inc_tax) ?? 0,
    subtotal: order.subtotal_ex_tax === undefined ? undefined : (toMinor(order.subtotal_ex_tax) ?? 0) - discountTotal,
    shippingTotal: toMinor(order.shipping_cost_ex_tax) ?? undefined,
    discountTotal,
    taxTotal: toMinor(order.total_tax) ?? undefined,
    financialStatus: orderStatus.financial(order.payment_status, order.status_id),
    fulfillmentStatus: orderStatus.fulfillment(order.status_id),
    cancelled,
    locationExternalId: pickupLocation,
    fulfillmentType: pickup ? 'pickup' : 'ship',
    customer:
      customerName || billing?.email
        ? { name: customerName, email: billing?.email || null, phone: billing?.phone || null }
        : null,
    shippingAddress: pickup ? null : (mapAddress(address) as Record<string, string | null> | null),
    billingAddress: mapAddress(billing ? { id: 0, ...billing } : undefined),
    note: order.customer_message || null,
    tags: [],
    adminUrl: host.adminOrdersUrl ? `${host.adminOrdersUrl}/${order.id}` : null,
    lines: lines.map((l) => {
      const shipped = l.quantity_shipped ?? 0;
      return {
        externalId: String(l.id),
        sku: l.sku || null,
        variantExternalId: l.variant_id ? String(l.variant_id) : null,
        title: l.name,
        quantity: l.quantity,
        price: toMinor(l.price_ex_tax ?? l.price_inc_tax) ?? 0,
        discount: (l.applied_discounts ?? []).reduce((s, d) => s + (toMinor(d.amount) ?? 0), 0),
        tax: toMinor(l.total_tax) ?? 0,
        fulfilledQuantity: shipped,
        // A cancelled order's unshipped units went back on hand where they were taken.
        cancelledQuantity: cancelled ? Math.max(0, l.quantity - shipped) : 0,
        refundedQuantity: l.quantity_refunded ?? 0,
        // BigCommerce takes a storefront order's units at the pickup location, else at the default one.
        stockLocationExternalId: pickupLocation ?? DEFAULT_LOCATION,
      };
    }),
  };
}

export async function getOrder(host: BcOrdersHost, externalId: string): Promise<ProviderOrder | null> {
  if (!/^\d+$/.test(externalId)) return null;
  try {
    const order = await host.client.call(S.Order, 'GET', `/v2/orders/${externalId}`, {
      query: { include: 'consignments.line_items', consignment_structure: 'object' },
    });
    return await fullOrder(host, order);
  } catch (err) {
    if (err instanceof ProviderHttpError && err.status === 404) return null;
    throw err;
  }
}

/** The widest id range one batch read asks for: a page of the list holds at most 250 orders. */
export const ORDERS_BY_ID_RANGE = ORDERS_PAGE;

/**
 * Several orders read at once: V2 has no read by a list of ids, but its order list filters by an id range
 * (`min_id`, `max_id`), and a burst's new orders have ids close together. Ids are read in ranges of at most 250
 * (one page, lines and addresses included) that hold at most four orders for each one asked for, so a burst of
 * order webhooks costs a request per range instead of one per order against the store's quota (150 requests a
 * 30 s window on a Standard plan). Orders the list leaves out (BigCommerce lists no Incomplete or deleted
 * orders) are read one at a time, as getOrder does.
 */
export async function getOrders(host: BcOrdersHost, externalIds: string[]): Promise<Map<string, ProviderOrder | null>> {
  const found = new Map<string, ProviderOrder | null>();
  const ids = [...new Set(externalIds.filter((id) => /^\d+$/.test(id)).map(Number))].sort((a, b) => a - b);
  for (const id of externalIds) if (!/^\d+$/.test(id)) found.set(id, null);
  for (let i = 0; i < ids.length; ) {
    const min = ids[i] as number;
    let j = i;
    // A range stays dense: at most four orders listed for each one wanted (others' orders fill the gaps).
    while (
      j + 1 < ids.length &&
      (ids[j + 1] as number) - min < ORDERS_BY_ID_RANGE &&
      (ids[j + 1] as number) - min + 1 <= 4 * (j - i + 2)
    )
      j++;
    const max = ids[j] as number;
    const wanted = new Set(ids.slice(i, j + 1));
    const listed =
      wanted.size === 1
        ? []
        : await host.client.call(z.array(S.Order), 'GET', '/v2/orders', {
            query: {
              min_id: min,
              max_id: max,
              sort: 'id:asc',
              limit: ORDERS_PAGE,
              include: 'consignments.line_items',
              consignment_structure: 'object',
            },
            empty: [],
          });
    for (const order of listed) {
      if (wanted.delete(order.id)) found.set(String(order.id), await fullOrder(host, order));
    }
    for (const id of wanted) found.set(String(id), await getOrder(host, String(id)));
    i = j + 1;
  }
  return found;
}

/**
 * Sets the order to Cancelled (status 5): BigCommerce puts its unshipped units back on hand where it took
 * them. Setting the same status again is harmless, so a retry needs no check.
 */
export async function cancelOrder(
  host: BcOrdersHost,
  input: {
    externalId: string;
    reason?: string | null;
  },
): Promise<{ ok: true } | { unsupported: string }> {
  if (!/^\d+$/.test(input.externalId)) throw new DomainError('NOT_FOUND', 'The order is not in the BigCommerce store');
  await host.client
    .call(z.object({ id: z.number(), status_id: z.number() }), 'PUT', `/v2/orders/${input.externalId}`, {
      body: { status_id: 5 },
    })
    .catch((err) => {
      throw host.refused(err, 'BigCommerce did not cancel the order');
    });
  return { ok: true };
}

export async function orderProducts(host: Pick<BcOrdersHost, 'client'>, orderId: number) {
  const lines: z.infer<typeof S.OrderProduct>[] = [];
  for (let page = 1; ; page++) {
    const batch = await host.client.call(z.array(S.OrderProduct), 'GET', `/v2/orders/${orderId}/products`, {
      query: { page, limit: 250 },
      empty: [],
    });
    lines.push(...batch);
    if (batch.length < 250) return lines;
  }
}
