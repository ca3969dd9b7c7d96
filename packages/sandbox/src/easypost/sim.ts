// The carrier simulator's behaviour: shipments and their rates, buying a rate (postage label, tracking code,
// tracker), trackers moving along their schedule on the simulator's clock, and tracker events sent to each
// user's webhooks signed as EasyPost signs them (X-Hmac-Signature: hmac-sha256-hex=…, over the body).
import { createHmac } from 'node:crypto';
import type { SandboxContext } from '../context.ts';
import { type LabelSize, renderLabel } from './label.ts';
import {
  EasyPostError,
  type EpAddress,
  type EpParcel,
  EpUser,
  type Mode,
  newObjectId,
  publicTracker,
  ratesFor,
  type Shipment,
  SimClock,
  scheduleOf,
  type Tracker,
  type TrackerStatus,
  trackingCodeFor,
} from './state.ts';

/** A test-mode key (EZTK…) or a production one (EZAK…): each key is its own EasyPost user. */
export const KEY_PATTERN = /^EZ(T|A)K[A-Za-z0-9_]{8,}$/;

/** EasyPost's webhook signature over a body (the official clients read weights as floats first). */
export function signEasyPost(body: string, secret: string): string {
  const normalized = body.replace(/("weight":\s*)(\d+)(\s*)(?=,|\})/g, '$1$2.0');
  return `hmac-sha256-hex=${createHmac('sha256', Buffer.from(secret.normalize('NFKD'), 'utf8'))
    .update(normalized, 'utf8')
    .digest('hex')}`;
}

type AddressInput = Partial<Record<keyof EpAddress, unknown>> | undefined;

export class EasyPostSim {
  readonly clock = new SimClock();
  private readonly users = new Map<string, EpUser>();
  private readonly byTrackingCode = new Map<string, { user: EpUser; tracker: Tracker }>();

  private readonly ctx: SandboxContext;
  constructor(ctx: SandboxContext) {
    this.ctx = ctx;
  }

  user(key: string): EpUser {
    let u = this.users.get(key);
    if (!u) {
      u = new EpUser(key, key.startsWith('EZAK') ? 'production' : 'test');
      this.users.set(key, u);
    }
    return u;
  }

  allUsers() {
    return [...this.users.values()];
  }

  private address(user: EpUser, input: AddressInput, field: string): EpAddress {
    if (!input || typeof input !== 'object')
      throw new EasyPostError(422, 'PARAMETER.REQUIRED', `Missing required parameter: ${field}.`, [
        { field, message: 'cannot be blank' },
      ]);
    const s = (k: keyof EpAddress) => {
      const v = input[k];
      return v === undefined || v === null || v === '' ? null : String(v);
    };
    const now = this.clock.iso();
    return {
      id: newObjectId('adr'),
      object: 'Address',
      mode: user.mode,
      name: s('name'),
      company: s('company'),
      street1: s('street1'),
      street2: s('street2'),
      city: s('city'),
      state: s('state'),
      zip: s('zip'),
      country: s('country') ?? 'US',
      phone: s('phone'),
      email: s('email'),
      residential: typeof input.residential === 'boolean' ? input.residential : null,
      created_at: now,
      updated_at: now,
    };
  }

  private parcel(user: EpUser, input: Record<string, unknown> | undefined): EpParcel {
    const weight = Number(input?.weight);
    if (!input || !Number.isFinite(weight) || weight <= 0)
      throw new EasyPostError(422, 'PARCEL.WEIGHT.INVALID', 'Parcel weight must be greater than zero (ounces).', [
        { field: 'parcel.weight', message: 'must be greater than 0' },
      ]);
    const dim = (k: string) => (input[k] === undefined || input[k] === null ? null : Number(input[k]));
    const now = this.clock.iso();
    return {
      id: newObjectId('prcl'),
      object: 'Parcel',
      mode: user.mode,
      length: dim('length'),
      width: dim('width'),
      height: dim('height'),
      predefined_package: typeof input.predefined_package === 'string' ? input.predefined_package : null,
      weight,
      created_at: now,
      updated_at: now,
    };
  }

