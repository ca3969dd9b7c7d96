import { createRng, type Rng, seedFrom } from '../rng.ts';
import { type SeedOptions, seedCatalog } from '../seed.ts';
import { squareId } from './ids.ts';

/** A Square error, rendered as `{"errors":[{category, code, detail, field}]}` with its HTTP status. */
export class SquareError extends Error {
  readonly status: number;
  readonly category: string;
  readonly code: string;
  readonly field: string | undefined;
  constructor(status: number, category: string, code: string, detail: string, field?: string) {
    super(detail);
    this.status = status;
    this.category = category;
    this.code = code;
    this.field = field;
  }
}

export const invalid = (code: string, detail: string, field?: string) =>
  new SquareError(400, 'INVALID_REQUEST_ERROR', code, detail, field);

export type Environment = 'production' | 'sandbox';
export type Json = Record<string, unknown>;

export interface Money {
  amount: number;
  currency: string;
}

export interface CatalogObject {
  type: 'ITEM' | 'ITEM_VARIATION' | 'CATEGORY';
  id: string;
  updated_at: string;
  created_at: string;
  version: number;
  is_deleted: boolean;
  present_at_all_locations: boolean;
  item_data?: Json;
  item_variation_data?: Json;
  category_data?: Json;
}

export interface SquareLocation {
  id: string;
  name: string;
  merchant_id: string;
  status: 'ACTIVE' | 'INACTIVE';
  type: 'PHYSICAL';
  timezone: string;
  currency: string;
  country: string;
  language_code: string;
  created_at: string;
  capabilities: string[];
  business_name: string;
  address: {
    address_line_1: string;
    locality: string;
    administrative_district_level_1: string;
    postal_code: string;
    country: string;
  };
}

interface LedgerEntry {
  occurredAt: number;
  seq: number;
  /** A physical count sets the quantity; an adjustment moves it. */
  kind: 'count' | 'delta';
  quantity: number;
}

export interface InventoryCount {
  catalog_object_id: string;
  catalog_object_type: 'ITEM_VARIATION';
  state: string;
  location_id: string;
  quantity: string;
  calculated_at: string;
  is_estimated: false;
}

interface CountRecord {
  objectId: string;
  locationId: string;
  state: string;
  quantity: number;
  calculatedAt: string;
  ledger: LedgerEntry[];
}

export interface Order extends Json {
  id: string;
  location_id: string;
  state: 'OPEN' | 'COMPLETED' | 'CANCELED' | 'DRAFT';
  version: number;
  created_at: string;
  updated_at: string;
  closed_at?: string;
  line_items: Json[];
  fulfillments: Json[];
  tenders: Json[];
  refunds: Json[];
  /** Itemized returns (a return order's): each names its sale and the lines given back. */
  returns?: Json[];
  total_money: Money;
}

export interface Payment extends Json {
  id: string;
  order_id: string;
  location_id: string;
  receipt_number: string;
  amount_money: Money;
  refunded_money: Money;
  status: 'COMPLETED';
}

export interface Refund extends Json {
  id: string;
  status: 'PENDING' | 'COMPLETED' | 'REJECTED' | 'FAILED';
  payment_id: string;
  order_id: string;
  location_id: string;
  amount_money: Money;
}

/** One fulfillment's state change, as order.fulfillment.updated reports it. */
export interface FulfillmentUpdate {
  fulfillment_uid: string;
  old_state?: string;
  new_state: string;
}

/** What an inventory or order change tells the app (turned into webhooks by the simulator). */
export type SquareEvent =
  | { type: 'inventory.count.updated'; counts: InventoryCount[] }
  | { type: 'order.created' | 'order.updated'; order: Order }
  | { type: 'order.fulfillment.updated'; order: Order; updates: FulfillmentUpdate[] }
  | { type: 'refund.created' | 'refund.updated'; refund: Refund }
  | { type: 'catalog.version.updated'; updatedAt: string };

export const STATES = new Set([
  'IN_STOCK',
  'SOLD',
  'RETURNED_BY_CUSTOMER',
  'RESERVED_FOR_SALE',
  'SOLD_ONLINE',
  'ORDERED_FROM_VENDOR',
  'RECEIVED_FROM_VENDOR',
  'IN_TRANSIT_TO',
  'IN_TRANSIT',
  'NONE',
  'WASTE',
  'UNLINKED_RETURN',
]);

const TIMEZONES: Record<string, string> = {
  OR: 'America/Los_Angeles',
  WA: 'America/Los_Angeles',
  ID: 'America/Boise',
};

const DEFAULT_SEED = 20261122;
const DAY = 24 * 60 * 60 * 1000;

/** One seller on one Square environment: locations, catalog, inventory ledger, orders, payments, refunds. */
export class Merchant {
  readonly id: string;
  readonly environment: Environment;
  businessName: string;
  currency = 'USD';
  createdAt = new Date().toISOString();
  locations: SquareLocation[] = [];
  objects = new Map<string, CatalogObject>();
  /** Catalog ids in creation order (ListCatalog's order). */
  order: string[] = [];
  counts = new Map<string, CountRecord>();
  orders = new Map<string, Order>();
  /** Orders whose lines have moved IN_STOCK → SOLD (and not back): automatic tracking moves each once. */
  stockMoved = new Set<string>();
  payments = new Map<string, Payment>();
  refunds = new Map<string, Refund>();
  /** idempotency_key → the request's fingerprint and the answer given. */
  idempotency = new Map<string, { fingerprint: string; body: unknown }>();
  /** Rate limit: a token bucket per seller. */
  bucket = { tokens: 0, last: 0 };
  /** Catalog writes are serialized per seller; a concurrent one gets a 429. */
  catalogWriteBusy = false;
  private rng: Rng;
  private clock = 0;
  private seq = 0;
  private readonly emit: (event: SquareEvent) => void;

  constructor(
    id: string,
    environment: Environment,
    businessName: string,
    emit: (event: SquareEvent) => void,
    seed: SeedOptions & { seed?: number },
  ) {
    this.id = id;
    this.environment = environment;
    this.businessName = businessName;
    this.emit = emit;
    this.rng = createRng(seedFrom(id));
    this.seed(seed);
  }

  /** A strictly increasing millisecond clock for catalog versions and timestamps. */
  tick(): number {
    this.clock = Math.max(Date.now(), this.clock + 1);
    return this.clock;
  }

  now(): string {
    return new Date(this.tick()).toISOString();
  }

