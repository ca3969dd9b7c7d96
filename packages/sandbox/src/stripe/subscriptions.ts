import type { Decline } from './cards.ts';
import { invalidRequest, StripeApiError } from './errors.ts';
import {
  type ChargeResult,
  chargeInvoice,
  createInvoice,
  defaultPaymentMethod,
  offSessionOutcome,
  productName,
} from './invoices.ts';
import { addInterval, formatDate } from './money.ts';
import { AUTOMATIC, nowSeconds, type PendingItem, type RequestInfo, randomId, type StripeState } from './state.ts';
import type { Customer, Invoice, Metadata, PaymentMethod, Price, Subscription, SubscriptionItem } from './types.ts';

/**
 * Subscriptions: creation, renewals, plan changes with Stripe's proration, cancellation, previews, and
 * the customer.subscription.* events with previous_attributes.
 */

/** The legacy Plan object Stripe still shows on subscription items. */
export function planOf(price: Price): Record<string, unknown> {
  return {
    id: price.id,
    object: 'plan',
    active: price.active,
    amount: price.unit_amount,
    amount_decimal: price.unit_amount_decimal,
    billing_scheme: 'per_unit',
    created: price.created,
    currency: price.currency,
    interval: price.recurring?.interval ?? 'month',
    interval_count: price.recurring?.interval_count ?? 1,
    livemode: false,
    metadata: price.metadata,
    meter: null,
    nickname: price.nickname,
    product: price.product,
    tiers_mode: null,
    transform_usage: null,
    trial_period_days: null,
    usage_type: 'licensed',
  };
}

function periodEnd(start: number, price: Price, anchor: number): number {
  const recurring = price.recurring;
  if (!recurring) throw invalidRequest('The price must be recurring.', 'price');
  return addInterval(start, recurring.interval, recurring.interval_count, anchor);
}

/** A snapshot of a subscription's top-level fields, to compute `previous_attributes` of an update. */
export const snapshot = (sub: Subscription) => structuredClone(sub) as unknown as Record<string, unknown>;

function changedFields(before: Record<string, unknown>, after: object): Record<string, unknown> {
  const prev: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(after)) {
    if (JSON.stringify(before[key]) !== JSON.stringify(value)) prev[key] = before[key] ?? null;
  }
  return prev;
}

export function emitSubscriptionUpdated(
  state: StripeState,
  sub: Subscription,
  before: Record<string, unknown>,
  request: RequestInfo,
) {
  const prev = changedFields(before, sub);
  if (Object.keys(prev).length === 0) return;
  state.emit('customer.subscription.updated', sub, request, prev);
}

function setPeriod(sub: Subscription, start: number, end: number) {
  sub.current_period_start = start;
  sub.current_period_end = end;
  for (const item of sub.items.data) {
    item.current_period_start = start;
    item.current_period_end = end;
  }
}

export function createSubscription(
  state: StripeState,
  input: {
    customer: Customer;
    items: { price: Price; quantity: number }[];
    metadata: Metadata;
    defaultPaymentMethod: string | null;
    status: Subscription['status'];
  },
): Subscription {
  const now = nowSeconds();
  const first = input.items[0]?.price as Price;
  const end = periodEnd(now, first, now);
  const id = state.newId('sub');
  const items: SubscriptionItem[] = input.items.map(({ price, quantity }) => ({
    id: state.newId('si', 14),
    object: 'subscription_item',
    billing_thresholds: null,
    created: now,
    current_period_start: now,
    current_period_end: end,
    discounts: [],
    metadata: {},
    plan: planOf(price),
    price: structuredClone(price),
    quantity,
    subscription: id,
    tax_rates: [],
  }));
  const sub: Subscription = {
    id,
    object: 'subscription',
    application: null,
    application_fee_percent: null,
    automatic_tax: { disabled_reason: null, enabled: false, liability: null },
    billing_cycle_anchor: now,
    billing_cycle_anchor_config: null,
    billing_mode: { flexible: null, type: 'classic' },
    billing_thresholds: null,
    cancel_at: null,
    cancel_at_period_end: false,
    canceled_at: null,
    cancellation_details: { comment: null, feedback: null, reason: null },
    collection_method: 'charge_automatically',
    created: now,
    currency: first.currency,
    current_period_start: now,
    current_period_end: end,
    customer: input.customer.id,
    customer_account: null,
    days_until_due: null,
    default_payment_method: input.defaultPaymentMethod,
    default_source: null,
    default_tax_rates: [],
    description: null,
    discounts: [],
    ended_at: null,
    invoice_settings: { account_tax_ids: null, issuer: { type: 'self' } },
    items: { object: 'list', data: items, has_more: false, url: `/v1/subscription_items?subscription=${id}` },
    latest_invoice: null,
    livemode: false,
    metadata: input.metadata,
    next_pending_invoice_item_invoice: null,
    on_behalf_of: null,
    pause_collection: null,
    payment_settings: { payment_method_options: null, payment_method_types: null, save_default_payment_method: 'off' },
    pending_invoice_item_interval: null,
    pending_setup_intent: null,
    pending_update: null,
    schedule: null,
    start_date: now,
    status: input.status,
    test_clock: null,
    transfer_data: null,
    trial_end: null,
    trial_settings: { end_behavior: { missing_payment_method: 'create_invoice' } },
    trial_start: null,
  };
  state.subscriptions.set(sub.id, sub);
  return sub;
}

