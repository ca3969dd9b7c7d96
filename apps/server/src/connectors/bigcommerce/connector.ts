import { z } from 'zod';
import { DomainError } from '../../lib/errors.ts';
import { inLane } from '../../lib/lanes.ts';
import { ProviderHttpError } from '../http.ts';
import type {
  Connector,
  FulfillmentInput,
  InventoryLevel,
  InventorySet,
  InventorySetResult,
  Page,
  ProductInput,
  ProviderOrder,
  ProviderProduct,
  ProviderReturn,
  RefundInput,
  RefundResult,
} from '../types.ts';
import { type BcClient, knowsWhatIsLeft, providerMessage } from './client.ts';
import { updateBcPickup } from './pickup.ts';
import { listRefunds, readRefund, writeRefund } from './returns.ts';
import * as S from './schemas.ts';

/** The most items one inventory adjustment takes (BigCommerce's documented cap). */
export const MAX_ADJUSTMENT_ITEMS = 2000;
const PRODUCT_PAGE = 250;
const ITEMS_PAGE = 1000;
const ORDERS_PAGE = 250;

/**
 * The events the sync engine processes. Stock changes come through the location-aware event only: the
 * variant-level store/sku/inventory/updated names no location and would double the deliveries.
 */
export const WEBHOOK_SCOPES = [
  'store/order/created',
  'store/order/updated',
  'store/order/statusUpdated',
  'store/order/refund/created',
  'store/shipment/created',
  'store/product/created',
  'store/product/updated',
  'store/product/deleted',
  'store/sku/created',
  'store/sku/updated',
  'store/sku/deleted',
  'store/channel/*/inventory/product/stock_changed',
  'store/app/uninstalled',
];

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

/** A decimal (V3 number or V2 "12.3400") → integer minor units. */
export function toMinor(value: number | string | null | undefined): number | null {
  if (value === null || value === undefined || value === '') return null;
  const n = typeof value === 'number' ? value : Number(value);
  return Number.isFinite(n) ? Math.round(n * 100) : null;
}
const toDecimal = (minor: number) => minor / 100;
const positive = (minor: number | null) => (minor !== null && minor > 0 ? minor : null);

function mapProduct(p: S.Product, brands: Map<number, string>): ProviderProduct {
  return {
    externalId: String(p.id),
    title: p.name,
    brand: p.brand_id ? (brands.get(p.brand_id) ?? null) : null,
    productType: null,
    status: p.availability === 'disabled' ? 'archived' : p.is_visible ? 'active' : 'draft',
    images: (p.images ?? []).map((i) => i.url_zoom ?? i.url_standard ?? '').filter(Boolean),
    updatedAt: p.date_modified ? new Date(p.date_modified).toISOString() : null,
    variants: (p.variants ?? []).map((v) => {
      const sale = positive(toMinor(v.sale_price));
      const price =
        sale ??
        toMinor(v.price) ??
        toMinor(v.calculated_price) ??
        positive(toMinor(p.sale_price)) ??
        toMinor(p.price) ??
        0;
      const regular = toMinor(v.price) ?? toMinor(p.price);
      return {
        externalId: String(v.id),
        // BigCommerce keeps stock per variant (the base variant for a product without options).
        inventoryItemId: String(v.id),
        sku: v.sku || null,
        barcode: v.upc || v.gtin || null,
        title: (v.option_values ?? []).map((o) => o.label).join(' / ') || p.name,
        price,
        compareAtPrice:
          sale !== null && regular !== null && regular > sale ? regular : positive(toMinor(v.retail_price)),
      };
    }),
  };
}

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

/** Is this failure one where BigCommerce may have done the work anyway (so a blind retry could repeat it)? */
const ambiguous = (err: unknown) => err instanceof ProviderHttpError && (err.status === null || err.status >= 500);

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

export class BigCommerceConnector implements Connector {
  readonly type = 'bigcommerce' as const;
  readonly maxInventoryBatch = MAX_ADJUSTMENT_ITEMS;
  readonly client: BcClient;
  private brands: Promise<Map<number, string>> | null = null;

