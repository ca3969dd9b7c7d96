import type { ProviderLocation, ProviderOrder, ProviderOrderLine, ProviderProduct } from '../types.ts';

/** The parts of Square's objects we read. */
export interface CatalogObject {
  type: string;
  id: string;
  version?: number;
  updated_at?: string;
  is_deleted?: boolean;
  item_data?: {
    name?: string;
    description?: string;
    is_archived?: boolean;
    categories?: { id: string }[];
    reporting_category?: { id: string };
    category_id?: string;
    variations?: CatalogObject[];
    [key: string]: unknown;
  };
  item_variation_data?: Record<string, unknown>;
  category_data?: Record<string, unknown>;
}

export interface SquareLocation {
  id: string;
  name: string;
  status?: 'ACTIVE' | 'INACTIVE';
  timezone?: string;
  address?: {
    address_line_1?: string;
    locality?: string;
    administrative_district_level_1?: string;
    postal_code?: string;
    country?: string;
  };
}

interface Money {
  amount?: number;
  currency?: string;
}

interface Recipient {
  display_name?: string;
  email_address?: string;
  phone_number?: string;
  address?: {
    address_line_1?: string;
    address_line_2?: string;
    locality?: string;
    administrative_district_level_1?: string;
    postal_code?: string;
    country?: string;
  };
}

export interface SquareFulfillment {
  uid?: string;
  type?: string;
  state?: string;
  line_item_application?: 'ALL' | 'ENTRY_LIST';
  entries?: { line_item_uid?: string; quantity?: string }[];
  shipment_details?: { recipient?: Recipient; shipping_note?: string; cancel_reason?: string; canceled_at?: string };
  pickup_details?: {
    recipient?: Recipient;
    is_curbside_pickup?: boolean;
    note?: string;
    cancel_reason?: string;
    canceled_at?: string;
  };
}

export interface SquareOrder {
  id: string;
  location_id: string;
  state: 'OPEN' | 'COMPLETED' | 'CANCELED' | 'DRAFT';
  version?: number;
  created_at: string;
  updated_at: string;
  closed_at?: string;
  reference_id?: string;
  source?: { name?: string };
  line_items?: {
    uid: string;
    catalog_object_id?: string;
    quantity?: string;
    name?: string;
    variation_name?: string;
    note?: string;
    base_price_money?: Money;
    gross_sales_money?: Money;
    total_discount_money?: Money;
    total_tax_money?: Money;
  }[];
  fulfillments?: SquareFulfillment[];
  tenders?: { id?: string; type?: string; amount_money?: Money; card_details?: { status?: string } }[];
  refunds?: { id: string; status?: string; amount_money?: Money }[];
  total_money?: Money;
  total_tax_money?: Money;
  total_discount_money?: Money;
  total_service_charge_money?: Money;
  net_amount_due_money?: Money;
}

export function mapLocation(l: SquareLocation): ProviderLocation {
  return {
    externalId: l.id,
    name: l.name,
    active: l.status !== 'INACTIVE',
    address: l.address
      ? {
          address1: l.address.address_line_1,
          city: l.address.locality,
          province: l.address.administrative_district_level_1,
          zip: l.address.postal_code,
          country: l.address.country,
        }
      : undefined,
  };
}

export function mapProduct(item: CatalogObject, categories: Map<string, string>): ProviderProduct {
  const data = item.item_data ?? {};
  const categoryId = data.reporting_category?.id ?? data.categories?.[0]?.id ?? data.category_id;
  return {
    externalId: item.id,
    title: data.name ?? '',
    brand: null,
    productType: (categoryId && categories.get(categoryId)) || null,
    status: item.is_deleted || data.is_archived ? 'archived' : 'active',
    images: [],
    variants: (data.variations ?? [])
      .filter((v) => !v.is_deleted)
      .map((v) => {
        const vd = v.item_variation_data ?? {};
        const price = vd.price_money as Money | undefined;
        return {
          externalId: v.id,
          inventoryItemId: v.id,
          sku: (vd.sku as string | undefined) || null,
          barcode: (vd.upc as string | undefined) || null,
          title: (vd.name as string | undefined) ?? '',
          price: price?.amount ?? 0,
          compareAtPrice: null,
        };
      }),
    updatedAt: item.updated_at ?? null,
  };
}

