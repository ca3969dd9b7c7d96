import type Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CARD_4242, createPlan, type StripeHarness, startStripeHarness, subscribe } from './test-helpers.ts';

let h: StripeHarness;
let starter: Awaited<ReturnType<typeof createPlan>>;
let pro: Awaited<ReturnType<typeof createPlan>>;

beforeAll(async () => {
  h = await startStripeHarness();
  starter = await createPlan(h.stripe, 'starter', 2900, 29000);
  pro = await createPlan(h.stripe, 'pro', 9900, 99000);
});
afterAll(async () => {
  await h?.close();
});

const itemOf = (sub: Stripe.Subscription) => sub.items.data[0] as Stripe.SubscriptionItem;

/** The events received for one object, after everything sent so far has landed. */
async function eventsFor(id: string) {
  await h.settle();
  return h.received.map((r) => r.event).filter((e) => (e.data.object as { id?: string }).id === id);
}

describe('plan changes', () => {
  it('always_invoice: credits the unused time, charges the remaining time and pays at once', async () => {
    const { subscription } = await subscribe(h, starter.month.id);
    const item = itemOf(subscription);
    const start = item.current_period_start;
    const end = item.current_period_end;
    const prorationDate = start + Math.floor((end - start) / 3);
    const fraction = (end - prorationDate) / (end - start);

    const updated = await h.stripe.subscriptions.update(subscription.id, {
      items: [{ id: item.id, price: pro.month.id }],
      proration_behavior: 'always_invoice',
      proration_date: prorationDate,
      expand: ['latest_invoice'],
    });
    expect(itemOf(updated).price.id).toBe(pro.month.id);
    expect(itemOf(updated).id).toBe(item.id);
    expect(updated.status).toBe('active');
    expect(itemOf(updated).current_period_end).toBe(end);

    const invoice = updated.latest_invoice as Stripe.Invoice;
    expect(invoice.billing_reason).toBe('subscription_update');
    expect(invoice.status).toBe('paid');
    const credit = -Math.round(2900 * fraction);
    const charge = Math.round(9900 * fraction);
    expect(invoice.lines.data.map((l) => l.amount)).toEqual([credit, charge]);
    expect(invoice.lines.data[0]?.description).toMatch(/^Unused time on Starter after /);
    expect(invoice.lines.data[1]?.description).toMatch(/^Remaining time on Pro after /);
    expect(invoice.lines.data.every((l) => l.parent?.invoice_item_details?.proration === true)).toBe(true);
    expect(invoice.amount_paid).toBe(credit + charge);
    expect(invoice.parent?.subscription_details?.subscription).toBe(subscription.id);

    const updates = (await eventsFor(subscription.id)).filter((e) => e.type === 'customer.subscription.updated');
    const change = updates.at(-1) as Stripe.Event;
    const previous = change.data.previous_attributes as Partial<Stripe.Subscription>;
    expect(previous.items?.data[0]?.price.id).toBe(starter.month.id);
    expect(previous.latest_invoice).toBe(subscription.latest_invoice);
    const invoiceEvents = (await eventsFor(invoice.id)).map((e) => e.type);
    expect(invoiceEvents).toEqual(
      expect.arrayContaining(['invoice.created', 'invoice.finalized', 'invoice.paid', 'invoice.payment_succeeded']),
    );
  });

  it('create_prorations: the lines wait for the next invoice', async () => {
    const { subscription } = await subscribe(h, starter.month.id);
    const item = itemOf(subscription);
    const updated = await h.stripe.subscriptions.update(subscription.id, {
      items: [{ id: item.id, price: pro.month.id }],
      proration_behavior: 'create_prorations',
    });
    expect(updated.latest_invoice).toBe(subscription.latest_invoice);
    expect((await h.stripe.invoices.list({ subscription: subscription.id })).data).toHaveLength(1);

    const renewed = await h.control(`/subscriptions/${subscription.id}/renew`, { outcome: 'paid' });
    expect(renewed.status).toBe(200);
    const invoices = await h.stripe.invoices.list({ subscription: subscription.id });
    const cycle = invoices.data[0] as Stripe.Invoice;
    expect(cycle.billing_reason).toBe('subscription_cycle');
    expect(cycle.status).toBe('paid');
    // Just after the change almost the whole period remains: about −29 + 99 in prorations, then 99.
    const [creditLine, chargeLine, periodLine] = cycle.lines.data;
    expect(creditLine?.amount).toBeLessThan(0);
    expect(creditLine?.amount).toBeGreaterThanOrEqual(-2900);
    expect(chargeLine?.amount).toBeGreaterThan(9800);
    expect(periodLine).toMatchObject({ amount: 9900, description: '1 × Pro (at $99.00 / month)' });
    expect(cycle.total).toBe(cycle.lines.data.reduce((s, l) => s + l.amount, 0));
    expect(cycle.period_start).toBe(itemOf(subscription).current_period_start);
    const after = await h.stripe.subscriptions.retrieve(subscription.id);
    expect(itemOf(after).current_period_start).toBe(itemOf(subscription).current_period_end);
  });

  it('a downgrade credit goes to the customer balance and pays the next invoice', async () => {
    const { subscription } = await subscribe(h, pro.month.id);
    const item = itemOf(subscription);
    const updated = await h.stripe.subscriptions.update(subscription.id, {
      items: [{ id: item.id, price: starter.month.id }],
      proration_behavior: 'always_invoice',
      expand: ['latest_invoice'],
    });
    const invoice = updated.latest_invoice as Stripe.Invoice;
    expect(invoice.total).toBeLessThan(0);
    expect(invoice.amount_due).toBe(0);
    expect(invoice.status).toBe('paid');
    const customer = (await h.stripe.customers.retrieve(subscription.customer as string)) as Stripe.Customer;
    expect(customer.balance).toBe(invoice.total);

    await h.control(`/subscriptions/${subscription.id}/renew`);
    const cycle = (await h.stripe.invoices.list({ subscription: subscription.id, limit: 1 })).data[0] as Stripe.Invoice;
    expect(cycle.total).toBe(2900);
    expect(cycle.starting_balance).toBe(invoice.total);
    expect(cycle.amount_due).toBe(Math.max(0, 2900 + invoice.total));
  });

  it('a change to a yearly price starts a new yearly period and invoices it at once', async () => {
    const { subscription } = await subscribe(h, starter.month.id);
    const updated = await h.stripe.subscriptions.update(subscription.id, {
      items: [{ id: itemOf(subscription).id, price: starter.year.id }],
      proration_behavior: 'create_prorations',
      expand: ['latest_invoice'],
    });
    const item = itemOf(updated);
    const start = new Date(item.current_period_start * 1000);
    const end = new Date(item.current_period_end * 1000);
    expect(end.getUTCFullYear()).toBe(start.getUTCFullYear() + 1);
    expect(updated.billing_cycle_anchor).toBe(item.current_period_start);
    const invoice = updated.latest_invoice as Stripe.Invoice;
    expect(invoice.billing_reason).toBe('subscription_update');
    expect(invoice.lines.data.map((l) => l.amount)).toEqual([expect.any(Number), 29000]);
    expect(invoice.lines.data[0]?.amount).toBeLessThan(0);
    expect(invoice.status).toBe('paid');
  });

  it('previews a plan change with the amounts the change then charges, changing nothing', async () => {
    const { subscription } = await subscribe(h, starter.month.id);
    const item = itemOf(subscription);
    const prorationDate = item.current_period_start + 10 * 86_400;
    await h.settle();
    const eventsBefore = h.received.length;
    const preview = await h.stripe.invoices.createPreview({
      subscription: subscription.id,
      subscription_details: {
        items: [{ id: item.id, price: pro.month.id }],
        proration_behavior: 'always_invoice',
        proration_date: prorationDate,
      },
    });
    expect(preview.id).toMatch(/^upcoming_in_/);
    expect(preview.status).toBe('draft');
    expect(preview.billing_reason).toBe('subscription_update');
    expect(preview.lines.data).toHaveLength(2);

    const unchanged = await h.stripe.subscriptions.retrieve(subscription.id);
    expect(itemOf(unchanged).price.id).toBe(starter.month.id);
    expect((await h.stripe.invoices.list({ subscription: subscription.id })).data).toHaveLength(1);
    await h.settle();
    expect(h.received.length).toBe(eventsBefore);

    const updated = await h.stripe.subscriptions.update(subscription.id, {
      items: [{ id: item.id, price: pro.month.id }],
      proration_behavior: 'always_invoice',
      proration_date: prorationDate,
      expand: ['latest_invoice'],
    });
    const charged = updated.latest_invoice as Stripe.Invoice;
    expect(charged.lines.data.map((l) => l.amount)).toEqual(preview.lines.data.map((l) => l.amount));
    expect(charged.amount_paid).toBe(preview.amount_due);

    const renewal = await h.stripe.invoices.createPreview({ subscription: subscription.id });
    expect(renewal.billing_reason).toBe('subscription_cycle');
    expect(renewal.lines.data.map((l) => l.amount)).toEqual([9900]);
    expect(renewal.period_end).toBe(itemOf(updated).current_period_end);

    await h.stripe.subscriptions.update(subscription.id, { cancel_at_period_end: true });
    await expect(h.stripe.invoices.createPreview({ subscription: subscription.id })).rejects.toMatchObject({
      code: 'invoice_upcoming_none',
    });
  });

  it('error_if_incomplete: a declined upgrade is refused with a card error and changes nothing', async () => {
    const { subscription } = await subscribe(h, starter.month.id, { cardNumber: '4000 0000 0000 0341' });
    const err = await h.stripe.subscriptions
      .update(subscription.id, {
        items: [{ id: itemOf(subscription).id, price: pro.month.id }],
        proration_behavior: 'always_invoice',
        payment_behavior: 'error_if_incomplete',
        metadata: { plan: 'pro' },
      })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ type: 'StripeCardError', statusCode: 402, code: 'card_declined' });
    const after = await h.stripe.subscriptions.retrieve(subscription.id);
    expect(itemOf(after).price.id).toBe(starter.month.id);
    expect(after.metadata).toEqual({});
    expect(after.status).toBe('active');
    expect((await h.stripe.invoices.list({ subscription: subscription.id })).data).toHaveLength(1);
  });

  it('one update call sends one customer.subscription.updated', async () => {
    const { subscription } = await subscribe(h, starter.month.id);
    await h.stripe.subscriptions.update(subscription.id, {
      items: [{ id: itemOf(subscription).id, price: pro.month.id }],
      proration_behavior: 'none',
      cancel_at_period_end: true,
      metadata: { plan: 'pro' },
    });
    const updates = (await eventsFor(subscription.id)).filter((e) => e.type === 'customer.subscription.updated');
    expect(updates).toHaveLength(1);
    const previous = updates[0]?.data.previous_attributes as Record<string, unknown>;
    expect(Object.keys(previous)).toEqual(expect.arrayContaining(['items', 'cancel_at_period_end', 'metadata']));
  });

  it('refuses a price in another currency and an item of another subscription', async () => {
    const { subscription } = await subscribe(h, starter.month.id);
    const eur = await h.stripe.prices.create({
      product: pro.product.id,
      currency: 'eur',
      unit_amount: 9000,
      recurring: { interval: 'month' },
    });
    await expect(
      h.stripe.subscriptions.update(subscription.id, { items: [{ id: itemOf(subscription).id, price: eur.id }] }),
    ).rejects.toMatchObject({ type: 'StripeInvalidRequestError', param: 'items[0][price]' });
    await expect(
      h.stripe.subscriptions.update(subscription.id, { items: [{ id: 'si_other', price: pro.month.id }] }),
    ).rejects.toMatchObject({ type: 'StripeInvalidRequestError', param: 'items[0][id]' });
  });
});