  /** Replaces everything the seller holds with a freshly seeded shop. */
  seed(options: SeedOptions & { seed?: number }) {
    const seed = (options.seed ?? DEFAULT_SEED) ^ seedFrom(this.id);
    const catalog = seedCatalog({ ...options, seed });
    this.rng = createRng(seed);
    this.objects.clear();
    this.order = [];
    this.counts.clear();
    this.orders.clear();
    this.stockMoved.clear();
    this.payments.clear();
    this.refunds.clear();
    this.idempotency.clear();
    this.currency = catalog.currency;
    const created = new Date(this.tick() - 30 * DAY).toISOString();
    this.locations = catalog.locations.map((l) => ({
      id: squareId.stable(`${this.id}:location:${l.key}`, 13),
      name: l.name,
      merchant_id: this.id,
      status: 'ACTIVE',
      type: 'PHYSICAL',
      timezone: TIMEZONES[l.province] ?? 'America/Los_Angeles',
      currency: catalog.currency,
      country: l.country,
      language_code: 'en-US',
      created_at: created,
      capabilities: ['CREDIT_CARD_PROCESSING', 'AUTOMATIC_TRANSFERS'],
      business_name: this.businessName,
      address: {
        address_line_1: l.address1,
        locality: l.city,
        administrative_district_level_1: l.province,
        postal_code: l.zip,
        country: l.country,
      },
    }));
    const locationIds = new Map(catalog.locations.map((l, i) => [l.key, this.locations[i]?.id as string]));
    const categories = new Map<string, string>();
    for (const product of catalog.products) {
      let categoryId = categories.get(product.productType);
      if (!categoryId) {
        categoryId = squareId.stable(`${this.id}:category:${product.productType}`);
        categories.set(product.productType, categoryId);
        this.put({
          type: 'CATEGORY',
          id: categoryId,
          category_data: { name: product.productType, category_type: 'REGULAR_CATEGORY', is_top_level: true },
        });
      }
      const itemId = squareId.stable(`${this.id}:item:${product.handle}`);
      this.put({
        type: 'ITEM',
        id: itemId,
        item_data: {
          name: product.title,
          description: product.description,
          product_type: 'REGULAR',
          categories: [{ id: categoryId, ordinal: 0 }],
          reporting_category: { id: categoryId, ordinal: 0 },
          is_archived: false,
        },
      });
      product.variants.forEach((v, ordinal) => {
        const variationId = squareId.stable(`${this.id}:variation:${v.sku}`);
        this.put({
          type: 'ITEM_VARIATION',
          id: variationId,
          item_variation_data: {
            item_id: itemId,
            name: v.title,
            sku: v.sku,
            upc: v.barcode,
            ordinal,
            pricing_type: 'FIXED_PRICING',
            price_money: { amount: v.price, currency: catalog.currency },
            track_inventory: true,
            sellable: true,
            stockable: true,
          },
        });
        for (const [key, quantity] of catalog.stock.get(v.sku) ?? []) {
          const locationId = locationIds.get(key);
          if (locationId) this.record(variationId, locationId, 'IN_STOCK', 'count', quantity, Date.parse(created));
        }
      });
    }
    // A few POS sales from the past days and two open online orders awaiting shipment.
    const variations = [...this.objects.values()].filter((o) => o.type === 'ITEM_VARIATION');
    for (let i = 0; i < 6 && variations.length > 0 && this.locations.length > 0; i++) {
      const lines = Array.from({ length: this.rng.int(1, 3) }, () => ({
        variation: this.rng.pick(variations),
        quantity: this.rng.int(1, 2),
      }));
      const at = Date.parse(created) + (i + 1) * 4 * DAY + this.rng.int(0, DAY);
      const location = this.locations[i % this.locations.length] as SquareLocation;
      const order = this.buildOrder(location.id, lines, new Date(at).toISOString(), i < 4 ? 'COMPLETED' : 'OPEN');
      if (i >= 4) {
        order.fulfillments = [
          {
            uid: squareId.uid(this.rng),
            type: 'SHIPMENT',
            state: 'PROPOSED',
            line_item_application: 'ALL',
            shipment_details: {
              recipient: {
                display_name: i === 4 ? 'Ada Lovelace' : 'Grace Hopper',
                email_address: i === 4 ? 'ada@example.com' : 'grace@example.com',
                address: {
                  address_line_1: '1 Analytical Way',
                  locality: 'Portland',
                  administrative_district_level_1: 'OR',
                  postal_code: '97201',
                  country: 'US',
                },
              },
            },
          },
        ];
        order.source = { name: 'Square Online' };
      }
      // Paid before the seeded counts were taken: their stock has moved already.
      this.orders.set(order.id, order);
      this.stockMoved.add(order.id);
    }
  }

  private put(
    object: Omit<CatalogObject, 'updated_at' | 'created_at' | 'version' | 'is_deleted' | 'present_at_all_locations'>,
  ) {
    const version = this.tick();
    const at = new Date(version).toISOString();
    this.objects.set(object.id, {
      ...object,
      updated_at: at,
      created_at: at,
      version,
      is_deleted: false,
      present_at_all_locations: true,
    });
    this.order.push(object.id);
  }

  location(id: string): SquareLocation | undefined {
    return this.locations.find((l) => l.id === id);
  }

  variationBySku(sku: string): CatalogObject | undefined {
    for (const o of this.objects.values()) {
      if (o.type === 'ITEM_VARIATION' && !o.is_deleted && o.item_variation_data?.sku === sku) return o;
    }
    return undefined;
  }

  /** An ITEM as Square returns it: with its live variations inline. */
  render(object: CatalogObject): CatalogObject {
    if (object.type !== 'ITEM') return structuredClone(object);
    const variations = [...this.objects.values()]
      .filter((o) => o.type === 'ITEM_VARIATION' && !o.is_deleted && o.item_variation_data?.item_id === object.id)
      .sort((a, b) => Number(a.item_variation_data?.ordinal ?? 0) - Number(b.item_variation_data?.ordinal ?? 0));
    return structuredClone({ ...object, item_data: { ...object.item_data, variations } });
  }

  // ---- Catalog writes --------------------------------------------------------------------------------

  /**
   * Upserts objects as one atomic batch: `#temp` ids become real ids (reported in id_mappings), an update
   * must carry the object's current version, and an ITEM's inline variations are upserted with it.
   */
  upsertBatch(input: Json[]): {
    objects: CatalogObject[];
    idMappings: { client_object_id: string; object_id: string }[];
  } {
    const mappings = new Map<string, string>();
    const pending: Json[] = [];
    const flatten = (raw: Json, itemId?: string) => {
      if (raw.type === 'ITEM') {
        const data = (raw.item_data ?? {}) as Json;
        const variations = Array.isArray(data.variations) ? (data.variations as Json[]) : [];
        pending.push({ ...raw, item_data: { ...data, variations: undefined } });
        for (const v of variations) flatten(v, raw.id as string);
      } else if (raw.type === 'ITEM_VARIATION') {
        const data = (raw.item_variation_data ?? {}) as Json;
        pending.push({ ...raw, item_variation_data: { ...data, item_id: data.item_id ?? itemId } });
      } else if (raw.type === 'CATEGORY') {
        pending.push(raw);
      } else {
        throw invalid('INVALID_VALUE', `Object type ${String(raw.type)} is not supported.`, 'type');
      }
    };
    for (const raw of input) flatten(raw);
    // Validate everything first: a batch is all or nothing.
    for (const raw of pending) {
      const id = raw.id;
      if (typeof id !== 'string' || id === '')
        throw invalid('MISSING_REQUIRED_PARAMETER', 'Object id is required.', 'id');
      if (id.startsWith('#')) {
        if (!mappings.has(id)) mappings.set(id, squareId.catalog(this.rng));
        continue;
      }
      const current = this.objects.get(id);
      if (!current || current.is_deleted)
        throw new SquareError(404, 'INVALID_REQUEST_ERROR', 'NOT_FOUND', `Object \`${id}\` not found.`, 'id');
      if (current.type !== raw.type) throw invalid('INVALID_VALUE', `Object \`${id}\` is a ${current.type}.`, 'type');
      if (raw.version === undefined || Number(raw.version) !== current.version) {
        throw invalid(
          'VERSION_MISMATCH',
          `Object version does not match for object \`${id}\`: the current version is ${current.version}.`,
          'version',
        );
      }
    }
    const resolve = (id: unknown) => (typeof id === 'string' && id.startsWith('#') ? (mappings.get(id) ?? id) : id);
    for (const raw of pending) {
      if (raw.type === 'ITEM_VARIATION') {
        const data = raw.item_variation_data as Json;
        const itemId = resolve(data.item_id);
        const item = typeof itemId === 'string' ? this.objects.get(itemId) : undefined;
        const inBatch = pending.some((p) => p.type === 'ITEM' && resolve(p.id) === itemId);
        if (!inBatch && (item?.type !== 'ITEM' || item.is_deleted)) {
          throw invalid(
            'INVALID_VALUE',
            'Item variation must reference an existing item.',
            'item_variation_data.item_id',
          );
        }
      }
    }
    const written: CatalogObject[] = [];
    for (const raw of pending) {
      const id = resolve(raw.id) as string;
      const existing = this.objects.get(id);
      const version = this.tick();
      const at = new Date(version).toISOString();
      const { type } = raw as { type: CatalogObject['type'] };
      const next: CatalogObject = {
        type,
        id,
        created_at: existing?.created_at ?? at,
        updated_at: at,
        version,
        is_deleted: false,
        present_at_all_locations: raw.present_at_all_locations !== false,
      };
      if (type === 'ITEM') {
        const { variations: _ignored, ...data } = (raw.item_data ?? {}) as Json;
        next.item_data = { ...existing?.item_data, ...data };
      } else if (type === 'ITEM_VARIATION') {
        const data = raw.item_variation_data as Json;
        next.item_variation_data = { ...existing?.item_variation_data, ...data, item_id: resolve(data.item_id) };
      } else {
        next.category_data = { ...existing?.category_data, ...(raw.category_data as Json) };
      }
      this.objects.set(id, next);
      if (!existing) this.order.push(id);
      written.push(next);
    }
    this.emit({ type: 'catalog.version.updated', updatedAt: new Date(this.clock).toISOString() });
    return {
      objects: written.filter((o) => input.some((raw) => resolve(raw.id) === o.id)).map((o) => this.render(o)),
      idMappings: [...mappings].map(([client_object_id, object_id]) => ({ client_object_id, object_id })),
    };
  }

