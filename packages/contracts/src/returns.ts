import { z } from 'zod';
import { DEFAULT_PAGE_SIZE } from './limits.ts';
import { wholeNumber } from './whole-number.ts';

/**
 * Returns and refunds (issue 16): from every channel (webhooks and a periodic pull) and from an order's detail
 * (written back to the channel by a job). A return's items go back on hand at their return store unless the
 * merchant (or the channel) says they are not restocked. Field names are SPEC §3's.
 *
 * Calls (tRPC unless a REST path is given; REST and tRPC call the same service):
 * - `returns.list(ReturnsListInput)` → ReturnList; v2 `GET returns` (external_id, limit, offset) → ReturnList
 * - `returns.get({ id })` → Return
 * - `returns.forOrder({ order_id })` → Return[] (an order's returns, newest first)
 * - `returns.create(CreateReturnInput)` → Return (restocked at once; the refund written back by a job)
 * - `returns.retry({ id })` → Return (a return in ERROR processed again; a failed refund written back again)
 */

/** DESIGN §3. */
export const RETURN_STATUSES = ['PENDING', 'PROCESSING', 'FINISHED', 'ERROR', 'SKIPPED'] as const;
export const ReturnStatus = z.enum(RETURN_STATUSES);
export type ReturnStatus = z.infer<typeof ReturnStatus>;

/** SPEC §4: FINISHED as Finished (success), ERROR as Error (danger), SKIPPED as Skipped (warning); others as is. */
export function returnStatusDisplay(status: string): { label: string; tone: 'success' | 'danger' | 'warning' | null } {
  if (status === 'FINISHED') return { label: 'Finished', tone: 'success' };
  if (status === 'ERROR') return { label: 'Error', tone: 'danger' };
  if (status === 'SKIPPED') return { label: 'Skipped', tone: 'warning' };
  return { label: status, tone: null };
}

/** Where the refund made here stands at the channel (null: imported from the channel, nothing to write back). */
export const REFUND_STATES = ['pending', 'ok', 'failed'] as const;
export const RefundState = z.enum(REFUND_STATES);
export type RefundState = z.infer<typeof RefundState>;

// ----------------------------------------------------------------------------------------- the list

/** SPEC §2: the returns list's search params (external_id searches the order's and the return's ids). */
export const ReturnsSearch = z.object({
  external_id: z.string().trim().max(200).catch('').default(''),
  limit: z.coerce.number().int().min(1).max(200).catch(DEFAULT_PAGE_SIZE).default(DEFAULT_PAGE_SIZE),
  offset: z.coerce.number().int().min(0).catch(0).default(0),
});
export type ReturnsSearch = z.infer<typeof ReturnsSearch>;
export const RETURNS_SEARCH_DEFAULTS = { external_id: '', limit: DEFAULT_PAGE_SIZE, offset: 0 } as const;

/**
 * The list's input: the search params, validated (an API caller is told what is wrong rather than given
 * defaults), and an order or a channel for callers that want one.
 */
export const ReturnsListInput = z.object({
  external_id: z.string().trim().max(200, 'external_id can be at most 200 characters').optional(),
  limit: wholeNumber('limit must be a whole number from 1 to 200', { min: 1, max: 200 }).default(DEFAULT_PAGE_SIZE),
  offset: wholeNumber('offset must be a whole number, 0 or more', { min: 0 }).default(0),
  channel_id: z.string().trim().min(1).max(64).optional(),
});
export type ReturnsListInput = z.input<typeof ReturnsListInput>;

export const ReturnItem = z.object({
  id: z.string(),
  sku: z.string().nullable(),
  qty: z.number().int(),
  /** The return store: our location's store id, else the channel's location id as it sent it. */
  return_store: z.string().nullable(),
  /** Our location's name, when the store is one of ours. */
  return_store_name: z.string().nullable(),
  /** Minor units. */
  total: z.number().int(),
  /** The units go back on sale (false: damaged, or kept by the customer). */
  restock: z.boolean(),
  /** The channel put them back on its own stock itself (counted once here). */
  channel_restocked: z.boolean(),
  /** The order line returned from, when known. */
  order_line_id: z.string().nullable(),
});
export type ReturnItem = z.infer<typeof ReturnItem>;

