import { DECLINES, type Decline } from './cards.ts';
import { invalidRequest } from './errors.ts';
import { formatMoney } from './money.ts';
import { nowSeconds, type PendingItem, type RequestInfo, randomId, type StripeState } from './state.ts';
import type {
  BillingReason,
  Charge,
  Customer,
  Invoice,
  InvoiceLineItem,
  PaymentIntent,
  PaymentMethod,
  Price,
  Subscription,
  SubscriptionItem,
} from './types.ts';

/**
 * Invoices and their collection: lines, finalization with the customer balance, PaymentIntents and
 * Charges for each attempt, ACH settlement, and the events Stripe sends for each step.
 */

const DAY = 86_400;

export const productName = (state: StripeState, price: Price) =>
  state.products.get(price.product)?.name ?? price.product;

function subscriptionLine(
  state: StripeState,
  invoiceId: string,
  sub: Subscription,
  item: SubscriptionItem,
  period: { start: number; end: number },
): InvoiceLineItem {
  const price = item.price;
  const amount = price.unit_amount * item.quantity;
  const interval = price.recurring?.interval ?? 'month';
  return {
    id: state.newId('il'),
    object: 'line_item',
    amount,
    currency: price.currency,
    description: `${item.quantity} × ${productName(state, price)} (at ${formatMoney(price.unit_amount, price.currency)} / ${interval})`,
    discount_amounts: [],
    discountable: true,
    discounts: [],
    invoice: invoiceId,
    livemode: false,
    metadata: {},
    parent: {
      type: 'subscription_item_details',
      invoice_item_details: null,
      subscription_item_details: {
        invoice_item: null,
        proration: false,
        proration_details: { credited_items: null },
        subscription: sub.id,
        subscription_item: item.id,
      },
    },
    period,
    pretax_credit_amounts: [],
    pricing: {
      type: 'price_details',
      price_details: { price: price.id, product: price.product },
      unit_amount_decimal: price.unit_amount_decimal,
    },
    quantity: item.quantity,
    subscription: sub.id,
    subtotal: amount,
    taxes: [],
  };
}

function prorationLine(
  state: StripeState,
  invoiceId: string,
  sub: Subscription,
  pending: PendingItem,
): InvoiceLineItem {
  return {
    id: state.newId('il'),
    object: 'line_item',
    amount: pending.amount,
    currency: pending.currency,
    description: pending.description,
    discount_amounts: [],
    discountable: false,
    discounts: [],
    invoice: invoiceId,
    livemode: false,
    metadata: {},
    parent: {
      type: 'invoice_item_details',
      invoice_item_details: {
        invoice_item: pending.id,
        proration: true,
        proration_details: { credited_items: null },
        subscription: sub.id,
      },
      subscription_item_details: null,
    },
    period: pending.period,
    pretax_credit_amounts: [],
    pricing: {
      type: 'price_details',
      price_details: { price: pending.price, product: pending.product },
      unit_amount_decimal: String(pending.quantity ? pending.amount / pending.quantity : pending.amount),
    },
    quantity: pending.quantity,
    subscription: sub.id,
    subtotal: pending.amount,
    taxes: [],
  };
}

/**
 * A subscription invoice, finalized at once (Stripe finalizes subscription invoices about an hour after
 * creating them; the simulator skips the wait): number assigned, customer balance applied, a $0 total
 * marked paid. Sends invoice.created and invoice.finalized (and invoice.paid when nothing is due).
 */