  // ---- Inventory -------------------------------------------------------------------------------------

  private key(objectId: string, locationId: string, state: string) {
    return `${objectId}|${locationId}|${state}`;
  }

  quantity(objectId: string, locationId: string, state = 'IN_STOCK'): number {
    return this.counts.get(this.key(objectId, locationId, state))?.quantity ?? 0;
  }

  /** Adds a ledger entry and recomputes: the last physical count plus every later adjustment, by occurred_at. */
  record(
    objectId: string,
    locationId: string,
    state: string,
    kind: 'count' | 'delta',
    quantity: number,
    occurredAt: number,
  ) {
    const key = this.key(objectId, locationId, state);
    let count = this.counts.get(key);
    if (!count) {
      count = { objectId, locationId, state, quantity: 0, calculatedAt: '', ledger: [] };
      this.counts.set(key, count);
    }
    count.ledger.push({ occurredAt, seq: ++this.seq, kind, quantity });
    count.ledger.sort((a, b) => a.occurredAt - b.occurredAt || a.seq - b.seq);
    let total = 0;
    for (const entry of count.ledger) total = entry.kind === 'count' ? entry.quantity : total + entry.quantity;
    // No new change may be older than 24 hours, so everything before that folds into one count.
    const horizon = Date.now() - DAY - 60_000;
    const old = count.ledger.filter((e) => e.occurredAt < horizon);
    if (old.length > 1) {
      let folded = 0;
      for (const entry of old) folded = entry.kind === 'count' ? entry.quantity : folded + entry.quantity;
      const last = old[old.length - 1] as LedgerEntry;
      count.ledger = [
        { occurredAt: last.occurredAt, seq: last.seq, kind: 'count', quantity: folded },
        ...count.ledger.slice(old.length),
      ];
    }
    count.quantity = total;
    count.calculatedAt = this.now();
    return count;
  }

  renderCount(objectId: string, locationId: string, state = 'IN_STOCK'): InventoryCount {
    const count = this.counts.get(this.key(objectId, locationId, state));
    return {
      catalog_object_id: objectId,
      catalog_object_type: 'ITEM_VARIATION',
      state,
      location_id: locationId,
      quantity: String(count?.quantity ?? 0),
      calculated_at: count?.calculatedAt || this.now(),
      is_estimated: false,
    };
  }

  allCounts(): InventoryCount[] {
    return [...this.counts.values()].map((c) => this.renderCount(c.objectId, c.locationId, c.state));
  }

  /**
   * BatchChangeInventory: validates every change first (all or nothing), then applies them and reports the
   * counts that changed. Returns the created changes (with ids) and the current counts of every object touched.
   */
  applyChanges(changes: Json[], ignoreUnchanged: boolean): { changes: Json[]; counts: InventoryCount[] } {
    const now = Date.now();
    type Parsed = {
      raw: Json;
      kind: 'count' | 'adjust';
      objectId: string;
      locationId: string;
      from: string;
      to: string;
      quantity: number;
      at: number;
    };
    const parsed: Parsed[] = changes.map((change, i) => {
      const field = `changes[${i}]`;
      const kind = change.type === 'PHYSICAL_COUNT' ? 'count' : change.type === 'ADJUSTMENT' ? 'adjust' : null;
      if (!kind) throw invalid('INVALID_ENUM_VALUE', `Expected PHYSICAL_COUNT or ADJUSTMENT.`, `${field}.type`);
      const body = (kind === 'count' ? change.physical_count : change.adjustment) as Json | undefined;
      const path = `${field}.${kind === 'count' ? 'physical_count' : 'adjustment'}`;
      if (!body) throw invalid('MISSING_REQUIRED_PARAMETER', `Field \`${path}\` is required.`, path);
      const objectId = String(body.catalog_object_id ?? '');
      const object = this.objects.get(objectId);
      if (!object || object.is_deleted || object.type !== 'ITEM_VARIATION') {
        throw invalid(
          'INVALID_VALUE',
          `Catalog object \`${objectId}\` is not an item variation.`,
          `${path}.catalog_object_id`,
        );
      }
      const locationId = String(body.location_id ?? '');
      if (!this.location(locationId))
        throw invalid('INVALID_VALUE', `Location \`${locationId}\` not found.`, `${path}.location_id`);
      const quantityText = String(body.quantity ?? '');
      if (!/^-?\d+(\.\d{1,5})?$/.test(quantityText)) {
        throw invalid('INVALID_VALUE', 'Quantity must be a decimal string.', `${path}.quantity`);
      }
      const quantity = Number(quantityText);
      if (quantity < 0) throw invalid('INVALID_VALUE', 'Quantity must not be negative.', `${path}.quantity`);
      const at = body.occurred_at === undefined ? now : Date.parse(String(body.occurred_at));
      if (Number.isNaN(at))
        throw invalid('INVALID_TIME', 'occurred_at is not an RFC 3339 timestamp.', `${path}.occurred_at`);
      if (at > now + 60_000) throw invalid('INVALID_TIME', 'occurred_at is in the future.', `${path}.occurred_at`);
      if (at < now - DAY)
        throw invalid('INVALID_TIME', 'occurred_at is more than 24 hours ago.', `${path}.occurred_at`);
      let from = 'NONE';
      let to = String(body.state ?? '');
      if (kind === 'adjust') {
        from = String(body.from_state ?? '');
        to = String(body.to_state ?? '');
        if (!STATES.has(from)) throw invalid('INVALID_ENUM_VALUE', 'Unknown from_state.', `${path}.from_state`);
        if (from === to) throw invalid('INVALID_VALUE', 'from_state and to_state must differ.', `${path}.to_state`);
      }
      if (!STATES.has(to) || to === 'NONE')
        throw invalid('INVALID_ENUM_VALUE', 'Unknown state.', `${path}.${kind === 'count' ? 'state' : 'to_state'}`);
      return { raw: change, kind, objectId, locationId, from, to, quantity, at };
    });
    const created: Json[] = [];
    const touched = new Map<string, { objectId: string; locationId: string; state: string }>();
    const note = (objectId: string, locationId: string, state: string) =>
      touched.set(this.key(objectId, locationId, state), { objectId, locationId, state });
    const changed: InventoryCount[] = [];
    for (const c of parsed) {
      const id = squareId.catalog(this.rng);
      const occurred_at = new Date(c.at).toISOString();
      const created_at = this.now();
      if (c.kind === 'count') {
        note(c.objectId, c.locationId, c.to);
        if (ignoreUnchanged && this.quantity(c.objectId, c.locationId, c.to) === c.quantity) continue;
        this.record(c.objectId, c.locationId, c.to, 'count', c.quantity, c.at);
        changed.push(this.renderCount(c.objectId, c.locationId, c.to));
        const body = c.raw.physical_count as Json;
        created.push({
          type: 'PHYSICAL_COUNT',
          physical_count: {
            ...body,
            id,
            quantity: String(c.quantity),
            occurred_at,
            created_at,
            catalog_object_type: 'ITEM_VARIATION',
          },
        });
      } else {
        if (c.from !== 'NONE') {
          this.record(c.objectId, c.locationId, c.from, 'delta', -c.quantity, c.at);
          note(c.objectId, c.locationId, c.from);
          changed.push(this.renderCount(c.objectId, c.locationId, c.from));
        }
        this.record(c.objectId, c.locationId, c.to, 'delta', c.quantity, c.at);
        note(c.objectId, c.locationId, c.to);
        changed.push(this.renderCount(c.objectId, c.locationId, c.to));
        const body = c.raw.adjustment as Json;
        created.push({
          type: 'ADJUSTMENT',
          adjustment: {
            ...body,
            id,
            quantity: String(c.quantity),
            occurred_at,
            created_at,
            catalog_object_type: 'ITEM_VARIATION',
          },
        });
      }
    }
    this.announce(changed);
    return {
      changes: created,
      counts: [...touched.values()].map((t) => this.renderCount(t.objectId, t.locationId, t.state)),
    };
  }

