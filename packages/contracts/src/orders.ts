import { z } from 'zod';
import { ChannelType } from './channels.ts';
import { GENERIC_LIST_PAGE_SIZE } from './limits.ts';
import { wholeNumber } from './whole-number.ts';

/**
 * Orders (issue 13): every channel's orders in one place. DESIGN §3 fixes the numbers SPEC leaves open.
 *
 * Calls (tRPC unless a REST path is given; REST and tRPC call the same service):
 * - `orders.list(OrdersListInput)` → OrderList; frontend `GET orders` (same input as query) → OrderList
 * - `orders.count(OrdersListInput)` → OrderCounts; frontend `GET orders/count` → OrderCounts
 * - `orders.get({ id })` → OrderDetail; frontend `GET orders/{id}` → OrderDetail
 * - `orders.update({ id, ...OrderPatch })` → OrderDetail; frontend `POST orders/{id}` (OrderPatch)
 * - `orders.setStatus({ id, status, reason? })` → OrderDetail; frontend `PUT orders/{id}/status` ({ status })
 * - `orders.cancel({ id, reason? })` → OrderDetail (released at once; written back to the channel by a job)
 * - `orders.importNow({ channelId })` → { queued } (the channel page's "Import orders now")
 * - `comments.list(CommentListInput)` → CommentList; frontend `POST comment/list`
 * - `comments.add(CommentAddInput)` → Comment; frontend `POST comment/add`
 * - v1/v2 `GET orders`, `GET orders/{id}` for API keys (same shapes).
 */

// ------------------------------------------------------------------------------------------- statuses

/** DESIGN §3: order status 0–9; −1 in filters means all. */
export const ORDER_STATUSES = {
  0: 'Pending',
  1: 'Open',
  2: 'Partially fulfilled',
  3: 'Fulfilled',
  4: 'Ready for pickup',
  5: 'Picked up',
  6: 'On hold',
  7: 'Cancelled',
  8: 'Refunded',
  9: 'Error',
} as const;
export type OrderStatus = keyof typeof ORDER_STATUSES;
export const OrderStatus = z.coerce
  .number()
  .int()
  .min(0)
  .max(9)
  .transform((n) => n as OrderStatus);
export const orderStatusLabel = (status: number) => ORDER_STATUSES[status as OrderStatus] ?? String(status);

/**
 * The status changes a person may make (by `PUT orders/{id}/status` or the detail screen). Imports from a
 * channel and the fulfillment flow move orders by their own verbs; cancel has its own call (it releases stock
 * and is written back). Fulfilled (3) and picked up (5) are not among them: they move the units out of the store,
 * which only the fulfillment verbs do (issue 15). Anything not listed is refused with
 * ORDER_MESSAGES.transition(from, to).
 */
export const ORDER_TRANSITIONS: Record<OrderStatus, readonly OrderStatus[]> = {
  0: [1, 6, 9],
  1: [6, 9],
  2: [6],
  3: [8],
  4: [6],
  5: [8],
  6: [0, 1],
  7: [],
  8: [],
  9: [0, 1, 6],
};
export const canTransition = (from: number, to: number) =>
  (ORDER_TRANSITIONS[from as OrderStatus] ?? []).includes(to as OrderStatus);

/** Statuses at which an order can still be cancelled here (its units are not gone yet). */
export const CANCELLABLE_STATUSES: readonly OrderStatus[] = [0, 1, 4, 6, 9];

export const FULFILLMENT_TYPES = ['ship', 'pickup', 'curbside_pickup'] as const;
export const FulfillmentType = z.enum(FULFILLMENT_TYPES);
export type FulfillmentType = z.infer<typeof FulfillmentType>;
export const FULFILLMENT_TYPE_LABELS: Record<FulfillmentType, string> = {
  ship: 'Ship',
  pickup: 'Pickup',
  curbside_pickup: 'Curbside pickup',
};

/** DESIGN §3: allocation status 0–5. Any allocation at 0, 4 or 5 flags its order. */
export const ALLOCATION_STATUSES = {
  0: 'Unallocated',
  1: 'Allocated',
  2: 'Picked',
  3: 'Fulfilled',
  4: 'Insufficient stock',
  5: 'Rejected by the store',
} as const;
export type AllocationStatus = keyof typeof ALLOCATION_STATUSES;
export const FLAGGING_ALLOCATION_STATUSES: readonly AllocationStatus[] = [0, 4, 5];
export const isFlaggingAllocation = (status: number) =>
  FLAGGING_ALLOCATION_STATUSES.includes(status as AllocationStatus);
/** Allocated or picked and holding nothing: its units went back (its order cancelled). Fulfilled ones hold none too. */
export const isReleasedAllocation = (a: { status: number; reserved: number }) =>
  (a.status === 1 || a.status === 2) && a.reserved === 0;

