import { DomainError } from '../../lib/errors.ts';
import type { ProviderEndpoints } from '../../providers.ts';
import type {
  ChannelCredentials,
  Connector,
  ConnectorOptions,
  FulfillmentInput,
  InventoryLevel,
  InventorySet,
  InventorySetResult,
  Page,
  ProductInput,
  ProviderAddress,
  ProviderLocation,
  ProviderOrder,
  ProviderProduct,
  ProviderReturn,
  RefundInput,
  RefundResult,
} from '../types.ts';
import { fromMinor, ShopifyClient, toMinor } from './client.ts';
import {
  ORDER_CANCEL_MUTATION,
  ORDER_FULFILLMENT_LINES_QUERY,
  ORDER_LINES_QUERY,
  ORDER_QUERY,
  ORDER_STAMPS_PAGE,
  ORDER_STAMPS_QUERY,
  ORDERS_QUERY,
} from './order-queries.ts';
import {
  ORDER_REFUNDS_QUERY,
  REFUND_CREATE_MUTATION,
  REFUND_ORDER_QUERY,
  REFUND_QUERY,
  RETURN_QUERY,
  REVERSE_ORDER_RETURN_QUERY,
} from './return-queries.ts';
import { mapRefund, mapReturn, type RefundNode, type ReturnNode, refundMarker } from './returns.ts';
import { SHOPIFY_RETURN_WEBHOOK_TOPICS, SHOPIFY_WEBHOOK_TOPICS } from './webhooks.ts';

/** Shopify takes at most 250 rows in one inventorySetQuantities. */
export const SHOPIFY_INVENTORY_BATCH = 250;

// Page sizes are chosen so each query's requested cost stays under Shopify's 1,000-point single-query cap.
const PRODUCTS_PAGE = 20;
const VARIANTS_PER_PRODUCT = 16;
const LEVELS_PAGE = 250;
const READBACK_BATCH = 100;

const PRODUCT_FIELDS = `id title vendor productType status updatedAt
  images(first: 3) { nodes { url } }
  variants(first: ${VARIANTS_PER_PRODUCT}) { nodes { ${'id title sku barcode price compareAtPrice inventoryItem { id }'} } pageInfo { hasNextPage endCursor } }`;

const VARIANT_FIELDS = 'id title sku barcode price compareAtPrice inventoryItem { id }';

interface Connection<T> {
  nodes: T[];
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
}

interface VariantNode {
  id: string;
  title: string;
  sku: string | null;
  barcode: string | null;
  price: string;
  compareAtPrice: string | null;
  inventoryItem: { id: string };
}

interface ProductNode {
  id: string;
  title: string;
  vendor: string;
  productType: string;
  status: 'ACTIVE' | 'DRAFT' | 'ARCHIVED';
  updatedAt: string;
  images: { nodes: { url: string }[] };
  variants: Connection<VariantNode>;
}

interface Amount {
  shopMoney: { amount: string };
}

interface LineNode {
  id: string;
  sku: string | null;
  name: string;
  quantity: number;
  currentQuantity: number;
  unfulfilledQuantity: number;
  variant: { id: string } | null;
  originalUnitPriceSet: Amount;
  totalDiscountSet: Amount;
  taxLines: { priceSet: Amount }[];
}

interface AddressNode {
  firstName: string | null;
  lastName: string | null;
  name: string | null;
  company: string | null;
  address1: string | null;
  address2: string | null;
  city: string | null;
  province: string | null;
  provinceCode: string | null;
  zip: string | null;
  country: string | null;
  countryCodeV2: string | null;
  phone: string | null;
}

interface FulfillmentOrderNode {
  id: string;
  status: string;
  assignedLocation: { location: { id: string } | null };
  deliveryMethod: { methodType: string } | null;
}

interface OrderNode {
  id: string;
  legacyResourceId: string;
  name: string;
  email: string | null;
  phone: string | null;
  note: string | null;
  tags: string[];
  createdAt: string;
  updatedAt: string;
  cancelledAt: string | null;
  cancelReason: string | null;
  currencyCode: string;
  displayFinancialStatus: string | null;
  displayFulfillmentStatus: string;
  customer: { displayName: string; email: string | null; phone: string | null } | null;
  shippingAddress: AddressNode | null;
  billingAddress: AddressNode | null;
  totalPriceSet: Amount;
  subtotalPriceSet: Amount;
  totalShippingPriceSet: Amount;
  totalTaxSet: Amount | null;
  totalDiscountsSet: Amount | null;
  lineItems: Connection<LineNode>;
  fulfillmentOrders: { nodes: FulfillmentOrderNode[] };
}

interface UserError {
  field?: string[] | null;
  message: string;
  code?: string | null;
}

const encodeCursor = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
function decodeCursor<T>(cursor: string): T {
  try {
    return JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as T;
  } catch {
    throw new DomainError('VALIDATION', 'Invalid Shopify cursor');
  }
}

function mapVariant(v: VariantNode) {
  return {
    externalId: v.id,
    inventoryItemId: v.inventoryItem.id,
    sku: v.sku || null,
    barcode: v.barcode || null,
    title: v.title,
    price: toMinor(v.price),
    compareAtPrice: v.compareAtPrice == null ? null : toMinor(v.compareAtPrice),
  };
}

function mapProduct(p: ProductNode, variants: VariantNode[]): ProviderProduct {
  return {
    externalId: p.id,
    title: p.title,
    brand: p.vendor || null,
    productType: p.productType || null,
    status: p.status.toLowerCase() as ProviderProduct['status'],
    images: p.images.nodes.map((i) => i.url),
    variants: variants.map(mapVariant),
    updatedAt: p.updatedAt,
  };
}

const amount = (a: Amount | null | undefined) => toMinor(a?.shopMoney.amount ?? '0');

function mapAddress(a: AddressNode | null): ProviderAddress | null {
  if (!a) return null;
  return {
    name: a.name ?? ([a.firstName, a.lastName].filter(Boolean).join(' ') || null),
    company: a.company || null,
    address1: a.address1,
    address2: a.address2 || null,
    city: a.city,
    province: a.provinceCode ?? a.province,
    zip: a.zip,
    country: a.countryCodeV2 ?? a.country,
    phone: a.phone || null,
  };
}

