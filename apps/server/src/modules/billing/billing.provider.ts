// The billing provider: what the billing service needs from a payment processor, and Stripe's
// implementation through the official SDK. The same code talks to live Stripe (STRIPE_SECRET_KEY) and to
// the sandbox's Stripe simulator (services.providers.stripe host/port/protocol).
import type { BillingInterval, Plan } from '@switchyard/contracts';
import Stripe from 'stripe';
import { DomainError } from '../../lib/errors.ts';
import type { ProviderEndpoints, ProviderMode } from '../../providers.ts';
import type { StoredPaymentMethod } from './billing.tables.ts';

export interface ProviderSubscription {
  id: string;
  customerId: string;
  status: string;
  /** The single item we bill (one plan per subscription). */
  itemId: string | null;
  priceId: string | null;
  /** The price's lookup key (`${plan.code}_${interval}`) and its interval. */
  priceLookupKey: string | null;
  interval: 'month' | 'year' | null;
  currentPeriodEnd: Date | null;
  cancelAtPeriodEnd: boolean;
  endedAt: Date | null;
  metadata: Record<string, string>;
  paymentMethod: StoredPaymentMethod | null;
  latestInvoiceId: string | null;
}

export interface ProviderCheckout {
  id: string;
  url: string | null;
  status: 'open' | 'complete' | 'expired';
  paymentStatus: 'paid' | 'unpaid' | 'no_payment_required';
  subscriptionId: string | null;
  customerId: string | null;
  /** Our account id (client_reference_id). */
  accountId: string | null;
  metadata: Record<string, string>;
}

export interface ProviderInvoice {
  id: string;
  customerId: string;
  subscriptionId: string | null;
  number: string | null;
  status: 'draft' | 'open' | 'paid' | 'uncollectible' | 'void';
  amountDue: number;
  amountPaid: number;
  currency: string;
  billingReason: string | null;
  createdAt: Date;
  periodStart: Date | null;
  periodEnd: Date | null;
  hostedInvoiceUrl: string | null;
  pdfUrl: string | null;
}

export interface ProviderEvent {
  id: string;
  type: string;
  created: Date;
  /** `data.object` as sent. */
  object: Record<string, unknown> & { id?: string; object?: string };
  raw: Record<string, unknown>;
}

export interface BillingProvider {
  readonly mode: ProviderMode;
  createCustomer(input: { accountId: string; email: string; name: string }): Promise<string>;
  /** The price for a plan and interval, made (with its product) when missing or when the amount changed. */
  priceFor(plan: Plan, interval: BillingInterval): Promise<string>;
  createCheckout(input: {
    customerId: string;
    accountId: string;
    priceId: string;
    successUrl: string;
    cancelUrl: string;
    metadata: Record<string, string>;
  }): Promise<{ id: string; url: string }>;
  getCheckout(id: string): Promise<ProviderCheckout>;
  getSubscription(id: string): Promise<ProviderSubscription>;
  /** Prorated: the difference is invoiced and charged at once; a refused payment leaves the plan as it was. */
  changePrice(
    subscriptionId: string,
    itemId: string,
    priceId: string,
    metadata: Record<string, string>,
  ): Promise<ProviderSubscription>;
  setCancelAtPeriodEnd(subscriptionId: string, cancel: boolean): Promise<ProviderSubscription>;
  getInvoice(id: string): Promise<ProviderInvoice>;
  /** The provider's words for why the invoice's last payment attempt failed, if it did. */
  invoicePaymentError(id: string): Promise<string | null>;
  createPortal(customerId: string, returnUrl: string): Promise<string>;
  /** Verifies the signature over the raw body; throws InvalidSignature when it does not match. */
  parseWebhook(rawBody: Buffer, signature: string | undefined): ProviderEvent;
}

export class InvalidSignature extends Error {
  override name = 'InvalidSignature';
}

const seconds = (value: number | null | undefined) => (value ? new Date(value * 1000) : null);
const idOf = (value: string | { id: string } | null | undefined) =>
  typeof value === 'string' ? value : (value?.id ?? null);

function oneOf<T extends string>(value: string | null | undefined, allowed: readonly T[]): T | undefined {
  return allowed.find((a) => a === value);
}

const clients = new Map<string, Stripe>();

/** One SDK client per endpoint and key (the SDK keeps connections alive). */
export function stripeClient(endpoints: ProviderEndpoints['stripe']): Stripe {
  const key = `${endpoints.secretKey}@${endpoints.protocol ?? 'https'}://${endpoints.host ?? ''}:${endpoints.port ?? ''}`;
  let client = clients.get(key);
  if (!client) {
    client = new Stripe(endpoints.secretKey, {
      maxNetworkRetries: 2,
      timeout: 20_000,
      appInfo: { name: 'Switchyard' },
      ...(endpoints.host ? { host: endpoints.host, port: endpoints.port, protocol: endpoints.protocol } : {}),
    });
    clients.set(key, client);
  }
  return client;
}

