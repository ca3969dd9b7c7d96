// The carrier connector, EasyPost's API v2 (DESIGN §4a): shipments with their rates, buying a rate, the
// label, trackers, and the webhook that tells us where a parcel is. Live against api.easypost.com when
// EASYPOST_API_KEY is set, else against the sandbox's carrier simulator, the same code over real HTTP.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { SANDBOX_APPS } from '@switchyard/sandbox';
import { DomainError } from '../lib/errors.ts';
import type { Services } from '../services.ts';

export interface CarrierEndpoint {
  mode: 'live' | 'sandbox';
  /** Ends with /v2/. */
  baseUrl: string;
  apiKey: string;
  webhookSecret: string;
}

/** Where the carrier is: live with a key, else the sandbox's simulator. */
export function carrierEndpoint(services: Pick<Services, 'config' | 'providers' | 'credentialsKey'>): CarrierEndpoint {
  const secret =
    services.config.EASYPOST_WEBHOOK_SECRET ??
    createHmac('sha256', services.credentialsKey).update('easypost-webhook-secret').digest('base64url');
  if (services.config.EASYPOST_API_KEY)
    return {
      mode: 'live',
      baseUrl: 'https://api.easypost.com/v2/',
      apiKey: services.config.EASYPOST_API_KEY,
      webhookSecret: secret,
    };
  const sandbox = services.providers.sandboxUrl;
  if (!sandbox) throw new DomainError('UPSTREAM_FAILED', 'No carrier is configured (set EASYPOST_API_KEY).');
  return {
    mode: 'sandbox',
    baseUrl: `${sandbox}/easypost/v2/`,
    apiKey: SANDBOX_APPS.easypost.apiKey,
    webhookSecret: secret,
  };
}

export interface EpAddressInput {
  name?: string | null;
  company?: string | null;
  street1?: string | null;
  street2?: string | null;
  city?: string | null;
  state?: string | null;
  zip?: string | null;
  country?: string | null;
  phone?: string | null;
  email?: string | null;
}

export interface EpRate {
  id: string;
  carrier: string;
  service: string;
  rate: string;
  currency: string;
  delivery_days: number | null;
}

export interface EpTracker {
  id: string;
  tracking_code: string;
  status: string;
  status_detail?: string | null;
  public_url?: string | null;
  carrier?: string;
  shipment_id?: string | null;
  tracking_details?: { message: string; status: string; datetime: string }[];
}

export interface EpShipment {
  id: string;
  reference: string | null;
  rates: EpRate[];
  messages?: { carrier: string; message: string }[];
  selected_rate: EpRate | null;
  tracking_code: string | null;
  postage_label: { label_url: string; label_pdf_url?: string | null } | null;
  tracker: EpTracker | null;
}