/**
 * A Shopify order as ProviderOrder. `lineLocations`: line id → the location of the fulfillment order that
 * holds it (where Shopify moved the line's units available → committed); without it, every line is at
 * the order's only fulfillment order's location.
 */
function mapOrder(
  o: OrderNode,
  lines: LineNode[],
  adminUrl: string,
  lineLocations?: Map<string, string>,
): ProviderOrder {
  const fos = o.fulfillmentOrders.nodes.filter(
    (f) => f.status !== 'CANCELLED' || o.fulfillmentOrders.nodes.length === 1,
  );
  const pickup = fos.find((f) => f.deliveryMethod?.methodType === 'PICK_UP');
  const only = fos.length === 1 ? (fos[0]?.assignedLocation.location?.id ?? null) : null;
  const cancelled = o.cancelledAt !== null;
  return {
    externalId: o.id,
    name: o.name,
    createdAt: o.createdAt,
    updatedAt: o.updatedAt,
    currency: o.currencyCode,
    total: amount(o.totalPriceSet),
    subtotal: amount(o.subtotalPriceSet),
    shippingTotal: amount(o.totalShippingPriceSet),
    discountTotal: amount(o.totalDiscountsSet),
    taxTotal: amount(o.totalTaxSet),
    financialStatus: o.displayFinancialStatus?.toLowerCase() ?? null,
    fulfillmentStatus: o.displayFulfillmentStatus.toLowerCase(),
    cancelled,
    cancelledAt: o.cancelledAt,
    cancelReason: o.cancelReason?.toLowerCase() ?? null,
    locationExternalId: pickup?.assignedLocation.location?.id ?? null,
    fulfillmentType: pickup ? 'pickup' : 'ship',
    customer: o.customer
      ? {
          name: o.customer.displayName || null,
          email: o.customer.email ?? o.email,
          phone: o.customer.phone ?? o.phone,
        }
      : o.email || o.phone
        ? { name: null, email: o.email, phone: o.phone }
        : null,
    shippingAddress: mapAddress(o.shippingAddress) as Record<string, string | null> | null,
    billingAddress: mapAddress(o.billingAddress),
    note: o.note,
    tags: o.tags,
    adminUrl: `${adminUrl}/${o.legacyResourceId}`,
    lines: lines.map((l) => {
      // Units no longer on the order (refunded, or removed by the cancellation).
      const removed = Math.max(0, l.quantity - l.currentQuantity);
      return {
        externalId: l.id,
        sku: l.sku || null,
        variantExternalId: l.variant?.id ?? null,
        title: l.name,
        quantity: l.quantity,
        price: amount(l.originalUnitPriceSet),
        discount: amount(l.totalDiscountSet),
        tax: l.taxLines.reduce((s, t) => s + amount(t.priceSet), 0),
        // Still on the order and no longer waiting for fulfilment.
        fulfilledQuantity: Math.max(0, l.currentQuantity - l.unfulfilledQuantity),
        cancelledQuantity: cancelled ? removed : 0,
        refundedQuantity: cancelled ? 0 : removed,
        stockLocationExternalId: lineLocations?.get(l.id) ?? only,
      };
    }),
  };
}

/** Shopify's OrderCancelReason values. */
const CANCEL_REASONS = new Set(['CUSTOMER', 'DECLINED', 'FRAUD', 'INVENTORY', 'OTHER', 'STAFF']);

const describe = (errors: UserError[]) => errors.map((e) => e.message).join('; ');

/** One connected Shopify shop. */
export class ShopifyConnector implements Connector {
  readonly type = 'shopify' as const;
  readonly maxInventoryBatch = SHOPIFY_INVENTORY_BATCH;
  private readonly client: ShopifyClient;
  private readonly logger: ConnectorOptions['logger'];
  /** The shop admin's orders page; an order's page is this plus its numeric id. */
  private readonly adminOrdersUrl: string;

  constructor(endpoints: ProviderEndpoints, credentials: ChannelCredentials, options: ConnectorOptions) {
    if (!credentials.shop) throw new Error('Shopify credentials without a shop');
    this.adminOrdersUrl = `${endpoints.shopify.shopUrl(credentials.shop)}/admin/orders`;
    this.logger = options.logger;
    this.client = new ShopifyClient(endpoints, {
      shop: credentials.shop,
      credentials,
      logger: options.logger,
      timeoutMs: options.timeoutMs,
      maxRetries: options.maxRetries,
      onCredentials: options.onCredentials,
    });
  }

  async getShop() {
    const { shop } = await this.client.request<{
      shop: { name: string; myshopifyDomain: string; currencyCode: string; ianaTimezone: string | null };
    }>('{ shop { name myshopifyDomain currencyCode ianaTimezone } }', {}, 2);
    return {
      externalId: shop.myshopifyDomain.toLowerCase(),
      name: shop.name,
      currency: shop.currencyCode,
      timezone: shop.ianaTimezone,
    };
  }

  async listLocations(): Promise<ProviderLocation[]> {
    const out: ProviderLocation[] = [];
    let after: string | null = null;
    do {
      const data: {
        locations: Connection<{
          id: string;
          name: string;
          isActive: boolean;
          fulfillsOnlineOrders: boolean;
          localPickupSettingsV2: { pickupTime: string } | null;
          address: {
            address1: string | null;
            city: string | null;
            province: string | null;
            zip: string | null;
            countryCode: string | null;
          };
        }>;
      } = await this.client.request(
        `query($after: String) { locations(first: 100, after: $after, includeInactive: true) {
          nodes { id name isActive fulfillsOnlineOrders localPickupSettingsV2 { pickupTime }
            address { address1 city province zip countryCode } } pageInfo { hasNextPage endCursor } } }`,
        { after },
        302,
      );
      for (const l of data.locations.nodes)
        out.push({
          externalId: l.id,
          name: l.name,
          active: l.isActive,
          ships: l.fulfillsOnlineOrders,
          pickup: l.localPickupSettingsV2 !== null,
          address: {
            address1: l.address.address1 ?? undefined,
            city: l.address.city ?? undefined,
            province: l.address.province ?? undefined,
            zip: l.address.zip ?? undefined,
            country: l.address.countryCode ?? undefined,
          },
        });
      after = data.locations.pageInfo.hasNextPage ? data.locations.pageInfo.endCursor : null;
    } while (after);
    return out;
  }