/** Tenders that took money (a voided or failed card took none). */
const paidTenders = (o: SquareOrder) =>
  (o.tenders ?? []).filter((t) => t.type !== 'NO_SALE' && !['VOIDED', 'FAILED'].includes(t.card_details?.status ?? ''));

function financialStatus(o: SquareOrder): string | null {
  if (paidTenders(o).length === 0) return o.state === 'CANCELED' ? 'voided' : 'pending';
  const total = o.total_money?.amount ?? 0;
  const refunded = (o.refunds ?? [])
    .filter((r) => r.status === 'COMPLETED' || r.status === 'PENDING' || r.status === 'APPROVED')
    .reduce((sum, r) => sum + (r.amount_money?.amount ?? 0), 0);
  if (refunded > 0 && refunded >= total) return 'refunded';
  if (refunded > 0) return 'partially_refunded';
  if ((o.net_amount_due_money?.amount ?? 0) > 0) return 'partially_paid';
  return 'paid';
}

const live = (f: SquareFulfillment) => f.state !== 'CANCELED' && f.state !== 'FAILED';

function fulfillmentStatus(o: SquareOrder): string | null {
  const fulfillments = (o.fulfillments ?? []).filter(live);
  // A POS sale has no fulfillment: the buyer left the counter with the goods.
  if (fulfillments.length === 0) return o.state === 'COMPLETED' ? 'fulfilled' : 'unfulfilled';
  const done = fulfillments.filter((f) => f.state === 'COMPLETED').length;
  if (done === fulfillments.length) return 'fulfilled';
  return done > 0 ? 'partial' : 'unfulfilled';
}

/** Units of a line its COMPLETED fulfillments cover (all of it for a completed order without fulfillments). */
function fulfilledUnits(o: SquareOrder, uid: string, quantity: number): number {
  const fulfillments = (o.fulfillments ?? []).filter(live);
  if (fulfillments.length === 0) return o.state === 'COMPLETED' ? quantity : 0;
  let units = 0;
  for (const f of fulfillments) {
    if (f.state !== 'COMPLETED') continue;
    if (f.line_item_application === 'ENTRY_LIST') {
      for (const e of f.entries ?? []) if (e.line_item_uid === uid) units += Math.trunc(Number(e.quantity ?? 0));
    } else return quantity;
  }
  return Math.min(units, quantity);
}

/**
 * A Square order, whole. Its name is the receipt number Square prints, the payment's `receipt_number`
 * (the first four characters of the payment id, so read from the tender without another call); an unpaid
 * order goes by its reference id, else the start of its id.
 *
 * Stock: Square's automatic inventory tracking moves a catalog line IN_STOCK → SOLD at the order's
 * location once the order is paid (a POS sale at once; a Square Online order at checkout, or at pickup
 * when paid there), so a paid or completed order's lines name that location and an unpaid one's name
 * none. A cancelled order keeps it: the seller's cancel in Square puts the units back (restock), and the
 * API cannot cancel a paid order at all. An open order whose every fulfillment was cancelled is cancelled.
 */
