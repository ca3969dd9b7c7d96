import { z } from 'zod';
import { FulfillmentType, OrderChannelRef } from './orders.ts';

/**
 * Fulfillment (issue 15): each store's queue of work, the pick and pack steps of an order there, the picking
 * list, and the pickup verbs. A store is a location, named by its `store_id` (SPEC §3).
 *
 * Calls (tRPC unless a REST path is given; both call the same service):
 * - `fulfillment.list(FulfillmentListInput)` → FulfillmentList; v2 `GET fulfillment` (flat or `filter` JSON)
 * - `fulfillment.count(FulfillmentListInput)` → FulfillmentCounts; v2 `GET fulfillment/count`
 * - `fulfillment.stores()` → FulfillmentStores (the selector, with the default store)
 * - `fulfillment.get({ id, store_id? })` → FulfillmentOrder
 * - `fulfillment.scan({ id, store_id, code })` → ScanResult (a barcode or SKU; a wrong item says so)
 * - `fulfillment.pack({ id, store_id })` → FulfillmentOrder
 * - `fulfillment.reject({ id, allocation_id, reason })` → FulfillmentOrder
 * - `fulfillment.readyForPickup({ id })`, `fulfillment.pickedUp({ id })` → FulfillmentOrder;
 *   v2 `POST orders/{id}/fulfillments/ready-for-pickup`, `POST orders/{id}/fulfillments/picked-up`
 * - `fulfillment.pickingList(PickingListInput)` → PickingList; frontend `GET fulfillment/picking-list.pdf` (PDF)
 */

/** The account setting that stores the shipping location (SPEC §3: `{ store_id }`), set on /settings/fulfillment. */
export const SHIPPING_LOCATION_SETTING = 'shipping_location';

export const FULFILLMENT_SCOPES = ['toShip', 'pickup', 'shipped', 'cancelled', 'flagged'] as const;
export const FulfillmentScope = z.enum(FULFILLMENT_SCOPES);
export type FulfillmentScope = z.infer<typeof FulfillmentScope>;
export const FULFILLMENT_SCOPE_LABELS: Record<FulfillmentScope, string> = {
  toShip: 'To ship',
  pickup: 'Pickup',
  shipped: 'Done',
  cancelled: 'Cancelled',
  flagged: 'Flagged',
};

export const FULFILLMENT_SORT_FIELDS = ['id', 'created_at', 'placed_at', 'number', 'external_id', 'total'] as const;
export const FulfillmentSortField = z.enum(FULFILLMENT_SORT_FIELDS);

const csv = (max: number) =>
  z
    .union([z.string(), z.array(z.string())])
    .transform((v) =>
      [
        ...new Set(
          (Array.isArray(v) ? v : v.split(','))
            .map((s) => s.trim())
            .filter(Boolean)
            .slice(0, max),
        ),
      ].join(','),
    )
    .optional()
    .catch(undefined);

/** SPEC §2: the fulfillment list's `filter` (skus and order_ids comma-separated; scope default toShip). */
export const FulfillmentFilter = z.object({
  skus: csv(100),
  /** Defaults to the stored shipping location's store (SPEC §3). */
  store_id: z.string().trim().min(1).max(64).optional().catch(undefined),
  order_ids: csv(200),
  /** Empty: every order of the store. */
  scope: z
    .union([FulfillmentScope, z.literal('')])
    .catch('toShip')
    .default('toShip'),
});
export type FulfillmentFilter = z.infer<typeof FulfillmentFilter>;

/** SPEC §2: the fulfillment list's search params (limit 25, offset 0, sort id, order desc, filter). */
export const FulfillmentSearch = z.object({
  limit: z.coerce.number().int().min(1).max(200).catch(25).default(25),
  offset: z.coerce.number().int().min(0).catch(0).default(0),
  sort: FulfillmentSortField.catch('id').default('id'),
  order: z
    .string()
    .transform((s) => (s.toLowerCase() === 'asc' ? ('asc' as const) : ('desc' as const)))
    .catch('desc' as const)
    .default('desc'),
  filter: FulfillmentFilter.catch({ scope: 'toShip' }).default({ scope: 'toShip' }),
});
export type FulfillmentSearch = z.infer<typeof FulfillmentSearch>;

/**
 * What the list and count take: the search params, where an API caller may also give the filter's keys at the
 * top level (`?scope=pickup&store_id=S1`) or the filter as JSON (`?filter={"scope":"pickup"}`).
 */
