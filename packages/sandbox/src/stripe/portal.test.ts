import type Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CARD_4242, createPlan, type StripeHarness, startStripeHarness, subscribe } from './test-helpers.ts';

let h: StripeHarness;
let plan: Awaited<ReturnType<typeof createPlan>>;

beforeAll(async () => {
  h = await startStripeHarness();
  plan = await createPlan(h.stripe, 'growth', 4900, 49000);
});
afterAll(async () => {
  await h?.close();
});

const portalPath = (session: Stripe.BillingPortal.Session) => new URL(session.url).pathname;

describe('customer portal', () => {
  it('shows the subscription, the card and the invoices, with a way back', async () => {
    const { subscription } = await subscribe(h, plan.month.id);
    const portal = await h.stripe.billingPortal.sessions.create({
      customer: subscription.customer as string,
      return_url: 'http://app.test/settings/account',
    });
    expect(portal.object).toBe('billing_portal.session');
    expect(portal.id).toMatch(/^bps_/);
    expect(portal.url).toBe(`${h.sandbox.url}/stripe/portal/${portal.id}`);

    const page = await (await h.get(portalPath(portal))).text();
    expect(page).toContain('Growth');
    expect(page).toContain('$49.00');
    expect(page).toContain('Your plan renews on');
    expect(page).toContain('Visa •••• 4242');
    expect(page).toContain('href="http://app.test/settings/account"');
    const invoice = await h.stripe.invoices.retrieve(subscription.latest_invoice as string);
    expect(page).toContain(invoice.number as string);
    expect(page).toContain('Cancel subscription');
  });

  it('cancels at period end and renews from the portal', async () => {
    const { subscription } = await subscribe(h, plan.month.id);
    const portal = await h.stripe.billingPortal.sessions.create({ customer: subscription.customer as string });
    const cancel = await h.post(`${portalPath(portal)}/subscriptions/${subscription.id}/cancel`, {});
    expect(cancel.status).toBe(303);
    expect((await h.stripe.subscriptions.retrieve(subscription.id)).cancel_at_period_end).toBe(true);
    const page = await (await h.get(cancel.headers.get('location') as string)).text();
    expect(page).toContain('Your plan will be canceled on');
    expect(page).toContain('Renew subscription');

    await h.post(`${portalPath(portal)}/subscriptions/${subscription.id}/renew`, {});
    expect((await h.stripe.subscriptions.retrieve(subscription.id)).cancel_at_period_end).toBe(false);
  });

  it('a new card becomes the default and pays a past-due invoice', async () => {
    const { subscription } = await subscribe(h, plan.month.id, { cardNumber: '4000 0000 0000 0341' });
    await h.control(`/subscriptions/${subscription.id}/renew`);
    expect((await h.stripe.subscriptions.retrieve(subscription.id)).status).toBe('past_due');
    const portal = await h.stripe.billingPortal.sessions.create({ customer: subscription.customer as string });
    const page = await (await h.get(portalPath(portal))).text();
    expect(page).toContain('Past due');
    // Invoice history, newest first: the open renewal above the paid first invoice.
    const first = await h.stripe.invoices.retrieve(subscription.latest_invoice as string);
    const renewal = await h.stripe.invoices.retrieve(
      (await h.stripe.subscriptions.retrieve(subscription.id)).latest_invoice as string,
    );
    expect(page.indexOf(renewal.number as string)).toBeLessThan(page.indexOf(first.number as string));
    expect(page).toContain('Pay $49.00 now');

    const declined = await h.post(`${portalPath(portal)}/payment-method`, {
      ...CARD_4242,
      cardNumber: '4000000000000002',
    });
    expect(declined.status).toBe(402);
    expect(await declined.text()).toContain('Your card was declined.');

    const saved = await h.post(`${portalPath(portal)}/payment-method`, {
      ...CARD_4242,
      cardNumber: '5555 5555 5555 4444',
    });
    expect(saved.status).toBe(303);
    const after = await h.stripe.subscriptions.retrieve(subscription.id, {
      expand: ['default_payment_method', 'latest_invoice'],
    });
    expect(after.status).toBe('active');
    expect((after.default_payment_method as Stripe.PaymentMethod).card?.last4).toBe('4444');
    expect((after.latest_invoice as Stripe.Invoice).status).toBe('paid');
    const customer = (await h.stripe.customers.retrieve(subscription.customer as string)) as Stripe.Customer;
    expect(customer.invoice_settings.default_payment_method).toBe(
      (after.default_payment_method as Stripe.PaymentMethod).id,
    );
  });

  it('deep-links to updating the payment method and redirects back after it', async () => {
    const { subscription } = await subscribe(h, plan.month.id);
    const portal = await h.stripe.billingPortal.sessions.create({
      customer: subscription.customer as string,
      return_url: 'http://app.test/settings/account',
      flow_data: {
        type: 'payment_method_update',
        after_completion: {
          type: 'redirect',
          redirect: { return_url: 'http://app.test/settings/account?card=updated' },
        },
      },
    });
    expect(portal.flow?.type).toBe('payment_method_update');
    expect(portal.url).toBe(`${h.sandbox.url}/stripe/portal/${portal.id}/payment-method`);
    expect(await (await h.get(new URL(portal.url).pathname)).text()).toContain('Update payment method');
    const saved = await h.post(new URL(portal.url).pathname, { ...CARD_4242, cardNumber: '5555 5555 5555 4444' });
    expect(saved.status).toBe(303);
    expect(saved.headers.get('location')).toBe('http://app.test/settings/account?card=updated');
    const after = await h.stripe.subscriptions.retrieve(subscription.id, { expand: ['default_payment_method'] });
    expect((after.default_payment_method as Stripe.PaymentMethod).card?.brand).toBe('mastercard');
  });

  it('refuses unknown portal sessions', async () => {
    expect((await h.get('/stripe/portal/bps_unknown')).status).toBe(404);
    await expect(h.stripe.billingPortal.sessions.create({ customer: 'cus_nope' })).rejects.toMatchObject({
      type: 'StripeInvalidRequestError',
      code: 'resource_missing',
    });
  });
});