describe('cancellation', () => {
  it('cancel at period end, resume, cancel again, then the period ends', async () => {
    const { subscription } = await subscribe(h, starter.month.id);
    const canceling = await h.stripe.subscriptions.update(subscription.id, { cancel_at_period_end: true });
    expect(canceling.cancel_at_period_end).toBe(true);
    expect(canceling.cancel_at).toBe(itemOf(subscription).current_period_end);
    expect(canceling.status).toBe('active');
    expect(canceling.cancellation_details?.reason).toBe('cancellation_requested');

    const resumed = await h.stripe.subscriptions.update(subscription.id, { cancel_at_period_end: false });
    expect(resumed.cancel_at_period_end).toBe(false);
    expect(resumed.cancel_at).toBeNull();

    const updates = (await eventsFor(subscription.id)).filter((e) => e.type === 'customer.subscription.updated');
    expect(
      updates.map((e) => (e.data.previous_attributes as { cancel_at_period_end?: boolean }).cancel_at_period_end),
    ).toEqual([false, true]);

    const notCanceling = await h.control(`/subscriptions/${subscription.id}/end`);
    expect(notCanceling.status).toBe(400);

    await h.stripe.subscriptions.update(subscription.id, { cancel_at_period_end: true });
    const ended = await h.control(`/subscriptions/${subscription.id}/end`);
    expect(ended.status).toBe(200);
    const after = await h.stripe.subscriptions.retrieve(subscription.id);
    expect(after.status).toBe('canceled');
    expect(after.ended_at).not.toBeNull();
    expect((await eventsFor(subscription.id)).at(-1)?.type).toBe('customer.subscription.deleted');

    // Canceled subscriptions leave the default list but stay under status=all.
    const customer = subscription.customer as string;
    expect((await h.stripe.subscriptions.list({ customer })).data).toEqual([]);
    expect((await h.stripe.subscriptions.list({ customer, status: 'all' })).data.map((s) => s.id)).toEqual([
      subscription.id,
    ]);
    await expect(h.stripe.subscriptions.update(subscription.id, { cancel_at_period_end: false })).rejects.toMatchObject(
      {
        type: 'StripeInvalidRequestError',
      },
    );
  });

  it('a renewal of a subscription set to cancel ends it instead', async () => {
    const { subscription } = await subscribe(h, starter.month.id);
    await h.stripe.subscriptions.update(subscription.id, { cancel_at_period_end: true });
    await h.control(`/subscriptions/${subscription.id}/renew`);
    expect((await h.stripe.subscriptions.retrieve(subscription.id)).status).toBe('canceled');
    expect((await h.stripe.invoices.list({ subscription: subscription.id })).data).toHaveLength(1);
  });

  it('cancels at once with DELETE', async () => {
    const { subscription } = await subscribe(h, starter.month.id);
    const canceled = await h.stripe.subscriptions.cancel(subscription.id, {
      cancellation_details: { comment: 'Closing the shop', feedback: 'too_expensive' },
    });
    expect(canceled.status).toBe('canceled');
    expect(canceled.cancellation_details).toEqual({
      comment: 'Closing the shop',
      feedback: 'too_expensive',
      reason: 'cancellation_requested',
    });
    expect(canceled.canceled_at).not.toBeNull();
    expect((await eventsFor(subscription.id)).map((e) => e.type)).toContain('customer.subscription.deleted');
  });
});

