// The carrier simulator's state: one EasyPost user per API key, with its shipments, trackers and webhooks,
// and one clock for the whole simulator that tests move forward (/_control/easypost/clock).
import { createHash, randomBytes } from 'node:crypto';
import { dollars, priceOf, SERVICES, zoneOf } from './rates.ts';

export type Mode = 'test' | 'production';
export type TrackerStatus =
  | 'unknown'
  | 'pre_transit'
  | 'in_transit'
  | 'out_for_delivery'
  | 'delivered'
  | 'failure'
  | 'return_to_sender';

export interface EpAddress {
  id: string;
  object: 'Address';
  mode: Mode;
  name: string | null;
  company: string | null;
  street1: string | null;
  street2: string | null;
  city: string | null;
  state: string | null;
  zip: string | null;
  country: string;
  phone: string | null;
  email: string | null;
  residential: boolean | null;
  created_at: string;
  updated_at: string;
}

export interface EpParcel {
  id: string;
  object: 'Parcel';
  mode: Mode;
  length: number | null;
  width: number | null;
  height: number | null;
  predefined_package: string | null;
  /** Ounces. */
  weight: number;
  created_at: string;
  updated_at: string;
}

export interface EpRate {
  id: string;
  object: 'Rate';
  mode: Mode;
  service: string;
  carrier: string;
  carrier_account_id: string;
  shipment_id: string;
  rate: string;
  currency: 'USD';
  retail_rate: string;
  retail_currency: 'USD';
  list_rate: string;
  list_currency: 'USD';
  billing_type: 'easypost';
  delivery_days: number;
  delivery_date: string | null;
  delivery_date_guaranteed: boolean;
  est_delivery_days: number;
  created_at: string;
  updated_at: string;
}

export interface TrackingDetail {
  object: 'TrackingDetail';
  message: string;
  description: string | null;
  status: TrackerStatus;
  status_detail: string;
  datetime: string;
  source: string;
  carrier_code: string | null;
  tracking_location: {
    object: 'TrackingLocation';
    city: string | null;
    state: string | null;
    country: string | null;
    zip: string | null;
  };
}

export interface Tracker {
  id: string;
  object: 'Tracker';
  mode: Mode;
  tracking_code: string;
  status: TrackerStatus;
  status_detail: string;
  signed_by: string | null;
  weight: number | null;
  est_delivery_date: string | null;
  shipment_id: string | null;
  carrier: string;
  tracking_details: TrackingDetail[];
  public_url: string;
  fees: unknown[];
  carrier_detail: null;
  finalized: boolean;
  is_return: boolean;
  created_at: string;
  updated_at: string;
  /** Not sent: when each status is reached, on the simulator's clock, and an exception that stops it. */
  _boughtAt: number;
  _days: number;
  _exception: { at: number; detail: string; message: string } | null;
  _from: EpAddress;
  _to: EpAddress;
}

export interface PostageLabel {
  id: string;
  object: 'PostageLabel';
  label_date: string;
  label_resolution: number;
  label_size: string;
  label_type: 'default';
  label_file_type: string;
  label_url: string;
  label_pdf_url: string | null;
  label_zpl_url: null;
  label_epl2_url: null;
  integrated_form: 'none';
  created_at: string;
  updated_at: string;
}

export interface Shipment {
  id: string;
  object: 'Shipment';
  mode: Mode;
  reference: string | null;
  status: 'unknown' | TrackerStatus;
  to_address: EpAddress;
  from_address: EpAddress;
  return_address: EpAddress;
  buyer_address: EpAddress;
  parcel: EpParcel;
  customs_info: null;
  options: Record<string, unknown>;
  is_return: boolean;
  rates: EpRate[];
  selected_rate: EpRate | null;
  postage_label: PostageLabel | null;
  tracking_code: string | null;
  tracker: Omit<Tracker, `_${string}`> | null;
  messages: { carrier: string; carrier_account_id: string; type: string; message: string }[];
  fees: { object: 'Fee'; type: string; amount: string; charged: boolean; refunded: boolean }[];
  forms: unknown[];
  insurance: string | null;
  refund_status: string | null;
  scan_form: null;
  batch_id: null;
  batch_status: null;
  batch_message: null;
  usps_zone: number | null;
  created_at: string;
  updated_at: string;
}

export interface Webhook {
  id: string;
  object: 'Webhook';
  mode: Mode;
  url: string;
  disabled_at: string | null;
  created_at: string;
  /** Not sent. */
  _secret: string | null;
}

export interface CarrierAccount {
  id: string;
  object: 'CarrierAccount';
  type: string;
  readable: string;
  description: string;
  reference: null;
  billing_type: 'easypost';
  credentials: Record<string, string>;
  test_credentials: null;
  created_at: string;
  updated_at: string;
}

export class EasyPostError extends Error {
  readonly statusCode: number;
  readonly code: string;
  readonly errors: { field: string; message: string }[];
  constructor(statusCode: number, code: string, message: string, errors: { field: string; message: string }[] = []) {
    super(message);
    this.statusCode = statusCode;
    this.code = code;
    this.errors = errors;
  }
}

/** One EasyPost user (an API key). */
export class EpUser {
  readonly id: string;
  readonly shipments = new Map<string, Shipment>();
  readonly trackers = new Map<string, Tracker>();
  readonly webhooks = new Map<string, Webhook>();
  readonly carrierAccounts: CarrierAccount[];
  readonly labels = new Map<string, Buffer>();