describe('hosted invoice page and PDF', () => {
  it('renders a paid invoice and its PDF', async () => {
    const { subscription } = await subscribe(h, plan.month.id);
    const invoice = await h.stripe.invoices.retrieve(subscription.latest_invoice as string);
    const page = await h.get(new URL(invoice.hosted_invoice_url as string).pathname);
    expect(page.status).toBe(200);
    const text = await page.text();
    expect(text).toContain(invoice.number as string);
    expect(text).toContain('Paid');
    expect(text).toContain('1 × Growth (at $49.00 / month)');

    const pdf = await h.get(new URL(invoice.invoice_pdf as string).pathname);
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    const bytes = Buffer.from(await pdf.arrayBuffer());
    const body = bytes.toString('latin1');
    expect(body.startsWith('%PDF-1.4')).toBe(true);
    expect(body.trimEnd().endsWith('%%EOF')).toBe(true);
    expect(body).toContain(`(${invoice.number})`);
    // The xref table points at each object.
    const start = Number(/startxref\n(\d+)/.exec(body)?.[1]);
    expect(body.slice(start, start + 4)).toBe('xref');
    const firstObject = Number(/xref\n0 \d+\n0000000000 65535 f \n(\d{10})/.exec(body)?.[1]);
    expect(body.slice(firstObject, firstObject + 7)).toBe('1 0 obj');
  });

  it('pays an open invoice on its page', async () => {
    const { subscription } = await subscribe(h, plan.month.id);
    await h.control(`/subscriptions/${subscription.id}/renew`, { outcome: 'failed' });
    const open = await h.stripe.invoices.retrieve(
      (await h.stripe.subscriptions.retrieve(subscription.id)).latest_invoice as string,
    );
    expect(open.status).toBe('open');
    const path = new URL(open.hosted_invoice_url as string).pathname;
    expect(await (await h.get(path)).text()).toContain('Pay $49.00');
    const declined = await h.post(`${path}/pay`, { ...CARD_4242, cardNumber: '4000000000009995' });
    expect(await declined.text()).toContain('Your card has insufficient funds.');
    const paid = await h.post(`${path}/pay`, CARD_4242);
    expect(paid.status).toBe(303);
    expect((await h.stripe.invoices.retrieve(open.id)).status).toBe('paid');
    expect((await h.stripe.subscriptions.retrieve(subscription.id)).status).toBe('active');
  });
});