  async listProducts(cursor: string | null): Promise<Page<ProviderProduct>> {
    const data = await this.client.request<{ products: Connection<ProductNode> }>(
      `query($after: String) { products(first: ${PRODUCTS_PAGE}, after: $after, sortKey: ID) { nodes { ${PRODUCT_FIELDS} } pageInfo { hasNextPage endCursor } } }`,
      { after: cursor },
      802,
    );
    const items: ProviderProduct[] = [];
    for (const p of data.products.nodes) items.push(mapProduct(p, await this.allVariants(p)));
    return {
      items,
      nextCursor: data.products.pageInfo.hasNextPage ? data.products.pageInfo.endCursor : null,
    };
  }

  /** A product's variants past the first page (products with many variants). */
  private async allVariants(p: ProductNode): Promise<VariantNode[]> {
    const variants = [...p.variants.nodes];
    let after = p.variants.pageInfo.hasNextPage ? p.variants.pageInfo.endCursor : null;
    while (after) {
      const data: { product: { variants: Connection<VariantNode> } | null } = await this.client.request(
        `query($id: ID!, $after: String) { product(id: $id) { variants(first: 100, after: $after) { nodes { ${VARIANT_FIELDS} } pageInfo { hasNextPage endCursor } } } }`,
        { id: p.id, after },
        203,
      );
      if (!data.product) break;
      variants.push(...data.product.variants.nodes);
      after = data.product.variants.pageInfo.hasNextPage ? data.product.variants.pageInfo.endCursor : null;
    }
    return variants;
  }

  private async fetchProduct(id: string): Promise<ProviderProduct> {
    const data = await this.client.request<{ product: ProductNode | null }>(
      `query($id: ID!) { product(id: $id) { ${PRODUCT_FIELDS} } }`,
      { id },
      40,
    );
    if (!data.product) throw new DomainError('NOT_FOUND', 'The product is no longer in the Shopify shop');
    return mapProduct(data.product, await this.allVariants(data.product));
  }

  /**
   * Levels page by location (each location's levels with `available`), so one page is one cheap query.
   * The cursor carries the locations still to read and the position inside the current one.
   */
  async getInventoryLevels(input: {
    cursor: string | null;
    locationExternalIds?: string[];
  }): Promise<Page<InventoryLevel>> {
    let state: { locations: string[]; index: number; after: string | null };
    if (input.cursor) state = decodeCursor(input.cursor);
    else {
      const locations =
        input.locationExternalIds ?? (await this.listLocations()).filter((l) => l.active).map((l) => l.externalId);
      state = { locations, index: 0, after: null };
    }
    const locationId = state.locations[state.index];
    if (!locationId) return { items: [], nextCursor: null };
    const data = await this.client.request<{
      location: {
        inventoryLevels: Connection<{ item: { id: string }; quantities: { name: string; quantity: number }[] }>;
      } | null;
    }>(
      `query($id: ID!, $after: String) { location(id: $id) { inventoryLevels(first: ${LEVELS_PAGE}, after: $after) {
        nodes { item { id } quantities(names: ["available"]) { name quantity } } pageInfo { hasNextPage endCursor } } } }`,
      { id: locationId, after: state.after },
      753,
    );
    const levels = data.location?.inventoryLevels;
    const items: InventoryLevel[] = (levels?.nodes ?? []).map((n) => ({
      inventoryItemId: n.item.id,
      locationExternalId: locationId,
      available: n.quantities.find((q) => q.name === 'available')?.quantity ?? 0,
    }));
    const next = levels?.pageInfo.hasNextPage
      ? { ...state, after: levels.pageInfo.endCursor }
      : { ...state, index: state.index + 1, after: null };
    return { items, nextCursor: next.index < next.locations.length ? encodeCursor(next) : null };
  }

  /**
   * inventorySetQuantities in batches of 250 ("available", reason "correction"). Rows with a
   * compareQuantity go in compare-and-set batches, the others with ignoreCompareQuantity. Shopify applies
   * a batch all or nothing: rows it names in userErrors are set aside (a stale compareQuantity is a
   * mismatch: someone else changed the level) and the rest is resent. Only when an attempt of the call may
   * have been applied before it failed (a timeout, a dropped connection, a 5xx) can a stale row be our own
   * change landing: then a read-back that shows the quantity we wanted counts it applied.
   */
  async setInventory(changes: InventorySet[]): Promise<InventorySetResult> {
    const result: InventorySetResult = { applied: [], failed: [] };
    const guarded = changes.filter((c) => c.compareQuantity != null);
    const unguarded = changes.filter((c) => c.compareQuantity == null);
    for (const group of [guarded, unguarded])
      for (const batch of batches(group, SHOPIFY_INVENTORY_BATCH)) await this.setBatch(batch, result);
    return result;
  }