/** Stripe's failures in our terms: a refused card is the merchant's to fix, anything else is upstream. */
export function fromStripeError(err: unknown): never {
  if (err instanceof Stripe.errors.StripeCardError) {
    throw new DomainError('VALIDATION', err.message || 'The payment was declined.', { cause: err });
  }
  if (err instanceof Stripe.errors.StripeConnectionError || err instanceof Stripe.errors.StripeAPIError) {
    throw new DomainError('UPSTREAM_FAILED', 'The payment provider could not be reached. Try again in a moment.', {
      cause: err,
    });
  }
  if (err instanceof Stripe.errors.StripeError) {
    throw new DomainError('UPSTREAM_FAILED', `The payment provider refused the request: ${err.message}`, {
      cause: err,
    });
  }
  throw err;
}

async function call<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    return fromStripeError(err);
  }
}

function toPaymentMethod(pm: Stripe.PaymentMethod | string | null): StoredPaymentMethod | null {
  if (!pm || typeof pm === 'string') return null;
  if (pm.card) {
    return { brand: pm.card.brand, last4: pm.card.last4, expMonth: pm.card.exp_month, expYear: pm.card.exp_year };
  }
  if (pm.us_bank_account) {
    return {
      brand: pm.us_bank_account.bank_name ?? 'Bank account',
      last4: pm.us_bank_account.last4 ?? '',
      expMonth: 0,
      expYear: 0,
    };
  }
  return null;
}

function toSubscription(sub: Stripe.Subscription): ProviderSubscription {
  const item = sub.items.data[0];
  return {
    id: sub.id,
    customerId: idOf(sub.customer) ?? '',
    status: sub.status,
    itemId: item?.id ?? null,
    priceId: item?.price.id ?? null,
    priceLookupKey: item?.price.lookup_key ?? null,
    interval: oneOf(item?.price.recurring?.interval, ['month', 'year'] as const) ?? null,
    currentPeriodEnd: seconds(item?.current_period_end),
    cancelAtPeriodEnd: sub.cancel_at_period_end,
    endedAt: seconds(sub.ended_at),
    metadata: { ...sub.metadata },
    paymentMethod: toPaymentMethod(sub.default_payment_method as Stripe.PaymentMethod | string | null),
    latestInvoiceId: idOf(sub.latest_invoice as string | { id: string } | null),
  };
}

function toInvoice(inv: Stripe.Invoice): ProviderInvoice {
  return {
    id: inv.id as string,
    customerId: idOf(inv.customer as string | { id: string } | null) ?? '',
    subscriptionId: idOf(inv.parent?.subscription_details?.subscription as string | { id: string } | null | undefined),
    number: inv.number ?? null,
    status: oneOf(inv.status, ['draft', 'open', 'paid', 'uncollectible', 'void'] as const) ?? 'draft',
    amountDue: inv.amount_due,
    amountPaid: inv.amount_paid,
    currency: inv.currency,
    billingReason: inv.billing_reason ?? null,
    createdAt: new Date(inv.created * 1000),
    periodStart: seconds(inv.period_start),
    periodEnd: seconds(inv.period_end),
    hostedInvoiceUrl: inv.hosted_invoice_url ?? null,
    pdfUrl: inv.invoice_pdf ?? null,
  };
}

export class StripeBillingProvider implements BillingProvider {
  readonly mode: ProviderMode;
  readonly #stripe: Stripe;
  readonly #webhookSecret: string;

  constructor(endpoints: ProviderEndpoints['stripe']) {
    this.mode = endpoints.mode;
    this.#stripe = stripeClient(endpoints);
    this.#webhookSecret = endpoints.webhookSecret;
  }