  /** Sends inventory.count.updated for the counts that changed (IN_STOCK and the other states alike). */
  private announce(counts: InventoryCount[]) {
    const latest = new Map(counts.map((c) => [`${c.catalog_object_id}|${c.location_id}|${c.state}`, c]));
    const list = [...latest.values()];
    for (let i = 0; i < list.length; i += 100)
      this.emit({ type: 'inventory.count.updated', counts: list.slice(i, i + 100) });
  }

  /** As if changed in the Square Dashboard: a physical count (quantity) or a receive / waste adjustment (delta). */
  adjust(sku: string, locationId: string | undefined, change: { quantity?: number; delta?: number }) {
    const variation = this.variationBySku(sku);
    if (!variation) throw new SquareError(404, 'INVALID_REQUEST_ERROR', 'NOT_FOUND', `No variation with SKU ${sku}.`);
    const location = locationId ? this.location(locationId) : this.locations[0];
    if (!location)
      throw new SquareError(404, 'INVALID_REQUEST_ERROR', 'NOT_FOUND', `Location ${locationId} not found.`);
    const at = new Date().toISOString();
    if (change.quantity !== undefined) {
      this.applyChanges(
        [
          {
            type: 'PHYSICAL_COUNT',
            physical_count: {
              catalog_object_id: variation.id,
              location_id: location.id,
              state: 'IN_STOCK',
              quantity: String(change.quantity),
              occurred_at: at,
            },
          },
        ],
        false,
      );
    } else if (change.delta) {
      const up = change.delta > 0;
      this.applyChanges(
        [
          {
            type: 'ADJUSTMENT',
            adjustment: {
              catalog_object_id: variation.id,
              location_id: location.id,
              from_state: up ? 'NONE' : 'IN_STOCK',
              to_state: up ? 'IN_STOCK' : 'WASTE',
              quantity: String(Math.abs(change.delta)),
              occurred_at: at,
            },
          },
        ],
        false,
      );
    }
  }

  // ---- Orders ----------------------------------------------------------------------------------------
  //
  // Stock follows Square's automatic inventory tracking: an order moves its catalog lines IN_STOCK → SOLD at
  // its location once, when it is fully paid (a POS sale is paid and COMPLETED at once; a Square Online
  // pickup or shipment order is paid at checkout and stays OPEN until fulfilled; an unpaid one moves when it
  // is paid or completed). An order cancelled by the seller in Square's Order Manager puts the units it had
  // moved back (SOLD → IN_STOCK); the API cannot cancel a paid order at all.

  /** A line item as Square renders it: catalog name and price, and the line's computed money. */
  private lineItem(variation: CatalogObject, quantity: number, uid?: string): Json {
    const data = variation.item_variation_data as Json;
    const item = this.objects.get(String(data.item_id));
    const price = data.price_money as Money;
    const total = { amount: price.amount * quantity, currency: price.currency };
    return {
      uid: uid ?? squareId.uid(this.rng),
      catalog_object_id: variation.id,
      catalog_version: variation.version,
      quantity: String(quantity),
      name: String(item?.item_data?.name ?? data.name),
      variation_name: String(data.name),
      item_type: 'ITEM',
      base_price_money: price,
      variation_total_price_money: total,
      gross_sales_money: total,
      total_tax_money: { amount: 0, currency: price.currency },
      total_discount_money: { amount: 0, currency: price.currency },
      total_money: total,
    };
  }

  /** Recomputes an order's totals from its lines and what has been paid. */
  private totals(order: Order) {
    const sum = (key: string) =>
      order.line_items.reduce((s, l) => s + Number((l[key] as Money | undefined)?.amount ?? 0), 0);
    const money = (amount: number) => ({ amount, currency: this.currency });
    const total = sum('total_money');
    const paid = order.tenders.reduce((s, t) => s + Number((t.amount_money as Money | undefined)?.amount ?? 0), 0);
    order.total_money = money(total);
    order.total_tax_money = money(sum('total_tax_money'));
    order.total_discount_money = money(sum('total_discount_money'));
    order.total_tip_money = money(0);
    order.total_service_charge_money = money(0);
    order.net_amount_due_money = money(Math.max(0, total - paid));
    order.net_amounts = {
      total_money: money(total),
      tax_money: money(sum('total_tax_money')),
      discount_money: money(sum('total_discount_money')),
      tip_money: money(0),
      service_charge_money: money(0),
    };
  }

  /** A captured card payment for the whole amount due, recorded as the order's tender. */
  private payInFull(order: Order, at: string) {
    const due = order.net_amount_due_money as Money;
    const paymentId = squareId.payment(this.rng);
    const money = { amount: due.amount, currency: due.currency };
    this.payments.set(paymentId, {
      id: paymentId,
      order_id: order.id,
      location_id: order.location_id,
      receipt_number: paymentId.slice(0, 4),
      amount_money: money,
      total_money: money,
      refunded_money: { amount: 0, currency: due.currency },
      status: 'COMPLETED',
      source_type: 'CARD',
      created_at: at,
      updated_at: at,
    });
    order.tenders.push({
      id: paymentId,
      location_id: order.location_id,
      transaction_id: order.id,
      created_at: at,
      amount_money: money,
      type: 'CARD',
      card_details: { status: 'CAPTURED', entry_method: 'KEYED' },
      payment_id: paymentId,
    });
    this.totals(order);
  }