export function mapOrder(o: SquareOrder, skus: Map<string, string | null>): ProviderOrder {
  const paymentId = paidTenders(o).find((t) => t.id)?.id;
  const fulfillments = o.fulfillments ?? [];
  const first = fulfillments.find(live) ?? fulfillments[0];
  const recipient = first?.shipment_details?.recipient ?? first?.pickup_details?.recipient;
  const address = first?.shipment_details?.recipient?.address;
  const cancelled =
    o.state === 'CANCELED' || (fulfillments.length > 0 && fulfillments.every((f) => f.state === 'CANCELED'));
  const stockMoved = o.state === 'COMPLETED' || paymentId !== undefined;
  const lines: ProviderOrderLine[] = (o.line_items ?? []).map((l) => {
    const quantity = Math.trunc(Number(l.quantity ?? 0));
    const fulfilled = fulfilledUnits(o, l.uid, quantity);
    return {
      externalId: l.uid,
      sku: l.catalog_object_id ? (skus.get(l.catalog_object_id) ?? null) : null,
      variantExternalId: l.catalog_object_id ?? null,
      title: [l.name, l.variation_name].filter(Boolean).join(' - '),
      quantity,
      price: l.base_price_money?.amount ?? 0,
      discount: l.total_discount_money?.amount ?? 0,
      tax: l.total_tax_money?.amount ?? 0,
      fulfilledQuantity: fulfilled,
      cancelledQuantity: cancelled ? quantity - fulfilled : 0,
      stockLocationExternalId: stockMoved && l.catalog_object_id ? o.location_id : null,
    };
  });
  const subtotal = (o.line_items ?? []).reduce(
    (sum, l) => sum + (l.gross_sales_money?.amount ?? (l.base_price_money?.amount ?? 0) * Number(l.quantity ?? 0)),
    0,
  );
  const cancelledFulfillment = fulfillments.find((f) => f.state === 'CANCELED');
  const cancelDetails = cancelledFulfillment?.pickup_details ?? cancelledFulfillment?.shipment_details;
  return {
    externalId: o.id,
    name: paymentId ? paymentId.slice(0, 4) : (o.reference_id ?? o.id.slice(0, 8)),
    createdAt: o.created_at,
    updatedAt: o.updated_at,
    currency: o.total_money?.currency ?? 'USD',
    total: o.total_money?.amount ?? 0,
    subtotal,
    shippingTotal: o.total_service_charge_money?.amount ?? 0,
    discountTotal: o.total_discount_money?.amount ?? 0,
    taxTotal: o.total_tax_money?.amount ?? 0,
    financialStatus: financialStatus(o),
    fulfillmentStatus: fulfillmentStatus(o),
    cancelled,
    cancelledAt: cancelled ? (o.closed_at ?? cancelDetails?.canceled_at ?? o.updated_at) : null,
    cancelReason: cancelled ? (cancelDetails?.cancel_reason ?? null) : null,
    completedAtStore: o.state === 'COMPLETED' && !fulfillments.some((f) => f.type === 'SHIPMENT' && live(f)),
    locationExternalId: o.location_id,
    fulfillmentType:
      first?.type === 'SHIPMENT' ? 'ship' : first?.pickup_details?.is_curbside_pickup ? 'curbside_pickup' : 'pickup',
    customer: recipient
      ? {
          name: recipient.display_name ?? null,
          email: recipient.email_address ?? null,
          phone: recipient.phone_number ?? null,
        }
      : null,
    shippingAddress: address
      ? {
          name: recipient?.display_name ?? null,
          address1: address.address_line_1 ?? null,
          address2: address.address_line_2 ?? null,
          city: address.locality ?? null,
          province: address.administrative_district_level_1 ?? null,
          zip: address.postal_code ?? null,
          country: address.country ?? null,
          phone: recipient?.phone_number ?? null,
        }
      : null,
    note: first?.pickup_details?.note ?? first?.shipment_details?.shipping_note ?? null,
    lines,
  };
}

/** Square's order events (order.created, order.updated, order.fulfillment.updated) name the order only. */
export const SQUARE_ORDER_TOPICS = ['order.created', 'order.updated', 'order.fulfillment.updated'] as const;

export function orderIdOfEvent(topic: string, payload: unknown): string | null {
  if (!(SQUARE_ORDER_TOPICS as readonly string[]).includes(topic)) return null;
  const data = (payload as { data?: { id?: unknown; type?: unknown; object?: Record<string, unknown> } } | null)?.data;
  const inner =
    typeof data?.type === 'string' ? (data.object?.[data.type] as { order_id?: unknown } | undefined) : undefined;
  const id = inner?.order_id ?? data?.id;
  return typeof id === 'string' && id !== '' ? id : null;
}
