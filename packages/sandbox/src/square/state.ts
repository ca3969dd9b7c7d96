import { createRng, type Rng, seedFrom } from '../rng.ts';
import type { SeedOptions } from '../seed.ts';
import { render, upsertBatch } from './catalog.ts';
import { adjust, allCounts, applyChanges, quantity, record, renderCount } from './inventory.ts';
import type {
  CatalogObject,
  CountRecord,
  Environment,
  InventoryCount,
  Json,
  Money,
  Order,
  Payment,
  Refund,
  SquareEvent,
  SquareLocation,
} from './model.ts';
import { createOrder, updateOrder } from './orders.ts';
import { refund, settleRefund } from './refunds.ts';
import { returnAtRegister } from './returns.ts';
import { cancelAsSeller, pay, placeOnline, sell } from './sales.ts';
import { seedMerchant } from './seeding.ts';

/**
 * One seller on one Square environment: locations, catalog, inventory ledger, orders, payments, refunds. The
 * state is here; each resource's operations are a module of their own, called with the merchant: catalog.ts,
 * inventory.ts, orders.ts (the Orders API), sales.ts (POS, Square Online, the Order Manager), returns.ts,
 * refunds.ts, and seeding.ts for the seeded shop. The shapes are in model.ts.
 */
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
  /** @internal For the resource modules: the merchant's ids, drawn from its seed. */
  rng: Rng;
  /** @internal The last tick (tick() moves it). */
  clock = 0;
  /** @internal The inventory ledger's entry sequence. */
  seq = 0;
  /** @internal Reports a change (the store turns it into webhooks). */
  readonly emit: (event: SquareEvent) => void;

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

  /** Replaces everything the seller holds with a freshly seeded shop (seeding.ts). */
  seed(options: SeedOptions & { seed?: number }) {
    seedMerchant(this, options);
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

  // ---- Catalog (catalog.ts) --------------------------------------------------------------------------

  /** An ITEM as Square returns it: with its live variations inline. */
  render(object: CatalogObject): CatalogObject {
    return render(this, object);
  }

  /** BatchUpsertCatalogObjects: one atomic batch, `#temp` ids mapped to real ones. */
  upsertBatch(input: Json[]): {
    objects: CatalogObject[];
    idMappings: { client_object_id: string; object_id: string }[];
  } {
    return upsertBatch(this, input);
  }

  // ---- Inventory (inventory.ts) ----------------------------------------------------------------------

  quantity(objectId: string, locationId: string, state = 'IN_STOCK'): number {
    return quantity(this, objectId, locationId, state);
  }

  /** Adds a ledger entry and recomputes the count. */
  record(
    objectId: string,
    locationId: string,
    state: string,
    kind: 'count' | 'delta',
    quantity: number,
    occurredAt: number,
  ) {
    return record(this, objectId, locationId, state, kind, quantity, occurredAt);
  }

  renderCount(objectId: string, locationId: string, state = 'IN_STOCK'): InventoryCount {
    return renderCount(this, objectId, locationId, state);
  }

  allCounts(): InventoryCount[] {
    return allCounts(this);
  }

  /** BatchChangeInventory: all or nothing; the created changes and the counts of every object touched. */
  applyChanges(changes: Json[], ignoreUnchanged: boolean): { changes: Json[]; counts: InventoryCount[] } {
    return applyChanges(this, changes, ignoreUnchanged);
  }

  /** As if changed in the Square Dashboard: a physical count (quantity) or a receive / waste adjustment (delta). */
  adjust(sku: string, locationId: string | undefined, change: { quantity?: number; delta?: number }) {
    adjust(this, sku, locationId, change);
  }

  // ---- Orders (orders.ts) and sales (sales.ts) -------------------------------------------------------

  /** A POS sale at a location: a paid, completed order; stock moves IN_STOCK → SOLD. */
  sell(lines: { sku: string; quantity: number }[], locationId?: string): Order {
    return sell(this, lines, locationId);
  }

  /** CreateOrder: an OPEN (or DRAFT) order, unpaid, its fulfillments PROPOSED. */
  createOrder(input: Json, source: { name: string } = { name: 'Switchyard' }): Order {
    return createOrder(this, input, source);
  }

  /** A Square Online order (PICKUP or SHIPMENT), paid at checkout unless `paid` is false. */
  placeOnline(input: {
    lines: { sku: string; quantity: number }[];
    location?: string;
    fulfillmentType: 'ship' | 'pickup' | 'curbside_pickup';
    customer?: { name?: string; email?: string; phone?: string };
    paid?: boolean;
  }): Order {
    return placeOnline(this, input);
  }

  /** The buyer pays the whole amount due; the stock moves IN_STOCK → SOLD. */
  pay(orderId: string): Order {
    return pay(this, orderId);
  }

  /** UpdateOrder, sparse: fulfillments by uid, and `state`; the version must match. */
  updateOrder(orderId: string, patch: Json): Order {
    return updateOrder(this, orderId, patch);
  }

  /** The seller cancels in Square's Order Manager: units back IN_STOCK, what was paid refunded. */
  cancelAsSeller(
    orderId: string,
    options: { refund?: boolean; reason?: string } = {},
  ): { order: Order; refunds: Refund[] } {
    return cancelAsSeller(this, orderId, options);
  }

  // ---- Returns (returns.ts) and refunds (refunds.ts) -------------------------------------------------

  /** A return at the register: a return order, the goods restocked, the money refunded to the sale's card. */
  returnAtRegister(input: {
    saleOrderId: string;
    locationId?: string;
    lines: { sku?: string; lineUid?: string; quantity: number }[];
    reason?: string;
  }): { order: Order; refund: Refund | null } {
    return returnAtRegister(this, input);
  }

  refund(input: { paymentId: string; amount: Money; reason?: string; orderId?: string }): Refund {
    return refund(this, input);
  }

  /** Refunds settle shortly after they are created. */
  settleRefund(id: string) {
    settleRefund(this, id);
  }
}