export const FulfillmentListInput = z.preprocess((raw) => {
  if (!raw || typeof raw !== 'object') return raw ?? {};
  const input = { ...(raw as Record<string, unknown>) };
  let filter: Record<string, unknown> = {};
  if (typeof input.filter === 'string') {
    try {
      const parsed = JSON.parse(input.filter);
      if (parsed && typeof parsed === 'object') filter = parsed as Record<string, unknown>;
    } catch {
      filter = {};
    }
  } else if (input.filter && typeof input.filter === 'object') filter = { ...(input.filter as object) };
  for (const key of ['skus', 'store_id', 'order_ids', 'scope'] as const) {
    if (input[key] !== undefined && filter[key] === undefined) filter[key] = input[key];
    delete input[key];
  }
  input.filter = filter;
  return input;
}, FulfillmentSearch);
export type FulfillmentListInput = z.input<typeof FulfillmentSearch>;

export const FulfillmentStore = z.object({
  id: z.string(),
  storeId: z.string(),
  name: z.string(),
  enabled: z.boolean(),
  ships: z.boolean(),
  pickup: z.boolean(),
});
export type FulfillmentStore = z.infer<typeof FulfillmentStore>;

export const FulfillmentStores = z.object({
  stores: z.array(FulfillmentStore),
  /** The stored shipping location's store, else the first enabled store that ships; null with no locations. */
  defaultStoreId: z.string().nullable(),
});
export type FulfillmentStores = z.infer<typeof FulfillmentStores>;

export const FulfillmentQueueItem = z.object({
  id: z.string(),
  number: z.string(),
  externalId: z.string(),
  channel: OrderChannelRef.nullable(),
  status: z.number().int(),
  fulfillmentType: FulfillmentType,
  customerName: z.string().nullable(),
  flagged: z.boolean(),
  /** Units allocated to this store, and of them picked (scanned) so far. */
  units: z.number().int(),
  pickedUnits: z.number().int(),
  skus: z.array(z.string()),
  packed: z.boolean(),
  placedAt: z.date(),
  createdAt: z.date(),
});
export type FulfillmentQueueItem = z.infer<typeof FulfillmentQueueItem>;

/** The list counts at most this many orders past the page; beyond, `total` is a lower bound (`totalCapped`). */
export const FULFILLMENT_LIST_COUNT_CAP = 10_000;
/** The done scopes (shipped, cancelled) are counted up to this many; beyond, the count is a lower bound. */
export const FULFILLMENT_DONE_COUNT_CAP = 1_000;

export const FulfillmentList = z.object({
  results: z.array(FulfillmentQueueItem),
  total: z.number().int(),
  totalCapped: z.boolean(),
  limit: z.number().int(),
  offset: z.number().int(),
  /** The store the list is of (the default when none was asked for); null when the account has no locations. */
  store: FulfillmentStore.nullable(),
});
export type FulfillmentList = z.infer<typeof FulfillmentList>;

/** What the count answers for: each scope, and `all` (the empty scope: every order of the store). */
export const FulfillmentCountKey = z.enum([...FULFILLMENT_SCOPES, 'all']);
export type FulfillmentCountKey = z.infer<typeof FulfillmentCountKey>;

export const FulfillmentCounts = z.object({
  store: FulfillmentStore.nullable(),
  counts: z.object({
    toShip: z.number().int(),
    pickup: z.number().int(),
    shipped: z.number().int(),
    cancelled: z.number().int(),
    flagged: z.number().int(),
    /** Every order of the store, whatever its scope (the "All" tab). */
    all: z.number().int(),
  }),
  /** Counts that stopped at FULFILLMENT_DONE_COUNT_CAP (shown as "1,000+"): the done scopes' and all's. */
  capped: z.array(FulfillmentCountKey),
});
export type FulfillmentCounts = z.infer<typeof FulfillmentCounts>;

// ------------------------------------------------------------------------------------ one order at a store

export const FULFILLMENT_STEPS = ['pick', 'pack', 'ship', 'done'] as const;

export const FulfillmentLine = z.object({
  allocationId: z.string(),
  lineId: z.string(),
  sku: z.string().nullable(),
  barcode: z.string().nullable(),
  title: z.string(),
  quantity: z.number().int(),
  /** Units still to leave the store (open lines: fewer than `quantity` once part shipped; 0 once done). */
  toShip: z.number().int(),
  /** Units confirmed by a scan so far: of those still to ship while the line is open. */
  scanned: z.number().int(),
  /** Allocation status (DESIGN §3): 1 allocated, 2 picked, 3 fulfilled, 5 rejected… */
  status: z.number().int(),
  reason: z.string().nullable(),
});
export type FulfillmentLine = z.infer<typeof FulfillmentLine>;