  private async setBatch(batch: InventorySet[], result: InventorySetResult) {
    let pending = batch;
    const stale: InventorySet[] = [];
    let uncertain = false;
    while (pending.length > 0) {
      const compare = pending[0]?.compareQuantity != null;
      const data = await this.client.request<{
        inventorySetQuantities: { userErrors: UserError[] } | null;
      }>(
        `mutation($input: InventorySetQuantitiesInput!) { inventorySetQuantities(input: $input) {
          inventoryAdjustmentGroup { id } userErrors { code field message } } }`,
        {
          input: {
            name: 'available',
            reason: 'correction',
            referenceDocumentUri: 'gid://switchyard/InventorySync/set',
            ignoreCompareQuantity: !compare,
            quantities: pending.map((c) => ({
              inventoryItemId: c.inventoryItemId,
              locationId: c.locationExternalId,
              quantity: c.quantity,
              ...(compare ? { compareQuantity: c.compareQuantity } : {}),
            })),
          },
        },
        10,
        undefined,
        () => {
          uncertain = true;
        },
      );
      const errors = data.inventorySetQuantities?.userErrors ?? [];
      if (errors.length === 0) {
        result.applied.push(...pending);
        break;
      }
      const rejected = new Map<number, UserError>();
      for (const e of errors) {
        const index = e.field?.[0] === 'input' && e.field[1] === 'quantities' ? Number(e.field[2]) : Number.NaN;
        if (Number.isInteger(index) && pending[index]) rejected.set(index, e);
      }
      if (rejected.size === 0) {
        // An error about the whole request (name, reason): nothing in this batch can go through.
        for (const change of pending) result.failed.push({ change, reason: describe(errors), mismatch: false });
        break;
      }
      for (const [index, e] of rejected) {
        const change = pending[index] as InventorySet;
        if (e.code === 'COMPARE_QUANTITY_STALE') stale.push(change);
        else result.failed.push({ change, reason: `${e.code ?? 'ERROR'}: ${e.message}`, mismatch: false });
      }
      pending = pending.filter((_, i) => !rejected.has(i));
    }
    if (stale.length > 0) {
      // A retried call that Shopify had applied before the connection dropped reads as stale: check. A call
      // answered at its first attempt was not applied before, so the level holding our quantity is then
      // someone else's change that happens to equal it (the caller takes it in as one).
      const current = await this.readAvailable(stale);
      for (const change of stale) {
        const now = current.get(`${change.inventoryItemId}|${change.locationExternalId}`);
        if (uncertain && now === change.quantity) result.applied.push(change);
        else
          result.failed.push({
            change,
            reason: `Shopify holds ${now ?? 'an unknown quantity'}, not ${change.compareQuantity}`,
            mismatch: true,
          });
      }
    }
  }

  async readInventory(pairs: { inventoryItemId: string; locationExternalId: string }[]): Promise<InventoryLevel[]> {
    const current = await this.readAvailable(pairs.map((p) => ({ ...p, quantity: 0 })));
    return pairs.flatMap((p) => {
      const available = current.get(`${p.inventoryItemId}|${p.locationExternalId}`);
      return available === undefined ? [] : [{ ...p, available }];
    });
  }

