import { createHash, randomUUID } from 'node:crypto';
import { DomainError } from '../../lib/errors.ts';
import type { ProviderEndpoints } from '../../providers.ts';
import { ProviderHttpError } from '../http.ts';
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
  ProviderLocation,
  ProviderOrder,
  ProviderProduct,
  ProviderReturn,
  RefundInput,
  RefundResult,
} from '../types.ts';
import { describeSquareError, SquareClient, squareErrorCode, squareErrors } from './client.ts';
import {
  type CatalogObject,
  mapLocation,
  mapOrder,
  mapProduct,
  type SquareLocation,
  type SquareOrder,
} from './mapping.ts';
import { isReturnOrder, mapRefund, mapReturnOrder, type PaymentRefund, type SquareReturnOrder } from './returns.ts';

/** BatchChangeInventory takes at most 100 changes per request. */
export const SQUARE_INVENTORY_BATCH = 100;
/** SearchOrders takes at most 10 location ids. */
const ORDER_LOCATIONS_PER_SEARCH = 10;
const ORDERS_PAGE = 200;

interface OrdersCursor {
  /** updated_at lower bound the scan started with. */
  s: string | null;
  /** Location ids, in chunks of 10, and which chunk we are on. */
  l: string[];
  c: number;
  /** Square's own cursor within the chunk. */
  q: string | null;
}

/** listReturns: the return orders phase ('o', as OrdersCursor), then the refunds phase ('r', Square's cursor in q). */
interface ReturnsCursor extends OrdersCursor {
  p: 'o' | 'r';
}
const encodeReturns = (cursor: ReturnsCursor) => Buffer.from(JSON.stringify(cursor)).toString('base64url');
function decodeReturns(cursor: string): ReturnsCursor {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as ReturnsCursor;
    if ((parsed.p === 'o' || parsed.p === 'r') && Array.isArray(parsed.l) && typeof parsed.c === 'number')
      return parsed;
  } catch {
    // fall through
  }
  throw new DomainError('VALIDATION', 'The Square returns cursor is not valid.');
}

const encode = (cursor: OrdersCursor) => Buffer.from(JSON.stringify(cursor)).toString('base64url');
function decode(cursor: string): OrdersCursor {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as OrdersCursor;
    if (Array.isArray(parsed.l) && typeof parsed.c === 'number') return parsed;
  } catch {
    // fall through
  }
  throw new DomainError('VALIDATION', 'The Square orders cursor is not valid.');
}

/** Square answers a caller's mistake with 4xx: those become DomainErrors with Square's own wording. */
function asDomainError(err: unknown, what: string): never {
  if (
    err instanceof ProviderHttpError &&
    err.status !== null &&
    err.status >= 400 &&
    err.status < 500 &&
    err.status !== 401 &&
    err.status !== 429
  ) {
    const code = err.status === 404 ? 'NOT_FOUND' : err.status === 403 ? 'FORBIDDEN' : 'VALIDATION';
    throw new DomainError(code, `Square could not ${what}: ${squareErrors(err)[0]?.detail ?? `HTTP ${err.status}`}`, {
      cause: err,
    });
  }
  throw err;
}