/** A refusal from the carrier: its HTTP status, EasyPost's code and its message (shown to the merchant). */
export class CarrierError extends Error {
  readonly status: number;
  readonly code: string;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
  /** Worth trying again (throttled, the carrier's own failure, no answer). */
  get transient() {
    return this.status === 0 || this.status === 429 || this.status >= 500;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class EasyPostClient {
  readonly endpoint: CarrierEndpoint;
  private readonly timeoutMs: number;
  constructor(endpoint: CarrierEndpoint, options: { timeoutMs?: number } = {}) {
    this.endpoint = endpoint;
    this.timeoutMs = options.timeoutMs ?? 15_000;
  }

  /**
   * One call. Reads are retried on throttling, 5xx and timeouts; writes are sent once (a lost answer is
   * found again by reading, never by sending twice).
   */
  private async call<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T> {
    const attempts = method === 'GET' ? 4 : 1;
    let last: CarrierError | null = null;
    for (let attempt = 0; attempt < attempts; attempt++) {
      if (attempt > 0) await sleep(Math.min(2000, 200 * 2 ** attempt) * (0.5 + Math.random() / 2));
      let res: Response;
      try {
        res = await fetch(new URL(path, this.endpoint.baseUrl), {
          method,
          headers: {
            authorization: `Basic ${Buffer.from(`${this.endpoint.apiKey}:`).toString('base64')}`,
            accept: 'application/json',
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(this.timeoutMs),
        });
      } catch {
        last = new CarrierError(0, 'NO_ANSWER', 'The carrier did not answer in time.');
        continue;
      }
      let text: string;
      try {
        text = await res.text();
      } catch {
        // The connection dropped (or timed out) mid-body: no answer, and a write may have happened (status 0).
        last = new CarrierError(0, 'NO_ANSWER', "The carrier's answer was cut off.");
        continue;
      }
      if (res.ok) {
        try {
          return (text ? JSON.parse(text) : {}) as T;
        } catch {
          // A proxy's HTML page or a cut-off body: the carrier's failure (a 502), not a 500. Status 0, as a lost
          // answer: a write may have happened, so a purchase reads the shipment back before giving up.
          throw new CarrierError(0, 'BAD_ANSWER', 'The carrier answered with something that is not JSON.');
        }
      }
      let code = `HTTP_${res.status}`;
      let message = `The carrier answered ${res.status}.`;
      try {
        const parsed = JSON.parse(text) as { error?: { code?: string; message?: string } };
        if (parsed.error?.code) code = parsed.error.code;
        if (parsed.error?.message) message = parsed.error.message;
      } catch {
        // not JSON: keep the status
      }
      last = new CarrierError(res.status, code, message);
      if (!last.transient) throw last;
      const retryAfter = Number(res.headers.get('retry-after'));
      if (retryAfter > 0) await sleep(Math.min(5000, retryAfter * 1000));
    }
    throw last ?? new CarrierError(0, 'NO_ANSWER', 'The carrier did not answer.');
  }

  createShipment(input: {
    from: EpAddressInput;
    to: EpAddressInput;
    parcel: { weight: number; length?: number; width?: number; height?: number };
    reference: string;
    labelSize: '4x6' | 'letter';
  }): Promise<EpShipment> {
    return this.call<EpShipment>('POST', 'shipments', {
      shipment: {
        from_address: input.from,
        to_address: input.to,
        parcel: input.parcel,
        reference: input.reference,
        options: { label_format: 'PDF', label_size: input.labelSize === 'letter' ? '8.5x11' : '4x6' },
      },
    });
  }

  getShipment(id: string): Promise<EpShipment> {
    return this.call<EpShipment>('GET', `shipments/${encodeURIComponent(id)}`);
  }

  buy(shipmentId: string, rateId: string): Promise<EpShipment> {
    return this.call<EpShipment>('POST', `shipments/${encodeURIComponent(shipmentId)}/buy`, { rate: { id: rateId } });
  }

  /** The label file (a PDF), from the carrier's label host. */
  async labelFile(url: string): Promise<Buffer> {
    for (let attempt = 0; ; attempt++) {
      try {
        const res = await fetch(url, { signal: AbortSignal.timeout(this.timeoutMs) });
        if (res.ok) return Buffer.from(await res.arrayBuffer());
        if (res.status < 500 || attempt >= 2)
          throw new CarrierError(res.status, 'LABEL', 'The label file could not be read.');
      } catch (err) {
        if (err instanceof CarrierError) throw err;
        // No answer (refused, reset, timed out) after the last try: the carrier's failure, not ours.
        if (attempt >= 2) throw new CarrierError(0, 'NO_ANSWER', 'The label file could not be read.');
      }
      await sleep(200 * 2 ** attempt);
    }
  }

  listWebhooks(): Promise<{ webhooks: { id: string; url: string; disabled_at: string | null }[] }> {
    return this.call('GET', 'webhooks');
  }

  createWebhook(url: string, secret: string): Promise<{ id: string; url: string }> {
    return this.call('POST', 'webhooks', { webhook: { url, webhook_secret: secret } });
  }
}

/** Checks EasyPost's X-Hmac-Signature (hmac-sha256-hex=…) over the raw body, as its clients do. Constant time. */
export function verifyEasyPostSignature(rawBody: Buffer, header: string | undefined, secret: string): boolean {
  if (!header) return false;
  const normalized = rawBody.toString('utf8').replace(/("weight":\s*)(\d+)(\s*)(?=,|\})/g, '$1$2.0');
  const expected = `hmac-sha256-hex=${createHmac('sha256', Buffer.from(secret.normalize('NFKD'), 'utf8'))
    .update(normalized, 'utf8')
    .digest('hex')}`;
  const a = Buffer.from(header, 'utf8');
  const b = Buffer.from(expected, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

const registered = new Set<string>();

/** Subscribes our tracking webhook at the carrier once per process (idempotent: an existing one is kept). */
export async function ensureCarrierWebhook(client: EasyPostClient, url: string): Promise<void> {
  const key = `${client.endpoint.baseUrl}|${client.endpoint.apiKey.slice(0, 6)}|${url}`;
  if (registered.has(key)) return;
  const { webhooks } = await client.listWebhooks();
  if (!webhooks.some((w) => w.url === url && !w.disabled_at))
    await client.createWebhook(url, client.endpoint.webhookSecret);
  registered.add(key);
}