  readonly key: string;
  readonly mode: Mode;
  constructor(key: string, mode: Mode) {
    this.key = key;
    this.mode = mode;
    this.id = `user_${createHash('sha256').update(key).digest('hex').slice(0, 24)}`;
    const at = new Date(0).toISOString();
    this.carrierAccounts = (['USPS', 'UPS', 'FedEx'] as const).map((carrier) => ({
      id: `ca_${createHash('sha256').update(`${key}:${carrier}`).digest('hex').slice(0, 24)}`,
      object: 'CarrierAccount',
      type: `${carrier === 'FedEx' ? 'FedexAccount' : `${carrier[0]}${carrier.slice(1).toLowerCase()}Account`}`,
      readable: carrier,
      description: `${carrier} (EasyPost rates)`,
      reference: null,
      billing_type: 'easypost',
      credentials: {},
      test_credentials: null,
      created_at: at,
      updated_at: at,
    }));
  }

  accountFor(carrier: string): CarrierAccount {
    return this.carrierAccounts.find((a) => a.readable === carrier) as CarrierAccount;
  }
}

export const newObjectId = (prefix: string) => `${prefix}_${randomBytes(16).toString('hex')}`;

/** The simulator's clock: real time plus whatever tests added. */
export class SimClock {
  private offsetMs = 0;
  now(): number {
    return Date.now() + this.offsetMs;
  }
  iso(at = this.now()): string {
    return new Date(at).toISOString().replace(/\.\d{3}Z$/, 'Z');
  }
  advance(ms: number) {
    this.offsetMs += ms;
  }
}

const HOUR = 3_600_000;

/** When each status is reached after purchase, for a service of `days` delivery days. */
export function scheduleOf(
  days: number,
): { status: TrackerStatus; afterMs: number; detail: string; message: string }[] {
  const deliveredAfter = days * 24 * HOUR;
  return [
    {
      status: 'pre_transit',
      afterMs: 0,
      detail: 'label_created',
      message: 'Shipping Label Created, USPS Awaiting Item',
    },
    { status: 'in_transit', afterMs: 12 * HOUR, detail: 'arrived_at_facility', message: 'Arrived at Post Office' },
    {
      status: 'out_for_delivery',
      afterMs: Math.max(18 * HOUR, deliveredAfter - 6 * HOUR),
      detail: 'out_for_delivery',
      message: 'Out for Delivery',
    },
    {
      status: 'delivered',
      afterMs: Math.max(24 * HOUR, deliveredAfter),
      detail: 'arrived_at_destination',
      message: 'Delivered',
    },
  ];
}

export function ratesFor(
  user: EpUser,
  shipment: Pick<Shipment, 'id' | 'from_address' | 'to_address' | 'parcel'>,
  now: string,
  carrierAccountIds: string[] | null,
) {
  const zone = zoneOf(shipment.from_address.zip ?? undefined, shipment.to_address.zip ?? undefined);
  const rates: EpRate[] = [];
  const messages: Shipment['messages'] = [];
  for (const account of user.carrierAccounts) {
    if (carrierAccountIds && !carrierAccountIds.includes(account.id)) continue;
    if (zone === null) {
      messages.push({
        carrier: account.readable,
        carrier_account_id: account.id,
        type: 'rate_error',
        message: 'Unable to retrieve rates: a valid 5-digit ZIP code is required for both addresses.',
      });
      continue;
    }
    for (const table of SERVICES.filter((s) => s.carrier === account.readable)) {
      const { cents, days } = priceOf(table, shipment.parcel.weight, zone);
      rates.push({
        id: newObjectId('rate'),
        object: 'Rate',
        mode: user.mode,
        service: table.service,
        carrier: table.carrier,
        carrier_account_id: account.id,
        shipment_id: shipment.id,
        rate: dollars(cents),
        currency: 'USD',
        retail_rate: dollars(Math.round(cents * 1.18)),
        retail_currency: 'USD',
        list_rate: dollars(Math.round(cents * 1.08)),
        list_currency: 'USD',
        billing_type: 'easypost',
        delivery_days: days,
        delivery_date: null,
        delivery_date_guaranteed: false,
        est_delivery_days: days,
        created_at: now,
        updated_at: now,
      });
    }
  }
  return { rates, messages, zone };
}

let trackingSeq = 0;
/** A tracking code in the carrier's own format (USPS 22 digits, UPS 1Z + 16, FedEx 12 digits). */
export function trackingCodeFor(carrier: string): string {
  trackingSeq += 1;
  const digits = (n: number) =>
    Array.from(randomBytes(n), (b) => String(b % 10))
      .join('')
      .slice(0, n);
  if (carrier === 'UPS') return `1Z${digits(4)}${String(trackingSeq).padStart(4, '0')}03${digits(6)}`.toUpperCase();
  if (carrier === 'FedEx') return `${digits(7)}${String(trackingSeq).padStart(5, '0')}`;
  return `9400${digits(12)}${String(trackingSeq).padStart(6, '0')}`;
}

/** Strips the fields that are not part of EasyPost's answer. */
export function publicTracker(t: Tracker): Omit<Tracker, `_${string}`> {
  const { _boughtAt, _days, _exception, _from, _to, ...rest } = t;
  return rest;
}