export const ORDER_MESSAGES = {
  notFound: 'Order not found',
  transition: (from: number, to: number) =>
    `An order cannot go from ${orderStatusLabel(from)} to ${orderStatusLabel(to)}.`,
  notCancellable: (status: number) => `An order that is ${orderStatusLabel(status).toLowerCase()} cannot be cancelled.`,
  commentEmpty: 'Write a comment first.',
  commentTooLong: 'A comment can be at most 5,000 characters.',
  unknownSku: (sku: string) => `SKU ${sku} is not in the catalog.`,
  noLocation: 'No enabled location can cover this line.',
} as const;

// ----------------------------------------------------------------------------------------- the list

export const ORDER_SORT_FIELDS = ['id', 'placed_at', 'number', 'total', 'status', 'customer'] as const;
export const OrderSortField = z.enum(ORDER_SORT_FIELDS);

/** SPEC §2: the orders list and order detail search params (the same for both, so Back returns to the list). */
export const OrdersSearch = z.object({
  action: z.string().max(64).catch('orders').default('orders'),
  limit: z.coerce.number().int().min(1).max(200).catch(25).default(25),
  sort_by: OrderSortField.catch('id').default('id'),
  sort: z.enum(['asc', 'desc']).catch('desc').default('desc'),
  offset: z.coerce.number().int().min(0).catch(0).default(0),
  search: z.string().trim().max(200).optional().catch(undefined),
  status: z.coerce.number().int().min(-1).max(9).catch(1).default(1),
});
export type OrdersSearch = z.infer<typeof OrdersSearch>;

/** The list's input: the search params, and for API callers a channel and a fulfillment type. */
export const OrdersListInput = OrdersSearch.extend({
  channel_id: z.string().trim().min(1).max(64).optional(),
  fulfillment_type: FulfillmentType.optional(),
  /** Only orders with an allocation at 0, 4 or 5 (or an unknown SKU). */
  flagged: z.coerce.boolean().optional(),
});
export type OrdersListInput = z.input<typeof OrdersListInput>;

export const OrderChannelRef = z.object({ id: z.string(), name: z.string(), type: ChannelType });
export type OrderChannelRef = z.infer<typeof OrderChannelRef>;

export const Address = z.object({
  name: z.string().nullable().optional(),
  company: z.string().nullable().optional(),
  address1: z.string().nullable().optional(),
  address2: z.string().nullable().optional(),
  city: z.string().nullable().optional(),
  province: z.string().nullable().optional(),
  zip: z.string().nullable().optional(),
  country: z.string().nullable().optional(),
  phone: z.string().nullable().optional(),
});
export type Address = z.infer<typeof Address>;

export const OrderSummary = z.object({
  id: z.string(),
  channel: OrderChannelRef.nullable(),
  externalId: z.string(),
  /** What the merchant knows it by: #1001, BigCommerce's id, Square's receipt number. */
  number: z.string(),
  status: z.number().int(),
  fulfillmentType: FulfillmentType,
  customerName: z.string().nullable(),
  customerEmail: z.string().nullable(),
  currency: z.string(),
  /** Minor units. */
  total: z.number().int(),
  financialStatus: z.string().nullable(),
  itemCount: z.number().int(),
  /** An allocation at 0, 4 or 5, or a line whose SKU is not in the catalog. */
  flagged: z.boolean(),
  placedAt: z.date(),
  updatedAt: z.date(),
});
export type OrderSummary = z.infer<typeof OrderSummary>;

/** The list counts at most this many orders past the page asked for; beyond, `total` is a lower bound. */
export const ORDER_COUNT_CAP = 10_000;

export const OrderList = z.object({
  results: z.array(OrderSummary),
  total: z.number().int(),
  /** true: there are more than `total` (counting stopped at ORDER_COUNT_CAP past the page). */
  totalCapped: z.boolean(),
  limit: z.number().int(),
  offset: z.number().int(),
});
export type OrderList = z.infer<typeof OrderList>;

/** Per status (−1: all), over the list's other filters. */
export const OrderCounts = z.object({
  total: z.number().int(),
  byStatus: z.record(z.string(), z.number().int()),
  flagged: z.number().int(),
});
export type OrderCounts = z.infer<typeof OrderCounts>;

// --------------------------------------------------------------------------------------- the detail

export const OrderAllocation = z.object({
  id: z.string(),
  locationId: z.string().nullable(),
  locationName: z.string().nullable(),
  storeId: z.string().nullable(),
  quantity: z.number().int(),
  /** The units it holds reserved now: 0 once released (the order cancelled) or fulfilled. */
  reserved: z.number().int(),
  status: z.number().int(),
  /** Why, for 4 and 5 (and what routing said). */
  reason: z.string().nullable(),
});
export type OrderAllocation = z.infer<typeof OrderAllocation>;