  private buildOrder(
    locationId: string,
    lines: { variation: CatalogObject; quantity: number }[],
    at: string,
    state: 'OPEN' | 'COMPLETED',
  ): Order {
    const id = squareId.order(this.rng);
    const order: Order = {
      id,
      location_id: locationId,
      source: { name: 'Square Point of Sale' },
      state,
      version: 1,
      created_at: at,
      updated_at: at,
      ...(state === 'COMPLETED' ? { closed_at: at } : {}),
      line_items: lines.map(({ variation, quantity }) => this.lineItem(variation, quantity)),
      fulfillments: [],
      tenders: [],
      refunds: [],
      total_money: { amount: 0, currency: this.currency },
    };
    this.totals(order);
    this.payInFull(order, at);
    return order;
  }

  private resolveLines(lines: { sku: string; quantity: number }[]) {
    if (!Array.isArray(lines) || lines.length === 0)
      throw invalid('MISSING_REQUIRED_PARAMETER', 'An order needs at least one line.', 'line_items');
    return lines.map((l) => {
      const variation = this.variationBySku(l.sku);
      if (!variation)
        throw new SquareError(404, 'INVALID_REQUEST_ERROR', 'NOT_FOUND', `No variation with SKU ${l.sku}.`);
      if (!Number.isInteger(l.quantity) || l.quantity < 1)
        throw invalid('INVALID_VALUE', 'Quantity must be a positive integer.');
      return { variation, quantity: l.quantity };
    });
  }

  /** A POS sale at a location: a paid, completed order; stock moves IN_STOCK → SOLD. */
  sell(lines: { sku: string; quantity: number }[], locationId?: string): Order {
    const location = locationId ? this.location(locationId) : this.locations[0];
    if (!location)
      throw new SquareError(404, 'INVALID_REQUEST_ERROR', 'NOT_FOUND', `Location ${locationId} not found.`);
    const resolved = this.resolveLines(lines);
    const order = this.buildOrder(location.id, resolved, this.now(), 'COMPLETED');
    this.orders.set(order.id, order);
    this.emit({ type: 'order.created', order });
    this.decrement(order);
    return order;
  }

  /**
   * CreateOrder: an OPEN (or DRAFT) order at a location, with catalog or ad hoc lines and PICKUP or SHIPMENT
   * fulfillments (each starts PROPOSED). Unpaid, so no stock moves yet.
   */
  createOrder(input: Json, source: { name: string } = { name: 'Switchyard' }): Order {
    const locationId = input.location_id;
    if (typeof locationId !== 'string' || locationId === '')
      throw invalid('MISSING_REQUIRED_PARAMETER', 'Field `order.location_id` is required.', 'order.location_id');
    if (!this.location(locationId))
      throw new SquareError(
        404,
        'INVALID_REQUEST_ERROR',
        'NOT_FOUND',
        `Location \`${locationId}\` not found.`,
        'order.location_id',
      );
    const state = input.state ?? 'OPEN';
    if (state !== 'OPEN' && state !== 'DRAFT')
      throw invalid('INVALID_VALUE', 'A new order is OPEN or DRAFT.', 'order.state');
    const rawLines = Array.isArray(input.line_items) ? (input.line_items as Json[]) : [];
    const lineItems = rawLines.map((raw, i) => {
      const field = `order.line_items[${i}]`;
      const quantityText = String(raw.quantity ?? '');
      if (!/^\d+$/.test(quantityText) || Number(quantityText) < 1)
        throw invalid('INVALID_VALUE', 'Quantity must be a positive whole number.', `${field}.quantity`);
      const quantity = Number(quantityText);
      const uid = typeof raw.uid === 'string' && raw.uid ? raw.uid : undefined;
      if (raw.catalog_object_id !== undefined) {
        const variation = this.objects.get(String(raw.catalog_object_id));
        if (!variation || variation.is_deleted || variation.type !== 'ITEM_VARIATION')
          throw invalid(
            'INVALID_VALUE',
            `Item variation \`${String(raw.catalog_object_id)}\` not found.`,
            `${field}.catalog_object_id`,
          );
        return { ...this.lineItem(variation, quantity, uid), ...(raw.note ? { note: String(raw.note) } : {}) };
      }
      const price = raw.base_price_money as Money | undefined;
      if (typeof raw.name !== 'string' || !price || !Number.isInteger(price.amount))
        throw invalid(
          'MISSING_REQUIRED_PARAMETER',
          'An ad hoc line item needs a name and base_price_money.',
          `${field}.base_price_money`,
        );
      if (price.currency !== this.currency)
        throw invalid('INVALID_VALUE', `Currency must be ${this.currency}.`, `${field}.base_price_money.currency`);
      const total = { amount: price.amount * quantity, currency: price.currency };
      return {
        uid: uid ?? squareId.uid(this.rng),
        quantity: quantityText,
        name: raw.name,
        item_type: 'CUSTOM_AMOUNT',
        base_price_money: price,
        variation_total_price_money: total,
        gross_sales_money: total,
        total_tax_money: { amount: 0, currency: price.currency },
        total_discount_money: { amount: 0, currency: price.currency },
        total_money: total,
      };
    });
    if (lineItems.length === 0 && state === 'OPEN')
      throw invalid('MISSING_REQUIRED_PARAMETER', 'An order needs at least one line item.', 'order.line_items');
    const at = this.now();
    const fulfillments = (Array.isArray(input.fulfillments) ? (input.fulfillments as Json[]) : []).map((f, i) =>
      this.newFulfillment(f, `order.fulfillments[${i}]`, at),
    );
    const order: Order = {
      id: squareId.order(this.rng),
      location_id: locationId,
      ...(typeof input.reference_id === 'string' ? { reference_id: input.reference_id } : {}),
      ...(typeof input.customer_id === 'string' ? { customer_id: input.customer_id } : {}),
      ...(typeof input.ticket_name === 'string' ? { ticket_name: input.ticket_name } : {}),
      ...(input.metadata && typeof input.metadata === 'object' ? { metadata: input.metadata as Json } : {}),
      source,
      state: state as 'OPEN' | 'DRAFT',
      version: 1,
      created_at: at,
      updated_at: at,
      line_items: lineItems,
      fulfillments,
      tenders: [],
      refunds: [],
      total_money: { amount: 0, currency: this.currency },
    };
    this.totals(order);
    this.orders.set(order.id, order);
    this.emit({ type: 'order.created', order });
    return order;
  }