/** After a payment on a subscription's invoice: active again when it was past due or incomplete. */
export function statusAfterPayment(sub: Subscription, paid: boolean) {
  if (paid && (sub.status === 'past_due' || sub.status === 'incomplete' || sub.status === 'unpaid'))
    sub.status = 'active';
  if (!paid && sub.status === 'active') sub.status = 'past_due';
}

/**
 * subscriptions.create: the subscription and its first invoice, charged off-session to the given or
 * the customer's default payment method. A failed first payment leaves it `incomplete` with the invoice
 * open (allow_incomplete, the default) or refuses the request with the card error, creating nothing
 * (error_if_incomplete); default_incomplete leaves the first invoice for the customer to pay.
 */
export function createSubscriptionDirect(
  state: StripeState,
  input: {
    customer: Customer;
    items: { price: Price; quantity: number }[];
    metadata: Metadata;
    /** What pays: the given default_payment_method, else the customer's default. */
    pm: PaymentMethod | null;
    /** The subscription's own default_payment_method (only when given). */
    defaultPaymentMethod: string | null;
    description: string | null;
    paymentBehavior: 'allow_incomplete' | 'error_if_incomplete' | 'default_incomplete' | 'pending_if_incomplete';
  },
  request: RequestInfo,
): Subscription {
  const total = input.items.reduce((sum, i) => sum + i.price.unit_amount * i.quantity, 0);
  const outcome = offSessionOutcome(state, input.pm);
  const due = total + input.customer.balance > 0;
  if (due && outcome !== 'succeeded' && input.paymentBehavior === 'error_if_incomplete') {
    throw new StripeApiError(402, {
      type: 'card_error',
      code: input.pm ? outcome.failed.code : 'resource_missing',
      ...(input.pm && outcome.failed.decline_code ? { decline_code: outcome.failed.decline_code } : {}),
      message: input.pm
        ? outcome.failed.message
        : 'This customer has no attached payment source or default payment method.',
    });
  }
  const sub = createSubscription(state, {
    customer: input.customer,
    items: input.items,
    metadata: input.metadata,
    defaultPaymentMethod: input.defaultPaymentMethod,
    status: 'incomplete',
  });
  sub.description = input.description;
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
    if (invoice.status === 'paid') sub.status = 'active';
    else if (input.paymentBehavior !== 'default_incomplete') {
      const result = chargeInvoice(state, invoice, input.pm, outcome, request);
      if (result.outcome === 'succeeded') sub.status = 'active';
    }
  } finally {
    held.stop();
  }
  state.emit('customer.subscription.created', sub, request);
  held.flush();
  return sub;
}

/** Renewal (control API): the next period's invoice, or a retry of the open one. */
export function renewSubscription(
  state: StripeState,
  sub: Subscription,
  forced: 'paid' | 'failed' | undefined,
  request: RequestInfo,
): Invoice | null {
  if (sub.status === 'canceled' || sub.status === 'incomplete_expired') {
    throw invalidRequest(`The subscription ${sub.id} has ended; it cannot be renewed.`);
  }
  if (sub.status === 'incomplete') {
    throw invalidRequest(
      `The subscription ${sub.id} is incomplete: its first payment has not gone through, so it does not renew.`,
    );
  }
  if (sub.cancel_at_period_end) {
    endSubscription(state, sub, request);
    return null;
  }
  const before = snapshot(sub);
  const pm = defaultPaymentMethod(state, sub);
  const open = sub.latest_invoice ? state.invoices.get(sub.latest_invoice) : undefined;
  let invoice: Invoice;
  if (open && open.status === 'open') {
    invoice = open;
  } else {
    invoice = startNextCycle(state, sub, request);
  }
  if (invoice.status === 'open') {
    const result = chargeInvoice(state, invoice, pm, offSessionOutcome(state, pm, forced), request);
    statusAfterPayment(sub, result.outcome === 'succeeded');
  } else {
    statusAfterPayment(sub, true);
  }
  emitSubscriptionUpdated(state, sub, before, request);
  return invoice;
}