describe('renewals', () => {
  it('a failed renewal makes the subscription past_due; a later successful one makes it active again', async () => {
    const { subscription } = await subscribe(h, starter.month.id);
    const firstEnd = itemOf(subscription).current_period_end;

    const failed = await h.control(`/subscriptions/${subscription.id}/renew`, { outcome: 'failed' });
    expect(failed.status).toBe(200);
    const pastDue = await h.stripe.subscriptions.retrieve(subscription.id, { expand: ['latest_invoice'] });
    expect(pastDue.status).toBe('past_due');
    expect(itemOf(pastDue).current_period_start).toBe(firstEnd);
    const open = pastDue.latest_invoice as Stripe.Invoice;
    expect(open).toMatchObject({
      status: 'open',
      billing_reason: 'subscription_cycle',
      attempt_count: 1,
      amount_due: 2900,
    });
    expect(open.next_payment_attempt).not.toBeNull();

    const invoiceEvents = (await eventsFor(open.id)).map((e) => e.type);
    expect(invoiceEvents).toEqual(['invoice.created', 'invoice.finalized', 'invoice.payment_failed']);
    const update = (await eventsFor(subscription.id)).at(-1) as Stripe.Event;
    expect(update.type).toBe('customer.subscription.updated');
    expect((update.data.object as Stripe.Subscription).status).toBe('past_due');
    expect((update.data.previous_attributes as { status?: string }).status).toBe('active');

    await h.control(`/subscriptions/${subscription.id}/renew`, { outcome: 'paid' });
    const active = await h.stripe.subscriptions.retrieve(subscription.id);
    expect(active.status).toBe('active');
    // The open invoice was retried; the period did not move again.
    expect(active.latest_invoice).toBe(open.id);
    expect(itemOf(active).current_period_start).toBe(firstEnd);
    const paid = await h.stripe.invoices.retrieve(open.id);
    expect(paid).toMatchObject({ status: 'paid', amount_paid: 2900, attempt_count: 2 });
  });

  it('pays an open invoice through the API; a card that fails later (0341) fails renewals by itself', async () => {
    const { subscription } = await subscribe(h, starter.month.id, { cardNumber: '4000 0000 0000 0341' });
    expect(subscription.status).toBe('active');
    await h.control(`/subscriptions/${subscription.id}/renew`);
    const sub = await h.stripe.subscriptions.retrieve(subscription.id);
    expect(sub.status).toBe('past_due');
    const err = await h.stripe.invoices.pay(sub.latest_invoice as string).catch((e: unknown) => e);
    expect(err).toMatchObject({ type: 'StripeCardError', code: 'card_declined', decline_code: 'generic_decline' });
    expect((err as Stripe.errors.StripeCardError).message).toBe('Your card was declined.');
  });
});