  /** The control panel's orders page (live stores only: the sandbox has no control panel for orders). */
  private readonly adminOrdersUrl: string | null;

  constructor(client: BcClient, adminOrdersUrl: string | null = null) {
    this.client = client;
    this.adminOrdersUrl = adminOrdersUrl;
  }

  async getShop() {
    const store = await this.client.call(S.StoreInfo, 'GET', '/v2/store');
    return {
      externalId: this.client.storeHash,
      name: store.name,
      currency: store.currency,
      timezone: store.timezone?.name ?? null,
    };
  }

  async listLocations() {
    const locations: z.infer<typeof S.Location>[] = [];
    for (let page = 1; ; page++) {
      const res = await this.client.call(S.list(S.Location), 'GET', '/v3/inventory/locations', {
        query: { page, limit: 250 },
      });
      locations.push(...res.data);
      if (!res.meta?.pagination || page >= res.meta.pagination.total_pages) break;
    }
    return locations.map((l) => ({
      externalId: String(l.id),
      name: l.label,
      active: l.enabled,
      // A physical location ships; one shown on the storefront serves pickup (BigCommerce's BOPIS).
      ships: l.type_id === undefined ? undefined : l.type_id === 'PHYSICAL',
      pickup: l.storefront_visibility,
      address: {
        address1: l.address?.address1,
        city: l.address?.city,
        province: l.address?.state,
        zip: l.address?.zip,
        country: l.address?.country_code,
      },
    }));
  }

  private brandNames(): Promise<Map<number, string>> {
    this.brands ??= (async () => {
      const names = new Map<number, string>();
      for (let page = 1; ; page++) {
        const res = await this.client.call(S.list(S.Brand), 'GET', '/v3/catalog/brands', {
          query: { page, limit: 250 },
        });
        for (const b of res.data) names.set(b.id, b.name);
        if (!res.meta?.pagination || page >= res.meta.pagination.total_pages) break;
      }
      return names;
    })().catch((err) => {
      this.brands = null;
      throw err;
    });
    return this.brands;
  }

  async listProducts(cursor: string | null): Promise<Page<ProviderProduct>> {
    const page = cursor ? Number(cursor) : 1;
    if (!Number.isInteger(page) || page < 1) throw new DomainError('VALIDATION', 'The product cursor is not a page');
    const [brands, res] = await Promise.all([
      this.brandNames(),
      this.client.call(S.list(S.Product), 'GET', '/v3/catalog/products', {
        query: { include: 'variants,images', limit: PRODUCT_PAGE, page },
      }),
    ]);
    const pages = res.meta?.pagination?.total_pages ?? page;
    return { items: res.data.map((p) => mapProduct(p, brands)), nextCursor: page < pages ? String(page + 1) : null };
  }

  async getInventoryLevels(input: { cursor: string | null; locationExternalIds?: string[] }) {
    const page = input.cursor ? Number(input.cursor) : 1;
    if (!Number.isInteger(page) || page < 1) throw new DomainError('VALIDATION', 'The inventory cursor is not a page');
    const res = await this.client.call(S.list(S.InventoryItem), 'GET', '/v3/inventory/items', {
      query: {
        page,
        limit: ITEMS_PAGE,
        'location_id:in': input.locationExternalIds?.length ? input.locationExternalIds.join(',') : undefined,
      },
    });
    const items = res.data.flatMap((item) =>
      item.identity.variant_id === null
        ? []
        : item.locations.map((l) => ({
            inventoryItemId: String(item.identity.variant_id),
            locationExternalId: String(l.location_id),
            available: l.available_to_sell,
          })),
    );
    const pages = res.meta?.pagination?.total_pages ?? page;
    return { items, nextCursor: page < pages ? String(page + 1) : null };
  }

  readBudget(): Promise<void> {
    const limiter = this.client.limiter;
    // Before any answer, what is left is a guess of one request: nothing to hold a read back for.
    if (!knowsWhatIsLeft(limiter)) return Promise.resolve();
    return inLane('background', () => limiter.whenAvailable(Math.floor(limiter.capacity / 3)));
  }