/** The next billing period begins: the period moves on and its invoice (with waiting prorations) is made. */
function startNextCycle(state: StripeState, sub: Subscription, request: RequestInfo): Invoice {
  const previousStart = sub.current_period_start;
  const start = sub.current_period_end;
  const first = sub.items.data[0]?.price as Price;
  const end = periodEnd(start, first, sub.billing_cycle_anchor);
  setPeriod(sub, start, end);
  const pending = state.pendingItems.get(sub.id) ?? [];
  state.pendingItems.delete(sub.id);
  return createInvoice(
    state,
    {
      sub,
      billingReason: 'subscription_cycle',
      period: { start: previousStart, end: start },
      itemPeriod: { start, end },
      pending,
    },
    request,
  );
}

/**
 * invoices.createPreview: the invoice a change would produce (always_invoice, or a new interval), or
 * else the next renewal's invoice with any prorations. Worked out on a copy of the account: nothing is
 * kept, charged or sent.
 */
export function previewInvoice(
  state: StripeState,
  sub: Subscription,
  changes: Parameters<typeof changeItems>[2] | null,
  opts: Parameters<typeof changeItems>[3],
  cancelAtPeriodEnd: boolean | undefined,
): Record<string, unknown> {
  if (sub.status === 'canceled' || sub.status === 'incomplete_expired') {
    throw new StripeApiError(404, {
      type: 'invalid_request_error',
      code: 'invoice_upcoming_none',
      message: `No upcoming invoices for customer: ${sub.customer}`,
    });
  }
  const preview = state.dryRun(() => {
    const live = state.subscriptions.get(sub.id) as Subscription;
    const latest = live.latest_invoice;
    if (changes?.length) changeItems(state, live, changes, opts, AUTOMATIC);
    const willCancel = cancelAtPeriodEnd ?? live.cancel_at_period_end;
    if (live.latest_invoice !== latest) return state.invoices.get(live.latest_invoice as string) as Invoice;
    if (willCancel) return null;
    return startNextCycle(state, live, AUTOMATIC);
  });
  if (!preview) {
    throw new StripeApiError(404, {
      type: 'invalid_request_error',
      code: 'invoice_upcoming_none',
      message: `No upcoming invoices for customer: ${sub.customer}`,
    });
  }
  const id = `upcoming_in_${randomId(24)}`;
  preview.id = id;
  preview.status = 'draft';
  preview.number = null;
  preview.amount_paid = 0;
  preview.amount_remaining = preview.amount_due;
  preview.attempt_count = 0;
  preview.attempted = false;
  preview.hosted_invoice_url = null;
  preview.invoice_pdf = null;
  preview.ending_balance = null;
  preview.effective_at = null;
  preview.next_payment_attempt = null;
  preview.payments = { object: 'list', data: [], has_more: false, url: '/v1/invoice_payments' };
  preview.status_transitions = { finalized_at: null, marked_uncollectible_at: null, paid_at: null, voided_at: null };
  preview.webhooks_delivered_at = null;
  for (const line of preview.lines.data) line.invoice = id;
  preview.lines.url = `/v1/invoices/${id}/lines`;
  return preview as unknown as Record<string, unknown>;
}

/** Pays an open invoice now (API invoices.pay, the hosted invoice page, a new card in the portal). */
export function payOpenInvoice(
  state: StripeState,
  invoice: Invoice,
  pm: PaymentMethod | null,
  outcome: 'succeeded' | { failed: Decline },
  request: RequestInfo,
): ChargeResult {
  if (invoice.status === 'paid') {
    throw invalidRequest('Invoice is already paid', undefined, 'invoice_already_paid');
  }
  if (invoice.status !== 'open') {
    throw invalidRequest(
      `You can only pay an open invoice. This invoice is ${invoice.status}.`,
      undefined,
      'invoice_not_editable',
    );
  }
  const inProgress = invoice.payments.data.some(
    (p) => p.status === 'open' && state.paymentIntents.get(p.payment.payment_intent)?.status === 'processing',
  );
  if (inProgress) {
    throw invalidRequest(
      'This invoice cannot be paid while a payment is processing.',
      undefined,
      'invoice_payment_intent_requires_action',
    );
  }
  const sub = invoice.subscription ? state.subscriptions.get(invoice.subscription) : undefined;
  const before = sub ? snapshot(sub) : null;
  const result = chargeInvoice(state, invoice, pm, outcome, request);
  if (sub && before) {
    statusAfterPayment(sub, result.outcome === 'succeeded');
    emitSubscriptionUpdated(state, sub, before, request);
  }
  return result;
}

