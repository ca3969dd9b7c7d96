import { z } from 'zod';
import { wholeNumber } from './whole-number.ts';

/**
 * Shipments and labels (issue 15). Calls:
 * - v2 `GET orders/{id}/shipments` → ShipmentList; tRPC `shipments.list({ id })`
 * - v2 `POST orders/{id}/shipments` (ShipmentCreateInput) → Shipment with its rates; tRPC `shipments.create`
 * - v2 `POST orders/{id}/shipments/buy` (ShipmentBuyInput) → Shipment with its label; tRPC `shipments.buy`
 * - frontend `POST shipping/getShippingLabel` (LabelInput) → the label, application/pdf
 * - tRPC `shipments.carrier` → live or sandbox; `shipments.settings` / `shipments.updateSettings` → ShippingLabelSettings
 */

export const LABEL_SIZES = ['4x6', 'letter'] as const;
export const LabelSize = z.enum(LABEL_SIZES);
export type LabelSize = z.infer<typeof LabelSize>;

/** Our shipment's own state: rated (rates shown), buying (the carrier was asked), purchased, voided. */
export const SHIPMENT_STATUSES = ['rated', 'buying', 'purchased', 'voided'] as const;
export const ShipmentStatus = z.enum(SHIPMENT_STATUSES);
export type ShipmentStatus = z.infer<typeof ShipmentStatus>;

/** The carrier's tracking status (EasyPost's tracker statuses). */
export const TRACKING_STATUSES = [
  'unknown',
  'pre_transit',
  'in_transit',
  'out_for_delivery',
  'delivered',
  'available_for_pickup',
  'return_to_sender',
  'failure',
  'cancelled',
  'error',
] as const;
export const TrackingStatus = z.enum(TRACKING_STATUSES);
export type TrackingStatus = z.infer<typeof TrackingStatus>;
export const TRACKING_LABELS: Record<TrackingStatus, string> = {
  unknown: 'Unknown',
  pre_transit: 'Label created',
  in_transit: 'In transit',
  out_for_delivery: 'Out for delivery',
  delivered: 'Delivered',
  available_for_pickup: 'Available for pickup',
  return_to_sender: 'Returned to sender',
  failure: 'Delivery exception',
  cancelled: 'Cancelled',
  error: 'Tracking error',
};

const dimension = (name: string) =>
  z
    .number({ error: `${name} must be a number (inches).` })
    .positive(`${name} must be more than 0.`)
    .max(108, `${name} is at most 108 inches.`);

/** One parcel: weight in ounces, sides in inches. */
export const PackageInput = z.object({
  weight: z
    .number({ error: 'Weight must be a number (ounces).' })
    .positive('Weight must be more than 0 ounces.')
    .max(2400, 'A parcel weighs at most 150 lb (2,400 oz).'),
  length: dimension('Length').optional(),
  width: dimension('Width').optional(),
  height: dimension('Height').optional(),
});
export type PackageInput = z.infer<typeof PackageInput>;

export const SHIPMENT_MAX_PACKAGES = 10;

export const ShipmentCreateInput = z.object({
  packages: z
    .array(PackageInput)
    .min(1, 'Add a package.')
    .max(SHIPMENT_MAX_PACKAGES, `At most ${SHIPMENT_MAX_PACKAGES} packages in one shipment.`),
  /**
   * The allocations to ship, each with how many of its units (default: every unit still to ship); default every
   * allocation still to ship at the store. A part of a line ships now, the rest stays reserved for a later one.
   */
  items: z
    .array(
      z.object({
        allocation_id: z.string().trim().min(1).max(64),
        quantity: z.number().int('A quantity is a whole number.').min(1, 'Ship at least 1 unit.').optional(),
      }),
    )
    .max(500)
    .optional(),
  /** The store it ships from (its store id); default the store the items are allocated to. */
  store_id: z.string().trim().min(1).max(64).optional(),
  /** Default: the account's label size (Settings → Fulfillment). */
  label_size: LabelSize.optional(),
});
export type ShipmentCreateInput = z.input<typeof ShipmentCreateInput>;

export const ShipmentBuyInput = z.object({
  shipment_id: z.string().trim().min(1, 'Say which shipment to buy.').max(64),
  /** A rate's key, `carrier:service`, from the shipment's rates. */
  rate: z.string().trim().min(1, 'Choose a rate.').max(200),
});
export type ShipmentBuyInput = z.infer<typeof ShipmentBuyInput>;

const PACKAGE_MESSAGE = `Package must be a whole number from 1 to ${SHIPMENT_MAX_PACKAGES}`;
export const LabelInput = z.object({
  shipment_id: z.string().trim().min(1).max(64),
  /** 1-based package number; default the first. */
  package: wholeNumber(PACKAGE_MESSAGE, { min: 1, max: SHIPMENT_MAX_PACKAGES }).default(1),
});
export type LabelInput = z.input<typeof LabelInput>;

export const ShipmentRate = z.object({
  /** `carrier:service`: what buy takes. */
  key: z.string(),
  carrier: z.string(),
  service: z.string(),
  /** Every package's rate, minor units. */
  amount: z.number().int(),
  currency: z.string(),
  deliveryDays: z.number().int().nullable(),
  cheapest: z.boolean(),
  fastest: z.boolean(),
});
export type ShipmentRate = z.infer<typeof ShipmentRate>;

export const ShipmentPackage = z.object({
  position: z.number().int(),
  weight: z.number(),
  length: z.number().nullable(),
  width: z.number().nullable(),
  height: z.number().nullable(),
  trackingCode: z.string().nullable(),
  trackingUrl: z.string().nullable(),
  trackingStatus: TrackingStatus.nullable(),
  hasLabel: z.boolean(),
});