  /** Levels of given variants at given locations, 250 variants per request. */
  async readInventory(pairs: { inventoryItemId: string; locationExternalId: string }[]): Promise<InventoryLevel[]> {
    const wanted = new Set(pairs.map((p) => `${p.inventoryItemId}|${p.locationExternalId}`));
    const variantIds = [...new Set(pairs.map((p) => p.inventoryItemId))].filter((id) => /^\d+$/.test(id));
    const locationIds = [...new Set(pairs.map((p) => p.locationExternalId))].filter((id) => /^\d+$/.test(id));
    const out: InventoryLevel[] = [];
    for (let i = 0; i < variantIds.length; i += 250) {
      let page = 1;
      for (;;) {
        const res = await this.client.call(S.list(S.InventoryItem), 'GET', '/v3/inventory/items', {
          query: {
            page,
            limit: ITEMS_PAGE,
            'variant_id:in': variantIds.slice(i, i + 250).join(','),
            'location_id:in': locationIds.join(','),
          },
        });
        for (const item of res.data) {
          if (item.identity.variant_id === null) continue;
          for (const l of item.locations) {
            const level = {
              inventoryItemId: String(item.identity.variant_id),
              locationExternalId: String(l.location_id),
              available: l.available_to_sell,
            };
            if (wanted.has(`${level.inventoryItemId}|${level.locationExternalId}`)) out.push(level);
          }
        }
        if (page >= (res.meta?.pagination?.total_pages ?? page)) break;
        page += 1;
      }
    }
    return out;
  }

  /**
   * Absolute adjustments in batches of 2000. BigCommerce has no compare-and-set, so compareQuantity is
   * not checked; an absolute set is idempotent, which makes the transport's retries safe. A batch is all
   * or nothing: a row BigCommerce refuses (named in the 422) is set aside and the rest sent again.
   */
  async setInventory(changes: InventorySet[]): Promise<InventorySetResult> {
    const result: InventorySetResult = { applied: [], failed: [] };
    const valid: InventorySet[] = [];
    for (const change of changes) {
      const variantId = Number(change.inventoryItemId);
      const locationId = Number(change.locationExternalId);
      if (!Number.isInteger(variantId) || !Number.isInteger(locationId)) {
        result.failed.push({ change, reason: 'Not a BigCommerce variant or location id', mismatch: false });
      } else if (!Number.isInteger(change.quantity) || change.quantity < 0) {
        result.failed.push({ change, reason: 'BigCommerce cannot hold a negative quantity', mismatch: false });
      } else {
        valid.push(change);
      }
    }
    for (let i = 0; i < valid.length; i += MAX_ADJUSTMENT_ITEMS) {
      let batch = valid.slice(i, i + MAX_ADJUSTMENT_ITEMS);
      while (batch.length > 0) {
        try {
          await this.client.send('PUT', '/v3/inventory/adjustments/absolute', {
            body: {
              reason: 'Switchyard inventory sync',
              items: batch.map((c) => ({
                location_id: Number(c.locationExternalId),
                variant_id: Number(c.inventoryItemId),
                quantity: c.quantity,
              })),
            },
          });
          result.applied.push(...batch);
          break;
        } catch (err) {
          const status = err instanceof ProviderHttpError ? err.status : null;
          const reason = providerMessage(err);
          const culprit = status === 422 ? culpritOf(reason, batch) : [];
          // A refusal (4xx) did not apply; a 5xx or a lost answer may have.
          const uncertain = status === null || status >= 500;
          if (culprit.length === 0 || culprit.length === batch.length) {
            for (const change of batch) result.failed.push({ change, reason, mismatch: false, uncertain });
            break;
          }
          for (const change of culprit) result.failed.push({ change, reason, mismatch: false });
          batch = batch.filter((c) => !culprit.includes(c));
        }
      }
    }
    return result;
  }