  /** A fulfillment as CreateOrder / UpdateOrder take it: PICKUP needs a recipient and a time, SHIPMENT a recipient. */
  private newFulfillment(f: Json, field: string, at: string): Json {
    const uid = typeof f.uid === 'string' && f.uid ? f.uid : squareId.uid(this.rng);
    const base = {
      uid,
      type: f.type,
      state: 'PROPOSED',
      line_item_application: f.line_item_application ?? 'ALL',
      ...(Array.isArray(f.entries) ? { entries: f.entries } : {}),
    };
    const recipientOf = (details: Json, path: string) => {
      const recipient = details.recipient as Json | undefined;
      if (!recipient?.display_name && !recipient?.customer_id)
        throw invalid(
          'MISSING_REQUIRED_PARAMETER',
          'A fulfillment recipient needs a display_name or customer_id.',
          `${path}.recipient`,
        );
      return recipient;
    };
    if (f.type === 'PICKUP') {
      const details = (f.pickup_details ?? {}) as Json;
      const path = `${field}.pickup_details`;
      const recipient = recipientOf(details, path);
      const schedule = details.schedule_type ?? 'SCHEDULED';
      if (schedule !== 'SCHEDULED' && schedule !== 'ASAP')
        throw invalid('INVALID_ENUM_VALUE', 'schedule_type is SCHEDULED or ASAP.', `${path}.schedule_type`);
      if (schedule === 'SCHEDULED' && typeof details.pickup_at !== 'string')
        throw invalid(
          'MISSING_REQUIRED_PARAMETER',
          'pickup_at is required for a SCHEDULED pickup.',
          `${path}.pickup_at`,
        );
      if (details.pickup_at !== undefined && Number.isNaN(Date.parse(String(details.pickup_at))))
        throw invalid('INVALID_TIME', 'pickup_at is not an RFC 3339 timestamp.', `${path}.pickup_at`);
      return {
        ...base,
        pickup_details: {
          ...details,
          recipient,
          schedule_type: schedule,
          is_curbside_pickup: details.is_curbside_pickup === true,
          placed_at: at,
        },
      };
    }
    if (f.type === 'SHIPMENT') {
      const details = (f.shipment_details ?? {}) as Json;
      const recipient = recipientOf(details, `${field}.shipment_details`);
      return { ...base, shipment_details: { ...details, recipient, placed_at: at } };
    }
    throw invalid('INVALID_VALUE', 'A fulfillment type is PICKUP or SHIPMENT.', `${field}.type`);
  }

  /**
   * A Square Online order (what a buyer's checkout creates): a PICKUP (curbside or not) or SHIPMENT order
   * at the location, paid at checkout unless `paid` is false (pay at pickup). Paying moves the stock.
   */
  placeOnline(input: {
    lines: { sku: string; quantity: number }[];
    location?: string;
    fulfillmentType: 'ship' | 'pickup' | 'curbside_pickup';
    customer?: { name?: string; email?: string; phone?: string };
    paid?: boolean;
  }): Order {
    const location = input.location ? this.location(input.location) : this.locations[0];
    if (!location)
      throw new SquareError(404, 'INVALID_REQUEST_ERROR', 'NOT_FOUND', `Location ${input.location} not found.`);
    const resolved = this.resolveLines(input.lines);
    const recipient = {
      display_name: input.customer?.name ?? 'Pat Buyer',
      email_address: input.customer?.email ?? 'pat.buyer@example.com',
      ...(input.customer?.phone ? { phone_number: input.customer.phone } : {}),
    };
    const fulfillment =
      input.fulfillmentType === 'ship'
        ? {
            type: 'SHIPMENT',
            shipment_details: {
              recipient: {
                ...recipient,
                address: {
                  address_line_1: '500 Electric Ave',
                  locality: 'Portland',
                  administrative_district_level_1: 'OR',
                  postal_code: '97205',
                  country: 'US',
                },
              },
            },
          }
        : {
            type: 'PICKUP',
            pickup_details: {
              recipient,
              schedule_type: 'SCHEDULED',
              pickup_at: new Date(Date.now() + 60 * 60 * 1000).toISOString(),
              prep_time_duration: 'PT20M',
              ...(input.fulfillmentType === 'curbside_pickup'
                ? { is_curbside_pickup: true, curbside_pickup_details: { curbside_details: 'Blue hatchback, bay 2' } }
                : {}),
            },
          };
    const order = this.createOrder(
      {
        location_id: location.id,
        line_items: resolved.map(({ variation, quantity }) => ({
          catalog_object_id: variation.id,
          quantity: String(quantity),
        })),
        fulfillments: [fulfillment],
      },
      { name: 'Square Online' },
    );
    return input.paid === false ? order : this.pay(order.id);
  }

  /**
   * The buyer pays the whole amount due (at checkout, or at the counter on pickup): a card tender is added,
   * an order without fulfillments becomes COMPLETED, and its stock moves IN_STOCK → SOLD.
   */
  pay(orderId: string): Order {
    const order = this.orders.get(orderId);
    if (!order) throw new SquareError(404, 'INVALID_REQUEST_ERROR', 'NOT_FOUND', `Order \`${orderId}\` not found.`);
    if (order.state !== 'OPEN') throw invalid('BAD_REQUEST', `An order in state ${order.state} cannot be paid.`);
    if ((order.net_amount_due_money as Money).amount === 0) return order;
    const at = this.now();
    this.payInFull(order, at);
    if (order.fulfillments.length === 0) {
      order.state = 'COMPLETED';
      order.closed_at = at;
    }
    order.version += 1;
    order.updated_at = at;
    this.emit({ type: 'order.updated', order });
    this.decrement(order);
    return order;
  }

  /** With automatic inventory tracking, a paid order moves its quantities IN_STOCK → SOLD (once). */
  private decrement(order: Order) {
    if (this.stockMoved.has(order.id)) return;
    this.stockMoved.add(order.id);
    this.moveStock(order, 'IN_STOCK', 'SOLD');
  }

  private moveStock(order: Order, from: string, to: string) {
    const at = new Date().toISOString();
    const changes = order.line_items
      .filter((l) => typeof l.catalog_object_id === 'string' && this.objects.has(l.catalog_object_id))
      .map((l) => ({
        type: 'ADJUSTMENT',
        adjustment: {
          catalog_object_id: l.catalog_object_id,
          location_id: order.location_id,
          from_state: from,
          to_state: to,
          quantity: String(l.quantity),
          occurred_at: at,
        },
      }));
    if (changes.length > 0) this.applyChanges(changes, false);
  }

  /** Sets a fulfillment's state with the timestamp Square records for it. */
  private setFulfillmentState(f: Json, state: string, at: string) {
    f.state = state;
    const details = (f.type === 'PICKUP' ? f.pickup_details : f.shipment_details) as Json | undefined;
    if (!details) return;
    const stamp: Record<string, string> =
      f.type === 'PICKUP'
        ? { RESERVED: 'accepted_at', PREPARED: 'ready_at', COMPLETED: 'picked_up_at', CANCELED: 'canceled_at' }
        : { RESERVED: 'in_progress_at', PREPARED: 'packaged_at', COMPLETED: 'shipped_at', CANCELED: 'canceled_at' };
    const key = stamp[state];
    if (key) details[key] ??= at;
  }