  /** `available` of item/location pairs, many per query through aliases. */
  private async readAvailable(pairs: InventorySet[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    for (const chunk of batches(pairs, READBACK_BATCH)) {
      const variables: Record<string, string> = {};
      const defs: string[] = [];
      const fields = chunk.map((c, i) => {
        variables[`i${i}`] = c.inventoryItemId;
        variables[`l${i}`] = c.locationExternalId;
        defs.push(`$i${i}: ID!, $l${i}: ID!`);
        return `r${i}: inventoryItem(id: $i${i}) { inventoryLevel(locationId: $l${i}) { quantities(names: ["available"]) { quantity } } }`;
      });
      const data = await this.client.request<
        Record<string, { inventoryLevel: { quantities: { quantity: number }[] } | null } | null>
      >(`query(${defs.join(', ')}) { ${fields.join(' ')} }`, variables, chunk.length * 3);
      chunk.forEach((c, i) => {
        const q = data[`r${i}`]?.inventoryLevel?.quantities[0]?.quantity;
        if (q !== undefined) out.set(`${c.inventoryItemId}|${c.locationExternalId}`, q);
      });
    }
    return out;
  }

  async createProduct(input: ProductInput): Promise<ProviderProduct> {
    if (input.variants.length === 0) throw new DomainError('VALIDATION', 'A product needs at least one variant');
    const titles = variantTitles(input.variants);
    const created = await this.client.request<{
      productCreate: { product: { id: string } | null; userErrors: UserError[] };
    }>(
      `mutation($product: ProductCreateInput!, $media: [CreateMediaInput!]) { productCreate(product: $product, media: $media) {
        product { id } userErrors { field message } } }`,
      {
        product: {
          title: input.title,
          vendor: input.brand ?? undefined,
          productType: input.productType ?? undefined,
          descriptionHtml: input.description ?? undefined,
          productOptions: [{ name: 'Title', values: titles.map((name) => ({ name })) }],
        },
        media: (input.images ?? []).map((url) => ({ originalSource: url, mediaContentType: 'IMAGE' })),
      },
    );
    const product = created.productCreate.product;
    if (!product)
      throw new DomainError('VALIDATION', `Shopify refused the product: ${describe(created.productCreate.userErrors)}`);
    await this.bulkCreateVariants(
      product.id,
      input.variants.map((v, i) => ({ ...v, optionValues: [{ optionName: 'Title', name: titles[i] as string }] })),
      true,
    );
    return this.fetchProduct(product.id);
  }

  private async bulkCreateVariants(
    productId: string,
    variants: (ProductInput['variants'][number] & { optionValues: OptionValue[] })[],
    replaceStandalone: boolean,
  ) {
    for (const [n, chunk] of batches(variants, 250).entries()) {
      const data = await this.client.request<{ productVariantsBulkCreate: { userErrors: UserError[] } }>(
        `mutation($id: ID!, $variants: [ProductVariantsBulkInput!]!, $strategy: ProductVariantsBulkCreateStrategy) {
          productVariantsBulkCreate(productId: $id, variants: $variants, strategy: $strategy) { userErrors { field message code } } }`,
        {
          id: productId,
          strategy: replaceStandalone && n === 0 ? 'REMOVE_STANDALONE_VARIANT' : 'DEFAULT',
          variants: chunk.map((v) => ({
            optionValues: v.optionValues,
            price: fromMinor(v.price),
            compareAtPrice: v.compareAtPrice == null ? null : fromMinor(v.compareAtPrice),
            barcode: v.barcode ?? null,
            inventoryItem: { sku: v.sku, tracked: true },
          })),
        },
      );
      const errors = data.productVariantsBulkCreate.userErrors;
      if (errors.length) throw new DomainError('VALIDATION', `Shopify refused the variants: ${describe(errors)}`);
    }
  }

  async updateProduct(externalId: string, input: Partial<ProductInput>): Promise<ProviderProduct> {
    const fields: Record<string, unknown> = { id: externalId };
    if (input.title !== undefined) fields.title = input.title;
    if (input.brand !== undefined) fields.vendor = input.brand ?? '';
    if (input.productType !== undefined) fields.productType = input.productType ?? '';
    if (input.description !== undefined) fields.descriptionHtml = input.description ?? '';
    const current = await this.fetchProduct(externalId);
    const knownImages = new Set(current.images);
    const newImages = (input.images ?? []).filter((url) => !knownImages.has(url));
    if (Object.keys(fields).length > 1 || newImages.length > 0) {
      const data = await this.client.request<{
        productUpdate: { product: { id: string } | null; userErrors: UserError[] };
      }>(
        `mutation($product: ProductUpdateInput!, $media: [CreateMediaInput!]) { productUpdate(product: $product, media: $media) {
          product { id } userErrors { field message } } }`,
        { product: fields, media: newImages.map((url) => ({ originalSource: url, mediaContentType: 'IMAGE' })) },
      );
      if (!data.productUpdate.product)
        throw new DomainError('VALIDATION', `Shopify refused the change: ${describe(data.productUpdate.userErrors)}`);
    }
    if (input.variants?.length) {
      const bySku = new Map(current.variants.filter((v) => v.sku).map((v) => [v.sku as string, v]));
      const updates = input.variants.filter((v) => bySku.has(v.sku));
      const additions = input.variants.filter((v) => !bySku.has(v.sku));
      for (const chunk of batches(updates, 250)) {
        const data = await this.client.request<{ productVariantsBulkUpdate: { userErrors: UserError[] } }>(
          `mutation($id: ID!, $variants: [ProductVariantsBulkInput!]!) { productVariantsBulkUpdate(productId: $id, variants: $variants) {
            userErrors { field message code } } }`,
          {
            id: externalId,
            variants: chunk.map((v) => ({
              id: bySku.get(v.sku)?.externalId,
              price: fromMinor(v.price),
              ...(v.compareAtPrice !== undefined
                ? { compareAtPrice: v.compareAtPrice === null ? null : fromMinor(v.compareAtPrice) }
                : {}),
              ...(v.barcode !== undefined ? { barcode: v.barcode } : {}),
            })),
          },
        );
        const errors = data.productVariantsBulkUpdate.userErrors;
        if (errors.length) throw new DomainError('VALIDATION', `Shopify refused the variants: ${describe(errors)}`);
      }
      if (additions.length) {
        // The product's own options (a product made in Shopify has Size, Color…, not our single "Title").
        const data = await this.client.request<{ product: { options: ProductOptionNode[] } | null }>(
          `query($id: ID!) { product(id: $id) { options { name values } } }`,
          { id: externalId },
          5,
        );
        const values = addedOptionValues(
          data.product?.options ?? [],
          current.variants.map((v) => v.title ?? ''),
          additions,
        );
        await this.bulkCreateVariants(
          externalId,
          additions.map((v, i) => ({ ...v, optionValues: values[i] as OptionValue[] })),
          false,
        );
      }
    }
    return this.fetchProduct(externalId);
  }

  async listOrders(input: { cursor: string | null; since?: string }): Promise<Page<ProviderOrder>> {
    const { since, after, query } = ordersSearch(input);
    const data = await this.client.request<{ orders: Connection<OrderNode> }>(ORDERS_QUERY, { after, query }, 770);
    const items: ProviderOrder[] = [];
    for (const o of data.orders.nodes) items.push(await this.fullOrder(o));
    return {
      items,
      nextCursor: data.orders.pageInfo.hasNextPage
        ? encodeCursor({ since, after: data.orders.pageInfo.endCursor })
        : null,
    };
  }

  async listOrderStamps(input: { cursor: string | null; since?: string }) {
    const { since, after, query } = ordersSearch(input);
    const data = await this.client.request<{
      orders: Connection<{ id: string; updatedAt: string }>;
    }>(ORDER_STAMPS_QUERY, { after, query }, ORDER_STAMPS_PAGE + 2);
    return {
      items: data.orders.nodes.map((o) => ({ externalId: o.id, updatedAt: o.updatedAt })),
      nextCursor: data.orders.pageInfo.hasNextPage
        ? encodeCursor({ since, after: data.orders.pageInfo.endCursor })
        : null,
    };
  }

  async getOrder(externalId: string): Promise<ProviderOrder | null> {
    if (!/^gid:\/\/shopify\/Order\/\d+$/.test(externalId)) return null;
    const data = await this.client.request<{ order: OrderNode | null }>(ORDER_QUERY, { id: externalId }, 130);
    return data.order ? this.fullOrder(data.order) : null;
  }

  /**
   * Cancels the order at Shopify with restock (its committed units go back to available at their
   * location, as Shopify's own cancel does) and a refund of what was paid. Shopify cancels in a job; an
   * order it already cancelled counts as done.
   */
  async cancelOrder(input: {
    externalId: string;
    reason?: string | null;
  }): Promise<{ ok: true } | { unsupported: string }> {
    type Answer = {
      orderCancel: {
        job: { id: string } | null;
        orderCancelUserErrors: { field: string[] | null; message: string; code: string | null }[];
      };
    };
    const cancelledNow = async () => {
      const now = await this.client.request<{ order: { cancelledAt: string | null } | null }>(
        'query($id: ID!) { order(id: $id) { cancelledAt } }',
        { id: input.externalId },
        1,
      );
      if (!now.order) throw new DomainError('NOT_FOUND', 'The order is not in the Shopify shop');
      return now.order.cancelledAt !== null;
    };
    const reason = (input.reason ?? '').toUpperCase();
    const res = await this.client.mutateOnce<Answer>(
      ORDER_CANCEL_MUTATION,
      {
        orderId: input.externalId,
        reason: CANCEL_REASONS.has(reason) ? reason : 'OTHER',
        refund: true,
        restock: true,
        notifyCustomer: false,
        staffNote: input.reason ? input.reason.slice(0, 255) : null,
      },
      async () => ((await cancelledNow()) ? { orderCancel: { job: null, orderCancelUserErrors: [] } } : null),
    );
    const errors = res.orderCancel.orderCancelUserErrors;
    if (errors.length === 0) return { ok: true };
    if (errors.some((e) => e.code === 'NOT_FOUND'))
      throw new DomainError('NOT_FOUND', 'The order is not in the Shopify shop');
    // A repeat of a cancel that went through: Shopify refuses it as already cancelled.
    if (await cancelledNow()) return { ok: true };
    throw new DomainError('INVALID_STATE', `Shopify refused to cancel the order: ${describe(errors)}`);
  }

  /** The order with all its lines, and each line's stock location when it is split over several. */
  private async fullOrder(o: OrderNode): Promise<ProviderOrder> {
    const lines = await this.allLines(o);
    const fos = o.fulfillmentOrders.nodes.filter((f) => f.status !== 'CANCELLED');
    let lineLocations: Map<string, string> | undefined;
    if (new Set(fos.map((f) => f.assignedLocation.location?.id)).size > 1) {
      const data = await this.client.request<{
        order: {
          fulfillmentOrders: {
            nodes: {
              status: string;
              assignedLocation: { location: { id: string } | null };
              lineItems: { nodes: { totalQuantity: number; lineItem: { id: string } }[] };
            }[];
          };
        } | null;
      }>(ORDER_FULFILLMENT_LINES_QUERY, { id: o.id }, 430);
      lineLocations = new Map();
      const held = new Map<string, number>();
      for (const fo of data.order?.fulfillmentOrders.nodes ?? []) {
        const location = fo.assignedLocation.location?.id;
        if (!location || fo.status === 'CANCELLED') continue;
        // A line split over locations is placed where most of its units are.
        for (const l of fo.lineItems.nodes)
          if (l.totalQuantity > (held.get(l.lineItem.id) ?? 0)) {
            held.set(l.lineItem.id, l.totalQuantity);
            lineLocations.set(l.lineItem.id, location);
          }
      }
    }
    return mapOrder(o, lines, this.adminOrdersUrl, lineLocations);
  }

  private async allLines(o: OrderNode): Promise<LineNode[]> {
    const lines = [...o.lineItems.nodes];
    let after = o.lineItems.pageInfo.hasNextPage ? o.lineItems.pageInfo.endCursor : null;
    while (after) {
      const data: { order: { lineItems: Connection<LineNode> } | null } = await this.client.request(
        ORDER_LINES_QUERY,
        { id: o.id, after },
        455,
      );
      if (!data.order) break;
      lines.push(...data.order.lineItems.nodes);
      after = data.order.lineItems.pageInfo.hasNextPage ? data.order.lineItems.pageInfo.endCursor : null;
    }
    return lines;
  }

  /**
   * Fulfils order lines from the order's fulfillment orders (one per location): the lines' open
   * quantities are taken from fulfillment orders at `locationExternalId` when given, and one
   * fulfillment is created per location involved. Without lines, everything still open is fulfilled.
   */
  async createFulfillment(input: FulfillmentInput): Promise<{ externalId: string }> {
    const data = await this.client.request<{
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
      const now = await this.client.request<{ order: { fulfillments: { id: string }[] } | null }>(
        'query($id: ID!) { order(id: $id) { fulfillments(first: 250) { id } } }',
        { id: input.orderExternalId },
        2,
      );
      const made = now.order?.fulfillments.find((f) => !known.has(f.id));
      return made ? { fulfillmentCreate: { fulfillment: made, userErrors: [] } } : null;
    };
    for (const byFo of plan.values()) {
      const res = await this.client.mutateOnce<Created>(
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
  async updatePickup(input: {
    orderExternalId: string;
    state: 'ready' | 'picked_up';
  }): Promise<{ ok: true } | { unsupported: string }> {
    const data = await this.client.request<{
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
        (fo.status === 'OPEN' || fo.status === 'IN_PROGRESS') &&
        fo.lineItems.nodes.some((l) => l.remainingQuantity > 0),
    );
    if (open.length === 0) return { ok: true };
    if (input.state === 'ready') {
      const waiting = open.filter((fo) => fo.status === 'OPEN');
      if (waiting.length === 0) return { ok: true };
      const res = await this.client.request<{
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
    await this.createFulfillment({
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

  /**
   * Writes a refund made here to Shopify: money back against the order's sale, the lines refunded with
   * their restock type — RETURN at the return location for units that came back to be sold again (Shopify
   * puts them back on its own stock there, which the ledger meets as the return's channel restock), CANCEL
   * for restocked units that never left (released where they were committed), NO_RESTOCK otherwise — and
   * shipping. 2025-01 has no @idempotent: our key rides in the refund's note, so a retry after a crash or
   * an unanswered call finds the refund it made instead of refunding twice.
   */
  async refund(input: RefundInput): Promise<RefundResult> {
    type OrderForRefund = {
      id: string;
      currencyCode: string;
      transactions: { id: string; kind: string; status: string; gateway: string }[];
      refunds: { id: string; note: string | null }[];
      fulfillments: { location: { id: string } | null }[];
      lineItems: { nodes: { id: string; currentQuantity: number; unfulfilledQuantity: number }[] };
    };
    const read = async () =>
      (
        await this.client.request<{ order: OrderForRefund | null }>(
          REFUND_ORDER_QUERY,
          { id: input.orderExternalId },
          130,
        )
      ).order;
    const order = await read();
    if (!order) throw new DomainError('NOT_FOUND', 'The order is not in the Shopify shop');
    if (order.currencyCode !== input.currency.toUpperCase())
      throw new DomainError('VALIDATION', `The order is in ${order.currencyCode}, not ${input.currency}`);
    const marker = input.idempotencyKey ? refundMarker(input.idempotencyKey) : null;
    const ours = (o: OrderForRefund | null) =>
      marker ? (o?.refunds.find((r) => r.note?.includes(marker))?.id ?? null) : null;
    const done = ours(order);
    if (done) return { externalId: done, ret: await this.getReturn(done) };
    const sale = order.transactions.find((t) => (t.kind === 'SALE' || t.kind === 'CAPTURE') && t.status === 'SUCCESS');
    if (input.amount > 0 && !sale) throw new DomainError('INVALID_STATE', 'The order has no payment to refund');
    const refundLineItems: { lineItemId: string; quantity: number; restockType: string; locationId?: string }[] = [];
    for (const l of input.lines ?? []) {
      const line = order.lineItems.nodes.find((x) => x.id === l.lineExternalId);
      if (!line) throw new DomainError('VALIDATION', `The order has no line ${l.lineExternalId} at Shopify`);
      if (!l.restock) {
        refundLineItems.push({ lineItemId: line.id, quantity: l.quantity, restockType: 'NO_RESTOCK' });
        continue;
      }
      const shipped = Math.max(0, line.currentQuantity - line.unfulfilledQuantity);
      const returned = Math.min(l.quantity, shipped);
      const location = l.locationExternalId ?? input.locationExternalId ?? null;
      if (returned > 0)
        refundLineItems.push({
          lineItemId: line.id,
          quantity: returned,
          restockType: 'RETURN',
          ...(location ? { locationId: location } : {}),
        });
      if (l.quantity > returned)
        refundLineItems.push({ lineItemId: line.id, quantity: l.quantity - returned, restockType: 'CANCEL' });
    }
    const note = [input.reason, marker].filter(Boolean).join(' ') || null;
    type Created = { refundCreate: { refund: { id: string } | null; userErrors: UserError[] } };
    // After an unanswered call: the refund carrying our key is ours; without a key, a new one of this amount.
    const known = new Set(order.refunds.map((r) => r.id));
    const recover = async (): Promise<Created | null> => {
      const now = await read();
      const found =
        ours(now) ?? (marker ? null : (now?.refunds.find((r) => !known.has(r.id) && r.note === note)?.id ?? null));
      return found ? { refundCreate: { refund: { id: found }, userErrors: [] } } : null;
    };
    const res = await this.client.mutateOnce<Created>(
      REFUND_CREATE_MUTATION,
      {
        input: {
          orderId: input.orderExternalId,
          note,
          notify: false,
          refundLineItems,
          ...(input.shipping ? { shipping: { amount: fromMinor(input.shipping) } } : {}),
          transactions:
            input.amount > 0 && sale
              ? [
                  {
                    orderId: input.orderExternalId,
                    gateway: sale.gateway,
                    kind: 'REFUND',
                    amount: fromMinor(input.amount),
                    parentId: sale.id,
                  },
                ]
              : [],
        },
      },
      recover,
    );
    const refund = res.refundCreate.refund;
    if (!refund)
      throw new DomainError('INVALID_STATE', `Shopify refused the refund: ${describe(res.refundCreate.userErrors)}`);
    return { externalId: refund.id, ret: await this.getReturn(refund.id) };
  }

  /**
   * Refunds of the orders updated since `since` (a refund updates its order), oldest order change first;
   * each refund read whole. Refunds older than `since` on those orders are left out.
   */
  async listReturns(input: { cursor: string | null; since?: string }): Promise<Page<ProviderReturn>> {
    let since = input.since ?? null;
    let after: string | null = null;
    if (input.cursor) ({ since, after } = decodeCursor<{ since: string | null; after: string | null }>(input.cursor));
    const query = since ? `updated_at:>='${new Date(since).toISOString().replace(/\.\d{3}Z$/, 'Z')}'` : null;
    const data = await this.client.request<{
      orders: Connection<{
        id: string;
        refunds: { id: string; updatedAt: string; return: { id: string } | null }[];
        returns: { nodes: { id: string }[] };
      }>;
    }>(ORDER_REFUNDS_QUERY, { after, query }, 380);
    const from = since ? new Date(since).getTime() - 1000 : null;
    const items: ProviderReturn[] = [];
    for (const o of data.orders.nodes) {
      // A refund that pays for a return is read with that return, which its order lists (2025-01's Return has no
      // updated-at: the returns of an order that changed are read again, and change nothing when they did not).
      for (const r of o.refunds) {
        if (r.return || (from !== null && new Date(r.updatedAt).getTime() < from)) continue;
        const ret = await this.getReturn(r.id);
        if (ret) items.push(ret);
      }
      for (const r of o.returns.nodes) {
        const ret = await this.getReturn(r.id);
        if (ret) items.push(ret);
      }
    }
    return {
      items,
      nextCursor: data.orders.pageInfo.hasNextPage
        ? encodeCursor({ since, after: data.orders.pageInfo.endCursor })
        : null,
    };
  }

  /**
   * One refund or return, read now. A refund that pays for a return is read as that return; a reverse
   * fulfillment order (a disposal's webhook) is read as the return it belongs to.
   */
  async getReturn(externalId: string): Promise<ProviderReturn | null> {
    if (/^gid:\/\/shopify\/Return\/\d+$/.test(externalId)) {
      const data = await this.client.request<{ return: ReturnNode | null }>(RETURN_QUERY, { id: externalId }, 310);
      return data.return ? mapReturn(data.return) : null;
    }
    if (/^gid:\/\/shopify\/ReverseFulfillmentOrder\/\d+$/.test(externalId)) {
      const data = await this.client.request<{
        reverseFulfillmentOrder: {
          order: { returns: { nodes: { id: string; reverseFulfillmentOrders: { nodes: { id: string }[] } }[] } } | null;
        } | null;
      }>(REVERSE_ORDER_RETURN_QUERY, { id: externalId }, 60);
      const owner = data.reverseFulfillmentOrder?.order?.returns.nodes.find((r) =>
        r.reverseFulfillmentOrders.nodes.some((o) => o.id === externalId),
      );
      return owner ? this.getReturn(owner.id) : null;
    }
    if (!/^gid:\/\/shopify\/Refund\/\d+$/.test(externalId)) return null;
    const data = await this.client.request<{ refund: RefundNode | null }>(REFUND_QUERY, { id: externalId }, 320);
    if (data.refund?.return) return this.getReturn(data.refund.return.id);
    return data.refund ? mapRefund(data.refund) : null;
  }

  async subscribeWebhooks(callbackUrl: string): Promise<void> {
    const existing = new Set<string>();
    let after: string | null = null;
    do {
      const data: { webhookSubscriptions: Connection<{ topic: string; callbackUrl: string }> } =
        await this.client.request(
          `query($after: String) { webhookSubscriptions(first: 100, after: $after) { nodes { topic callbackUrl } pageInfo { hasNextPage endCursor } } }`,
          { after },
          102,
        );
      for (const s of data.webhookSubscriptions.nodes) if (s.callbackUrl === callbackUrl) existing.add(s.topic);
      after = data.webhookSubscriptions.pageInfo.hasNextPage ? data.webhookSubscriptions.pageInfo.endCursor : null;
    } while (after);
    for (const topic of SHOPIFY_WEBHOOK_TOPICS) {
      if (existing.has(topic)) continue;
      const res = await this.client.request<{ webhookSubscriptionCreate: { userErrors: UserError[] } }>(
        `mutation($topic: WebhookSubscriptionTopic!, $sub: WebhookSubscriptionInput!) {
          webhookSubscriptionCreate(topic: $topic, webhookSubscription: $sub) { webhookSubscription { id } userErrors { field message } } }`,
        { topic, sub: { callbackUrl, format: 'JSON' } },
      );
      const errors = res.webhookSubscriptionCreate.userErrors.filter((e) => !/already been taken/i.test(e.message));
      // A shop authorised before we asked for read_returns: its returns come in as refunds until it re-authorises.
      if (
        errors.length &&
        SHOPIFY_RETURN_WEBHOOK_TOPICS.has(topic) &&
        errors.every((e) => /read_returns|permission|access/i.test(e.message))
      ) {
        this.logger.warn({ topic }, 'Shopify refused a return webhook: the shop has not granted read_returns');
        continue;
      }
      if (errors.length)
        throw new DomainError('UPSTREAM_FAILED', `Shopify refused the ${topic} webhook: ${describe(errors)}`);
    }
  }
}

/**
 * Consecutive batches of at most `size`, never holding the same item/location (or SKU) twice, since
 * Shopify rejects a batch with a duplicate pair.
 */
function batches<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  let current: T[] = [];
  let keys = new Set<string>();
  for (const item of items) {
    const change = item as unknown as Partial<InventorySet>;
    const key = change.inventoryItemId ? `${change.inventoryItemId}|${change.locationExternalId}` : null;
    if (current.length >= size || (key !== null && keys.has(key))) {
      out.push(current);
      current = [];
      keys = new Set();
    }
    current.push(item);
    if (key !== null) keys.add(key);
  }
  if (current.length) out.push(current);
  return out;
}

interface ProductOptionNode {
  name: string;
  values: string[];
}
interface OptionValue {
  optionName: string;
  name: string;
}

/**
 * Option values for variants added to an existing product, one per option of the product: the variant's
 * title split on " / " when it names a value for each option ("M / Blue") in a combination the product does
 * not have yet; a combination it has gets a first value of its own ("M (SKU) / Blue"); a title that names no
 * such values becomes a new value of the first option (the title, else the SKU) with the first value of each
 * other option. Every variant so makes a new combination. `existing`: the titles of the product's variants.
 */
export function addedOptionValues(
  productOptions: ProductOptionNode[],
  existing: string[],
  variants: ProductInput['variants'],
): OptionValue[][] {
  const options = productOptions.length ? productOptions : [{ name: 'Title', values: [] }];
  const combos = new Set(existing);
  const firstValues = new Set(options[0]?.values ?? []);
  return variants.map((v) => {
    const parts = (v.title ?? '').split(' / ').map((part) => part.trim());
    const named = parts.length === options.length && parts.every(Boolean);
    let values: string[];
    if (named && !combos.has(parts.join(' / '))) values = parts;
    else {
      // A combination the product has already ("M / Blue" again): its first value made the SKU's own.
      const base = named ? (parts[0] as string) : v.title?.trim() || v.sku;
      let first = named ? `${base} (${v.sku})` : base;
      for (let n = 1; firstValues.has(first); n++) first = n === 1 ? `${base} (${v.sku})` : `${base} (${v.sku} ${n})`;
      values = [first, ...(named ? parts.slice(1) : options.slice(1).map((o) => o.values[0] ?? 'Default'))];
    }
    firstValues.add(values[0] as string);
    combos.add(values.join(' / '));
    return options.map((o, i) => ({ optionName: o.name, name: values[i] as string }));
  });
}

/** Unique option values for a product's single "Title" option: the variant's title, else its SKU. */
function variantTitles(variants: ProductInput['variants'], taken = new Set<string>()): string[] {
  const used = new Set(taken);
  return variants.map((v) => {
    let title = v.title?.trim() || v.sku;
    if (used.has(title)) title = `${title} (${v.sku})`;
    used.add(title);
    return title;
  });
}

/** listOrders' and listOrderStamps' search: since a time (a cursor is a time or a page of a search), to the second. */
function ordersSearch(input: { cursor: string | null; since?: string }) {
  let since = input.since ?? null;
  let after: string | null = null;
  if (input.cursor) {
    if (!Number.isNaN(Date.parse(input.cursor)) && /^\d{4}-\d{2}-\d{2}T/.test(input.cursor)) since = input.cursor;
    else ({ since, after } = decodeCursor<{ since: string | null; after: string | null }>(input.cursor));
  }
  // Shopify's search is to the second; `>=` so an order updated in the cursor's second is not lost.
  const query = since ? `updated_at:>='${new Date(since).toISOString().replace(/\.\d{3}Z$/, 'Z')}'` : null;
  return { since, after, query };
}