export function squareConnector(
  endpoints: ProviderEndpoints,
  credentials: ChannelCredentials,
  options: ConnectorOptions,
): Connector {
  const client = new SquareClient(endpoints, credentials, options);
  let currency: string | null = null;
  const categories = new Map<string, string>();
  let categoriesLoaded = false;
  /** variation id → SKU, for order lines (Square's line items carry the variation id, not the SKU). */
  const skus = new Map<string, string | null>();

  async function merchant() {
    const { merchant: m } = await client.call<{
      merchant: { id: string; business_name?: string; currency?: string; main_location_id?: string };
    }>('GET', '/v2/merchants/me');
    currency = m.currency ?? currency;
    return m;
  }

  async function merchantCurrency(): Promise<string> {
    if (!currency) await merchant();
    return currency ?? 'USD';
  }

  async function loadCategories() {
    if (categoriesLoaded) return;
    let cursor: string | undefined;
    do {
      const res = await client.call<{ objects?: CatalogObject[]; cursor?: string }>(
        'GET',
        `/v2/catalog/list?types=CATEGORY${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      for (const c of res.objects ?? []) categories.set(c.id, String(c.category_data?.name ?? ''));
      cursor = res.cursor;
    } while (cursor);
    categoriesLoaded = true;
  }

  async function locationIds(): Promise<string[]> {
    const { locations } = await client.call<{ locations?: SquareLocation[] }>('GET', '/v2/locations');
    return (locations ?? []).map((l) => l.id);
  }

  /** An order, or null when Square has none by that id. */
  async function tryOrder(id: string): Promise<SquareReturnOrder | null> {
    try {
      return (await client.call<{ order: SquareReturnOrder }>('GET', `/v2/orders/${encodeURIComponent(id)}`)).order;
    } catch (err) {
      if (err instanceof ProviderHttpError && err.status === 404) return null;
      throw err;
    }
  }

  /** The SKUs of return orders' returned lines (as rememberSkus does for sold lines). */
  async function rememberReturnSkus(orders: SquareReturnOrder[]) {
    await rememberSkus(
      orders.map((o) => ({
        ...o,
        line_items: (o.returns ?? []).flatMap((r) =>
          (r.return_line_items ?? []).map((l) => ({ uid: l.uid ?? '', catalog_object_id: l.catalog_object_id })),
        ),
      })),
    );
  }

  async function rememberSkus(orders: SquareOrder[]) {
    const missing = [
      ...new Set(
        orders.flatMap((o) => (o.line_items ?? []).map((l) => l.catalog_object_id).filter((id): id is string => !!id)),
      ),
    ].filter((id) => !skus.has(id));
    for (let i = 0; i < missing.length; i += 1000) {
      const ids = missing.slice(i, i + 1000);
      const res = await client.call<{ objects?: CatalogObject[] }>('POST', '/v2/catalog/batch-retrieve', {
        object_ids: ids,
      });
      for (const id of ids) skus.set(id, null);
      for (const o of res.objects ?? []) {
        if (o.type === 'ITEM_VARIATION') skus.set(o.id, (o.item_variation_data?.sku as string | undefined) ?? null);
      }
    }
  }

  async function readItem(id: string): Promise<CatalogObject> {
    try {
      const { object } = await client.call<{ object: CatalogObject }>(
        'GET',
        `/v2/catalog/object/${encodeURIComponent(id)}`,
      );
      if (object.type !== 'ITEM') throw new DomainError('NOT_FOUND', `Square object ${id} is not an item.`);
      return object;
    } catch (err) {
      return asDomainError(err, `find item ${id}`);
    }
  }

  async function readOrder(id: string): Promise<SquareOrder> {
    try {
      const { order } = await client.call<{ order: SquareOrder }>('GET', `/v2/orders/${encodeURIComponent(id)}`);
      return order;
    } catch (err) {
      return asDomainError(err, `find order ${id}`);
    }
  }

  /** Finds the category for a product type, creating it in the same upsert when it does not exist. */
  async function categoryFor(productType: string | null | undefined, objects: Record<string, unknown>[]) {
    if (!productType) return undefined;
    await loadCategories();
    for (const [id, name] of categories) if (name.toLowerCase() === productType.toLowerCase()) return id;
    const temp = '#category';
    objects.push({ type: 'CATEGORY', id: temp, category_data: { name: productType } });
    return temp;
  }

  async function upsert(objects: Record<string, unknown>[], what: string): Promise<CatalogObject> {
    try {
      const res = await client.call<{
        objects?: CatalogObject[];
        id_mappings?: { client_object_id: string; object_id: string }[];
        errors?: { detail?: string }[];
      }>('POST', '/v2/catalog/batch-upsert', { idempotency_key: randomUUID(), batches: [{ objects }] });
      if (res.errors?.length)
        throw new DomainError('VALIDATION', `Square could not ${what}: ${res.errors[0]?.detail ?? ''}`);
      for (const m of res.id_mappings ?? []) {
        if (m.client_object_id === '#category') {
          const category = res.objects?.find((o) => o.id === m.object_id);
          categories.set(m.object_id, String(category?.category_data?.name ?? ''));
        }
      }
      const item = res.objects?.find((o) => o.type === 'ITEM');
      if (!item) throw new DomainError('UPSTREAM_FAILED', `Square did not return the item after trying to ${what}.`);
      for (const v of item.item_data?.variations ?? [])
        skus.set(v.id, (v.item_variation_data?.sku as string | undefined) ?? null);
      return item;
    } catch (err) {
      return asDomainError(err, what);
    }
  }

  function variationObject(
    itemId: string,
    variant: ProductInput['variants'][number],
    price: number,
    currencyCode: string,
    existing?: CatalogObject,
  ) {
    return {
      type: 'ITEM_VARIATION',
      id: existing?.id ?? `#variation-${variant.sku}`,
      ...(existing ? { version: existing.version } : {}),
      item_variation_data: {
        ...existing?.item_variation_data,
        item_id: itemId,
        name: variant.title ?? existing?.item_variation_data?.name ?? 'Regular',
        sku: variant.sku,
        upc: variant.barcode ?? undefined,
        pricing_type: 'FIXED_PRICING',
        price_money: { amount: price, currency: currencyCode },
        track_inventory: true,
      },
    };
  }

  async function sendInventoryBatch(batch: InventorySet[], result: InventorySetResult) {
    let pending = batch;
    while (pending.length > 0) {
      const occurredAt = new Date().toISOString();
      try {
        await client.call('POST', '/v2/inventory/changes/batch-create', {
          idempotency_key: randomUUID(),
          ignore_unchanged_counts: true,
          changes: pending.map((c) => ({
            type: 'PHYSICAL_COUNT',
            physical_count: {
              catalog_object_id: c.inventoryItemId,
              location_id: c.locationExternalId,
              state: 'IN_STOCK',
              quantity: String(Math.max(0, Math.trunc(c.quantity))),
              occurred_at: occurredAt,
            },
          })),
        });
        result.applied.push(...pending);
        return;
      } catch (err) {
        // A batch is all or nothing. When Square names the bad change, set it aside and send the rest.
        const field = squareErrors(err)[0]?.field ?? '';
        const index = /^changes\[(\d+)\]/.exec(field)?.[1];
        const bad = index === undefined ? undefined : pending[Number(index)];
        if (err instanceof ProviderHttpError && err.status === 400 && bad) {
          result.failed.push({ change: bad, reason: describeSquareError(err), mismatch: false });
          pending = pending.filter((c) => c !== bad);
          continue;
        }
        if (err instanceof ProviderHttpError && err.status !== 401) {
          // A refusal (4xx) did not apply; a 5xx may have.
          const uncertain = (err.status ?? 500) >= 500;
          for (const change of pending)
            result.failed.push({ change, reason: describeSquareError(err), mismatch: false, uncertain });
          options.logger.warn(
            { provider: client.label, status: err.status, changes: pending.length },
            'square inventory batch failed',
          );
          return;
        }
        throw err;
      }
    }
  }

  return {
    type: 'square',
    maxInventoryBatch: SQUARE_INVENTORY_BATCH,

    async getShop() {
      const m = await merchant();
      let timezone: string | null = null;
      if (m.main_location_id) {
        const { location } = await client.call<{ location?: SquareLocation }>(
          'GET',
          `/v2/locations/${encodeURIComponent(m.main_location_id)}`,
        );
        timezone = location?.timezone ?? null;
      }
      return { externalId: m.id, name: m.business_name ?? m.id, currency: m.currency ?? 'USD', timezone };
    },

    async listLocations(): Promise<ProviderLocation[]> {
      const { locations } = await client.call<{ locations?: SquareLocation[] }>('GET', '/v2/locations');
      return (locations ?? []).map(mapLocation);
    },

    async listProducts(cursor): Promise<Page<ProviderProduct>> {
      await loadCategories();
      const res = await client.call<{ objects?: CatalogObject[]; cursor?: string }>(
        'GET',
        `/v2/catalog/list?types=ITEM${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      const items = (res.objects ?? []).filter((o) => o.type === 'ITEM');
      // A category created since we last looked: read the categories again.
      const referenced = items.flatMap((o) => (o.item_data?.categories ?? []).map((c) => c.id));
      if (referenced.some((id) => !categories.has(id))) {
        categoriesLoaded = false;
        await loadCategories();
      }
      for (const item of items) {
        for (const v of item.item_data?.variations ?? [])
          skus.set(v.id, (v.item_variation_data?.sku as string | undefined) ?? null);
      }
      return { items: items.map((o) => mapProduct(o, categories)), nextCursor: res.cursor ?? null };
    },

    async getInventoryLevels({ cursor, locationExternalIds }): Promise<Page<InventoryLevel>> {
      const res = await client.call<{
        counts?: { catalog_object_id: string; location_id: string; state: string; quantity: string }[];
        cursor?: string;
      }>('POST', '/v2/inventory/counts/batch-retrieve', {
        states: ['IN_STOCK'],
        limit: 1000,
        ...(locationExternalIds?.length ? { location_ids: locationExternalIds } : {}),
        ...(cursor ? { cursor } : {}),
      });
      return {
        items: (res.counts ?? [])
          .filter((c) => c.state === 'IN_STOCK')
          .map((c) => ({
            inventoryItemId: c.catalog_object_id,
            locationExternalId: c.location_id,
            // Square counts are decimals; we sell whole units.
            available: Math.trunc(Number(c.quantity)),
          })),
        nextCursor: res.cursor ?? null,
      };
    },

    async readInventory(pairs): Promise<InventoryLevel[]> {
      const wanted = new Set(pairs.map((p) => `${p.inventoryItemId}|${p.locationExternalId}`));
      const objectIds = [...new Set(pairs.map((p) => p.inventoryItemId))];
      const locationIds = [...new Set(pairs.map((p) => p.locationExternalId))];
      const out: InventoryLevel[] = [];
      for (let i = 0; i < objectIds.length; i += 1000) {
        let cursor: string | undefined;
        do {
          const res = await client.call<{
            counts?: { catalog_object_id: string; location_id: string; state: string; quantity: string }[];
            cursor?: string;
          }>('POST', '/v2/inventory/counts/batch-retrieve', {
            catalog_object_ids: objectIds.slice(i, i + 1000),
            location_ids: locationIds,
            states: ['IN_STOCK'],
            limit: 1000,
            ...(cursor ? { cursor } : {}),
          });
          for (const c of res.counts ?? []) {
            if (c.state !== 'IN_STOCK' || !wanted.has(`${c.catalog_object_id}|${c.location_id}`)) continue;
            out.push({
              inventoryItemId: c.catalog_object_id,
              locationExternalId: c.location_id,
              available: Math.trunc(Number(c.quantity)),
            });
          }
          cursor = res.cursor;
        } while (cursor);
      }
      // A variation Square holds no count for at a location it sells at holds 0.
      const seen = new Set(out.map((l) => `${l.inventoryItemId}|${l.locationExternalId}`));
      for (const p of pairs) {
        if (!seen.has(`${p.inventoryItemId}|${p.locationExternalId}`)) out.push({ ...p, available: 0 });
      }
      return out;
    },

    /**
     * PHYSICAL_COUNT changes (state IN_STOCK), 100 per request, each request with its own idempotency key
     * (so a retried request is applied once). Square has no compare-and-set: a count is ordered with
     * the seller's own changes by occurred_at, so compareQuantity is not checked.
     */
    async setInventory(changes): Promise<InventorySetResult> {
      const result: InventorySetResult = { applied: [], failed: [] };
      for (let i = 0; i < changes.length; i += SQUARE_INVENTORY_BATCH) {
        await sendInventoryBatch(changes.slice(i, i + SQUARE_INVENTORY_BATCH), result);
      }
      return result;
    },

    async createProduct(input): Promise<ProviderProduct> {
      const currencyCode = await merchantCurrency();
      const objects: Record<string, unknown>[] = [];
      const categoryId = await categoryFor(input.productType, objects);
      objects.push({
        type: 'ITEM',
        id: '#item',
        item_data: {
          name: input.title,
          ...(input.description ? { description: input.description } : {}),
          ...(categoryId ? { categories: [{ id: categoryId }], reporting_category: { id: categoryId } } : {}),
          variations: input.variants.map((v) => variationObject('#item', v, v.price, currencyCode)),
        },
      });
      return mapProduct(await upsert(objects, `create ${input.title}`), categories);
    },

    async updateProduct(externalId, input): Promise<ProviderProduct> {
      const current = await readItem(externalId);
      const currencyCode = await merchantCurrency();
      const objects: Record<string, unknown>[] = [];
      const categoryId = input.productType !== undefined ? await categoryFor(input.productType, objects) : undefined;
      const existing = current.item_data?.variations ?? [];
      // Square replaces an item's variation list with the one sent, so every variation kept is sent.
      const variations = input.variants
        ? [
            ...input.variants.map((v) => {
              const match = existing.find((e) => e.item_variation_data?.sku === v.sku);
              return variationObject(current.id, v, v.price, currencyCode, match);
            }),
            ...existing
              .filter((e) => !input.variants?.some((v) => v.sku === e.item_variation_data?.sku))
              .map((e) => ({ type: e.type, id: e.id, version: e.version, item_variation_data: e.item_variation_data })),
          ]
        : existing.map((e) => ({
            type: e.type,
            id: e.id,
            version: e.version,
            item_variation_data: e.item_variation_data,
          }));
      objects.push({
        type: 'ITEM',
        id: current.id,
        version: current.version,
        item_data: {
          ...current.item_data,
          ...(input.title !== undefined ? { name: input.title } : {}),
          ...(input.description !== undefined ? { description: input.description ?? '' } : {}),
          ...(categoryId ? { categories: [{ id: categoryId }], reporting_category: { id: categoryId } } : {}),
          variations,
        },
      });
      return mapProduct(await upsert(objects, `update ${externalId}`), categories);
    },

    /**
     * Orders updated since `since` (or since the start), oldest change first, over every location in
     * chunks of 10 (SearchOrders' limit). The cursor keeps the original query, as Square requires.
     */
    async listOrders({ cursor, since }): Promise<Page<ProviderOrder>> {
      const state: OrdersCursor = cursor ? decode(cursor) : { s: since ?? null, l: await locationIds(), c: 0, q: null };
      const chunk = state.l.slice(state.c * ORDER_LOCATIONS_PER_SEARCH, (state.c + 1) * ORDER_LOCATIONS_PER_SEARCH);
      if (chunk.length === 0) return { items: [], nextCursor: null };
      const res = await client.call<{ orders?: SquareOrder[]; cursor?: string }>('POST', '/v2/orders/search', {
        location_ids: chunk,
        limit: ORDERS_PAGE,
        return_entries: false,
        query: {
          filter: state.s ? { date_time_filter: { updated_at: { start_at: state.s } } } : {},
          sort: { sort_field: 'UPDATED_AT', sort_order: 'ASC' },
        },
        ...(state.q ? { cursor: state.q } : {}),
      });
      const orders = (res.orders ?? []).filter((o) => !isReturnOrder(o));
      await rememberSkus(orders);
      let next: OrdersCursor | null = null;
      if (res.cursor) next = { ...state, q: res.cursor };
      else if ((state.c + 1) * ORDER_LOCATIONS_PER_SEARCH < state.l.length)
        next = { ...state, c: state.c + 1, q: null };
      return { items: orders.map((o) => mapOrder(o, skus)), nextCursor: next ? encode(next) : null };
    },

    /**
     * A pickup's progress (issue 15): the order's PICKUP fulfillment moves PROPOSED → RESERVED → PREPARED (`ready`)
     * and on to COMPLETED (`picked_up`), one state per UpdateOrder at the order's current version, as the Square
     * Dashboard moves it (keyed by order, version and state, so a retry sends nothing new). A state already reached
     * is a success; an order without a pickup fulfillment, or no longer open, is `unsupported`.
     */
    async updatePickup(input: { orderExternalId: string; state: 'ready' | 'picked_up' }) {
      const flow = ['PROPOSED', 'RESERVED', 'PREPARED', 'COMPLETED'];
      const target = flow.indexOf(input.state === 'ready' ? 'PREPARED' : 'COMPLETED');
      for (let attempt = 0; attempt < 8; attempt++) {
        const order = await readOrder(input.orderExternalId);
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
          await client.call('PUT', `/v2/orders/${encodeURIComponent(order.id)}`, {
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
    },

    /**
     * Ships through the order's SHIPMENT fulfillment: completes the open one with the tracking details,
     * or adds one. Only open orders can change (a POS sale is handed over at the counter and is complete).
     */
    async createFulfillment(input: FulfillmentInput) {
      for (let attempt = 0; ; attempt++) {
        const order = await readOrder(input.orderExternalId);
        if (order.state !== 'OPEN') {
          throw new DomainError('INVALID_STATE', `Square order ${order.id} is ${order.state} and cannot be fulfilled.`);
        }
        const open = (order.fulfillments ?? []).find(
          (f) => f.type === 'SHIPMENT' && !['COMPLETED', 'CANCELED', 'FAILED'].includes(String(f.state)),
        );
        const lines = order.line_items ?? [];
        const partial =
          input.lines.length > 0 &&
          !lines.every((l) =>
            input.lines.some((x) => x.lineExternalId === l.uid && x.quantity >= Number(l.quantity ?? 0)),
          );
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
          await client.call('PUT', `/v2/orders/${encodeURIComponent(order.id)}`, {
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
    },

    /**
     * Refunds against the order's payment (its card tender); Square settles it asynchronously. Square's API
     * makes no itemized return (a return order is the register's): the refund is of money, and its units are
     * ours to restock and push. Our key is Square's idempotency_key, so a retry makes no second refund.
     */
    async refund(input: RefundInput): Promise<RefundResult> {
      const order = await readOrder(input.orderExternalId);
      const tender = (order.tenders ?? []).find((t) => t.id && t.type !== 'NO_SALE');
      if (!tender?.id) throw new DomainError('INVALID_STATE', `Square order ${order.id} has no payment to refund.`);
      const key = input.idempotencyKey
        ? input.idempotencyKey.length <= 45
          ? input.idempotencyKey
          : createHash('sha256').update(input.idempotencyKey).digest('hex').slice(0, 45)
        : randomUUID();
      try {
        const { refund } = await client.call<{ refund: PaymentRefund }>('POST', '/v2/refunds', {
          idempotency_key: key,
          payment_id: tender.id,
          amount_money: { amount: input.amount, currency: input.currency },
          ...(input.reason ? { reason: input.reason.slice(0, 192) } : {}),
        });
        return { externalId: refund.id, ret: mapRefund(refund) };
      } catch (err) {
        return asDomainError(err, `refund order ${order.id}`);
      }
    },

    /**
     * Returns changed since `since`: first the itemized returns (return orders found by SearchOrders, location
     * by location), then the refunds without items (ListPaymentRefunds by updated_at; a refund of a return order
     * is that return's and is left out).
     */
    async listReturns({ cursor, since }): Promise<Page<ProviderReturn>> {
      const state: ReturnsCursor = cursor
        ? decodeReturns(cursor)
        : { p: 'o', s: since ?? null, l: await locationIds(), c: 0, q: null };
      if (state.p === 'o') {
        const chunk = state.l.slice(state.c * ORDER_LOCATIONS_PER_SEARCH, (state.c + 1) * ORDER_LOCATIONS_PER_SEARCH);
        let next: ReturnsCursor = { ...state, p: 'r', q: null };
        const items: ProviderReturn[] = [];
        if (chunk.length > 0) {
          const res = await client.call<{ orders?: SquareReturnOrder[]; cursor?: string }>(
            'POST',
            '/v2/orders/search',
            {
              location_ids: chunk,
              limit: ORDERS_PAGE,
              return_entries: false,
              query: {
                filter: state.s ? { date_time_filter: { updated_at: { start_at: state.s } } } : {},
                sort: { sort_field: 'UPDATED_AT', sort_order: 'ASC' },
              },
              ...(state.q ? { cursor: state.q } : {}),
            },
          );
          const returned = (res.orders ?? []).filter((o) => (o.returns?.length ?? 0) > 0);
          await rememberReturnSkus(returned);
          for (const o of returned) {
            const ret = mapReturnOrder(o, skus);
            if (ret) items.push(ret);
          }
          if (res.cursor) next = { ...state, q: res.cursor };
          else if ((state.c + 1) * ORDER_LOCATIONS_PER_SEARCH < state.l.length)
            next = { ...state, c: state.c + 1, q: null };
        }
        return { items, nextCursor: encodeReturns(next) };
      }
      const params = new URLSearchParams({ sort_field: 'UPDATED_AT', sort_order: 'ASC', limit: '100' });
      if (state.s) params.set('updated_at_begin_time', state.s);
      if (state.q) params.set('cursor', state.q);
      const res = await client.call<{ refunds?: PaymentRefund[]; cursor?: string }>('GET', `/v2/refunds?${params}`);
      const items: ProviderReturn[] = [];
      const orders = new Map<string, SquareReturnOrder | null>();
      for (const r of res.refunds ?? []) {
        if (r.order_id && !orders.has(r.order_id)) orders.set(r.order_id, await tryOrder(r.order_id));
        const order = r.order_id ? orders.get(r.order_id) : null;
        if (order && (order.returns?.length ?? 0) > 0) continue;
        items.push(mapRefund(r));
      }
      return { items, nextCursor: res.cursor ? encodeReturns({ ...state, q: res.cursor }) : null };
    },

    /** A return order by its id, or a refund by its id (read as its return order when it has one). */
    async getReturn(externalId): Promise<ProviderReturn | null> {
      if (externalId.includes('_')) {
        let refund: PaymentRefund;
        try {
          ({ refund } = await client.call<{ refund: PaymentRefund }>(
            'GET',
            `/v2/refunds/${encodeURIComponent(externalId)}`,
          ));
        } catch (err) {
          if (err instanceof ProviderHttpError && err.status === 404) return null;
          throw err;
        }
        const order = refund.order_id ? await tryOrder(refund.order_id) : null;
        if (order && (order.returns?.length ?? 0) > 0) {
          await rememberReturnSkus([order]);
          return mapReturnOrder(order, skus);
        }
        return mapRefund(refund);
      }
      const order = await tryOrder(externalId);
      if (!order || (order.returns?.length ?? 0) === 0) return null;
      await rememberReturnSkus([order]);
      return mapReturnOrder(order, skus);
    },

    async getOrder(externalId): Promise<ProviderOrder | null> {
      let order: SquareOrder;
      try {
        ({ order } = await client.call<{ order: SquareOrder }>('GET', `/v2/orders/${encodeURIComponent(externalId)}`));
      } catch (err) {
        if (err instanceof ProviderHttpError && err.status === 404) return null;
        throw err;
      }
      // A return order (items given back at the register) is a return, not a sale (listReturns).
      if (isReturnOrder(order)) return null;
      await rememberSkus([order]);
      return mapOrder(order, skus);
    },

    async getOrders(externalIds): Promise<Map<string, ProviderOrder | null>> {
      const found = new Map<string, ProviderOrder | null>(externalIds.map((id) => [id, null]));
      for (let i = 0; i < externalIds.length; i += 100) {
        const { orders = [] } = await client.call<{ orders?: SquareOrder[] }>('POST', '/v2/orders/batch-retrieve', {
          order_ids: externalIds.slice(i, i + 100),
        });
        // Return orders are returns, not sales (as getOrder); ids Square does not know are left out of its answer.
        const sales = orders.filter((o) => !isReturnOrder(o));
        await rememberSkus(sales);
        for (const order of sales) found.set(order.id, mapOrder(order, skus));
      }
      return found;
    },

    /**
     * UpdateOrder to CANCELED at the order's current version, its open fulfillments cancelled with the reason.
     * Square cancels only what has not been paid: a paid order ("Orders cannot be canceled after payments
     * have been processed") or a completed one is the seller's to cancel and refund in Square's Order
     * Manager, so it answers `unsupported`. Cancelling a cancelled order is a success.
     */
    async cancelOrder({ externalId, reason }) {
      for (let attempt = 0; ; attempt++) {
        const order = await readOrder(externalId);
        if (order.state === 'CANCELED') return { ok: true };
        if (order.state === 'COMPLETED')
          return { unsupported: `Square order ${order.id} is completed: refund or return it in Square.` };
        // A card only authorized (delayed capture), voided or failed has not been processed.
        const processed = (order.tenders ?? []).filter(
          (t) => !['AUTHORIZED', 'VOIDED', 'FAILED'].includes(t.card_details?.status ?? ''),
        );
        if (processed.length > 0)
          return {
            unsupported: `Square order ${order.id} has been paid, and Square cancels only unpaid orders: cancel and refund it in Square's Order Manager.`,
          };
        const cancelReason = reason ? reason.slice(0, 100) : undefined;
        const fulfillments = cancelReason
          ? (order.fulfillments ?? [])
              .filter((f) => f.uid && !['COMPLETED', 'CANCELED', 'FAILED'].includes(String(f.state)))
              .map((f) => ({
                uid: f.uid,
                ...(f.type === 'PICKUP' ? { pickup_details: { cancel_reason: cancelReason } } : {}),
                ...(f.type === 'SHIPMENT' ? { shipment_details: { cancel_reason: cancelReason } } : {}),
              }))
          : [];
        try {
          await client.call('PUT', `/v2/orders/${encodeURIComponent(order.id)}`, {
            idempotency_key: randomUUID(),
            order: {
              location_id: order.location_id,
              version: order.version,
              state: 'CANCELED',
              ...(fulfillments.length > 0 ? { fulfillments } : {}),
            },
          });
          return { ok: true };
        } catch (err) {
          // Someone changed the order between our read and write: read it again once.
          if (squareErrorCode(err) === 'VERSION_MISMATCH' && attempt === 0) continue;
          const first = squareErrors(err)[0];
          if (err instanceof ProviderHttpError && err.status === 400 && first?.field === 'order.state')
            return { unsupported: `Square would not cancel order ${order.id}: ${first.detail ?? first.code}` };
          return asDomainError(err, `cancel order ${order.id}`);
        }
      }
    },

    /** Square's subscriptions belong to the application (developer console), not to each seller. */
    async subscribeWebhooks() {},
  };
}
