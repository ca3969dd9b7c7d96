import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CARD_4242, createPlan, type StripeHarness, startStripeHarness, subscribe } from './test-helpers.ts';

let h: StripeHarness;
let plan: Awaited<ReturnType<typeof createPlan>>;

beforeAll(async () => {
  h = await startStripeHarness();
  plan = await createPlan(h.stripe, 'starter', 2900, 29000);
});
afterAll(async () => {
  await h?.close();
});

describe('prices', () => {
  it('finds prices again by lookup key, with the product expanded', async () => {
    const found = await h.stripe.prices.list({
      lookup_keys: ['starter_month', 'starter_year'],
      expand: ['data.product'],
    });
    expect(found.object).toBe('list');
    expect(found.data.map((p) => p.lookup_key).sort()).toEqual(['starter_month', 'starter_year']);
    const monthly = found.data.find((p) => p.lookup_key === 'starter_month') as Stripe.Price;
    expect(monthly).toMatchObject({
      object: 'price',
      unit_amount: 2900,
      currency: 'usd',
      type: 'recurring',
      recurring: { interval: 'month', interval_count: 1 },
      livemode: false,
    });
    expect((monthly.product as Stripe.Product).name).toBe('Starter');
    expect(monthly.id).toMatch(/^price_/);
  });

  it('refuses a lookup key in use unless it is transferred', async () => {
    const err = await h.stripe.prices
      .create({
        product: plan.product.id,
        currency: 'usd',
        unit_amount: 3100,
        recurring: { interval: 'month' },
        lookup_key: 'starter_month',
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect((err as Stripe.errors.StripeError).message).toContain('already uses that lookup key');

    const moved = await h.stripe.prices.create({
      product_data: { name: 'Starter (2027)' },
      currency: 'usd',
      unit_amount: 3100,
      recurring: { interval: 'month' },
      lookup_key: 'starter_month',
      transfer_lookup_key: true,
    });
    const list = await h.stripe.prices.list({ lookup_keys: ['starter_month'] });
    expect(list.data.map((p) => p.id)).toEqual([moved.id]);
    expect((await h.stripe.prices.retrieve(plan.month.id)).lookup_key).toBeNull();
    // Put it back for the other tests.
    await h.stripe.prices.update(plan.month.id, { lookup_key: 'starter_month', transfer_lookup_key: true });
  });
});

describe('checkout', () => {
  it('creates a session whose url is the hosted page, and shows what is bought', async () => {
    const session = await h.stripe.checkout.sessions.create({
      mode: 'subscription',
      line_items: [{ price: plan.month.id, quantity: 1 }],
      customer_email: 'grace@example.com',
      client_reference_id: 'acct_42',
      success_url: 'http://app.test/subscription/success?session_id={CHECKOUT_SESSION_ID}',
      cancel_url: 'http://app.test/subscription/plans?checkout=canceled',
      metadata: { accountId: 'acct_42' },
    });
    expect(session).toMatchObject({
      object: 'checkout.session',
      mode: 'subscription',
      status: 'open',
      payment_status: 'unpaid',
      amount_total: 2900,
      currency: 'usd',
      customer_email: 'grace@example.com',
      client_reference_id: 'acct_42',
      metadata: { accountId: 'acct_42' },
      subscription: null,
    });
    expect(session.id).toMatch(/^cs_test_/);
    expect(session.url).toBe(`${h.sandbox.url}/stripe/checkout/${session.id}`);
    expect(session.success_url).toContain('{CHECKOUT_SESSION_ID}');
    expect(session.line_items).toBeUndefined();

    const page = await h.get(new URL(session.url as string).pathname);
    expect(page.status).toBe(200);
    const text = await page.text();
    expect(text).toContain('Switchyard');
    expect(text).toContain('Subscribe to Starter');
    expect(text).toContain('$29.00');
    expect(text).toContain('per month');
    for (const label of ['Card number', 'Expiration date', 'CVC', 'Cardholder name', 'US bank account (ACH debit)']) {
      expect(text).toContain(label);
    }
    expect(text).toContain('href="http://app.test/subscription/plans?checkout=canceled"');

    const withItems = await h.stripe.checkout.sessions.retrieve(session.id, { expand: ['line_items'] });
    expect(withItems.line_items?.data[0]).toMatchObject({
      quantity: 1,
      amount_total: 2900,
      price: { id: plan.month.id },
    });
  });

  it('pays with 4242: 303 to success_url with the session id, an active subscription and a paid invoice', async () => {
    const session = await h.stripe.checkout.sessions.create({
      mode: 'subscription',
      line_items: [{ price: plan.month.id, quantity: 1 }],
      customer_email: 'ada@example.com',
      client_reference_id: 'acct_ada',
      success_url: 'http://app.test/subscription/success?session_id={CHECKOUT_SESSION_ID}',
      cancel_url: 'http://app.test/plans',
      subscription_data: { metadata: { accountId: 'acct_ada' } },
    });
    const res = await h.post(`/stripe/checkout/${session.id}/pay`, CARD_4242);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`http://app.test/subscription/success?session_id=${session.id}`);
    // A second submit (a double click) lands on the same page and pays nothing more.
    const again = await h.post(`/stripe/checkout/${session.id}/pay`, CARD_4242);
    expect(again.status).toBe(303);
    expect(again.headers.get('location')).toBe(res.headers.get('location'));

    const done = await h.stripe.checkout.sessions.retrieve(session.id, {
      expand: ['subscription', 'customer', 'invoice'],
    });
    expect(done.status).toBe('complete');
    expect(done.payment_status).toBe('paid');
    expect(done.url).toBeNull();
    const customer = done.customer as Stripe.Customer;
    expect(customer.email).toBe('ada@example.com');
    expect(customer.name).toBe('Ada Lovelace');
    const sub = done.subscription as Stripe.Subscription;
    expect(sub.status).toBe('active');
    expect(sub.metadata).toEqual({ accountId: 'acct_ada' });
    expect(sub.customer).toBe(customer.id);
    const item = sub.items.data[0] as Stripe.SubscriptionItem;
    expect(item.price.id).toBe(plan.month.id);
    const start = new Date(item.current_period_start * 1000);
    const end = new Date(item.current_period_end * 1000);
    expect(end.getUTCMonth()).toBe((start.getUTCMonth() + 1) % 12);
    expect(Math.abs(item.current_period_start - Date.now() / 1000)).toBeLessThan(60);
    const invoice = done.invoice as Stripe.Invoice;
    expect(invoice).toMatchObject({
      status: 'paid',
      billing_reason: 'subscription_create',
      amount_due: 2900,
      amount_paid: 2900,
      currency: 'usd',
      customer: customer.id,
      parent: { type: 'subscription_details', subscription_details: { subscription: sub.id } },
    });
    expect(invoice.number).toMatch(/^[A-Z0-9]{8}-0001$/);
    expect(invoice.hosted_invoice_url).toBe(`${h.sandbox.url}/stripe/invoices/${invoice.id}`);
    expect(invoice.lines.data[0]).toMatchObject({ amount: 2900, description: '1 × Starter (at $29.00 / month)' });
    expect(sub.latest_invoice).toBe(invoice.id);
    expect((await h.stripe.subscriptions.list({ customer: customer.id })).data).toHaveLength(1);

    const pm = await h.stripe.paymentMethods.retrieve(sub.default_payment_method as string);
    expect(pm.card).toMatchObject({ brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2034 });
    expect(pm.customer).toBe(customer.id);
    const listed = await h.stripe.paymentMethods.list({ customer: customer.id, type: 'card' });
    expect(listed.data.map((p) => p.id)).toEqual([pm.id]);

    const withPayments = await h.stripe.invoices.retrieve(invoice.id, { expand: ['payments'] });
    const payment = withPayments.payments?.data[0];
    expect(payment?.status).toBe('paid');
    const intent = await h.stripe.paymentIntents.retrieve(payment?.payment.payment_intent as string);
    expect(intent.status).toBe('succeeded');
    expect(intent.amount_received).toBe(2900);
  });

  it('sends the webhooks Stripe sends, signed so that constructEvent accepts them', async () => {
    const { session, subscription } = await subscribe(h, plan.month.id, {}, { customer_email: 'order@example.com' });
    await h.settle();
    const mine = h.received.filter((r) => {
      const o = r.event.data.object as { id?: string; subscription?: string; customer?: string };
      return (
        o.id === session.id ||
        o.id === subscription.id ||
        (r.event.type.startsWith('invoice.') && o.subscription === subscription.id)
      );
    });
    for (const r of mine) {
      const event = h.stripe.webhooks.constructEvent(r.body, r.signature, h.secret);
      expect(event.id).toBe(r.event.id);
      expect(event.api_version).toBe('2026-10-28.endive');
      expect(event.livemode).toBe(false);
    }
    expect(mine.map((r) => r.event.type).sort()).toEqual(
      [
        'checkout.session.completed',
        'customer.subscription.created',
        'invoice.created',
        'invoice.finalized',
        'invoice.paid',
        'invoice.payment_succeeded',
      ].sort(),
    );
    // Sent in Stripe's order (the events API lists newest first).
    const ids = new Set(mine.map((r) => r.event.id));
    const sent = (await h.stripe.events.list({ limit: 100 })).data.filter((e) => ids.has(e.id)).reverse();
    expect(sent.map((e) => e.type)).toEqual([
      'checkout.session.completed',
      'customer.subscription.created',
      'invoice.created',
      'invoice.finalized',
      'invoice.paid',
      'invoice.payment_succeeded',
    ]);
    const completed = mine.find((r) => r.event.type === 'checkout.session.completed')?.event;
    expect((completed?.data.object as Stripe.Checkout.Session | undefined)?.subscription).toBe(subscription.id);
    const created = mine.find((r) => r.event.type === 'invoice.created')?.event;
    expect((created?.data.object as Stripe.Invoice | undefined)?.status).toBe('draft');

    // A tampered payload or another secret is refused.
    const one = mine[0] as (typeof mine)[number];
    expect(() =>
      h.stripe.webhooks.constructEvent(
        one.body.replace('"livemode": false', '"livemode": true'),
        one.signature,
        h.secret,
      ),
    ).toThrow(Stripe.errors.StripeSignatureVerificationError);
    expect(() => h.stripe.webhooks.constructEvent(one.body, one.signature, 'whsec_other')).toThrow(
      Stripe.errors.StripeSignatureVerificationError,
    );
  });

  it('shows a declined card on the page, keeps the session open and creates nothing', async () => {
    const session = await h.stripe.checkout.sessions.create({
      mode: 'subscription',
      line_items: [{ price: plan.month.id }],
      customer_email: 'declined@example.com',
      success_url: 'http://app.test/ok',
      cancel_url: 'http://app.test/back',
    });
    const res = await h.post(`/stripe/checkout/${session.id}/pay`, { ...CARD_4242, cardNumber: '4000 0000 0000 0002' });
    expect(res.status).toBe(402);
    expect(await res.text()).toContain('Your card was declined.');
    const funds = await h.post(`/stripe/checkout/${session.id}/pay`, { ...CARD_4242, cardNumber: '4000000000009995' });
    expect(await funds.text()).toContain('Your card has insufficient funds.');

    const after = await h.stripe.checkout.sessions.retrieve(session.id);
    expect(after.status).toBe('open');
    expect(after.subscription).toBeNull();
    expect((await h.stripe.customers.list({ email: 'declined@example.com' })).data).toEqual([]);
  });

  it("checks the card form with Stripe's messages", async () => {
    const session = await h.stripe.checkout.sessions.create({
      mode: 'subscription',
      line_items: [{ price: plan.month.id }],
      success_url: 'http://app.test/ok',
    });
    const cases: [Record<string, string>, string][] = [
      [{ cardNumber: '4242 4242 4242 4241' }, 'Your card number is incorrect.'],
      [{ cardNumber: '4242 4242' }, 'Your card number is incomplete.'],
      [{ cardExpiry: '01 / 20' }, "Your card's expiration year is in the past."],
      [{ cardExpiry: '13 / 40' }, "Your card's expiration month is invalid."],
      [{ cardCvc: '12' }, "Your card's security code is incomplete."],
      [{ email: 'not-an-email' }, 'Your email address is invalid.'],
      [{ billingName: '' }, 'Enter the name on your card.'],
      [{ cardNumber: '4111 1111 1111 1111' }, 'Your request was in test mode, but used a non test (live) card.'],
    ];
    for (const [change, message] of cases) {
      const res = await h.post(`/stripe/checkout/${session.id}/pay`, { ...CARD_4242, ...change });
      expect([400, 402]).toContain(res.status);
      expect(await res.text()).toContain(message.replace(/'/g, '&#39;'));
    }
    // A field sent twice is not taken for a value.
    const { email: _email, ...noEmail } = CARD_4242;
    const twice = await h.post(`/stripe/checkout/${session.id}/pay`, {
      ...noEmail,
      'email[0]': 'a@example.com',
      'email[1]': 'b@example.com',
    });
    expect(twice.status).toBe(400);
    expect(await twice.text()).toContain('Enter your email address.');
    // The first field in error is focused and described by its message.
    const bad = await (await h.post(`/stripe/checkout/${session.id}/pay`, { ...CARD_4242, cardCvc: '1' })).text();
    expect(bad).toMatch(/<input[^>]*id="cardCvc"[^>]*aria-invalid="true" aria-describedby="cardCvc-error" autofocus>/);
    expect(bad).not.toMatch(/id="cardNumber"[^>]*autofocus/);
    expect((await h.stripe.checkout.sessions.retrieve(session.id)).status).toBe('open');
  });

  it('sends a 3D Secure card to the authentication page; failing it comes back with the message', async () => {
    const session = await h.stripe.checkout.sessions.create({
      mode: 'subscription',
      line_items: [{ price: plan.month.id }],
      customer_email: 'three@example.com',
      success_url: 'http://app.test/ok?id={CHECKOUT_SESSION_ID}',
    });
    const res = await h.post(`/stripe/checkout/${session.id}/pay`, { ...CARD_4242, cardNumber: '4000 0027 6000 3184' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/stripe/checkout/${session.id}/authenticate`);
    const page = await (await h.get(`/stripe/checkout/${session.id}/authenticate`)).text();
    expect(page).toContain('Complete authentication');
    expect(page).toContain('Fail authentication');

    const failed = await h.post(`/stripe/checkout/${session.id}/authenticate`, { outcome: 'fail' });
    expect(failed.status).toBe(303);
    const back = await (await h.get(failed.headers.get('location') as string)).text();
    expect(back).toContain(
      'We are unable to authenticate your payment method. Please choose a different payment method and try again.',
    );
    expect((await h.stripe.checkout.sessions.retrieve(session.id)).status).toBe('open');

    await h.post(`/stripe/checkout/${session.id}/pay`, { ...CARD_4242, cardNumber: '4000 0027 6000 3184' });
    const ok = await h.post(`/stripe/checkout/${session.id}/authenticate`, { outcome: 'complete' });
    expect(ok.status).toBe(303);
    expect(ok.headers.get('location')).toBe(`http://app.test/ok?id=${session.id}`);
    const done = await h.stripe.checkout.sessions.retrieve(session.id);
    expect(done.status).toBe('complete');
    expect(done.payment_status).toBe('paid');
  });

  it('expires a session: the event is sent and the page no longer takes payments', async () => {
    const session = await h.stripe.checkout.sessions.create({
      mode: 'subscription',
      line_items: [{ price: plan.month.id }],
      success_url: 'http://app.test/ok',
      cancel_url: 'http://app.test/back',
    });
    const expired = await h.stripe.checkout.sessions.expire(session.id);
    expect(expired.status).toBe('expired');
    expect(expired.url).toBeNull();
    const res = await h.post(`/stripe/checkout/${session.id}/pay`, CARD_4242);
    expect(res.status).toBe(410);
    expect(await res.text()).toContain('expired');
    const again = await h.stripe.checkout.sessions.expire(session.id).catch((e: unknown) => e);
    expect(again).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    await h.settle();
    expect(h.typesFor(session.id)).toContain('checkout.session.expired');
  });
});

describe('API behaviour', () => {
  it("answers errors in Stripe's shape, which the SDK turns into its error classes", async () => {
    const missing = await h.stripe.checkout.sessions
      .create({
        line_items: [{ price: plan.month.id }],
        success_url: 'http://x.test',
      } as Stripe.Checkout.SessionCreateParams)
      .catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(missing).toMatchObject({ statusCode: 400, param: 'mode', message: 'Missing required param: mode.' });

    const noPrice = await h.stripe.checkout.sessions
      .create({ mode: 'subscription', line_items: [{ price: 'price_nope' }], success_url: 'http://x.test' })
      .catch((e: unknown) => e);
    expect(noPrice).toMatchObject({
      type: 'StripeInvalidRequestError',
      statusCode: 404,
      code: 'resource_missing',
      param: 'line_items[0][price]',
      message: "No such price: 'price_nope'",
    });

    const unknown = await h.stripe.customers
      .create({ emial: 'x@example.com' } as Stripe.CustomerCreateParams)
      .catch((e: unknown) => e);
    expect(unknown).toMatchObject({ code: 'parameter_unknown', message: 'Received unknown parameter: emial' });

    const url = new URL(h.sandbox.url);
    const wrongKey = new Stripe('sk_test_wrong_key_123456', {
      host: url.hostname,
      port: Number(url.port),
      protocol: 'http',
    });
    const denied = await wrongKey.customers.list().catch((e: unknown) => e);
    expect(denied).toBeInstanceOf(Stripe.errors.StripeAuthenticationError);
    expect((denied as Stripe.errors.StripeError).message).toMatch(/^Invalid API Key provided: sk_test_\*+3456$/);

    const unreadable = await fetch(`${h.sandbox.url}/v1/customers`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk_test_sandbox_switchyard', 'content-type': 'application/json' },
      body: '{"email":',
    });
    expect(unreadable.status).toBe(400);
    expect(await unreadable.json()).toMatchObject({ error: { type: 'invalid_request_error' } });

    const page = await fetch(`${h.sandbox.url}/stripe/checkout/cs_test_x/pay`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{',
    });
    expect(page.status).toBe(400);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(await page.text()).toContain('Something went wrong');

    const raw = await fetch(`${h.sandbox.url}/v1/customers/cus_missing`, {
      headers: { authorization: 'Bearer sk_test_sandbox_switchyard' },
    });
    expect(raw.status).toBe(404);
    expect(await raw.json()).toMatchObject({
      error: {
        type: 'invalid_request_error',
        code: 'resource_missing',
        message: "No such customer: 'cus_missing'",
        param: 'id',
      },
    });
  });

  it('replays a POST with the same Idempotency-Key and refuses the key with other parameters', async () => {
    const key = `test-${Date.now()}`;
    const first = await h.stripe.customers.create({ email: 'idem@example.com' }, { idempotencyKey: key });
    const second = await h.stripe.customers.create({ email: 'idem@example.com' }, { idempotencyKey: key });
    expect(second.id).toBe(first.id);
    expect((await h.stripe.customers.list({ email: 'idem@example.com' })).data).toHaveLength(1);
    const other = await h.stripe.customers
      .create({ email: 'other@example.com' }, { idempotencyKey: key })
      .catch((e: unknown) => e);
    expect(other).toBeInstanceOf(Stripe.errors.StripeIdempotencyError);
  });

  it('answers injected faults like Stripe: 429 rate limit, then 500 api error', async () => {
    const faults = `${h.sandbox.url}/_control/stripe/default/faults`;
    const put = (body: unknown) =>
      fetch(faults, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect((await put({ rate429: 1 })).status).toBe(200);
    try {
      await expect(h.stripe.customers.list()).rejects.toBeInstanceOf(Stripe.errors.StripeRateLimitError);
      await put({ rate429: 0, rate5xx: 1 });
      await expect(h.stripe.customers.list()).rejects.toBeInstanceOf(Stripe.errors.StripeAPIError);
    } finally {
      await fetch(faults, { method: 'DELETE' });
    }
    await expect(h.stripe.customers.list({ limit: 1 })).resolves.toMatchObject({ object: 'list' });
  });

  it('filters lists by created and refuses what cannot be expanded', async () => {
    const c = await h.stripe.customers.create({ email: 'created@example.com' });
    const after = await h.stripe.customers.list({ email: 'created@example.com', created: { gte: c.created } });
    expect(after.data.map((x) => x.id)).toEqual([c.id]);
    const before = await h.stripe.customers.list({ email: 'created@example.com', created: { lt: c.created } });
    expect(before.data).toEqual([]);
    await expect(h.stripe.customers.retrieve(c.id, { expand: ['nothing_here'] })).rejects.toMatchObject({
      type: 'StripeInvalidRequestError',
      param: 'expand',
    });
  });

  it('pages lists newest first with has_more and starting_after', async () => {
    const made = [];
    for (let i = 0; i < 3; i++)
      made.push(await h.stripe.customers.create({ email: 'page@example.com', name: `P${i}` }));
    const first = await h.stripe.customers.list({ email: 'page@example.com', limit: 2 });
    expect(first.has_more).toBe(true);
    expect(first.url).toBe('/v1/customers');
    expect(first.data.map((c) => c.name)).toEqual(['P2', 'P1']);
    const next = await h.stripe.customers.list({
      email: 'page@example.com',
      limit: 2,
      starting_after: first.data[1]?.id,
    });
    expect(next.has_more).toBe(false);
    expect(next.data.map((c) => c.name)).toEqual(['P0']);
  });
});