export const Return = z.object({
  id: z.string(),
  external_id: z.string(),
  channel_id: z.string().nullable(),
  order_external_id: z.string().nullable(),
  /** Our order, when it was imported. */
  order_id: z.string().nullable(),
  /** What the merchant calls the order (#1001). */
  order_number: z.string().nullable(),
  status: ReturnStatus,
  /** Why it is SKIPPED or in ERROR, in words the merchant can act on. */
  message: z.string().nullable(),
  currency: z.string(),
  /** Minor units. */
  tax: z.number().int(),
  adjustment: z.number().int(),
  total: z.number().int(),
  bill_name: z.string().nullable(),
  receipt_number: z.string().nullable(),
  /** channel: imported from the channel; switchyard: made here from the order. */
  source: z.enum(['channel', 'switchyard']),
  refund_state: RefundState.nullable(),
  refund_message: z.string().nullable(),
  items: z.array(ReturnItem),
  created_at: z.date(),
  provider_created_at: z.date().nullable(),
});
export type Return = z.infer<typeof Return>;

export const ReturnList = z.object({
  results: z.array(Return),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});
export type ReturnList = z.infer<typeof ReturnList>;

export const ReturnIdInput = z.object({ id: z.string().trim().min(1, 'Give a return id').max(64) });
export const ReturnsForOrderInput = z.object({ order_id: z.string().trim().min(1, 'Give an order id').max(64) });

// ------------------------------------------------------------------------------- made here from an order

export const RETURN_MESSAGES = {
  notFound: 'Return not found',
  orderNotFound: 'Order not found',
  noLines: 'Choose at least one line and a quantity to return.',
  lineNotInOrder: 'A line chosen is not a line of this order.',
  tooMany: (label: string, left: number) =>
    left === 0
      ? `${label}: every unit is returned or cancelled already.`
      : `${label}: at most ${left} ${left === 1 ? 'unit is' : 'units are'} left to return.`,
  storeNotFound: 'Choose one of your locations as the return store.',
  notReturnable: 'Only a shipped, fulfilled or picked-up order can have a return made here.',
  negativeRefund: 'The refund cannot be less than zero. Lower the adjustment.',
  tooMuchRefund: (max: string) => `The refund cannot be more than what was paid (${max}).`,
  notRetryable: 'Only a return in Error, or one whose refund failed at the channel, can be retried.',
  unknownSku: (sku: string | null) =>
    sku
      ? `SKU ${sku} is not in your catalog. Add it (or import the channel's catalog), then retry.`
      : 'A returned item has no SKU, so it cannot be restocked. Restock it by hand, then retry without it.',
  storeNotOurs: (store: string, channel: string) =>
    `The return store ${store} is not one of your locations. Map it to a location in ${channel}'s channel settings, then retry.`,
  noStore: (sku: string | null) =>
    `${sku ? `SKU ${sku}` : 'An item'} has no return store. Map the channel's locations to yours, then retry.`,
  nothingToRestock: 'Nothing to restock: no item was to go back on sale (damaged, or kept by the customer).',
  moneyOnly: 'Nothing to restock: a refund of money only, with no items returned.',
  failedAtChannel: 'The channel refused or cancelled this return: nothing moved.',
} as const;

/** A line to return: how many units, and whether they go back on sale (false: damaged). */
export const ReturnLineInput = z.object({
  line_id: z.string().trim().min(1).max(64),
  qty: z.coerce
    .number({ error: 'Quantities are whole numbers' })
    .int('Quantities are whole numbers')
    .min(0, 'Quantities cannot be negative')
    .max(100_000),
  restock: z.boolean().default(true),
});
export type ReturnLineInput = z.input<typeof ReturnLineInput>;

const Minor = (what: string) =>
  z.coerce
    .number({ error: `${what} must be an amount in cents` })
    .int(`${what} must be an amount in cents`)
    .min(-100_000_000)
    .max(100_000_000);

export const CreateReturnInput = z.object({
  order_id: z.string().trim().min(1, 'Give an order id').max(64),
  lines: z.array(ReturnLineInput).max(500),
  /** Our location the units go back to. */
  location_id: z.string().trim().min(1, RETURN_MESSAGES.storeNotFound).max(64),
  /** Refunded shipping, minor units (0 or more). */
  shipping: Minor('Shipping').min(0, 'Shipping refunded cannot be negative').default(0),
  /** Added to the refund (a goodwill amount), or taken off it when negative (a restocking fee); minor units. */
  adjustment: Minor('The adjustment').default(0),
  reason: z.string().trim().max(500).optional(),
});
export type CreateReturnInput = z.input<typeof CreateReturnInput>;

/** A line's refundable value per unit: its price less its discount, plus its tax, spread over its units. */
export function unitRefund(line: { unitPrice: number; discount: number; tax: number; quantity: number }): number {
  if (line.quantity <= 0) return 0;
  return Math.round(line.unitPrice + (line.tax - line.discount) / line.quantity);
}

/** The refund a return made here asks for: the lines' value, refunded shipping and the adjustment. */
export function refundTotal(lines: number, shipping: number, adjustment: number): number {
  return lines + shipping + adjustment;
}