export function createInvoice(
  state: StripeState,
  input: {
    sub: Subscription;
    billingReason: BillingReason;
    period: { start: number; end: number };
    /** Full-period lines for these items (renewal, creation, interval change). */
    itemPeriod?: { start: number; end: number } | null;
    pending: PendingItem[];
    prorationDate?: number;
  },
  request: RequestInfo,
): Invoice {
  const { sub } = input;
  const customer = state.customers.get(sub.customer) as Customer;
  const now = nowSeconds();
  const id = state.newId('in');
  const lines: InvoiceLineItem[] = [
    ...input.pending.map((p) => prorationLine(state, id, sub, p)),
    ...(input.itemPeriod
      ? sub.items.data.map((item) =>
          subscriptionLine(state, id, sub, item, input.itemPeriod as { start: number; end: number }),
        )
      : []),
  ];
  const total = lines.reduce((sum, l) => sum + l.amount, 0);
  const base = state.ctx.url();
  const invoice: Invoice = {
    id,
    object: 'invoice',
    account_country: 'US',
    account_name: state.businessName,
    account_tax_ids: null,
    amount_due: 0,
    amount_overpaid: 0,
    amount_paid: 0,
    amount_remaining: 0,
    amount_shipping: 0,
    application: null,
    attempt_count: 0,
    attempted: false,
    auto_advance: true,
    automatic_tax: { disabled_reason: null, enabled: false, liability: null, provider: null, status: null },
    automatically_finalizes_at: null,
    billing_reason: input.billingReason,
    collection_method: 'charge_automatically',
    created: now,
    currency: sub.currency,
    custom_fields: null,
    customer: customer.id,
    customer_account: null,
    customer_address: null,
    customer_email: customer.email,
    customer_name: customer.name,
    customer_phone: null,
    customer_shipping: null,
    customer_tax_exempt: 'none',
    customer_tax_ids: [],
    default_payment_method: null,
    default_source: null,
    default_tax_rates: [],
    description: null,
    discounts: [],
    due_date: null,
    effective_at: null,
    ending_balance: null,
    footer: null,
    from_invoice: null,
    hosted_invoice_url: null,
    invoice_pdf: null,
    issuer: { type: 'self' },
    last_finalization_error: null,
    latest_revision: null,
    lines: { object: 'list', data: lines, has_more: false, url: `/v1/invoices/${id}/lines` },
    livemode: false,
    metadata: {},
    next_payment_attempt: null,
    number: null,
    on_behalf_of: null,
    parent: {
      type: 'subscription_details',
      quote_details: null,
      subscription_details: {
        metadata: structuredClone(sub.metadata),
        subscription: sub.id,
        ...(input.prorationDate ? { subscription_proration_date: input.prorationDate } : {}),
      },
    },
    payment_settings: { default_mandate: null, payment_method_options: null, payment_method_types: null },
    payments: { object: 'list', data: [], has_more: false, url: '/v1/invoice_payments' },
    period_end: input.period.end,
    period_start: input.period.start,
    post_payment_credit_notes_amount: 0,
    pre_payment_credit_notes_amount: 0,
    receipt_number: null,
    rendering: null,
    shipping_cost: null,
    shipping_details: null,
    starting_balance: customer.balance,
    statement_descriptor: null,
    status: 'draft',
    status_transitions: { finalized_at: null, marked_uncollectible_at: null, paid_at: null, voided_at: null },
    subscription: sub.id,
    subtotal: total,
    subtotal_excluding_tax: total,
    test_clock: null,
    total,
    total_discount_amounts: [],
    total_excluding_tax: total,
    total_pretax_credit_amounts: [],
    total_taxes: [],
    webhooks_delivered_at: now,
  };
  state.invoices.set(id, invoice);
  sub.latest_invoice = id;
  state.emit('invoice.created', invoice, request);

  // Finalize: the customer's balance (credit from earlier prorations is negative) is applied.
  const balanceAfter = customer.balance + total;
  invoice.amount_due = Math.max(0, balanceAfter);
  invoice.amount_remaining = invoice.amount_due;
  invoice.ending_balance = Math.min(0, balanceAfter);
  customer.balance = invoice.ending_balance;
  invoice.number = `${customer.invoice_prefix}-${String(customer.next_invoice_sequence).padStart(4, '0')}`;
  customer.next_invoice_sequence += 1;
  invoice.status = 'open';
  invoice.effective_at = now;
  invoice.status_transitions.finalized_at = now;
  invoice.hosted_invoice_url = `${base}/stripe/invoices/${id}`;
  invoice.invoice_pdf = `${base}/stripe/invoices/${id}/pdf`;
  state.emit('invoice.finalized', invoice, request);
  if (invoice.amount_due === 0) markPaid(state, invoice, request);
  return invoice;
}

function markPaid(state: StripeState, invoice: Invoice, request: RequestInfo) {
  const now = nowSeconds();
  invoice.status = 'paid';
  invoice.amount_paid = invoice.amount_due;
  invoice.amount_remaining = 0;
  invoice.next_payment_attempt = null;
  invoice.status_transitions.paid_at = now;
  state.emit('invoice.paid', invoice, request);
  state.emit('invoice.payment_succeeded', invoice, request);
}

export type ChargeResult = { outcome: 'succeeded' } | { outcome: 'processing' } | { outcome: 'failed'; error: Decline };