describe('3D Secure on renewals', () => {
  it('a card that always asks for authentication leaves the renewal waiting for the customer', async () => {
    const session = await h.stripe.checkout.sessions.create({
      mode: 'subscription',
      line_items: [{ price: starter.month.id }],
      customer_email: 'sca@example.com',
      success_url: 'http://app.test/ok',
    });
    await h.post(`/stripe/checkout/${session.id}/pay`, { ...CARD_4242, cardNumber: '4000 0027 6000 3184' });
    expect((await h.post(`/stripe/checkout/${session.id}/authenticate`, { outcome: 'complete' })).status).toBe(303);
    const subscriptionId = (await h.stripe.checkout.sessions.retrieve(session.id)).subscription as string;

    await h.control(`/subscriptions/${subscriptionId}/renew`);
    const sub = await h.stripe.subscriptions.retrieve(subscriptionId);
    expect(sub.status).toBe('past_due');
    const invoiceId = sub.latest_invoice as string;
    expect((await eventsFor(invoiceId)).map((e) => e.type)).toEqual([
      'invoice.created',
      'invoice.finalized',
      'invoice.payment_action_required',
      'invoice.payment_failed',
    ]);
    const [attempt] = (
      await h.stripe.invoicePayments.list({ invoice: invoiceId, expand: ['data.payment.payment_intent'] })
    ).data;
    const intent = attempt?.payment.payment_intent as Stripe.PaymentIntent;
    expect(intent.status).toBe('requires_action');
    expect(intent.last_payment_error?.code).toBe('authentication_required');
  });
});

