import { createHmac, randomBytes } from 'node:crypto';
import type { SandboxContext } from '../context.ts';
import type { Delivery } from '../webhooks.ts';
import type { Decline } from './cards.ts';
import { invalidRequest, noSuch } from './errors.ts';
import type {
  ApiList,
  Charge,
  CheckoutSession,
  Customer,
  Invoice,
  Metadata,
  PaymentIntent,
  PaymentMethod,
  PortalSession,
  Price,
  Product,
  StripeEvent,
  Subscription,
} from './types.ts';
import { API_VERSION } from './types.ts';

/** How a saved test payment method behaves when it is charged later (renewals, portal payments). */
export type ChargeBehaviour = 'succeeds' | 'declines_later' | 'requires_authentication';

/** What the request that caused a change was, for `event.request`. */
export interface RequestInfo {
  id: string | null;
  idempotencyKey: string | null;
}

export const AUTOMATIC: RequestInfo = { id: null, idempotencyKey: null };

const ALPHANUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export function randomId(length: number): string {
  const bytes = randomBytes(length);
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHANUM[(bytes[i] as number) % ALPHANUM.length];
  return out;
}

export const nowSeconds = () => Math.floor(Date.now() / 1000);

type Stored =
  | Customer
  | Product
  | Price
  | PaymentMethod
  | CheckoutSession
  | Subscription
  | Invoice
  | PaymentIntent
  | Charge
  | PortalSession
  | StripeEvent;

/** Includable fields: kept on the stored object, shown only when `expand` names them. */
const INCLUDABLE: Record<string, string[]> = {
  invoice: ['payments'],
  'checkout.session': ['line_items'],
};

/**
 * Everything the simulated Stripe account holds, in memory (one account per sandbox). Objects are stored
 * in their API shape and changed in place; answers and event payloads are deep copies.
 */
export class StripeState {
  readonly customers = new Map<string, Customer>();
  readonly deletedCustomers = new Set<string>();
  readonly products = new Map<string, Product>();
  readonly prices = new Map<string, Price>();
  readonly paymentMethods = new Map<string, PaymentMethod>();
  readonly chargeBehaviour = new Map<string, ChargeBehaviour>();
  /** Test bank accounts that bounce when their ACH payment settles. */
  readonly bankFailures = new Map<string, Decline>();
  readonly sessions = new Map<string, CheckoutSession>();
  readonly subscriptions = new Map<string, Subscription>();
  readonly invoices = new Map<string, Invoice>();
  readonly paymentIntents = new Map<string, PaymentIntent>();
  readonly charges = new Map<string, Charge>();
  readonly portalSessions = new Map<string, PortalSession>();
  readonly events = new Map<string, StripeEvent>();
  /** Idempotency-Key → the request's fingerprint and the answer it got. */
  readonly idempotency = new Map<string, { fingerprint: string; status: number; body: unknown }>();
  /** Proration lines waiting for the subscription's next invoice (proration_behavior=create_prorations). */
  readonly pendingItems = new Map<string, PendingItem[]>();
  /** subscription_data[metadata] of each Checkout Session, for the subscription it creates. */
  readonly sessionSubscriptionMetadata = new Map<string, Metadata>();
  /** Events held back while deferring (see deferEvents). */
  private held: (() => void)[] | null = null;
  /** The latest delivery of each event sent. */
  private readonly deliveries = new Map<string, Delivery>();
  /** Insertion order, for stable lists of objects created in the same second. */
  private readonly order = new Map<string, number>();
  private seq = 0;

  readonly ctx: SandboxContext;
  readonly businessName = 'Switchyard';

  constructor(ctx: SandboxContext) {
    this.ctx = ctx;
  }

  newId(prefix: string, length = 24): string {
    const id = `${prefix}_${prefix === 'cs' ? 'test_' : ''}${randomId(length)}`;
    this.order.set(id, ++this.seq);
    return id;
  }

  /** Newest first, as every Stripe list is (creation order breaks ties within a second). */
  newestFirst<T extends { id: string; created: number }>(items: Iterable<T>): T[] {
    return [...items].sort(
      (a, b) => b.created - a.created || (this.order.get(b.id) ?? 0) - (this.order.get(a.id) ?? 0),
    );
  }