  /**
   * UpdateOrder, sparse: fulfillments are matched by uid (new uids are added) and `state` may change.
   * The version must match; COMPLETED and CANCELED orders cannot be changed; a paid order cannot be
   * CANCELED and an order that is not fully paid cannot be COMPLETED.
   */
  updateOrder(orderId: string, patch: Json): Order {
    const order = this.orders.get(orderId);
    if (!order) throw new SquareError(404, 'INVALID_REQUEST_ERROR', 'NOT_FOUND', `Order \`${orderId}\` not found.`);
    if (patch.version === undefined)
      throw invalid('MISSING_REQUIRED_PARAMETER', 'Field `order.version` is required.', 'order.version');
    if (Number(patch.version) !== order.version) {
      throw invalid('VERSION_MISMATCH', `The order's current version is ${order.version}.`, 'order.version');
    }
    if (order.state === 'COMPLETED' || order.state === 'CANCELED') {
      throw invalid('BAD_REQUEST', `An order in state ${order.state} cannot be updated.`, 'order.state');
    }
    const next = structuredClone(order);
    const at = this.now();
    const fulfillments = Array.isArray(patch.fulfillments) ? (patch.fulfillments as Json[]) : [];
    const updates: FulfillmentUpdate[] = [];
    const flow = ['PROPOSED', 'RESERVED', 'PREPARED', 'COMPLETED'];
    fulfillments.forEach((f, i) => {
      const existing = next.fulfillments.find((x) => x.uid === f.uid);
      const state = f.state === undefined ? undefined : String(f.state);
      if (state !== undefined && !flow.includes(state) && state !== 'CANCELED' && state !== 'FAILED') {
        throw invalid('INVALID_ENUM_VALUE', `Unknown fulfillment state ${state}.`, `order.fulfillments[${i}].state`);
      }
      if (existing) {
        const from = String(existing.state);
        if (from === 'COMPLETED' || from === 'CANCELED' || from === 'FAILED') {
          throw invalid(
            'BAD_REQUEST',
            `A fulfillment in state ${from} cannot change.`,
            `order.fulfillments[${i}].state`,
          );
        }
        if (state && flow.includes(state) && flow.indexOf(state) < flow.indexOf(from)) {
          throw invalid(
            'BAD_REQUEST',
            `A fulfillment cannot move from ${from} back to ${state}.`,
            `order.fulfillments[${i}].state`,
          );
        }
        const { state: _s, pickup_details, shipment_details, ...rest } = f;
        Object.assign(existing, rest);
        if (pickup_details && existing.pickup_details)
          existing.pickup_details = { ...(existing.pickup_details as Json), ...(pickup_details as Json) };
        if (shipment_details && existing.shipment_details)
          existing.shipment_details = { ...(existing.shipment_details as Json), ...(shipment_details as Json) };
        if (state && state !== from) {
          this.setFulfillmentState(existing, state, at);
          updates.push({ fulfillment_uid: String(existing.uid), old_state: from, new_state: state });
        }
      } else {
        const created = this.newFulfillment(f, `order.fulfillments[${i}]`, at);
        next.fulfillments.push(created);
        updates.push({ fulfillment_uid: String(created.uid), new_state: 'PROPOSED' });
        if (state && state !== 'PROPOSED') {
          this.setFulfillmentState(created, state, at);
          updates.push({ fulfillment_uid: String(created.uid), old_state: 'PROPOSED', new_state: state });
        }
      }
    });
    let completed = false;
    if (patch.state !== undefined && patch.state !== next.state) {
      if (patch.state === 'CANCELED') {
        if (next.tenders.length > 0)
          throw invalid('BAD_REQUEST', 'Orders cannot be canceled after payments have been processed.', 'order.state');
        for (const f of next.fulfillments) {
          const from = String(f.state);
          if (from === 'COMPLETED' || from === 'CANCELED' || from === 'FAILED') continue;
          this.setFulfillmentState(f, 'CANCELED', at);
          updates.push({ fulfillment_uid: String(f.uid), old_state: from, new_state: 'CANCELED' });
        }
      } else if (patch.state === 'COMPLETED') {
        if ((next.net_amount_due_money as Money).amount > 0)
          throw invalid('BAD_REQUEST', 'An order must be fully paid before it is COMPLETED.', 'order.state');
        completed = true;
      } else {
        throw invalid('INVALID_VALUE', 'An OPEN order can become COMPLETED or CANCELED.', 'order.state');
      }
      next.state = patch.state;
      next.closed_at = at;
    }
    next.version += 1;
    next.updated_at = at;
    this.orders.set(next.id, next);
    this.emit({ type: 'order.updated', order: next });
    if (updates.length > 0) this.emit({ type: 'order.fulfillment.updated', order: next, updates });
    if (completed) this.decrement(next);
    return next;
  }

  /**
   * What the seller does in Square's Order Manager (Cancel items → all, then refund): the order and its open
   * fulfillments become CANCELED, the units a paid order had moved go back IN_STOCK at its location, and
   * (unless `refund` is false) what was paid is refunded. A COMPLETED order is returned, not cancelled.
   */
  cancelAsSeller(
    orderId: string,
    options: { refund?: boolean; reason?: string } = {},
  ): { order: Order; refunds: Refund[] } {
    const order = this.orders.get(orderId);
    if (!order) throw new SquareError(404, 'INVALID_REQUEST_ERROR', 'NOT_FOUND', `Order \`${orderId}\` not found.`);
    if (order.state !== 'OPEN')
      throw invalid('BAD_REQUEST', `An order in state ${order.state} cannot be canceled.`, 'order.state');
    const at = this.now();
    const updates: FulfillmentUpdate[] = [];
    for (const f of order.fulfillments) {
      const from = String(f.state);
      if (from === 'COMPLETED' || from === 'CANCELED' || from === 'FAILED') continue;
      this.setFulfillmentState(f, 'CANCELED', at);
      const details = (f.pickup_details ?? f.shipment_details) as Json | undefined;
      if (details) details.cancel_reason = (options.reason ?? 'Customer cancellation request').slice(0, 100);
      updates.push({ fulfillment_uid: String(f.uid), old_state: from, new_state: 'CANCELED' });
    }
    order.state = 'CANCELED';
    order.closed_at = at;
    order.version += 1;
    order.updated_at = at;
    this.emit({ type: 'order.updated', order });
    if (updates.length > 0) this.emit({ type: 'order.fulfillment.updated', order, updates });
    if (this.stockMoved.delete(order.id)) this.moveStock(order, 'SOLD', 'IN_STOCK');
    const refunds: Refund[] = [];
    if (options.refund !== false) {
      for (const t of order.tenders) {
        const payment = this.payments.get(String(t.id));
        if (!payment) continue;
        const pending = [...this.refunds.values()]
          .filter((r) => r.payment_id === payment.id && (r.status === 'PENDING' || r.status === 'COMPLETED'))
          .reduce((sum, r) => sum + r.amount_money.amount, 0);
        const left = payment.amount_money.amount - pending;
        if (left > 0)
          refunds.push(
            this.refund({
              paymentId: payment.id,
              amount: { amount: left, currency: payment.amount_money.currency },
              reason: 'Canceled order',
            }),
          );
      }
    }
    return { order, refunds };
  }

  // ---- Itemized returns -------------------------------------------------------------------------------

