// The simulated Square's shapes: its error answer, the catalog objects, locations, inventory counts and
// their ledger, orders, payments, refunds and the events a change reports, with the inventory states.

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

export interface LedgerEntry {
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

export interface CountRecord {
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

export const DAY = 24 * 60 * 60 * 1000;