  /**
   * One page of a list: `limit` (1..100, default 10), `starting_after` / `ending_before` cursors. The
   * items are rendered (expanded, includables dropped) by the caller's `render`.
   */
  page<T extends { id: string; created: number }>(
    url: string,
    items: Iterable<T>,
    opts: { limit?: number; startingAfter?: string; endingBefore?: string; created?: (created: number) => boolean },
    render: (item: T) => unknown,
  ): ApiList<unknown> {
    const limit = opts.limit ?? 10;
    if (limit < 1 || limit > 100) {
      throw invalidRequest('Invalid limit: must be between 1 and 100', 'limit', 'parameter_invalid_integer');
    }
    const sorted = this.newestFirst([...items].filter((i) => !opts.created || opts.created(i.created)));
    let slice: T[];
    let hasMore: boolean;
    if (opts.startingAfter) {
      const at = sorted.findIndex((i) => i.id === opts.startingAfter);
      if (at < 0) throw noSuch(kindOf(opts.startingAfter), opts.startingAfter, 'starting_after');
      slice = sorted.slice(at + 1, at + 1 + limit);
      hasMore = at + 1 + limit < sorted.length;
    } else if (opts.endingBefore) {
      const at = sorted.findIndex((i) => i.id === opts.endingBefore);
      if (at < 0) throw noSuch(kindOf(opts.endingBefore), opts.endingBefore, 'ending_before');
      slice = sorted.slice(Math.max(0, at - limit), at);
      hasMore = at - limit > 0;
    } else {
      slice = sorted.slice(0, limit);
      hasMore = sorted.length > limit;
    }
    return { object: 'list', data: slice.map(render), has_more: hasMore, url };
  }

  /** Any stored object by id (for expand and the control API). */
  lookup(id: string): Stored | undefined {
    const prefix = id.slice(0, id.indexOf('_'));
    switch (prefix) {
      case 'cus':
        return this.customers.get(id);
      case 'prod':
        return this.products.get(id);
      case 'price':
        return this.prices.get(id);
      case 'pm':
        return this.paymentMethods.get(id);
      case 'cs':
        return this.sessions.get(id);
      case 'sub':
        return this.subscriptions.get(id);
      case 'in':
        return this.invoices.get(id);
      case 'pi':
        return this.paymentIntents.get(id);
      case 'ch':
        return this.charges.get(id);
      case 'bps':
        return this.portalSessions.get(id);
      case 'evt':
        return this.events.get(id);
      default:
        return this.products.get(id);
    }
  }

  /**
   * A deep copy of a stored object as an answer: includable fields dropped unless asked for, and each
   * `expand` path (`customer`, `subscription.latest_invoice`, `data.customer` on lists) replaced by the
   * object it names, as Stripe does (up to four levels).
   */
  render(obj: object, expand: string[] = []): Record<string, unknown> {
    const copy = structuredClone(obj) as Record<string, unknown>;
    this.dropIncludables(copy, expand);
    for (const path of expand) this.expandPath(copy, path.split('.'), path);
    return copy;
  }

  private dropIncludables(copy: Record<string, unknown>, expand: string[]) {
    const hidden = INCLUDABLE[copy.object as string];
    if (!hidden) return;
    for (const field of hidden) {
      if (!expand.some((p) => p === field || p.startsWith(`${field}.`))) delete copy[field];
    }
  }

  private expandPath(target: Record<string, unknown>, parts: string[], full: string) {
    if (parts.length > 4)
      throw invalidRequest(`You cannot expand more than 4 levels of a property. Property: ${full}`, 'expand');
    const [head, ...rest] = parts as [string, ...string[]];
    if (!(head in target) && !(INCLUDABLE[target.object as string] ?? []).includes(head)) {
      throw invalidRequest(`This property cannot be expanded (${full}).`, 'expand');
    }
    let value = target[head];
    if (typeof value === 'string') {
      const found = this.lookup(value);
      if (!found) return;
      const expanded = structuredClone(found) as unknown as Record<string, unknown>;
      this.dropIncludables(expanded, rest.length ? [rest.join('.')] : []);
      target[head] = expanded;
      value = expanded;
    }
    if (rest.length === 0 || value === null || typeof value !== 'object') return;
    const obj = value as Record<string, unknown>;
    if (obj.object === 'list' && Array.isArray(obj.data) && rest[0] === 'data') {
      for (const item of obj.data as Record<string, unknown>[]) {
        if (rest.length > 1) this.expandPath(item, rest.slice(1), full);
      }
      return;
    }
    if (Array.isArray(value)) return;
    this.expandPath(obj, rest, full);
  }

  get<T extends Stored>(map: Map<string, T>, kind: string, id: string, param = 'id'): T {
    const found = map.get(id);
    if (!found) throw noSuch(kind, id, param);
    return found;
  }