  /**
   * A return at the register (Square POS "Issue refund" → items): a new COMPLETED order at the store where
   * the customer brings the goods, whose `returns[]` names the sale (`source_order_id`) and each returned
   * line (`source_line_item_uid`, quantity, money), with `return_amounts`; the money goes back to the sale's
   * card as a PaymentRefund whose order is the return order. Square POS restocks returned items at that store
   * (NONE → IN_STOCK, so inventory.count.updated). Events: order.created, refund.created, order.updated, then
   * refund.updated once the refund settles.
   */
  returnAtRegister(input: {
    saleOrderId: string;
    locationId?: string;
    lines: { sku?: string; lineUid?: string; quantity: number }[];
    reason?: string;
  }): { order: Order; refund: Refund | null } {
    const sale = this.orders.get(input.saleOrderId);
    if (!sale)
      throw new SquareError(404, 'INVALID_REQUEST_ERROR', 'NOT_FOUND', `Order \`${input.saleOrderId}\` not found.`);
    if (sale.state !== 'COMPLETED' && !this.stockMoved.has(sale.id))
      throw invalid('BAD_REQUEST', 'Only a paid sale can be returned.', 'source_order_id');
    const location = input.locationId ? this.location(input.locationId) : this.location(sale.location_id);
    if (!location)
      throw new SquareError(404, 'INVALID_REQUEST_ERROR', 'NOT_FOUND', `Location ${input.locationId} not found.`);
    const returned = new Map<string, number>();
    for (const o of this.orders.values())
      for (const r of (o.returns as Json[] | undefined) ?? [])
        if (r.source_order_id === sale.id)
          for (const l of (r.return_line_items as Json[]) ?? [])
            returned.set(
              String(l.source_line_item_uid),
              (returned.get(String(l.source_line_item_uid)) ?? 0) + Number(l.quantity),
            );
    const money = (amount: number) => ({ amount, currency: this.currency });
    const lines = input.lines.map((l) => {
      const line = sale.line_items.find((x) =>
        l.lineUid
          ? x.uid === l.lineUid
          : (this.objects.get(String(x.catalog_object_id))?.item_variation_data as Json | undefined)?.sku === l.sku,
      );
      if (!line) throw invalid('INVALID_VALUE', `The sale has no line ${l.lineUid ?? l.sku}.`, 'return_line_items');
      const left = Number(line.quantity) - (returned.get(String(line.uid)) ?? 0);
      if (!Number.isInteger(l.quantity) || l.quantity < 1 || l.quantity > left)
        throw invalid('INVALID_VALUE', `Only ${left} of ${String(line.name)} can be returned.`, 'return_line_items');
      returned.set(String(line.uid), (returned.get(String(line.uid)) ?? 0) + l.quantity);
      const share = (key: string) =>
        Math.round((Number((line[key] as Money | undefined)?.amount ?? 0) * l.quantity) / Number(line.quantity));
      const gross = share('gross_sales_money');
      const tax = share('total_tax_money');
      const discount = share('total_discount_money');
      return {
        uid: squareId.uid(this.rng),
        source_line_item_uid: line.uid,
        name: line.name,
        quantity: String(l.quantity),
        catalog_object_id: line.catalog_object_id,
        catalog_version: line.catalog_version,
        variation_name: line.variation_name,
        item_type: 'ITEM',
        base_price_money: line.base_price_money,
        variation_total_price_money: money(gross),
        gross_return_money: money(gross),
        total_tax_money: money(tax),
        total_discount_money: money(discount),
        total_money: money(gross - discount + tax),
      };
    });
    const sum = (key: string) => lines.reduce((s, l) => s + (l[key as keyof typeof l] as Money).amount, 0);
    const amounts = {
      total_money: money(sum('total_money')),
      tax_money: money(sum('total_tax_money')),
      discount_money: money(sum('total_discount_money')),
      tip_money: money(0),
      service_charge_money: money(0),
    };
    const at = this.now();
    const order: Order = {
      id: squareId.order(this.rng),
      location_id: location.id,
      source: { name: 'Square Point of Sale' },
      state: 'COMPLETED',
      version: 1,
      created_at: at,
      updated_at: at,
      closed_at: at,
      line_items: [],
      returns: [
        { uid: squareId.uid(this.rng), source_order_id: sale.id, return_line_items: lines, return_amounts: amounts },
      ],
      return_amounts: amounts,
      fulfillments: [],
      tenders: [],
      refunds: [],
      total_money: money(0),
      total_tax_money: money(0),
      total_discount_money: money(0),
      net_amounts: {
        total_money: money(-amounts.total_money.amount),
        tax_money: money(-amounts.tax_money.amount),
        discount_money: money(-amounts.discount_money.amount),
        tip_money: money(0),
        service_charge_money: money(0),
      },
    };
    this.orders.set(order.id, order);
    this.emit({ type: 'order.created', order });
    const changes = lines
      .filter((l) => typeof l.catalog_object_id === 'string' && this.objects.has(l.catalog_object_id))
      .map((l) => ({
        type: 'ADJUSTMENT',
        adjustment: {
          catalog_object_id: l.catalog_object_id,
          location_id: location.id,
          from_state: 'NONE',
          to_state: 'IN_STOCK',
          quantity: l.quantity,
          occurred_at: at,
        },
      }));
    if (changes.length > 0) this.applyChanges(changes, false);
    const payment = sale.tenders.map((t) => this.payments.get(String(t.id))).find((p) => p !== undefined);
    const refund =
      payment && amounts.total_money.amount > 0
        ? this.refund({
            paymentId: payment.id,
            amount: amounts.total_money,
            reason: input.reason ?? 'Returned goods',
            orderId: order.id,
          })
        : null;
    return { order, refund };
  }

  // ---- Refunds ---------------------------------------------------------------------------------------

  refund(input: { paymentId: string; amount: Money; reason?: string; orderId?: string }): Refund {
    const payment = this.payments.get(input.paymentId);
    if (!payment)
      throw new SquareError(
        404,
        'INVALID_REQUEST_ERROR',
        'NOT_FOUND',
        `Payment \`${input.paymentId}\` not found.`,
        'payment_id',
      );
    if (input.amount.currency !== payment.amount_money.currency) {
      throw new SquareError(
        400,
        'REFUND_ERROR',
        'CURRENCY_MISMATCH',
        'The refund currency must match the payment.',
        'amount_money.currency',
      );
    }
    const pending = [...this.refunds.values()]
      .filter((r) => r.payment_id === payment.id && (r.status === 'PENDING' || r.status === 'COMPLETED'))
      .reduce((sum, r) => sum + r.amount_money.amount, 0);
    if (
      !Number.isInteger(input.amount.amount) ||
      input.amount.amount < 1 ||
      pending + input.amount.amount > payment.amount_money.amount
    ) {
      throw new SquareError(
        400,
        'REFUND_ERROR',
        'REFUND_AMOUNT_INVALID',
        'The refund amount exceeds what is left to refund.',
        'amount_money.amount',
      );
    }
    const at = this.now();
    const refund: Refund = {
      id: `${payment.id}_${squareId.uid(this.rng)}`,
      status: 'PENDING',
      payment_id: payment.id,
      order_id: input.orderId ?? payment.order_id,
      location_id: input.orderId
        ? (this.orders.get(input.orderId)?.location_id ?? payment.location_id)
        : payment.location_id,
      amount_money: { ...input.amount },
      reason: input.reason ?? '',
      created_at: at,
      updated_at: at,
    };
    this.refunds.set(refund.id, refund);
    const order = this.orders.get(refund.order_id);
    if (order) {
      order.refunds.push({
        id: refund.id,
        location_id: refund.location_id,
        transaction_id: order.id,
        tender_id: payment.id,
        created_at: at,
        reason: refund.reason,
        amount_money: refund.amount_money,
        status: 'PENDING',
      });
      order.version += 1;
      order.updated_at = at;
    }
    this.emit({ type: 'refund.created', refund });
    if (order) this.emit({ type: 'order.updated', order });
    return refund;
  }

  /** Refunds settle shortly after they are created. */
  settleRefund(id: string) {
    const refund = this.refunds.get(id);
    if (refund?.status !== 'PENDING') return;
    refund.status = 'COMPLETED';
    refund.updated_at = this.now();
    const payment = this.payments.get(refund.payment_id);
    if (payment)
      payment.refunded_money = {
        amount: payment.refunded_money.amount + refund.amount_money.amount,
        currency: payment.refunded_money.currency,
      };
    const order = this.orders.get(refund.order_id);
    const line = order?.refunds.find((r) => r.id === id);
    if (order && line) {
      line.status = 'APPROVED';
      order.version += 1;
      order.updated_at = refund.updated_at as string;
    }
    this.emit({ type: 'refund.updated', refund });
    if (order) this.emit({ type: 'order.updated', order });
  }
}