/**
 * One attempt to collect an open invoice from a payment method: a PaymentIntent and a Charge, the
 * invoice payment record, and the invoice's own events. `behaviour` decides what the bank says.
 */
export function chargeInvoice(
  state: StripeState,
  invoice: Invoice,
  pm: PaymentMethod | null,
  outcome: 'succeeded' | 'processing' | { failed: Decline },
  request: RequestInfo,
): ChargeResult {
  const now = nowSeconds();
  invoice.attempted = true;
  invoice.attempt_count += 1;
  if (!pm) {
    const error = {
      code: 'invoice_no_payment_method_types',
      message: 'This customer has no attached payment source or default payment method.',
    };
    invoice.next_payment_attempt = now + 3 * DAY;
    state.emit('invoice.payment_failed', invoice, request);
    return { outcome: 'failed', error };
  }
  const existing = invoice.payments.data.find((p) => p.status === 'open');
  let pi = existing ? state.paymentIntents.get(existing.payment.payment_intent) : undefined;
  if (!pi) {
    pi = {
      id: state.newId('pi'),
      object: 'payment_intent',
      amount: invoice.amount_due,
      amount_capturable: 0,
      amount_received: 0,
      application: null,
      canceled_at: null,
      cancellation_reason: null,
      capture_method: 'automatic',
      client_secret: '',
      confirmation_method: 'automatic',
      created: now,
      currency: invoice.currency,
      customer: invoice.customer,
      description: invoice.billing_reason === 'subscription_create' ? 'Subscription creation' : 'Subscription update',
      last_payment_error: null,
      latest_charge: null,
      livemode: false,
      metadata: {},
      next_action: null,
      payment_method: pm.id,
      payment_method_types: [pm.type],
      setup_future_usage: 'off_session',
      status: 'requires_payment_method',
    };
    pi.client_secret = `${pi.id}_secret_${randomId(24)}`;
    state.paymentIntents.set(pi.id, pi);
    invoice.payments.data.push({
      id: state.newId('inpay'),
      object: 'invoice_payment',
      amount_paid: null,
      amount_requested: invoice.amount_due,
      created: now,
      currency: invoice.currency,
      invoice: invoice.id,
      is_default: true,
      livemode: false,
      payment: { type: 'payment_intent', payment_intent: pi.id },
      status: 'open',
      status_transitions: { canceled_at: null, paid_at: null },
    });
  }
  pi.payment_method = pm.id;
  pi.payment_method_types = [pm.type];
  invoice.default_payment_method = null;
  const failed = typeof outcome === 'object' ? outcome.failed : null;
  const charge: Charge = {
    id: state.newId('ch'),
    object: 'charge',
    amount: invoice.amount_due,
    amount_captured: failed ? 0 : invoice.amount_due,
    amount_refunded: 0,
    balance_transaction: failed ? null : state.newId('txn'),
    billing_details: structuredClone(pm.billing_details),
    captured: !failed,
    created: now,
    currency: invoice.currency,
    customer: invoice.customer,
    description: pi.description,
    failure_code: failed?.code ?? null,
    failure_message: failed?.message ?? null,
    livemode: false,
    metadata: {},
    outcome: failed
      ? {
          network_status: 'declined_by_network',
          reason: failed.decline_code ?? failed.code,
          risk_level: 'normal',
          seller_message: 'The bank did not return any further details with this decline.',
          type: 'issuer_declined',
        }
      : {
          network_status: 'approved_by_network',
          reason: null,
          risk_level: 'normal',
          seller_message: 'Payment complete.',
          type: 'authorized',
        },
    paid: !failed && outcome !== 'processing',
    payment_intent: pi.id,
    payment_method: pm.id,
    payment_method_details:
      pm.type === 'card'
        ? { type: 'card', card: { ...structuredClone(pm.card), network: pm.card?.brand } }
        : { type: 'us_bank_account', us_bank_account: structuredClone(pm.us_bank_account) },
    receipt_url: `${state.ctx.url()}/stripe/invoices/${invoice.id}`,
    refunded: false,
    status: failed ? 'failed' : outcome === 'processing' ? 'pending' : 'succeeded',
  };
  state.charges.set(charge.id, charge);
  pi.latest_charge = charge.id;

  if (failed) {
    // A card that wants 3D Secure cannot be charged without the customer: the payment waits for them.
    const needsAction = failed.code === 'authentication_required';
    pi.status = needsAction ? 'requires_action' : 'requires_payment_method';
    pi.last_payment_error = {
      type: 'card_error',
      code: failed.code,
      ...(failed.decline_code ? { decline_code: failed.decline_code } : {}),
      message: failed.message,
      payment_method: structuredClone(pm),
    };
    invoice.next_payment_attempt = now + 3 * DAY;
    if (needsAction) {
      state.emit('payment_intent.requires_action', pi, request);
      state.emit('invoice.payment_action_required', invoice, request);
    } else {
      state.emit('payment_intent.payment_failed', pi, request);
    }
    state.emit('invoice.payment_failed', invoice, request);
    return { outcome: 'failed', error: failed };
  }
  if (outcome === 'processing') {
    pi.status = 'processing';
    state.emit('payment_intent.processing', pi, request);
    return { outcome: 'processing' };
  }
  succeedPayment(state, invoice, pi, request);
  return { outcome: 'succeeded' };
}

