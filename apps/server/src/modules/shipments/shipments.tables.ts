import type { LabelSize, ShipmentRate, ShipmentStatus, TrackingStatus } from '@switchyard/contracts';
import { sql } from 'drizzle-orm';
import { bigint, check, index, integer, jsonb, pgTable, real, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { accounts } from '../accounts/accounts.tables.ts';
import { locations } from '../locations/locations.tables.ts';
import { orders } from '../orders/orders.tables.ts';

const at = () => timestamp({ withTimezone: true });

export interface CarrierAddress {
  name: string | null;
  company?: string | null;
  street1: string | null;
  street2?: string | null;
  city: string | null;
  state: string | null;
  zip: string | null;
  country: string;
  phone?: string | null;
  email?: string | null;
}

/**
 * A shipment of an order from one store (issue 15): its packages, the allocations it ships, the rates shopped
 * and the one bought. Buying is idempotent: `status` goes rated → buying (committed before the carrier is
 * asked) → purchased (committed with the stock it moves); a shipment left in `buying` by a crash is finished
 * by recovery from what the carrier says it has. `write_back_*` is the channel's copy of it (a job).
 */
export const shipments = pgTable(
  'shipments',
  {
    id: text().primaryKey(),
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    orderId: text()
      .notNull()
      .references(() => orders.id, { onDelete: 'cascade' }),
    locationId: text().references(() => locations.id, { onDelete: 'set null' }),
    status: text().$type<ShipmentStatus>().notNull(),
    /** Which carrier API: 'easypost'. */
    provider: text().notNull().default('easypost'),
    labelSize: text().$type<LabelSize>().notNull().default('4x6'),
    fromAddress: jsonb().$type<CarrierAddress>().notNull(),
    toAddress: jsonb().$type<CarrierAddress>().notNull(),
    rates: jsonb().$type<ShipmentRate[]>().notNull().default([]),
    /** The rate chosen (`carrier:service`) once buying starts. */
    rateKey: text(),
    carrier: text(),
    service: text(),
    amount: bigint({ mode: 'number' }),
    currency: text(),
    trackingCode: text(),
    trackingUrl: text(),
    trackingStatus: text().$type<TrackingStatus>(),
    /** Sent to the carrier as the shipments' reference, and the key of the stock and timeline entries. */
    idempotencyKey: text().notNull(),
    error: text(),
    writeBackStatus: text().$type<'pending' | 'ok' | 'failed'>(),
    writeBackMessage: text(),
    /** The channel's id of the fulfilment made from this shipment: a retried write-back sees it is done. */
    channelFulfillmentId: text(),
    createdBy: text(),
    buyingAt: at(),
    purchasedAt: at(),
    createdAt: at().notNull().defaultNow(),
    updatedAt: at().notNull().defaultNow(),
  },
  (t) => [
    index('shipments_order_idx').on(t.accountId, t.orderId, t.createdAt),
    index('shipments_buying_idx').on(t.status, t.buyingAt),
    uniqueIndex('shipments_idempotency_key').on(t.accountId, t.idempotencyKey),
    index('shipments_tracking_idx').on(t.trackingCode),
    check('shipments_status_check', sql`${t.status} in ('rated', 'buying', 'purchased', 'voided')`),
  ],
);

/** One parcel of a shipment: the carrier's shipment for it, its rates by key, and its label and tracking. */
export const shipmentPackages = pgTable(
  'shipment_packages',
  {
    id: text().primaryKey(),
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    shipmentId: text()
      .notNull()
      .references(() => shipments.id, { onDelete: 'cascade' }),
    position: integer().notNull(),
    weight: real().notNull(),
    length: real(),
    width: real(),
    height: real(),
    carrierShipmentId: text(),
    /** `carrier:service` → the carrier's rate id for this parcel. */
    rateIds: jsonb().$type<Record<string, string>>().notNull().default({}),
    trackingCode: text(),
    trackerId: text(),
    trackingUrl: text(),
    trackingStatus: text().$type<TrackingStatus>(),
    labelUrl: text(),
    updatedAt: at().notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('shipment_packages_position_key').on(t.shipmentId, t.position),
    index('shipment_packages_tracking_idx').on(t.trackingCode),
  ],
);

/**
 * The allocations a shipment ships, and how many units of each (part of a line, or all that is left). `active`
 * while the shipment holds its units unsettled (rated or being bought): an allocation is in at most one active
 * shipment, so a second shipment cannot take the same units. Voiding and buying (once the units left) settle it.
 */
export const shipmentItems = pgTable(
  'shipment_items',
  {
    shipmentId: text()
      .notNull()
      .references(() => shipments.id, { onDelete: 'cascade' }),
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    allocationId: text().notNull(),
    lineId: text().notNull(),
    quantity: integer().notNull(),
    active: integer().notNull().default(1),
  },
  (t) => [
    uniqueIndex('shipment_items_key').on(t.shipmentId, t.allocationId),
    uniqueIndex('shipment_items_active_allocation').on(t.allocationId).where(sql`${t.active} = 1`),
  ],
);

/**
 * Carrier webhook deliveries (tracker events), stored once by the carrier's event id and processed by a job.
 * The account is the one whose shipment holds the tracking code (null until matched).
 */
export const carrierEvents = pgTable(
  'carrier_events',
  {
    id: text().primaryKey(),
    provider: text().notNull(),
    eventId: text().notNull(),
    description: text().notNull(),
    trackingCode: text(),
    payload: jsonb().$type<unknown>().notNull(),
    receivedAt: at().notNull().defaultNow(),
    processedAt: at(),
    error: text(),
  },
  (t) => [uniqueIndex('carrier_events_provider_event_key').on(t.provider, t.eventId)],
);