export function endSubscription(state: StripeState, sub: Subscription, request: RequestInfo) {
  const now = nowSeconds();
  sub.status = 'canceled';
  sub.ended_at = now;
  sub.canceled_at ??= now;
  sub.cancel_at ??= now;
  if (!sub.cancellation_details.reason) sub.cancellation_details.reason = 'cancellation_requested';
  state.pendingItems.delete(sub.id);
  state.emit('customer.subscription.deleted', sub, request);
}

export function cancelAtPeriodEnd(
  state: StripeState,
  sub: Subscription,
  cancel: boolean,
  details: { comment?: string; feedback?: string },
  request: RequestInfo,
  /** The caller sends one customer.subscription.updated for all of its changes. */
  quiet = false,
) {
  assertLive(sub);
  const before = snapshot(sub);
  if (cancel) {
    sub.cancel_at_period_end = true;
    sub.cancel_at = sub.current_period_end;
    sub.canceled_at = nowSeconds();
    sub.cancellation_details = {
      comment: details.comment ?? null,
      feedback: details.feedback ?? null,
      reason: 'cancellation_requested',
    };
  } else {
    sub.cancel_at_period_end = false;
    sub.cancel_at = null;
    sub.canceled_at = null;
    sub.cancellation_details = { comment: null, feedback: null, reason: null };
  }
  if (!quiet) emitSubscriptionUpdated(state, sub, before, request);
}

function assertLive(sub: Subscription) {
  if (sub.status === 'canceled' || sub.status === 'incomplete_expired') {
    throw invalidRequest(
      `A canceled subscription can only update its cancellation_details and metadata.`,
      undefined,
      'resource_missing',
    );
  }
}

export type ProrationBehavior = 'create_prorations' | 'always_invoice' | 'none';

/**
 * A price or quantity change, prorated like Stripe: for the rest of the period the old price's unused
 * time is credited and the new price's remaining time charged (amount × remaining / period, rounded per
 * line). Same interval: the lines wait for the next invoice (create_prorations) or are invoiced and
 * charged at once (always_invoice). A different interval resets the billing cycle to now and invoices
 * the new period at once, with the credit.
 */