function succeedPayment(state: StripeState, invoice: Invoice, pi: PaymentIntent, request: RequestInfo) {
  const now = nowSeconds();
  pi.status = 'succeeded';
  pi.amount_received = pi.amount;
  pi.last_payment_error = null;
  const charge = pi.latest_charge ? state.charges.get(pi.latest_charge) : undefined;
  if (charge) {
    charge.status = 'succeeded';
    charge.paid = true;
    charge.captured = true;
    charge.amount_captured = charge.amount;
    charge.balance_transaction ??= state.newId('txn');
  }
  const payment = invoice.payments.data.find((p) => p.payment.payment_intent === pi.id);
  if (payment) {
    payment.status = 'paid';
    payment.amount_paid = pi.amount;
    payment.status_transitions.paid_at = now;
  }
  state.emit('payment_intent.succeeded', pi, request);
  markPaid(state, invoice, request);
}

/** An ACH payment that was processing settles (or bounces). */
export function settleProcessing(
  state: StripeState,
  invoice: Invoice,
  result: { succeeded: true } | { succeeded: false; failure: Decline },
  request: RequestInfo,
): void {
  const payment = invoice.payments.data.find((p) => p.status === 'open');
  const pi = payment ? state.paymentIntents.get(payment.payment.payment_intent) : undefined;
  if (pi?.status !== 'processing') {
    throw invalidRequest(`Invoice ${invoice.id} has no payment in progress.`);
  }
  if (result.succeeded) {
    succeedPayment(state, invoice, pi, request);
    return;
  }
  const charge = pi.latest_charge ? state.charges.get(pi.latest_charge) : undefined;
  if (charge) {
    charge.status = 'failed';
    charge.failure_code = result.failure.code;
    charge.failure_message = result.failure.message;
  }
  pi.status = 'requires_payment_method';
  const pm = pi.payment_method ? state.paymentMethods.get(pi.payment_method) : undefined;
  pi.last_payment_error = {
    type: 'card_error',
    code: result.failure.code,
    ...(result.failure.decline_code ? { decline_code: result.failure.decline_code } : {}),
    message: result.failure.message,
    ...(pm ? { payment_method: structuredClone(pm) } : {}),
  };
  invoice.next_payment_attempt = null;
  state.emit('payment_intent.payment_failed', pi, request);
  state.emit('invoice.payment_failed', invoice, request);
}

/** What a saved payment method does when charged without the customer present. */
export function offSessionOutcome(
  state: StripeState,
  pm: PaymentMethod | null,
  forced?: 'paid' | 'failed',
): 'succeeded' | { failed: Decline } {
  if (forced === 'failed') return { failed: DECLINES.generic };
  if (!pm) return { failed: DECLINES.generic };
  if (forced === 'paid') return 'succeeded';
  switch (state.chargeBehaviour.get(pm.id) ?? 'succeeds') {
    case 'succeeds':
      return 'succeeded';
    case 'requires_authentication':
      return { failed: DECLINES.authenticationRequired };
    default:
      return { failed: DECLINES.generic };
  }
}

export function defaultPaymentMethod(state: StripeState, sub: Subscription): PaymentMethod | null {
  const customer = state.customers.get(sub.customer);
  const id = sub.default_payment_method ?? customer?.invoice_settings.default_payment_method ?? null;
  return id ? (state.paymentMethods.get(id) ?? null) : null;
}