export const FulfillmentOrder = z.object({
  id: z.string(),
  number: z.string(),
  channel: OrderChannelRef.nullable(),
  status: z.number().int(),
  fulfillmentType: FulfillmentType,
  customerName: z.string().nullable(),
  customerEmail: z.string().nullable(),
  customerPhone: z.string().nullable(),
  note: z.string().nullable(),
  flagged: z.boolean(),
  store: FulfillmentStore.nullable(),
  /** The lines allocated to this store. */
  lines: z.array(FulfillmentLine),
  /** Where the order is at this store: picking, packing, then shipping (or handing over). */
  step: z.enum(FULFILLMENT_STEPS),
  packed: z.boolean(),
  canReadyForPickup: z.boolean(),
  canPickUp: z.boolean(),
});
export type FulfillmentOrder = z.infer<typeof FulfillmentOrder>;

export const FulfillmentOrderInput = z.object({
  id: z.string().trim().min(1).max(64),
  store_id: z.string().trim().min(1).max(64).optional(),
});

export const ScanInput = FulfillmentOrderInput.extend({
  code: z
    .string()
    .trim()
    .min(1, 'Scan a barcode or type a SKU first.')
    .max(128, 'A barcode or SKU is at most 128 characters.'),
});
export type ScanInput = z.infer<typeof ScanInput>;

export const ScanResult = z.object({
  ok: z.boolean(),
  message: z.string(),
  /** The line the scan confirmed (ok), null otherwise. */
  allocationId: z.string().nullable(),
  order: FulfillmentOrder,
});
export type ScanResult = z.infer<typeof ScanResult>;

export const RejectInput = FulfillmentOrderInput.extend({
  allocation_id: z.string().trim().min(1).max(64),
  reason: z.string().trim().min(1, 'Say why the line is rejected.').max(500, 'A reason is at most 500 characters.'),
});
export type RejectInput = z.infer<typeof RejectInput>;

// ------------------------------------------------------------------------------------------ picking list

export const PICKING_SORT_FIELDS = ['id', 'created_at', 'external_id'] as const;

/** SPEC §2: the picking list (store_id; sort asc|desc default desc; sort_by id|created_at|external_id). */
export const PickingListSearch = z.object({
  store_id: z.string().trim().min(1).max(64).optional().catch(undefined),
  sort: z.enum(['asc', 'desc']).catch('desc').default('desc'),
  sort_by: z.enum(PICKING_SORT_FIELDS).catch('id').default('id'),
  /** The selected orders (comma-separated ids); empty: every order of the store still to pick. */
  order_ids: csv(500),
});
export type PickingListSearch = z.infer<typeof PickingListSearch>;

export const PickingListRow = z.object({
  sku: z.string(),
  barcode: z.string().nullable(),
  title: z.string(),
  units: z.number().int(),
  orders: z.array(z.object({ id: z.string(), number: z.string(), units: z.number().int() })),
});
export type PickingListRow = z.infer<typeof PickingListRow>;

export const PickingList = z.object({
  store: FulfillmentStore.nullable(),
  rows: z.array(PickingListRow),
  orders: z.number().int(),
  units: z.number().int(),
});
export type PickingList = z.infer<typeof PickingList>;

/** At most this many orders on one picking list. */
export const PICKING_LIST_MAX_ORDERS = 500;

export const FULFILLMENT_MESSAGES = {
  notFound: 'Order not found',
  storeNotFound: (storeId: string) => `No location has store id ${storeId}.`,
  noStore: 'Add a location first: the queue is per store.',
  notAtStore: 'Nothing of this order is allocated to this store.',
  wrongItem: (code: string) => `Wrong item: ${code} is not on this order.`,
  alreadyScanned: (label: string) => `${label} is already picked in full.`,
  scanned: (label: string, n: number, of: number) => `${label}: ${n} of ${of} picked.`,
  notPickable: 'This order has nothing left to pick here.',
  notPicked: 'Pick every line before packing.',
  notPickup: 'Only pickup and curbside orders go ready for pickup.',
  notPickupPickedUp: 'Only pickup and curbside orders are picked up.',
  readyFrom: (status: string) => `An order that is ${status.toLowerCase()} cannot be made ready for pickup.`,
  pickedUpFrom: (status: string) => `An order that is ${status.toLowerCase()} cannot be picked up.`,
  allocationNotFound: 'That line is not allocated to this order.',
  notRejectable: 'Only a line still to pick or picked can be rejected.',
} as const;