  async createProduct(input: ProductInput): Promise<ProviderProduct> {
    const first = input.variants[0];
    if (!first) throw new DomainError('VALIDATION', 'A product needs at least one variant');
    const body = {
      name: input.title,
      type: 'physical',
      weight: 0,
      price: toDecimal(first.price),
      description: input.description ?? '',
      ...(input.brand ? { brand_name: input.brand } : {}),
      inventory_tracking: 'variant',
      is_visible: true,
      variants: input.variants.map((v) => ({
        sku: v.sku,
        price: toDecimal(v.price),
        retail_price: v.compareAtPrice ? toDecimal(v.compareAtPrice) : 0,
        upc: v.barcode ?? '',
        option_values: [{ option_display_name: 'Option', label: v.title || v.sku }],
      })),
    };
    const productId = await this.createOnce(
      async () =>
        (await this.client.call(S.one(S.Product), 'POST', '/v3/catalog/products', { body, maxRetries: 0 })).data.id,
      async () => (await this.variantBySku(first.sku))?.product_id ?? null,
      'BigCommerce refused the product',
    );
    // A brand named for the first time was created with the product.
    if (input.brand) this.brands = null;
    return this.getProduct(productId);
  }

  private async variantBySku(sku: string) {
    const res = await this.client.call(S.list(S.Variant), 'GET', '/v3/catalog/variants', { query: { sku } });
    return res.data.find((v) => v.sku === sku) ?? null;
  }

  async updateProduct(externalId: string, input: Partial<ProductInput>): Promise<ProviderProduct> {
    const current = await this.client.call(S.one(S.Product), 'GET', `/v3/catalog/products/${Number(externalId)}`, {
      query: { include: 'variants' },
    });
    const bySku = new Map((current.data.variants ?? []).map((v) => [v.sku, v]));
    const updates: Record<string, unknown>[] = [];
    const additions: NonNullable<ProductInput['variants']> = [];
    for (const v of input.variants ?? []) {
      const existing = bySku.get(v.sku);
      if (!existing) {
        additions.push(v);
        continue;
      }
      updates.push({
        id: existing.id,
        price: toDecimal(v.price),
        ...(v.compareAtPrice !== undefined ? { retail_price: v.compareAtPrice ? toDecimal(v.compareAtPrice) : 0 } : {}),
        ...(v.barcode !== undefined ? { upc: v.barcode ?? '' } : {}),
      });
    }
    try {
      await this.client.send('PUT', `/v3/catalog/products/${current.data.id}`, {
        body: {
          ...(input.title !== undefined ? { name: input.title } : {}),
          ...(input.description !== undefined ? { description: input.description ?? '' } : {}),
          ...(input.brand ? { brand_name: input.brand } : {}),
          ...(updates.length > 0 ? { variants: updates } : {}),
        },
      });
      for (const v of additions) {
        await this.createOnce<unknown>(
          () =>
            this.client.send('POST', `/v3/catalog/products/${current.data.id}/variants`, {
              body: {
                sku: v.sku,
                price: toDecimal(v.price),
                retail_price: v.compareAtPrice ? toDecimal(v.compareAtPrice) : 0,
                upc: v.barcode ?? '',
                option_values: [{ option_display_name: 'Option', label: v.title || v.sku }],
              },
              maxRetries: 0,
            }),
          () => this.variantBySku(v.sku),
          'BigCommerce refused the new variant',
        );
      }
    } catch (err) {
      throw this.refused(err, 'BigCommerce refused the product change');
    }
    if (input.brand) this.brands = null;
    return this.getProduct(current.data.id);
  }

  private async getProduct(id: number): Promise<ProviderProduct> {
    const res = await this.client.call(S.one(S.Product), 'GET', `/v3/catalog/products/${id}`, {
      query: { include: 'variants,images' },
    });
    return mapProduct(res.data, await this.brandNames());
  }