  /**
   * Records an event and sends it to the app's endpoint (when one is configured) signed like Stripe:
   * `Stripe-Signature: t=<unix>,v1=<HMAC-SHA256(secret, "<t>.<payload>")>`.
   */
  emit(type: string, object: object, request: RequestInfo, previousAttributes?: Record<string, unknown>): void {
    const data = {
      object: this.render(object),
      ...(previousAttributes && Object.keys(previousAttributes).length
        ? { previous_attributes: structuredClone(previousAttributes) }
        : {}),
    };
    const create = () => this.createEvent(type, data, request);
    if (this.held) this.held.push(create);
    else create();
  }

  /**
   * Holds back the events emitted from now until `stop()` (their payloads are taken at once) and sends
   * them on `flush()`: for changes Stripe reports in a different order than they are made.
   */
  deferEvents(): { stop(): void; flush(): void } {
    const held: (() => void)[] = [];
    const outer = this.held;
    this.held = held;
    return {
      stop: () => {
        this.held = outer;
      },
      flush: () => {
        for (const create of held.splice(0)) create();
      },
    };
  }

  private createEvent(type: string, data: StripeEvent['data'], request: RequestInfo): StripeEvent {
    const url = this.ctx.options.stripe?.webhookUrl;
    const event: StripeEvent = {
      id: this.newId('evt'),
      object: 'event',
      api_version: API_VERSION,
      created: nowSeconds(),
      data,
      livemode: false,
      pending_webhooks: url ? 1 : 0,
      request: { id: request.id, idempotency_key: request.idempotencyKey },
      type,
    };
    this.events.set(event.id, event);
    this.deliver(event);
    return event;
  }

  /** Sends (or re-sends) an event to the configured endpoint. */
  deliver(event: StripeEvent): boolean {
    const url = this.ctx.options.stripe?.webhookUrl;
    if (!url) return false;
    const payload = JSON.stringify(event, null, 2);
    const t = nowSeconds();
    const secret = this.ctx.options.stripe?.webhookSecret ?? '';
    const v1 = createHmac('sha256', secret).update(`${t}.${payload}`, 'utf8').digest('hex');
    const delivery = this.ctx.webhooks.send({
      provider: 'stripe',
      shop: 'default',
      topic: event.type,
      url,
      headers: {
        'stripe-signature': `t=${t},v1=${v1}`,
        'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
      },
      body: payload,
    });
    this.deliveries.set(event.id, delivery);
    return true;
  }

  /** The event with pending_webhooks brought up to date (0 once its endpoint has accepted it). */
  withDeliveryState(event: StripeEvent): StripeEvent {
    const delivery = this.deliveries.get(event.id);
    if (delivery) event.pending_webhooks = delivery.status === 'delivered' ? 0 : 1;
    return event;
  }

  /**
   * Runs `fn` on the account and then puts everything back as it was (its events are dropped): for
   * previews that must compute exactly what a change would do. Returns a copy of what `fn` returned.
   */
  dryRun<T>(fn: () => T): T {
    const maps: Map<string, unknown>[] = [
      this.customers,
      this.paymentMethods,
      this.sessions,
      this.subscriptions,
      this.invoices,
      this.paymentIntents,
      this.charges,
      this.events,
      this.pendingItems,
    ];
    const saved = maps.map((m) => structuredClone([...m.entries()]));
    const held = this.deferEvents();
    try {
      return structuredClone(fn());
    } finally {
      held.stop();
      maps.forEach((m, i) => {
        m.clear();
        for (const [k, v] of saved[i] ?? []) m.set(k, v);
      });
    }
  }

  /** Events, newest first. */
  eventList(): StripeEvent[] {
    return this.newestFirst(this.events.values());
  }
}

export interface PendingItem {
  id: string;
  amount: number;
  currency: string;
  description: string;
  price: string;
  product: string;
  quantity: number;
  subscriptionItem: string;
  period: { start: number; end: number };
}

/** "customer" from "cus_…", for error messages. */
export function kindOf(id: string): string {
  const prefix = id.slice(0, id.indexOf('_'));
  return (
    {
      cus: 'customer',
      prod: 'product',
      price: 'price',
      pm: 'PaymentMethod',
      cs: 'checkout.session',
      sub: 'subscription',
      in: 'invoice',
      pi: 'payment_intent',
      ch: 'charge',
      evt: 'event',
    }[prefix] ?? 'object'
  );
}