export function changeItems(
  state: StripeState,
  sub: Subscription,
  changes: { itemId: string | null; price: Price | null; quantity: number | null }[],
  opts: {
    prorationBehavior: ProrationBehavior;
    prorationDate?: number;
    paymentBehavior?: 'allow_incomplete' | 'error_if_incomplete' | 'default_incomplete' | 'pending_if_incomplete';
    metadata?: Metadata;
    /** The caller sends one customer.subscription.updated for all of its changes. */
    quiet?: boolean;
  },
  request: RequestInfo,
): void {
  assertLive(sub);
  const before = snapshot(sub);
  const now = nowSeconds();
  const prorationDate = opts.prorationDate ?? now;
  if (prorationDate < sub.current_period_start || prorationDate > sub.current_period_end) {
    throw invalidRequest('proration_date must be within the current period.', 'proration_date');
  }

  // Work out the new items before touching anything, so a refused payment leaves the subscription as it was.
  const next = sub.items.data.map((item) => ({ item, price: item.price, quantity: item.quantity }));
  for (const [i, change] of changes.entries()) {
    const target = change.itemId ? next.find((n) => n.item.id === change.itemId) : undefined;
    if (change.itemId && !target) {
      throw invalidRequest(
        `Subscription item ${change.itemId} does not belong to this subscription.`,
        `items[${i}][id]`,
      );
    }
    if (!target) {
      throw invalidRequest(
        'Adding items to a subscription is not supported by the sandbox; pass items[0][id] with the item to change.',
        `items[${i}][id]`,
      );
    }
    if (change.price) {
      if (!change.price.recurring) throw invalidRequest('The price must be recurring.', `items[${i}][price]`);
      if (change.price.currency !== sub.currency) {
        throw invalidRequest(
          `The price specified is in ${change.price.currency} but this subscription is in ${sub.currency}.`,
          `items[${i}][price]`,
        );
      }
      target.price = change.price;
    }
    if (change.quantity !== null) target.quantity = change.quantity;
  }
  const intervalOf = (p: Price) => `${p.recurring?.interval}:${p.recurring?.interval_count}`;
  const intervals = new Set(next.map((n) => intervalOf(n.price)));
  if (intervals.size > 1) {
    throw invalidRequest(
      'All prices on a subscription must have the same `recurring.interval` and `recurring.interval_count`.',
      'items',
    );
  }
  const intervalChanged = intervalOf(next[0]?.price as Price) !== intervalOf(sub.items.data[0]?.price as Price);
  const changed = next.filter((n) => n.price.id !== n.item.price.id || n.quantity !== n.item.quantity);
  if (changed.length === 0) {
    if (opts.metadata) sub.metadata = opts.metadata;
    if (!opts.quiet) emitSubscriptionUpdated(state, sub, before, request);
    return;
  }

  const { current_period_start: start, current_period_end: end } = sub;
  const fraction = (end - prorationDate) / (end - start);
  const when = formatDate(prorationDate);
  const pending: PendingItem[] = [];
  if (opts.prorationBehavior !== 'none') {
    for (const n of changed) {
      const oldAmount = Math.round(n.item.price.unit_amount * n.item.quantity * fraction);
      const newAmount = Math.round(n.price.unit_amount * n.quantity * fraction);
      pending.push({
        id: state.newId('ii'),
        amount: -oldAmount,
        currency: sub.currency,
        description: `Unused time on ${n.item.quantity > 1 ? `${n.item.quantity} × ` : ''}${productName(state, n.item.price)} after ${when}`,
        price: n.item.price.id,
        product: n.item.price.product,
        quantity: n.item.quantity,
        subscriptionItem: n.item.id,
        period: { start: prorationDate, end },
      });
      if (!intervalChanged) {
        pending.push({
          id: state.newId('ii'),
          amount: newAmount,
          currency: sub.currency,
          description: `Remaining time on ${n.quantity > 1 ? `${n.quantity} × ` : ''}${productName(state, n.price)} after ${when}`,
          price: n.price.id,
          product: n.price.product,
          quantity: n.quantity,
          subscriptionItem: n.item.id,
          period: { start: prorationDate, end },
        });
      }
    }
  }

  const invoiceNow = intervalChanged || opts.prorationBehavior === 'always_invoice';
  const pm = defaultPaymentMethod(state, sub);
  if (
    invoiceNow &&
    (opts.paymentBehavior === 'error_if_incomplete' || opts.paymentBehavior === 'pending_if_incomplete')
  ) {
    const total =
      pending.reduce((s, p) => s + p.amount, 0) +
      (intervalChanged ? next.reduce((s, n) => s + n.price.unit_amount * n.quantity, 0) : 0);
    const outcome = offSessionOutcome(state, pm);
    if (total > 0 && outcome !== 'succeeded') {
      throw new StripeApiError(402, {
        type: 'card_error',
        code: outcome.failed.code,
        ...(outcome.failed.decline_code ? { decline_code: outcome.failed.decline_code } : {}),
        message: outcome.failed.message,
      });
    }
  }

  for (const n of changed) {
    n.item.price = structuredClone(n.price);
    n.item.plan = planOf(n.price);
    n.item.quantity = n.quantity;
  }
  if (opts.metadata) sub.metadata = opts.metadata;

  if (intervalChanged) {
    const newEnd = periodEnd(now, next[0]?.price as Price, now);
    sub.billing_cycle_anchor = now;
    setPeriod(sub, now, newEnd);
    const carried = [...(state.pendingItems.get(sub.id) ?? []), ...pending];
    state.pendingItems.delete(sub.id);
    const invoice = createInvoice(
      state,
      {
        sub,
        billingReason: 'subscription_update',
        period: { start: now, end: now },
        itemPeriod: { start: now, end: newEnd },
        pending: carried,
        prorationDate,
      },
      request,
    );
    if (invoice.status === 'open') {
      const result = chargeInvoice(state, invoice, pm, offSessionOutcome(state, pm), request);
      statusAfterPayment(sub, result.outcome === 'succeeded');
    }
  } else if (opts.prorationBehavior === 'always_invoice') {
    const carried = [...(state.pendingItems.get(sub.id) ?? []), ...pending];
    state.pendingItems.delete(sub.id);
    const invoice = createInvoice(
      state,
      {
        sub,
        billingReason: 'subscription_update',
        period: { start: prorationDate, end: prorationDate },
        itemPeriod: null,
        pending: carried,
        prorationDate,
      },
      request,
    );
    if (invoice.status === 'open') {
      const result = chargeInvoice(state, invoice, pm, offSessionOutcome(state, pm), request);
      statusAfterPayment(sub, result.outcome === 'succeeded');
    }
  } else if (pending.length) {
    state.pendingItems.set(sub.id, [...(state.pendingItems.get(sub.id) ?? []), ...pending]);
  }
  if (!opts.quiet) emitSubscriptionUpdated(state, sub, before, request);
}
