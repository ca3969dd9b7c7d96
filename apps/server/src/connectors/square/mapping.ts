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
  address?: {
    address_line_1?: string;
    address_line_2?: string;
    locality?: string;
    administrative_district_level_1?: string;
    postal_code?: string;
    country?: string;
  };
}

export interface SquareOrder {
  id: string;
  location_id: string;
  state: 'OPEN' | 'COMPLETED' | 'CANCELED' | 'DRAFT';
  version?: number;
  created_at: string;
  updated_at: string;
  reference_id?: string;
  line_items?: {
    uid: string;
    catalog_object_id?: string;
    quantity?: string;
    name?: string;
    variation_name?: string;
    base_price_money?: Money;
  }[];
  fulfillments?: {
    uid?: string;
    type?: string;
    state?: string;
    shipment_details?: { recipient?: Recipient };
    pickup_details?: { recipient?: Recipient; is_curbside_pickup?: boolean };
  }[];
  tenders?: { id?: string; type?: string; amount_money?: Money }[];
  refunds?: { id: string; status?: string; amount_money?: Money }[];
  total_money?: Money;
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

function financialStatus(o: SquareOrder): string | null {
  if (!o.tenders?.length) return o.state === 'CANCELED' ? 'voided' : 'pending';
  const total = o.total_money?.amount ?? 0;
  const refunded = (o.refunds ?? [])
    .filter((r) => r.status === 'COMPLETED' || r.status === 'PENDING' || r.status === 'APPROVED')
    .reduce((sum, r) => sum + (r.amount_money?.amount ?? 0), 0);
  if (refunded > 0 && refunded >= total) return 'refunded';
  if (refunded > 0) return 'partially_refunded';
  return 'paid';
}

function fulfillmentStatus(o: SquareOrder): string | null {
  const fulfillments = (o.fulfillments ?? []).filter((f) => f.state !== 'CANCELED' && f.state !== 'FAILED');
  // A POS sale has no fulfillment: the buyer left the counter with the goods.
  if (fulfillments.length === 0) return o.state === 'COMPLETED' ? 'fulfilled' : 'unfulfilled';
  const done = fulfillments.filter((f) => f.state === 'COMPLETED').length;
  if (done === fulfillments.length) return 'fulfilled';
  return done > 0 ? 'partial' : 'unfulfilled';
}

/**
 * A Square order. Its name is the receipt number a POS prints, which Square derives from the payment
 * (the first four characters of the payment id); an order without a payment goes by its reference id.
 */
export function mapOrder(o: SquareOrder, skus: Map<string, string | null>): ProviderOrder {
  const paymentId = o.tenders?.find((t) => t.id)?.id;
  const first = o.fulfillments?.[0];
  const recipient = first?.shipment_details?.recipient ?? first?.pickup_details?.recipient;
  const address = first?.shipment_details?.recipient?.address;
  const lines: ProviderOrderLine[] = (o.line_items ?? []).map((l) => ({
    externalId: l.uid,
    sku: l.catalog_object_id ? (skus.get(l.catalog_object_id) ?? null) : null,
    variantExternalId: l.catalog_object_id ?? null,
    title: [l.name, l.variation_name].filter(Boolean).join(' - '),
    quantity: Math.trunc(Number(l.quantity ?? 0)),
    price: l.base_price_money?.amount ?? 0,
  }));
  return {
    externalId: o.id,
    name: paymentId ? paymentId.slice(0, 4) : (o.reference_id ?? o.id.slice(0, 8)),
    createdAt: o.created_at,
    updatedAt: o.updated_at,
    currency: o.total_money?.currency ?? 'USD',
    total: o.total_money?.amount ?? 0,
    financialStatus: financialStatus(o),
    fulfillmentStatus: fulfillmentStatus(o),
    cancelled: o.state === 'CANCELED',
    locationExternalId: o.location_id,
    fulfillmentType:
      first?.type === 'SHIPMENT' ? 'ship' : first?.pickup_details?.is_curbside_pickup ? 'curbside_pickup' : 'pickup',
    customer: recipient ? { name: recipient.display_name ?? null, email: recipient.email_address ?? null } : null,
    shippingAddress: address
      ? {
          name: recipient?.display_name ?? null,
          address1: address.address_line_1 ?? null,
          address2: address.address_line_2 ?? null,
          city: address.locality ?? null,
          province: address.administrative_district_level_1 ?? null,
          zip: address.postal_code ?? null,
          country: address.country ?? null,
        }
      : null,
    lines,
  };
}