describe('invoice payments and subscription items', () => {
  it('lists the attempts on an invoice and the items of a subscription', async () => {
    const { subscription } = await subscribe(h, starter.month.id);
    await h.control(`/subscriptions/${subscription.id}/renew`, { outcome: 'failed' });
    const open = (await h.stripe.subscriptions.retrieve(subscription.id)).latest_invoice as string;
    const attempts = await h.stripe.invoicePayments.list({ invoice: open, expand: ['data.payment.payment_intent'] });
    expect(attempts.data).toHaveLength(1);
    const intent = attempts.data[0]?.payment.payment_intent as Stripe.PaymentIntent;
    expect(intent.status).toBe('requires_payment_method');
    expect(intent.last_payment_error).toMatchObject({ code: 'card_declined', message: 'Your card was declined.' });
    const items = await h.stripe.subscriptionItems.list({ subscription: subscription.id });
    expect(items.data.map((i) => i.price.id)).toEqual([starter.month.id]);
  });
});

describe('ACH Direct Debit at checkout', () => {
  const bank = {
    method: 'us_bank_account',
    email: 'bank@example.com',
    accountName: 'Ada Lovelace',
    routingNumber: '110000000',
  };

  async function payByBank(accountNumber: string) {
    const session = await h.stripe.checkout.sessions.create({
      mode: 'subscription',
      line_items: [{ price: starter.month.id }],
      success_url: 'http://app.test/ok?session_id={CHECKOUT_SESSION_ID}',
    });
    const res = await h.post(`/stripe/checkout/${session.id}/pay`, { ...bank, accountNumber });
    expect(res.status).toBe(303);
    return h.stripe.checkout.sessions.retrieve(session.id, { expand: ['subscription'] });
  }

  it('completes unpaid, then settles: paid, active and async_payment_succeeded', async () => {
    const session = await payByBank('000123456789');
    expect(session.status).toBe('complete');
    expect(session.payment_status).toBe('unpaid');
    const sub = session.subscription as Stripe.Subscription;
    expect(sub.status).toBe('incomplete');
    expect((await eventsFor(session.id)).map((e) => e.type)).toEqual(['checkout.session.completed']);

    const settled = await h.control(`/checkout/${session.id}/settle`);
    expect(settled.status).toBe(200);
    const after = await h.stripe.checkout.sessions.retrieve(session.id, { expand: ['subscription', 'invoice'] });
    expect(after.payment_status).toBe('paid');
    expect((after.subscription as Stripe.Subscription).status).toBe('active');
    expect((after.invoice as Stripe.Invoice).status).toBe('paid');
    expect((await eventsFor(session.id)).map((e) => e.type)).toEqual([
      'checkout.session.completed',
      'checkout.session.async_payment_succeeded',
    ]);
    const pm = await h.stripe.paymentMethods.retrieve(sub.default_payment_method as string);
    expect(pm.type).toBe('us_bank_account');
    expect(pm.us_bank_account?.last4).toBe('6789');
    expect((await h.control(`/checkout/${session.id}/settle`)).status).toBe(400);
  });

  it('a bank account that bounces fails the payment: async_payment_failed', async () => {
    const session = await payByBank('000222222227');
    await h.control(`/checkout/${session.id}/settle`);
    const after = await h.stripe.checkout.sessions.retrieve(session.id, { expand: ['invoice', 'subscription'] });
    expect(after.payment_status).toBe('unpaid');
    expect((after.invoice as Stripe.Invoice).status).toBe('open');
    expect((after.subscription as Stripe.Subscription).status).toBe('incomplete');
    const types = (await eventsFor(session.id)).map((e) => e.type);
    expect(types).toEqual(['checkout.session.completed', 'checkout.session.async_payment_failed']);
    expect((await eventsFor((after.invoice as Stripe.Invoice).id)).map((e) => e.type)).toContain(
      'invoice.payment_failed',
    );
  });

  it('settles by itself after achSettleMs', async () => {
    const put = await h.control('/settings', { achSettleMs: 50 }, 'PUT');
    expect(put.status).toBe(200);
    const session = await payByBank('000123456789');
    await new Promise((r) => setTimeout(r, 300));
    expect((await h.stripe.checkout.sessions.retrieve(session.id)).payment_status).toBe('paid');
    await h.control('/settings', { achSettleMs: 8000 }, 'PUT');
  });

  it('checks the bank form', async () => {
    const session = await h.stripe.checkout.sessions.create({
      mode: 'subscription',
      line_items: [{ price: starter.month.id }],
      success_url: 'http://app.test/ok',
    });
    const res = await h.post(`/stripe/checkout/${session.id}/pay`, {
      ...bank,
      routingNumber: '123456789',
      accountNumber: '12',
    });
    expect(res.status).toBe(400);
    const page = await res.text();
    expect(page).toContain('Your routing number is invalid.');
    expect(page).toContain('Your account number is invalid.');
  });
});