  createCustomer(input: { accountId: string; email: string; name: string }) {
    return call(async () => {
      const customer = await this.#stripe.customers.create(
        { email: input.email, name: input.name, metadata: { accountId: input.accountId } },
        { idempotencyKey: `customer-${input.accountId}-${this.mode}` },
      );
      return customer.id;
    });
  }

  priceFor(plan: Plan, interval: BillingInterval) {
    const lookupKey = `${plan.code}_${interval}`;
    const amount = interval === 'month' ? plan.monthlyPrice : plan.yearlyPrice;
    return call(async () => {
      const found = await this.#stripe.prices.list({ lookup_keys: [lookupKey], active: true, limit: 1 });
      const price = found.data[0];
      if (price && price.unit_amount === amount && price.currency === plan.currency) return price.id;
      // A new amount is a new price: Stripe prices are immutable. The lookup key moves to it, so existing
      // subscriptions keep what they pay and new checkouts get the new amount.
      const created = await this.#stripe.prices.create({
        currency: plan.currency,
        unit_amount: amount,
        recurring: { interval },
        lookup_key: lookupKey,
        transfer_lookup_key: true,
        product_data: { name: `Switchyard ${plan.name}`, metadata: { planCode: plan.code } },
        metadata: { planCode: plan.code, interval },
      });
      return created.id;
    });
  }

  createCheckout(input: {
    customerId: string;
    accountId: string;
    priceId: string;
    successUrl: string;
    cancelUrl: string;
    metadata: Record<string, string>;
  }) {
    return call(async () => {
      const session = await this.#stripe.checkout.sessions.create({
        mode: 'subscription',
        customer: input.customerId,
        client_reference_id: input.accountId,
        line_items: [{ price: input.priceId, quantity: 1 }],
        success_url: input.successUrl,
        cancel_url: input.cancelUrl,
        metadata: input.metadata,
        subscription_data: { metadata: input.metadata },
      });
      if (!session.url) throw new DomainError('UPSTREAM_FAILED', 'The payment provider did not give a payment page.');
      return { id: session.id, url: session.url };
    });
  }

  getCheckout(id: string) {
    return call(async () => {
      const s = await this.#stripe.checkout.sessions.retrieve(id);
      return {
        id: s.id,
        url: s.url ?? null,
        status: oneOf(s.status, ['open', 'complete', 'expired'] as const) ?? 'open',
        paymentStatus: oneOf(s.payment_status, ['paid', 'unpaid', 'no_payment_required'] as const) ?? 'unpaid',
        subscriptionId: idOf(s.subscription as string | { id: string } | null),
        customerId: idOf(s.customer as string | { id: string } | null),
        accountId: s.client_reference_id ?? null,
        metadata: { ...(s.metadata ?? {}) },
      } satisfies ProviderCheckout;
    });
  }

  getSubscription(id: string) {
    return call(async () =>
      toSubscription(await this.#stripe.subscriptions.retrieve(id, { expand: ['default_payment_method'] })),
    );
  }

  changePrice(subscriptionId: string, itemId: string, priceId: string, metadata: Record<string, string>) {
    return call(async () =>
      toSubscription(
        await this.#stripe.subscriptions.update(subscriptionId, {
          items: [{ id: itemId, price: priceId }],
          proration_behavior: 'always_invoice',
          payment_behavior: 'error_if_incomplete',
          metadata,
          expand: ['default_payment_method'],
        }),
      ),
    );
  }

  setCancelAtPeriodEnd(subscriptionId: string, cancel: boolean) {
    return call(async () =>
      toSubscription(
        await this.#stripe.subscriptions.update(subscriptionId, {
          cancel_at_period_end: cancel,
          expand: ['default_payment_method'],
        }),
      ),
    );
  }

  getInvoice(id: string) {
    return call(async () => toInvoice(await this.#stripe.invoices.retrieve(id)));
  }

  invoicePaymentError(id: string) {
    return call(async () => {
      const inv = await this.#stripe.invoices.retrieve(id, { expand: ['payments'] });
      if (inv.status === 'paid') return null;
      const payments = inv.payments?.data ?? [];
      for (const payment of [...payments].reverse()) {
        const piId = idOf(payment.payment.payment_intent as string | { id: string } | null | undefined);
        if (!piId) continue;
        const pi = await this.#stripe.paymentIntents.retrieve(piId);
        if (pi.last_payment_error?.message) return pi.last_payment_error.message;
      }
      return null;
    });
  }

  createPortal(customerId: string, returnUrl: string) {
    return call(async () => {
      const portal = await this.#stripe.billingPortal.sessions.create({ customer: customerId, return_url: returnUrl });
      return portal.url;
    });
  }

  parseWebhook(rawBody: Buffer, signature: string | undefined): ProviderEvent {
    if (!signature || !this.#webhookSecret) throw new InvalidSignature('Missing Stripe-Signature');
    let event: Stripe.Event;
    try {
      event = this.#stripe.webhooks.constructEvent(rawBody, signature, this.#webhookSecret);
    } catch (err) {
      throw new InvalidSignature(err instanceof Error ? err.message : 'Invalid signature');
    }
    return {
      id: event.id,
      type: event.type,
      created: new Date(event.created * 1000),
      // Signed but malformed (no data): stored and marked failed by receiveStripeEvent, not a TypeError here.
      object: (event.data?.object ?? {}) as unknown as ProviderEvent['object'],
      raw: event as unknown as Record<string, unknown>,
    };
  }
}

export function billingProvider(providers: ProviderEndpoints): BillingProvider {
  return new StripeBillingProvider(providers.stripe);
}