  createShipment(user: EpUser, input: Record<string, unknown>): Shipment {
    const to = this.address(user, input.to_address as AddressInput, 'shipment.to_address');
    const from = this.address(user, input.from_address as AddressInput, 'shipment.from_address');
    const parcel = this.parcel(user, input.parcel as Record<string, unknown> | undefined);
    const now = this.clock.iso();
    const id = newObjectId('shp');
    const accounts = Array.isArray(input.carrier_accounts)
      ? input.carrier_accounts.map((a) => (typeof a === 'string' ? a : String((a as { id?: string }).id)))
      : null;
    const { rates, messages, zone } = ratesFor(user, { id, from_address: from, to_address: to, parcel }, now, accounts);
    const options = (input.options as Record<string, unknown> | undefined) ?? {};
    const shipment: Shipment = {
      id,
      object: 'Shipment',
      mode: user.mode,
      reference: typeof input.reference === 'string' ? input.reference : null,
      status: 'unknown',
      to_address: to,
      from_address: from,
      return_address: from,
      buyer_address: to,
      parcel,
      customs_info: null,
      options: { currency: 'USD', label_format: 'PNG', label_size: '4x6', ...options },
      is_return: input.is_return === true,
      rates,
      selected_rate: null,
      postage_label: null,
      tracking_code: null,
      tracker: null,
      messages,
      fees: [],
      forms: [],
      insurance: null,
      refund_status: null,
      scan_form: null,
      batch_id: null,
      batch_status: null,
      batch_message: null,
      usps_zone: zone,
      created_at: now,
      updated_at: now,
    };
    user.shipments.set(id, shipment);
    return shipment;
  }

  getShipment(user: EpUser, id: string): Shipment {
    const s = user.shipments.get(id);
    if (!s) throw new EasyPostError(404, 'NOT_FOUND', 'The requested resource could not be found.');
    return s;
  }

  /** Buys a rate once: a second buy of the same shipment is refused, as EasyPost refuses it. */
  async buy(user: EpUser, id: string, rateId: string | undefined): Promise<Shipment> {
    const shipment = this.getShipment(user, id);
    if (shipment.postage_label)
      throw new EasyPostError(422, 'SHIPMENT.POSTAGE.EXISTS', 'Postage already exists for this shipment.');
    const rate = shipment.rates.find((r) => r.id === rateId);
    if (!rate)
      throw new EasyPostError(422, 'SHIPMENT.RATE.INVALID', 'The rate provided is not one of this shipment’s rates.', [
        { field: 'rate.id', message: 'is invalid' },
      ]);
    const to = shipment.to_address;
    if (!to.street1 || /undeliverable/i.test(`${to.street1} ${to.street2 ?? ''}`))
      throw new EasyPostError(
        422,
        'SHIPMENT.POSTAGE.FAILURE',
        `${rate.carrier}: Address not found. The destination address could not be verified for delivery.`,
      );
    const now = this.clock.now();
    const at = this.clock.iso(now);
    const code = trackingCodeFor(rate.carrier);
    const size = String(shipment.options.label_size ?? '4x6') === '8.5x11' ? '8.5x11' : '4x6';
    const labelId = newObjectId('pl');
    const base = this.ctx.url();
    const tracker: Tracker = {
      id: newObjectId('trk'),
      object: 'Tracker',
      mode: user.mode,
      tracking_code: code,
      status: 'pre_transit',
      status_detail: 'label_created',
      signed_by: null,
      weight: shipment.parcel.weight,
      est_delivery_date: this.clock.iso(now + rate.delivery_days * 86_400_000),
      shipment_id: shipment.id,
      carrier: rate.carrier,
      tracking_details: [],
      public_url: `${base}/easypost/track/${code}`,
      fees: [],
      carrier_detail: null,
      finalized: false,
      is_return: false,
      created_at: at,
      updated_at: at,
      _boughtAt: now,
      _days: rate.delivery_days,
      _exception: null,
      _from: shipment.from_address,
      _to: shipment.to_address,
    };
    this.progress(tracker, now);
    Object.assign(shipment, {
      selected_rate: rate,
      tracking_code: code,
      status: 'unknown',
      updated_at: at,
      fees: [
        { object: 'Fee', type: 'LabelFee', amount: '0.00000', charged: true, refunded: false },
        { object: 'Fee', type: 'PostageFee', amount: rate.rate, charged: true, refunded: false },
      ],
      postage_label: {
        id: labelId,
        object: 'PostageLabel',
        label_date: at,
        label_resolution: 300,
        label_size: size,
        label_type: 'default',
        label_file_type: 'application/pdf',
        label_url: `${base}/easypost/files/postage_label/${labelId}.pdf`,
        label_pdf_url: `${base}/easypost/files/postage_label/${labelId}.pdf`,
        label_zpl_url: null,
        label_epl2_url: null,
        integrated_form: 'none',
        created_at: at,
        updated_at: at,
      },
    } satisfies Partial<Shipment>);
    user.labels.set(labelId, await renderLabel(shipment, size as LabelSize));
    user.trackers.set(tracker.id, tracker);
    this.byTrackingCode.set(code, { user, tracker });
    shipment.tracker = publicTracker(tracker);
    this.send(user, tracker, 'tracker.created', null);
    return shipment;
  }