describe('subscriptions.create', () => {
  it("charges the customer's default card, and is incomplete (or refused) without one", async () => {
    const { subscription } = await subscribe(h, starter.month.id);
    const customer = subscription.customer as string;
    const second = await h.stripe.subscriptions.create({
      customer,
      items: [{ price: pro.year.id }],
      metadata: { seat: 'extra' },
      expand: ['latest_invoice'],
    });
    expect(second.status).toBe('active');
    expect(second.default_payment_method).toBeNull();
    expect(second.metadata).toEqual({ seat: 'extra' });
    expect(second.latest_invoice).toMatchObject({
      status: 'paid',
      amount_paid: 99000,
      billing_reason: 'subscription_create',
    });
    expect((await eventsFor(second.id)).map((e) => e.type)).toEqual(['customer.subscription.created']);

    const bare = await h.stripe.customers.create({ email: 'bare@example.com' });
    await expect(
      h.stripe.subscriptions.create({
        customer: bare.id,
        items: [{ price: starter.month.id }],
        payment_behavior: 'error_if_incomplete',
      }),
    ).rejects.toMatchObject({ type: 'StripeCardError', statusCode: 402 });
    expect((await h.stripe.subscriptions.list({ customer: bare.id, status: 'all' })).data).toEqual([]);

    const incomplete = await h.stripe.subscriptions.create({
      customer: bare.id,
      items: [{ price: starter.month.id }],
      expand: ['latest_invoice'],
    });
    expect(incomplete.status).toBe('incomplete');
    expect((incomplete.latest_invoice as Stripe.Invoice).status).toBe('open');
  });
});