export const OrderLine = z.object({
  id: z.string(),
  externalId: z.string(),
  sku: z.string().nullable(),
  variantId: z.string().nullable(),
  productId: z.string().nullable(),
  title: z.string(),
  quantity: z.number().int(),
  /** Minor units: per unit, then the line's discounts and tax. */
  unitPrice: z.number().int(),
  discount: z.number().int(),
  tax: z.number().int(),
  fulfilledQty: z.number().int(),
  cancelledQty: z.number().int(),
  refundedQty: z.number().int(),
  /** The SKU is not in the catalog: kept, and the order flagged. */
  unknownSku: z.boolean(),
  allocations: z.array(OrderAllocation),
});
export type OrderLine = z.infer<typeof OrderLine>;

export const TIMELINE_KINDS = [
  'imported',
  'updated',
  'status',
  'allocated',
  'flagged',
  'released',
  'comment',
  'write_back',
  'shipment',
  'returned',
] as const;
export const TimelineKind = z.enum(TIMELINE_KINDS);
export type TimelineKind = z.infer<typeof TimelineKind>;

export const TimelineEntry = z.object({
  id: z.string(),
  kind: TimelineKind,
  message: z.string(),
  /** Who: a user's name, or the channel / Switchyard. */
  actor: z.string().nullable(),
  fromStatus: z.number().int().nullable(),
  toStatus: z.number().int().nullable(),
  /** write_back: ok or failed. */
  outcome: z.enum(['ok', 'failed', 'pending']).nullable(),
  createdAt: z.date(),
});
export type TimelineEntry = z.infer<typeof TimelineEntry>;

export const OrderDetail = OrderSummary.extend({
  customerPhone: z.string().nullable(),
  shippingAddress: Address.nullable(),
  billingAddress: Address.nullable(),
  pickupLocation: z.object({ id: z.string(), name: z.string(), storeId: z.string().nullable() }).nullable(),
  subtotal: z.number().int(),
  shippingTotal: z.number().int(),
  discountTotal: z.number().int(),
  taxTotal: z.number().int(),
  note: z.string().nullable(),
  tags: z.array(z.string()),
  cancelledAt: z.date().nullable(),
  cancelReason: z.string().nullable(),
  /** The order at its channel's admin (null when the channel has no page for it). */
  channelUrl: z.string().nullable(),
  /** The status changes a person may make from here (ORDER_TRANSITIONS), and whether cancel is offered. */
  allowedStatuses: z.array(z.number().int()),
  cancellable: z.boolean(),
  lines: z.array(OrderLine),
  timeline: z.array(TimelineEntry),
});
export type OrderDetail = z.infer<typeof OrderDetail>;

export const OrderIdInput = z.object({ id: z.string().trim().min(1).max(64) });

export const OrderPatch = z
  .object({
    note: z.string().max(5000).nullable().optional(),
    tags: z.array(z.string().trim().min(1).max(64)).max(50).optional(),
    shipping_address: Address.optional(),
  })
  .strict();
export type OrderPatch = z.infer<typeof OrderPatch>;

const STATUS_MESSAGE = 'Status must be a whole number from 0 to 9';
export const OrderStatusInput = z.object({
  status: wholeNumber(STATUS_MESSAGE, { min: 0, max: 9 }),
  reason: z.string().trim().max(500).optional(),
});
export const OrderCancelInput = z.object({ reason: z.string().trim().max(500).optional() });

// ------------------------------------------------------------------------------------------ comments

export const COMMENT_TYPES = ['order'] as const;
export const CommentType = z.enum(COMMENT_TYPES);

/** SPEC §7: `POST comment/add` (entity_id, type, text). */
export const CommentAddInput = z.object({
  entity_id: z.string().trim().min(1).max(64),
  type: CommentType.default('order'),
  text: z.string().trim().min(1, ORDER_MESSAGES.commentEmpty).max(5000, ORDER_MESSAGES.commentTooLong),
});
export type CommentAddInput = z.input<typeof CommentAddInput>;

/** SPEC §7: `POST comment/list` (limit, page, sort, order, search); entity_id and type narrow it to one order. */
export const CommentListInput = z.object({
  entity_id: z.string().trim().min(1).max(64).optional(),
  type: CommentType.optional(),
  limit: z.coerce.number().int().min(1).max(200).catch(GENERIC_LIST_PAGE_SIZE).default(GENERIC_LIST_PAGE_SIZE),
  page: z.coerce.number().int().min(1).catch(1).default(1),
  sort: z.enum(['id', 'created_at']).catch('id').default('id'),
  order: z
    .string()
    .transform((s) => (s.toUpperCase() === 'ASC' ? 'ASC' : 'DESC'))
    .catch('DESC')
    .default('DESC'),
  search: z.string().trim().max(200).optional(),
});
export type CommentListInput = z.input<typeof CommentListInput>;

export const Comment = z.object({
  id: z.string(),
  entity_id: z.string(),
  type: CommentType,
  text: z.string(),
  author: z.string().nullable(),
  created_at: z.date(),
});
export type Comment = z.infer<typeof Comment>;

export const CommentList = z.object({
  results: z.array(Comment),
  total: z.number().int(),
  limit: z.number().int(),
  page: z.number().int(),
});
export type CommentList = z.infer<typeof CommentList>;