  /** A label file by its id (public, like EasyPost's label hosting). */
  label(labelId: string): Buffer | null {
    for (const u of this.users.values()) {
      const file = u.labels.get(labelId);
      if (file) return file;
    }
    return null;
  }

  tracker(user: EpUser, id: string): Tracker {
    const t = user.trackers.get(id);
    if (!t) throw new EasyPostError(404, 'NOT_FOUND', 'The requested resource could not be found.');
    return t;
  }

  byCode(code: string) {
    return this.byTrackingCode.get(code) ?? null;
  }

  /** Moves a tracker to where its schedule says it is at `now`; true when its status changed. */
  private progress(t: Tracker, now: number): boolean {
    const before = t.status;
    const steps = scheduleOf(t._days).filter((s) => s.afterMs <= now - t._boughtAt);
    const location = (a: EpAddress) => ({
      object: 'TrackingLocation' as const,
      city: a.city,
      state: a.state,
      country: a.country,
      zip: a.zip,
    });
    t.tracking_details = steps
      .filter((s) => !t._exception || t._boughtAt + s.afterMs <= t._exception.at)
      .map((s) => ({
        object: 'TrackingDetail',
        message: s.message,
        description: null,
        status: s.status,
        status_detail: s.detail,
        datetime: this.clock.iso(t._boughtAt + s.afterMs),
        source: t.carrier,
        carrier_code: null,
        tracking_location: location(s.status === 'pre_transit' ? t._from : t._to),
      }));
    if (t._exception) {
      t.tracking_details.push({
        object: 'TrackingDetail',
        message: t._exception.message,
        description: null,
        status: 'failure',
        status_detail: t._exception.detail,
        datetime: this.clock.iso(t._exception.at),
        source: t.carrier,
        carrier_code: null,
        tracking_location: location(t._to),
      });
    }
    const last = t.tracking_details.at(-1);
    t.status = (last?.status ?? 'pre_transit') as TrackerStatus;
    t.status_detail = last?.status_detail ?? 'label_created';
    t.signed_by = t.status === 'delivered' ? (t._to.name?.split(' ')[0]?.toUpperCase() ?? 'SIGNED') : null;
    t.finalized = t.status === 'delivered' || t.status === 'failure';
    if (t.status !== before) t.updated_at = this.clock.iso(now);
    return t.status !== before;
  }

  /** The clock moved: every tracker catches up, and each change is sent as tracker.updated. */
  tick() {
    const now = this.clock.now();
    for (const user of this.users.values()) {
      for (const t of user.trackers.values()) {
        const previous = t.status;
        if (this.progress(t, now)) this.send(user, t, 'tracker.updated', previous);
      }
    }
  }

  /** A delivery exception from now on (the parcel stops moving). */
  exception(code: string, detail = 'undeliverable', message = 'Delivery Exception: address not accessible') {
    const found = this.byTrackingCode.get(code);
    if (!found) throw new EasyPostError(404, 'NOT_FOUND', 'The requested resource could not be found.');
    const previous = found.tracker.status;
    found.tracker._exception = { at: this.clock.now(), detail, message };
    if (this.progress(found.tracker, this.clock.now()))
      this.send(found.user, found.tracker, 'tracker.updated', previous);
    return found.tracker;
  }

  private send(user: EpUser, t: Tracker, description: string, previous: TrackerStatus | null) {
    const shipment = t.shipment_id ? user.shipments.get(t.shipment_id) : undefined;
    if (shipment) {
      shipment.tracker = publicTracker(t);
      shipment.status = t.status;
    }
    for (const hook of user.webhooks.values()) {
      if (hook.disabled_at) continue;
      const now = this.clock.iso();
      const event = {
        object: 'Event',
        id: newObjectId('evt'),
        mode: user.mode as Mode,
        description,
        previous_attributes: previous ? { status: previous } : {},
        result: publicTracker(t),
        status: 'pending',
        pending_urls: [hook.url],
        completed_urls: [],
        user_id: user.id,
        created_at: now,
        updated_at: now,
      };
      // EasyPost's JSON writes weights as floats; the body sent is what is signed.
      const body = JSON.stringify(event).replace(/("weight":\s*)(\d+)(\s*)(?=,|\})/g, '$1$2.0');
      this.ctx.webhooks.send({
        provider: 'easypost',
        shop: user.id,
        topic: description,
        url: hook.url,
        headers: hook._secret ? { 'x-hmac-signature': signEasyPost(body, hook._secret) } : {},
        body,
      });
    }
  }
}