export const ShipmentItem = z.object({
  allocationId: z.string(),
  lineId: z.string(),
  sku: z.string().nullable(),
  title: z.string(),
  quantity: z.number().int(),
});

export const Shipment = z.object({
  id: z.string(),
  orderId: z.string(),
  store: z.object({ id: z.string(), name: z.string(), storeId: z.string() }).nullable(),
  status: ShipmentStatus,
  carrier: z.string().nullable(),
  service: z.string().nullable(),
  amount: z.number().int().nullable(),
  currency: z.string().nullable(),
  labelSize: LabelSize,
  trackingCode: z.string().nullable(),
  trackingUrl: z.string().nullable(),
  trackingStatus: TrackingStatus.nullable(),
  /** The write-back of this shipment to the channel: pending, ok, failed (null: no channel). */
  channelStatus: z.enum(['pending', 'ok', 'failed']).nullable(),
  channelMessage: z.string().nullable(),
  /** The carrier's last refusal, shown where the merchant bought. */
  error: z.string().nullable(),
  rates: z.array(ShipmentRate),
  packages: z.array(ShipmentPackage),
  items: z.array(ShipmentItem),
  createdAt: z.date(),
  purchasedAt: z.date().nullable(),
});
export type Shipment = z.infer<typeof Shipment>;

export const ShipmentList = z.object({ results: z.array(Shipment) });
export type ShipmentList = z.infer<typeof ShipmentList>;

export const CarrierServices = z.object({
  mode: z.enum(['live', 'sandbox']),
  services: z.array(z.object({ carrier: z.string(), service: z.string() })),
});
export type CarrierServices = z.infer<typeof CarrierServices>;

/** The services rates are shopped from (EasyPost's names); the settings choose among them. */
export const CARRIER_SERVICES = [
  'USPS:GroundAdvantage',
  'USPS:Priority',
  'USPS:Express',
  'UPS:Ground',
  'UPS:2ndDayAir',
  'UPS:NextDayAir',
  'FedEx:FEDEX_GROUND',
  'FedEx:FEDEX_2_DAY',
  'FedEx:STANDARD_OVERNIGHT',
] as const;

export const WEIGHT_UNITS = ['oz', 'lb', 'g', 'kg'] as const;
export const WeightUnit = z.enum(WEIGHT_UNITS);
export type WeightUnit = z.infer<typeof WeightUnit>;
/** Ounces in one of each unit. */
export const OUNCES_PER: Record<WeightUnit, number> = { oz: 1, lb: 16, g: 0.035274, kg: 35.274 };

/** The account setting key of the label settings (account_settings). */
export const SHIPPING_LABEL_SETTING = 'shipping_labels';

/** /settings/fulfillment, labels: size, the default parcel, the unit weights are typed in, the services offered. */
export const ShippingLabelSettings = z.object({
  label_size: LabelSize.default('4x6'),
  weight_unit: WeightUnit.default('oz'),
  /** The parcel a new label starts from (weight in ounces, sides in inches); null: none. */
  default_package: PackageInput.nullable().default(null),
  /** `carrier:service` keys offered when rates are shopped; empty: every service the carrier has. */
  services: z.array(z.string().trim().min(1).max(100)).max(100).default([]),
});
export type ShippingLabelSettings = z.infer<typeof ShippingLabelSettings>;

export const SHIPMENT_MESSAGES = {
  notFound: 'Shipment not found',
  noItems: 'Nothing of this order is left to ship from that store.',
  itemNotOpen: 'A line in this shipment is already shipped, cancelled or not allocated.',
  tooMany: (label: string, left: number) =>
    `${label}: only ${left} ${left === 1 ? 'unit is' : 'units are'} left to ship on that line.`,
  repeatedItem: 'Name each line of the shipment once.',
  mixedStores: 'Ship the items of one store at a time.',
  noAddress: 'The order has no shipping address to ship to.',
  storeAddress: (name: string) =>
    `Give ${name} a street address and ZIP code in Locations first: the label ships from it.`,
  cancelled: 'A cancelled order is not shipped.',
  unknownRate: 'That rate is not one of this shipment’s rates. Get rates again.',
  bought: 'This shipment already has its label.',
  voided: 'This shipment was voided. Create a new one.',
  noLabel: 'This shipment has no label yet.',
  carrier: (reason: string) => `The carrier refused: ${reason}`,
  busy: 'The label is still being bought. Try again in a moment.',
  noServices: 'None of the services offered in Settings → Fulfillment ships this shipment.',
} as const;

/**
 * A carrier's service as a person reads it (screens and order timelines): USPS:GroundAdvantage → "USPS Ground
 * Advantage"; FedEx's upper-case codes read as words, without the carrier said
 * twice: FedEx:FEDEX_2_DAY → "FedEx 2 Day", FedEx:STANDARD_OVERNIGHT → "FedEx Standard Overnight".
 */
export function serviceName(carrier: string | null, service: string | null): string {
  let words = (service ?? '')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .split(/[_\s]+/)
    .filter(Boolean);
  if (words.length > 1 && carrier && words[0]?.toLowerCase() === carrier.toLowerCase()) words = words.slice(1);
  const named = words.map((w) => (/^[A-Z]{2,}$/.test(w) ? `${w[0]}${w.slice(1).toLowerCase()}` : w)).join(' ');
  return [carrier, named].filter(Boolean).join(' ');
}
