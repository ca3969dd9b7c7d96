import { attachPaymentMethod, createCustomer } from './customers.ts';
import { invalidRequest } from './errors.ts';
import { chargeInvoice, createInvoice, settleProcessing } from './invoices.ts';
import { nowSeconds, type RequestInfo, type StripeState } from './state.ts';
import { createSubscription, emitSubscriptionUpdated, snapshot, statusAfterPayment } from './subscriptions.ts';
import type { CheckoutSession, Invoice, PaymentMethod, Subscription } from './types.ts';

/** Checkout Sessions: completion from the hosted page, ACH settlement, expiry. */

/**
 * Checkout's completion: the customer (created if the session had none), the payment method, the
 * subscription and its first invoice, paid (card) or processing (ACH). Events in Stripe's order:
 * checkout.session.completed, customer.subscription.created, invoice.created, invoice.finalized,
 * invoice.paid, invoice.payment_succeeded.
 */
export function completeCheckout(
  state: StripeState,
  session: CheckoutSession,
  input: { pm: PaymentMethod; email: string | null; name: string | null; processing: boolean },
  request: RequestInfo,
): { sub: Subscription; invoice: Invoice } {
  let customer = session.customer ? state.customers.get(session.customer) : undefined;
  if (!customer) {
    customer = createCustomer(state, { email: input.email ?? session.customer_email, name: input.name }, request);
  }
  attachPaymentMethod(state, input.pm, customer, request);
  if (!customer.invoice_settings.default_payment_method) {
    customer.invoice_settings.default_payment_method = input.pm.id;
  }
  const metadata = structuredClone(state.sessionSubscriptionMetadata.get(session.id) ?? {});
  const sub = createSubscription(state, {
    customer,
    items: session.line_items.data.map((li) => ({
      price: state.prices.get(li.price.id) ?? li.price,
      quantity: li.quantity,
    })),
    metadata,
    defaultPaymentMethod: input.pm.id,
    status: input.processing ? 'incomplete' : 'active',
  });

  session.status = 'complete';
  session.payment_status = input.processing ? 'unpaid' : 'paid';
  session.customer = customer.id;
  session.subscription = sub.id;
  session.url = null;
  session.customer_details = {
    address: null,
    email: customer.email ?? input.email,
    name: input.name ?? customer.name,
    phone: null,
    tax_exempt: 'none',
    tax_ids: [],
  };

  // The first invoice is made and collected before the session reports complete (the session names
  // it), but its events follow checkout.session.completed and customer.subscription.created, the order
  // Stripe sends them in.
  const held = state.deferEvents();
  let invoice: Invoice;
  try {
    invoice = createInvoice(
      state,
      {
        sub,
        billingReason: 'subscription_create',
        period: { start: sub.current_period_start, end: sub.current_period_start },
        itemPeriod: { start: sub.current_period_start, end: sub.current_period_end },
        pending: [],
      },
      request,
    );
    if (invoice.status === 'open') {
      chargeInvoice(state, invoice, input.pm, input.processing ? 'processing' : 'succeeded', request);
    }
  } finally {
    held.stop();
  }
  session.invoice = invoice.id;
  state.emit('checkout.session.completed', session, request);
  state.emit('customer.subscription.created', sub, request);
  held.flush();
  return { sub, invoice };
}

/** A Checkout Session past its expires_at expires (checked whenever it is read). */
export function expireIfDue(state: StripeState, session: CheckoutSession, request: RequestInfo) {
  if (session.status === 'open' && nowSeconds() >= session.expires_at) expireSession(state, session, request);
}

export function expireSession(state: StripeState, session: CheckoutSession, request: RequestInfo) {
  session.status = 'expired';
  session.url = null;
  state.emit('checkout.session.expired', session, request);
}

/**
 * An ACH payment taken at checkout settles: succeeded → the invoice is paid, the subscription active,
 * checkout.session.async_payment_succeeded; failed → invoice.payment_failed and
 * checkout.session.async_payment_failed (the subscription stays incomplete). `forced` overrides what
 * the test bank account would do.
 */
export function settleCheckoutPayment(
  state: StripeState,
  session: CheckoutSession,
  forced: 'succeeded' | 'failed' | undefined,
  request: RequestInfo,
) {
  const invoice = session.invoice ? state.invoices.get(session.invoice) : undefined;
  if (!invoice || session.payment_status !== 'unpaid' || invoice.status !== 'open') {
    throw invalidRequest(`The Checkout Session ${session.id} has no payment waiting to settle.`);
  }
  const sub = session.subscription ? state.subscriptions.get(session.subscription) : undefined;
  const payment = invoice.payments.data.find((p) => p.status === 'open');
  const pi = payment ? state.paymentIntents.get(payment.payment.payment_intent) : undefined;
  if (pi?.status !== 'processing') {
    throw invalidRequest(`The Checkout Session ${session.id} has no payment waiting to settle.`);
  }
  const planned = pi.payment_method ? state.bankFailures.get(pi.payment_method) : undefined;
  const succeeded = forced ? forced === 'succeeded' : !planned;
  const before = sub ? snapshot(sub) : null;
  if (succeeded) {
    settleProcessing(state, invoice, { succeeded: true }, request);
    session.payment_status = 'paid';
    if (sub && before) {
      statusAfterPayment(sub, true);
      emitSubscriptionUpdated(state, sub, before, request);
    }
    state.emit('checkout.session.async_payment_succeeded', session, request);
  } else {
    settleProcessing(
      state,
      invoice,
      {
        succeeded: false,
        failure: planned ?? {
          code: 'insufficient_funds',
          decline_code: 'insufficient_funds',
          message: 'The customer’s account has insufficient funds to cover this payment.',
        },
      },
      request,
    );
    state.emit('checkout.session.async_payment_failed', session, request);
  }
}