  /**
   * Orders modified since `since` (or the cursor's), oldest change first, 250 a page. Each order's lines
   * and shipping address are separate V2 resources. The caller keeps the newest updatedAt as its next `since`.
   */
  async listOrders(input: { cursor: string | null; since?: string }): Promise<Page<ProviderOrder>> {
    const cursor: OrderCursor = input.cursor
      ? decodeCursor(input.cursor)
      : { since: input.since ?? null, seen: [], page: 1 };
    const orders = await this.client.call(z.array(S.Order), 'GET', '/v2/orders', {
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
    for (const order of fresh) items.push(await this.fullOrder(order));
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

  private async fullOrder(order: S.Order): Promise<ProviderOrder> {
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
        this.orderProducts(order.id),
        this.client.call(z.array(S.ShippingAddress), 'GET', `/v2/orders/${order.id}/shipping_addresses`, { empty: [] }),
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
      adminUrl: this.adminOrdersUrl ? `${this.adminOrdersUrl}/${order.id}` : null,
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

  async getOrder(externalId: string): Promise<ProviderOrder | null> {
    if (!/^\d+$/.test(externalId)) return null;
    try {
      const order = await this.client.call(S.Order, 'GET', `/v2/orders/${externalId}`, {
        query: { include: 'consignments.line_items', consignment_structure: 'object' },
      });
      return await this.fullOrder(order);
    } catch (err) {
      if (err instanceof ProviderHttpError && err.status === 404) return null;
      throw err;
    }
  }

  /**
   * Sets the order to Cancelled (status 5): BigCommerce puts its unshipped units back on hand where it took
   * them. Setting the same status again is harmless, so a retry needs no check.
   */
  async cancelOrder(input: {
    externalId: string;
    reason?: string | null;
  }): Promise<{ ok: true } | { unsupported: string }> {
    if (!/^\d+$/.test(input.externalId))
      throw new DomainError('NOT_FOUND', 'The order is not in the BigCommerce store');
    await this.client
      .call(z.object({ id: z.number(), status_id: z.number() }), 'PUT', `/v2/orders/${input.externalId}`, {
        body: { status_id: 5 },
      })
      .catch((err) => {
        throw this.refused(err, 'BigCommerce did not cancel the order');
      });
    return { ok: true };
  }

  /** A pickup order's progress, as its status: 8 Awaiting Pickup, then 10 Completed (pickup.ts). */
  async updatePickup(input: {
    orderExternalId: string;
    state: 'ready' | 'picked_up';
  }): Promise<{ ok: true } | { unsupported: string }> {
    return updateBcPickup(this, input);
  }

  private async orderProducts(orderId: number) {
    const lines: z.infer<typeof S.OrderProduct>[] = [];
    for (let page = 1; ; page++) {
      const batch = await this.client.call(z.array(S.OrderProduct), 'GET', `/v2/orders/${orderId}/products`, {
        query: { page, limit: 250 },
        empty: [],
      });
      lines.push(...batch);
      if (batch.length < 250) return lines;
    }
  }

  /**
   * A V2 shipment for the lines given. BigCommerce has no idempotency key, so after a failure that may
   * have gone through (a timeout, a 5xx) we look for the shipment before trying again.
   */
  async createFulfillment(input: FulfillmentInput): Promise<{ externalId: string }> {
    const orderId = Number(input.orderExternalId);
    const lines = await this.orderProducts(orderId).catch((err) => {
      throw this.refused(err, 'BigCommerce could not find the order');
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
    const before = await this.shipments(orderId);
    const shipment = await this.createOnce(
      () => this.client.call(S.Shipment, 'POST', `/v2/orders/${orderId}/shipments`, { body, maxRetries: 0 }),
      async () =>
        (await this.shipments(orderId)).find(
          (s) =>
            !before.some((b) => b.id === s.id) &&
            (s.tracking_number ?? '') === body.tracking_number &&
            sameItems(s.items, body.items),
        ) ?? null,
      'BigCommerce refused the shipment',
    );
    return { externalId: String(shipment.id) };
  }

  private shipments(orderId: number) {
    return this.client.call(z.array(S.Shipment), 'GET', `/v2/orders/${orderId}/shipments`, {
      query: { limit: 250 },
      empty: [],
    });
  }

  /** A refund through V3 payment actions, once per idempotency key (returns.ts). */
  async refund(input: RefundInput): Promise<RefundResult> {
    return writeRefund(this, input);
  }

  /** The store's refunds since a time (returns.ts): BigCommerce has no returns API. */
  async listReturns(input: { cursor: string | null; since?: string }): Promise<Page<ProviderReturn>> {
    return listRefunds(this, input);
  }

  async getReturn(externalId: string): Promise<ProviderReturn | null> {
    return readRefund(this, externalId);
  }

  /** Creates something that has no idempotency key: retried only after checking it was not created. */
  /** @internal */
  async createOnce<T>(create: () => Promise<T>, find: () => Promise<T | null>, refusal: string): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await create();
      } catch (err) {
        const throttled = err instanceof ProviderHttpError && err.status === 429;
        if ((!throttled && !ambiguous(err)) || attempt >= 5) throw this.refused(err, refusal);
        if (ambiguous(err)) {
          const existing = await find();
          if (existing) return existing;
        }
        await new Promise((r) => setTimeout(r, 200 * 2 ** attempt * Math.random()));
      }
    }
  }

  /** Hooks for every scope we process, pointing at `callbackUrl`; stale ones of ours elsewhere are removed. */
  async subscribeWebhooks(callbackUrl: string): Promise<void> {
    const hooks: z.infer<typeof S.Hook>[] = [];
    for (let page = 1; ; page++) {
      const res = await this.client.call(S.list(S.Hook), 'GET', '/v3/hooks', { query: { page, limit: 250 } });
      hooks.push(...res.data);
      if (!res.meta?.pagination || page >= res.meta.pagination.total_pages) break;
    }
    for (const scope of WEBHOOK_SCOPES) {
      const mine = hooks.filter((h) => h.scope === scope);
      const current = mine.find((h) => h.destination === callbackUrl);
      if (!current) {
        await this.client
          .send('POST', '/v3/hooks', { body: { scope, destination: callbackUrl, is_active: true } })
          .catch(async (err) => {
            // A retry after a lost answer meets the hook the first attempt made ("already exists").
            if (!(err instanceof ProviderHttpError && err.status === 422)) throw err;
            const again = await this.client.call(S.list(S.Hook), 'GET', '/v3/hooks', { query: { scope, limit: 250 } });
            if (!again.data.some((h) => h.destination === callbackUrl)) throw err;
          });
      } else if (!current.is_active) {
        await this.client.send('PUT', `/v3/hooks/${current.id}`, { body: { is_active: true } });
      }
      for (const stale of mine.filter((h) => h.destination !== callbackUrl)) {
        await this.client.send('DELETE', `/v3/hooks/${stale.id}`);
      }
    }
  }

  /** @internal */
  refused(err: unknown, message: string): Error {
    if (err instanceof DomainError) return err;
    if (err instanceof ProviderHttpError) {
      const detail = providerMessage(err);
      if (err.status === 404) return new DomainError('NOT_FOUND', `${message}: ${detail}`, { cause: err });
      if (err.status === 409) return new DomainError('CONFLICT', `${message}: ${detail}`, { cause: err });
      if (err.status !== null && err.status >= 400 && err.status < 500 && err.status !== 429) {
        return new DomainError('VALIDATION', `${message}: ${detail}`, { cause: err });
      }
    }
    return new DomainError('UPSTREAM_FAILED', message, { cause: err });
  }
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

/** The rows a 422 names ("… variant_id 106 …", "… sku RE-130 …"). */
function culpritOf(title: string, batch: InventorySet[]): InventorySet[] {
  const variants = [...title.matchAll(/variant_id (\d+)/g)].map((m) => m[1]);
  const locations = [...title.matchAll(/Location with id (\d+)/gi)].map((m) => m[1]);
  return batch.filter((c) => variants.includes(c.inventoryItemId) || locations.includes(c.locationExternalId));
}