describe('customers and payment methods', () => {
  it("sets the customer's default payment method only to one of its own", async () => {
    const { subscription } = await subscribe(h, starter.month.id);
    const customerId = subscription.customer as string;
    const pmId = subscription.default_payment_method as string;
    const other = await h.stripe.customers.create({ email: 'other@example.com', name: 'Other' });
    await expect(
      h.stripe.customers.update(other.id, { invoice_settings: { default_payment_method: pmId } }),
    ).rejects.toMatchObject({ type: 'StripeInvalidRequestError', param: 'invoice_settings[default_payment_method]' });

    const updated = await h.stripe.customers.update(customerId, {
      name: 'Ada King',
      invoice_settings: { default_payment_method: pmId },
      metadata: { accountId: 'acct_1' },
      expand: ['invoice_settings.default_payment_method'],
    });
    expect(updated.name).toBe('Ada King');
    expect(updated.metadata).toEqual({ accountId: 'acct_1' });
    expect((updated.invoice_settings.default_payment_method as Stripe.PaymentMethod).card?.last4).toBe('4242');
    const found = await h.stripe.customers.list({ email: 'ada@example.com', limit: 100 });
    expect(found.data.map((c) => c.id)).toContain(customerId);
    await h.settle();
    const change = h.received.find(
      (r) => r.event.type === 'customer.updated' && (r.event.data.object as { id: string }).id === customerId,
    );
    expect((change?.event.data.previous_attributes as { name?: string } | undefined)?.name).toBe('Ada Lovelace');
  });
});

describe('attaching and detaching payment methods', () => {
  it('a detached card is no one’s default and can be attached to a new customer', async () => {
    const { subscription } = await subscribe(h, starter.month.id);
    const pmId = subscription.default_payment_method as string;
    const detached = await h.stripe.paymentMethods.detach(pmId);
    expect(detached.customer).toBeNull();
    expect((await h.stripe.subscriptions.retrieve(subscription.id)).default_payment_method).toBeNull();
    const owner = (await h.stripe.customers.retrieve(subscription.customer as string)) as Stripe.Customer;
    expect(owner.invoice_settings.default_payment_method).toBeNull();

    const fresh = await h.stripe.customers.create({
      email: 'fresh@example.com',
      payment_method: pmId,
      invoice_settings: { default_payment_method: pmId },
    });
    expect(fresh.invoice_settings.default_payment_method).toBe(pmId);
    expect((await h.stripe.paymentMethods.retrieve(pmId)).customer).toBe(fresh.id);
    await expect(h.stripe.customers.create({ payment_method: pmId })).rejects.toMatchObject({
      code: 'payment_method_unexpected_state',
    });
    // Without a payment method the renewal cannot be paid.
    await h.control(`/subscriptions/${subscription.id}/renew`);
    expect((await h.stripe.subscriptions.retrieve(subscription.id)).status).toBe('past_due');
  });
});

describe('events', () => {
  it('re-sends an event: the same event, delivered twice, still correctly signed', async () => {
    const { subscription } = await subscribe(h, starter.month.id);
    await h.settle();
    const created = h.received.find(
      (r) =>
        r.event.type === 'customer.subscription.created' &&
        (r.event.data.object as { id: string }).id === subscription.id,
    );
    expect(created).toBeDefined();
    const id = created?.event.id as string;
    const res = await h.control(`/events/${id}/resend`);
    expect(await res.json()).toEqual({ event: id, sent: true });
    await h.settle();
    const copies = h.received.filter((r) => r.event.id === id);
    expect(copies).toHaveLength(2);
    for (const copy of copies)
      expect(h.stripe.webhooks.constructEvent(copy.body, copy.signature, h.secret).id).toBe(id);

    const fetched = await h.stripe.events.retrieve(id);
    expect(fetched.type).toBe('customer.subscription.created');
    expect(fetched.pending_webhooks).toBe(0);
    expect(created?.event.pending_webhooks).toBe(1);
    const list = await h.stripe.events.list({ type: 'customer.subscription.*', limit: 100 });
    expect(list.data.every((e) => e.type.startsWith('customer.subscription.'))).toBe(true);
    expect(list.data.map((e) => e.id)).toContain(id);
  });

  it('the control API reports what the account holds', async () => {
    const res = await h.control('', undefined, 'GET');
    const body = (await res.json()) as {
      customers: unknown[];
      subscriptions: { id: string }[];
      events: { type: string }[];
    };
    expect(body.customers.length).toBeGreaterThan(0);
    expect(body.subscriptions.length).toBeGreaterThan(0);
    expect(body.events.some((e) => e.type === 'checkout.session.completed')).toBe(true);
  });
});
