// Billing end to end: the real Stripe SDK against the sandbox's Stripe simulator, the test app listening on
// a port so the simulator's signed webhooks arrive over HTTP, and the pg-boss worker processing them.

import type { BillingOverview, NotificationList, Plan, SubscriptionStatus } from '@switchyard/contracts';
import type { RunningSandbox } from '@switchyard/sandbox';
import { and, count, desc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, TEST_PROVIDER_SECRETS } from '../../../test/app.ts';
import { usingServer } from '../../../test/db.ts';
import { createSignedInAccount } from '../../../test/factories.ts';
import { startTestSandbox } from '../../../test/sandbox.ts';
import { trpcOver } from '../../../test/trpc.ts';
import { startJobs } from '../../bootstrap.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import { sweepStrandedEvents } from '../../jobs/sweep.ts';
import { newId } from '../../lib/ids.ts';
import { accounts } from '../accounts/accounts.tables.ts';
import { auditEntries } from '../audit/audit.tables.ts';
import { channels } from '../channels/channels.tables.ts';
import { mailMessages } from '../mail/mail.tables.ts';
import { applyCheckout, providerFor, syncSubscription } from './billing.mirror.ts';
import { stripeClient } from './billing.provider.ts';
import { billingEvents, billingInvoices, checkoutSessions, subscriptions } from './billing.tables.ts';
import { BILLING_EVENT_JOB } from './billing.webhooks.ts';
import { assertWithinPlan } from './plan-limits.ts';

type TestApp = Awaited<ReturnType<typeof createTestApp>>;

let sandbox: RunningSandbox;
let t: TestApp;
let queue: JobQueue;

const CARD = {
  method: 'card',
  email: 'ada@shop.test',
  cardNumber: '4242 4242 4242 4242',
  cardExpiry: '12 / 34',
  cardCvc: '123',
  billingName: 'Ada Owner',
};
const BANK = {
  method: 'us_bank_account',
  email: 'ada@shop.test',
  accountName: 'Ada Owner',
  routingNumber: '110000000',
  accountNumber: '000123456789',
};

/**
 * Polls `probe` until it answers. Each round also wakes the billing worker (sending a job wakes it already; this
 * covers a job queued again after a failure, which waits for its retry delay and the worker's next poll).
 */
async function waitFor<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 30_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    queue?.notify(BILLING_EVENT_JOB);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const accountStatus = async (accountId: string) =>
  (await t.services.db.select({ status: accounts.status }).from(accounts).where(eq(accounts.id, accountId)))[0]?.status;

const untilStatus = (accountId: string, status: string) =>
  waitFor(`account ${status}`, async () => (await accountStatus(accountId)) === status);

/** Every webhook sent so far delivered, and every stored event processed by the job. */
async function settled() {
  await sandbox.ctx.webhooks.settled();
  await waitFor('events processed', async () => {
    const rows = await t.services.db.select().from(billingEvents);
    return rows.every((r) => r.processedAt !== null);
  });
}

async function merchant() {
  const account = await createSignedInAccount(t.services, { status: 'requires_payment_method' });
  return { ...account, trpc: trpcOver(t.app, account.headers) };
}
type Merchant = Awaited<ReturnType<typeof merchant>>;

async function planByCode(code: string): Promise<Plan> {
  const res = await trpcOver(t.app).query<Plan[]>('plans.listPlans', { all: true });
  const plan = res.data?.find((p) => p.code === code);
  if (!plan) throw new Error(`no plan ${code}`);
  return plan;
}

async function startCheckout(m: Merchant, code: string, interval: 'month' | 'year' = 'month') {
  const plan = await planByCode(code);
  const res = await m.trpc.mutation<{ url: string }>('billing.startCheckout', { planId: plan.id, interval });
  expect(res.error).toBeUndefined();
  const url = new URL(res.data?.url as string);
  expect(url.origin).toBe(sandbox.url);
  const sessionId = /\/stripe\/checkout\/(cs_[^/?]+)/.exec(url.pathname)?.[1] as string;
  expect(sessionId).toBeTruthy();
  return { url, sessionId, plan };
}

/** Submits the hosted payment page's form as a browser would. */
function pay(sessionId: string, fields: Record<string, string>) {
  return fetch(new URL(`/stripe/checkout/${sessionId}/pay`, sandbox.url), {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
}

function control(path: string, body?: unknown, method = 'POST') {
  return fetch(new URL(`/_control/stripe${path}`, sandbox.url), {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

async function subscribed(code = 'starter', interval: 'month' | 'year' = 'month') {
  const m = await merchant();
  const { sessionId } = await startCheckout(m, code, interval);
  const res = await pay(sessionId, CARD);
  expect(res.status).toBe(303);
  await untilStatus(m.accountId, 'active');
  const [sub] = await t.services.db.select().from(subscriptions).where(eq(subscriptions.accountId, m.accountId));
  return { ...m, sub: sub as typeof subscriptions.$inferSelect, sessionId };
}

const mails = (accountId: string, template: string) =>
  t.services.db
    .select()
    .from(mailMessages)
    .where(and(eq(mailMessages.accountId, accountId), eq(mailMessages.template, template)));

const audits = async (accountId: string) =>
  (
    await t.services.db
      .select({ action: auditEntries.action })
      .from(auditEntries)
      .where(eq(auditEntries.accountId, accountId))
      .orderBy(desc(auditEntries.createdAt))
  ).map((r) => r.action);

function signed(payload: Record<string, unknown>, secret = TEST_PROVIDER_SECRETS.stripeWebhookSecret) {
  const body = JSON.stringify(payload);
  const signature = stripeClient(t.services.providers.stripe).webhooks.generateTestHeaderString({
    payload: body,
    secret,
  });
  return t.app.inject({
    method: 'POST',
    url: '/webhooks/stripe',
    headers: { 'content-type': 'application/json', 'stripe-signature': signature },
    payload: body,
  });
}

beforeAll(async () => {
  sandbox = await startTestSandbox();
  t = await createTestApp({ sandboxUrl: sandbox.url, env: { PUBLIC_URL: 'http://app.test' } });
  const address = await t.app.listen({ host: '127.0.0.1', port: 0 });
  sandbox.ctx.options.stripe = { ...sandbox.ctx.options.stripe, webhookUrl: `${address}/webhooks/stripe` };
  // Bank debits settle only when a test says so.
  await control('/settings', { achSettleMs: 10 * 60 * 1000 }, 'PUT');
  queue = await startJobs(t.services, { work: true });
}, 120_000);

afterAll(async () => {
  await queue?.stop({ timeoutMs: 5000 });
  await t?.close();
  await sandbox?.close();
});

describe('plans', () => {
  it('lists the public plans to anyone, all of them with all=true, and lets only a super admin change them', async () => {
    const anon = trpcOver(t.app);
    const listed = await anon.query<Plan[]>('plans.listPlans');
    expect(listed.data?.map((p) => p.code)).toEqual(['starter', 'growth', 'scale']);
    expect(listed.data?.[0]).toMatchObject({ monthlyPrice: 2900, currency: 'usd', limits: { channels: 1 } });
    const all = await anon.query<Plan[]>('plans.listPlans', { all: true });
    expect(all.data?.map((p) => p.code)).toEqual(['starter', 'growth', 'scale', 'enterprise']);

    const m = await merchant();
    const refused = await m.trpc.query('admin.plans.list');
    expect(refused.error?.data.code).toBe('FORBIDDEN');

    const admin = await createSignedInAccount(t.services, { authorizationLevel: 'superuser', superUserRole: 'admin' });
    const asAdmin = trpcOver(t.app, admin.headers);
    const created = await asAdmin.mutation<Plan>('admin.plans.upsert', {
      code: 'seasonal',
      name: 'Seasonal',
      description: 'For the holidays',
      monthlyPrice: 1500,
      yearlyPrice: 15000,
      currency: 'USD',
      limits: { channels: 1, locations: 1, ordersPerMonth: 500, users: 1 },
      features: ['Inventory sync'],
      public: false,
      active: true,
      sortOrder: 50,
    });
    expect(created.data).toMatchObject({ code: 'seasonal', currency: 'usd', public: false });
    const again = await asAdmin.mutation('admin.plans.upsert', { ...created.data, id: undefined });
    expect(again.error?.data.code).toBe('CONFLICT');
    const withdrawn = await asAdmin.mutation<Plan>('admin.plans.upsert', { ...created.data, active: false });
    expect(withdrawn.data?.active).toBe(false);
    expect((await anon.query<Plan[]>('plans.listPlans', { all: true })).data?.map((p) => p.code)).not.toContain(
      'seasonal',
    );
    expect((await asAdmin.query<Plan[]>('admin.plans.list')).data?.map((p) => p.code)).toContain('seasonal');
    // A withdrawn plan cannot be bought.
    const checkout = await m.trpc.mutation('billing.startCheckout', { planId: created.data?.id, interval: 'month' });
    expect(checkout.error?.message).toBe('The Seasonal plan is no longer offered.');
  });
});

describe('checkout', () => {
  it('pays by card on the hosted page; the webhook makes the account active with plan, invoice and card', async () => {
    const m = await merchant();
    const { sessionId, plan } = await startCheckout(m, 'starter');
    const page = await fetch(new URL(`/stripe/checkout/${sessionId}`, sandbox.url));
    expect(await page.text()).toContain('$29.00');

    const res = await pay(sessionId, CARD);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`http://app.test/subscription/success?session_id=${sessionId}`);
    await untilStatus(m.accountId, 'active');
    await settled();

    const status = await m.trpc.query<SubscriptionStatus>('billing.getSubscriptionStatus');
    expect(status.data).toMatchObject({
      accountStatus: 'active',
      subscription: {
        planId: plan.id,
        planName: 'Starter',
        interval: 'month',
        status: 'active',
        cancelAtPeriodEnd: false,
      },
      checkout: { status: 'complete', paymentStatus: 'paid' },
      lastPaymentError: null,
      readOnly: false,
    });
    const periodEnd = status.data?.subscription?.currentPeriodEnd as Date;
    expect(periodEnd.getTime() - Date.now()).toBeGreaterThan(27 * 24 * 3600 * 1000);

    const overview = await m.trpc.query<BillingOverview>('billing.getOverview');
    expect(overview.data?.plan?.code).toBe('starter');
    expect(overview.data?.paymentMethod).toMatchObject({ brand: 'visa', last4: '4242', expMonth: 12, expYear: 2034 });
    expect(overview.data?.invoices).toHaveLength(1);
    expect(overview.data?.invoices[0]).toMatchObject({ status: 'paid', amountPaid: 2900, currency: 'usd' });
    expect(overview.data?.usage).toMatchObject({ channels: 0, users: 1 });
    expect(await audits(m.accountId)).toContain('billing.active');

    // One subscription at a time: a second checkout is refused.
    const second = await m.trpc.mutation('billing.startCheckout', { planId: plan.id, interval: 'year' });
    expect(second.error?.data.code).toBe('CONFLICT');
  });

  it('a declined card leaves the account without a plan, still on the hosted page', async () => {
    const m = await merchant();
    const { sessionId } = await startCheckout(m, 'growth');
    const res = await pay(sessionId, { ...CARD, cardNumber: '4000 0000 0000 0002' });
    expect(res.status).toBe(402);
    expect(await res.text()).toContain('Your card was declined.');
    await sandbox.ctx.webhooks.settled();
    const status = await m.trpc.query<SubscriptionStatus>('billing.getSubscriptionStatus');
    expect(status.data).toMatchObject({
      accountStatus: 'requires_payment_method',
      subscription: null,
      checkout: { status: 'open', paymentStatus: 'unpaid' },
    });
    expect(await accountStatus(m.accountId)).toBe('requires_payment_method');
  });

  it('a bank debit waits in awaiting_payment until it settles, then the account is active', async () => {
    const m = await merchant();
    const { sessionId } = await startCheckout(m, 'starter', 'year');
    const res = await pay(sessionId, BANK);
    expect(res.status).toBe(303);
    await untilStatus(m.accountId, 'awaiting_payment');
    const waiting = await m.trpc.query<SubscriptionStatus>('billing.getSubscriptionStatus');
    expect(waiting.data).toMatchObject({
      accountStatus: 'awaiting_payment',
      checkout: { status: 'complete', paymentStatus: 'unpaid' },
    });
    // A second checkout while the payment is pending is refused.
    const again = await m.trpc.mutation('billing.startCheckout', {
      planId: (await planByCode('starter')).id,
      interval: 'month',
    });
    expect(again.error?.data.code).toBe('CONFLICT');

    expect((await control(`/checkout/${sessionId}/settle`, { outcome: 'succeeded' })).status).toBe(200);
    await untilStatus(m.accountId, 'active');
    await settled();
    const active = await m.trpc.query<SubscriptionStatus>('billing.getSubscriptionStatus');
    expect(active.data).toMatchObject({
      accountStatus: 'active',
      subscription: { interval: 'year', status: 'active' },
      checkout: { paymentStatus: 'paid' },
    });
  });

  it('an older copy of a settled checkout (its completed event, still unpaid) does not take the payment back', async () => {
    const m = await merchant();
    const { sessionId } = await startCheckout(m, 'starter');
    expect((await pay(sessionId, BANK)).status).toBe(303);
    await untilStatus(m.accountId, 'awaiting_payment');
    const completed = await providerFor(t.services).getCheckout(sessionId);
    expect(completed).toMatchObject({ status: 'complete', paymentStatus: 'unpaid' });
    await control(`/checkout/${sessionId}/settle`, { outcome: 'succeeded' });
    await untilStatus(m.accountId, 'active');
    await settled();
    // The completed event's copy of the session is applied late (a job retried, or two reads racing).
    await applyCheckout(t.services, completed, {});
    const [row] = await t.services.db.select().from(checkoutSessions).where(eq(checkoutSessions.id, sessionId));
    expect(row).toMatchObject({ status: 'complete', paymentStatus: 'paid' });
    const status = await m.trpc.query<SubscriptionStatus>('billing.getSubscriptionStatus');
    expect(status.data).toMatchObject({ accountStatus: 'active', checkout: { paymentStatus: 'paid' } });
  });

  it('a bank debit that fails sends the account back to choosing a plan, with the reason', async () => {
    const m = await merchant();
    const { sessionId } = await startCheckout(m, 'starter');
    expect((await pay(sessionId, BANK)).status).toBe(303);
    await untilStatus(m.accountId, 'awaiting_payment');
    await control(`/checkout/${sessionId}/settle`, { outcome: 'failed' });
    await untilStatus(m.accountId, 'requires_payment_method');
    const status = await m.trpc.query<SubscriptionStatus>('billing.getSubscriptionStatus');
    expect(status.data?.lastPaymentError).toBeTruthy();
  });

  it('the success page does not wait for the webhook: the session is asked of Stripe', async () => {
    const m = await merchant();
    const { sessionId } = await startCheckout(m, 'starter');
    const url = sandbox.ctx.options.stripe?.webhookUrl;
    sandbox.ctx.options.stripe = { ...sandbox.ctx.options.stripe, webhookUrl: 'http://127.0.0.1:9/closed' };
    try {
      expect((await pay(sessionId, CARD)).status).toBe(303);
      expect(await accountStatus(m.accountId)).toBe('requires_payment_method');
      const status = await m.trpc.query<SubscriptionStatus>('billing.getSubscriptionStatus', { sessionId });
      expect(status.data).toMatchObject({ accountStatus: 'active', subscription: { status: 'active' } });
    } finally {
      sandbox.ctx.options.stripe = { ...sandbox.ctx.options.stripe, webhookUrl: url };
    }
  });
});

describe('renewals and past due', () => {
  it('a failed renewal makes the account past_due and tells the merchant; past the grace period it is read-only until paid', async () => {
    const m = await subscribed();
    expect((await control(`/subscriptions/${m.sub.stripeSubscriptionId}/renew`, { outcome: 'failed' })).status).toBe(
      200,
    );
    await untilStatus(m.accountId, 'past_due');
    await settled();
    const status = await m.trpc.query<SubscriptionStatus>('billing.getSubscriptionStatus');
    expect(status.data).toMatchObject({
      accountStatus: 'past_due',
      readOnly: false,
      subscription: { status: 'past_due' },
    });
    const grace = status.data?.subscription?.graceEndsAt as Date;
    expect(Math.round((grace.getTime() - Date.now()) / (24 * 3600 * 1000))).toBe(7);
    expect(status.data?.lastPaymentError).toBe('Your card was declined.');
    const [mail] = await mails(m.accountId, 'payment_failed');
    expect(mail?.text).toContain('Your card was declined.');
    expect(mail?.links).toEqual(['http://app.test/settings/account']);
    expect(await audits(m.accountId)).toContain('billing.past_due');
    // And the bell: one notification, linking to the billing settings.
    const feed = await m.trpc.query<NotificationList>('notifications.list', {});
    expect(feed.data?.results.map((n) => [n.type, n.title, n.link])).toEqual([
      ['payment_failed', 'Your subscription payment failed', '/settings/account'],
    ]);

    // Within the grace period everything still works.
    const rename = await m.trpc.mutation('account.update', { business: 'Still open' });
    expect(rename.error).toBeUndefined();

    // Eight days later: read-only. Reads and billing go on; writes are refused, over tRPC and REST.
    await t.services.db
      .update(subscriptions)
      .set({ pastDueSince: new Date(Date.now() - 8 * 24 * 3600 * 1000) })
      .where(eq(subscriptions.id, m.sub.id));
    const readOnly = await m.trpc.query<SubscriptionStatus>('billing.getSubscriptionStatus');
    expect(readOnly.data?.readOnly).toBe(true);
    const refused = await m.trpc.mutation('account.update', { business: 'Closed' });
    expect(refused.error?.data.domainCode).toBe('PAYMENT_REQUIRED');
    expect(refused.error?.message).toContain('Your account is read-only');
    const rest = await t.app.inject({
      method: 'POST',
      url: '/api/frontend/account/accountUpdate',
      headers: m.headers,
      payload: { business: 'Closed' },
    });
    expect(rest.statusCode).toBe(402);
    expect(rest.json().message).toContain('Update your payment method');
    expect((await m.trpc.query('account.catalogs')).error).toBeUndefined();
    // Reading a notification is not a write of the business: allowed while read-only.
    expect((await m.trpc.mutation('notifications.markAllRead')).data).toEqual({ updated: 1 });
    const portal = await m.trpc.mutation<{ url: string }>('billing.openPortal', { returnPath: '/settings/account' });
    expect(portal.data?.url.startsWith(sandbox.url)).toBe(true);

    // The retried payment succeeds: active again, and writable.
    await control(`/subscriptions/${m.sub.stripeSubscriptionId}/renew`, { outcome: 'paid' });
    await untilStatus(m.accountId, 'active');
    await settled();
    const after = await m.trpc.query<SubscriptionStatus>('billing.getSubscriptionStatus');
    expect(after.data).toMatchObject({ readOnly: false, lastPaymentError: null, subscription: { graceEndsAt: null } });
    expect((await m.trpc.mutation('account.update', { business: 'Open again' })).error).toBeUndefined();
    const overview = await m.trpc.query<BillingOverview>('billing.getOverview');
    expect(overview.data?.invoices.map((i) => i.status)).toEqual(['paid', 'paid']);
  });
});

describe('customer portal', () => {
  it('a new card entered in the portal pays the overdue invoice: active again, with the new card on the account page', async () => {
    const m = await subscribed();
    await control(`/subscriptions/${m.sub.stripeSubscriptionId}/renew`, { outcome: 'failed' });
    await untilStatus(m.accountId, 'past_due');
    const portal = await m.trpc.mutation<{ url: string }>('billing.openPortal', { returnPath: '/settings/account' });
    const portalUrl = new URL(portal.data?.url as string);
    expect(portalUrl.origin).toBe(sandbox.url);
    const page = await (await fetch(portalUrl)).text();
    expect(page).toContain('http://app.test/settings/account');

    const saved = await fetch(new URL(`${portalUrl.pathname}/payment-method`, sandbox.url), {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        cardNumber: '5555 5555 5555 4444',
        cardExpiry: '10 / 33',
        cardCvc: '321',
        billingName: 'Ada Owner',
      }).toString(),
    });
    expect(saved.status).toBe(303);
    await untilStatus(m.accountId, 'active');
    await settled();
    const overview = await m.trpc.query<BillingOverview>('billing.getOverview');
    expect(overview.data?.paymentMethod).toMatchObject({ brand: 'mastercard', last4: '4444' });
    expect(overview.data?.status).toMatchObject({ accountStatus: 'active', lastPaymentError: null, readOnly: false });
  });

  it('refuses a return path that leaves the app', async () => {
    const m = await merchant();
    const res = await m.trpc.mutation('billing.openPortal', { returnPath: '//evil.test/x' });
    expect(res.error?.data.code).toBe('BAD_REQUEST');
  });
});

describe('plan changes, cancel and resume', () => {
  it('changes plan with proration: the difference for the rest of the period is charged at once', async () => {
    const m = await subscribed('starter');
    const growth = await planByCode('growth');
    const changed = await m.trpc.mutation<SubscriptionStatus>('billing.changePlan', {
      planId: growth.id,
      interval: 'month',
    });
    expect(changed.error).toBeUndefined();
    expect(changed.data?.subscription).toMatchObject({ planId: growth.id, planName: 'Growth', status: 'active' });
    await settled();
    const overview = await m.trpc.query<BillingOverview>('billing.getOverview');
    expect(overview.data?.plan?.code).toBe('growth');
    const proration = overview.data?.invoices.find((i) => i.amountDue !== 2900);
    // (79.00 − 29.00) for almost the whole month.
    expect(proration?.amountDue).toBeGreaterThan(4900);
    expect(proration?.amountDue).toBeLessThanOrEqual(5000);
    expect(proration?.status).toBe('paid');
    expect(await audits(m.accountId)).toContain('billing.plan_changed');

    const same = await m.trpc.mutation('billing.changePlan', { planId: growth.id, interval: 'month' });
    expect(same.error?.data.code).toBe('BAD_REQUEST');
  });

  it('cancels at the end of the period, resumes, and once the period ends the account is canceled', async () => {
    const m = await subscribed('starter');
    const canceled = await m.trpc.mutation<SubscriptionStatus>('billing.cancel');
    expect(canceled.data).toMatchObject({ accountStatus: 'active', subscription: { cancelAtPeriodEnd: true } });
    const resumed = await m.trpc.mutation<SubscriptionStatus>('billing.resume');
    expect(resumed.data?.subscription?.cancelAtPeriodEnd).toBe(false);
    await m.trpc.mutation('billing.cancel');
    await settled();
    expect(await audits(m.accountId)).toEqual(
      expect.arrayContaining(['billing.cancel_requested', 'billing.resumed', 'billing.active']),
    );

    expect((await control(`/subscriptions/${m.sub.stripeSubscriptionId}/end`)).status).toBe(200);
    await untilStatus(m.accountId, 'canceled');
    const status = await m.trpc.query<SubscriptionStatus>('billing.getSubscriptionStatus');
    expect(status.data?.subscription?.status).toBe('canceled');
    const [mail] = await mails(m.accountId, 'subscription_canceled');
    expect(mail?.subject).toBe('Your Switchyard subscription has ended');
    expect(await audits(m.accountId)).toContain('billing.canceled');
    expect((await m.trpc.mutation('billing.resume')).error?.data.code).toBe('CONFLICT');

    // A late "updated" for the ended subscription does not bring it back.
    await settled();
    const res = await signed({
      id: `evt_late_${newId('x')}`,
      object: 'event',
      type: 'customer.subscription.updated',
      api_version: '2026-10-28.endive',
      created: Math.floor(Date.now() / 1000) + 60,
      livemode: false,
      data: {
        object: {
          id: m.sub.stripeSubscriptionId,
          object: 'subscription',
          status: 'active',
          customer: m.sub.stripeCustomerId,
        },
      },
    });
    expect(res.statusCode).toBe(200);
    await settled();
    expect(await accountStatus(m.accountId)).toBe('canceled');
  });

  it('a webhook job that read Stripe before the merchant resumed does not write its older answer over the resume', async () => {
    const m = await subscribed('starter');
    await m.trpc.mutation('billing.cancel');
    await settled();
    const provider = providerFor(t.services);
    const id = m.sub.stripeSubscriptionId;
    let reads = 0;
    let resumed: SubscriptionStatus | undefined;
    // The job's read of Stripe answers "set to end"; the merchant resumes before the job writes that answer.
    const result = await syncSubscription(
      t.services,
      id,
      async () => {
        reads++;
        const seen = await provider.getSubscription(id);
        if (reads === 1) resumed = (await m.trpc.mutation<SubscriptionStatus>('billing.resume')).data;
        return { subscription: seen };
      },
      { eventCreated: new Date() },
    );
    expect(resumed?.subscription?.cancelAtPeriodEnd).toBe(false);
    expect(result).toBe('applied');
    expect(reads).toBeGreaterThanOrEqual(2);
    const [row] = await t.services.db.select().from(subscriptions).where(eq(subscriptions.stripeSubscriptionId, id));
    expect(row?.cancelAtPeriodEnd).toBe(false);
    const status = await m.trpc.query<SubscriptionStatus>('billing.getSubscriptionStatus');
    expect(status.data?.subscription?.cancelAtPeriodEnd).toBe(false);
  });
});

describe('webhooks', () => {
  it('a resent event is stored and applied once', async () => {
    const m = await subscribed('starter');
    await settled();
    const { events } = (await (await control('', undefined, 'GET')).json()) as {
      events: { id: string; type: string; object: string }[];
    };
    const completed = events.find((e) => e.type === 'checkout.session.completed' && e.object === m.sessionId);
    expect(completed).toBeDefined();
    const before = await t.services.db.select({ n: count() }).from(billingEvents);
    expect((await control(`/events/${completed?.id}/resend`)).status).toBe(200);
    await sandbox.ctx.webhooks.settled();
    const after = await t.services.db.select({ n: count() }).from(billingEvents);
    expect(after[0]?.n).toBe(before[0]?.n);
    const [row] = await t.services.db
      .select()
      .from(billingEvents)
      .where(eq(billingEvents.id, completed?.id as string));
    expect(row?.attempts).toBe(1);
    // Events that change nothing in billing are kept for the record, never queued.
    const created = events.find((e) => e.type === 'customer.created');
    const [kept] = await t.services.db
      .select()
      .from(billingEvents)
      .where(eq(billingEvents.id, created?.id as string));
    expect(kept).toMatchObject({ type: 'customer.created', attempts: 0 });
    expect(kept?.processedAt).toBeInstanceOf(Date);
  });

  it('an older subscription update arriving after a newer one does not move the subscription back', async () => {
    const m = await subscribed('starter');
    await settled();
    const [sub] = await t.services.db.select().from(subscriptions).where(eq(subscriptions.id, m.sub.id));
    const lastEventAt = sub?.lastEventAt;
    if (!lastEventAt) throw new Error('no event applied yet');
    const older = Math.floor(lastEventAt.getTime() / 1000) - 30;
    const res = await signed({
      id: `evt_old_${newId('x')}`,
      object: 'event',
      type: 'customer.subscription.updated',
      api_version: '2026-10-28.endive',
      created: older,
      livemode: false,
      data: {
        object: {
          id: m.sub.stripeSubscriptionId,
          object: 'subscription',
          status: 'incomplete',
          customer: m.sub.stripeCustomerId,
        },
      },
    });
    expect(res.statusCode).toBe(200);
    await settled();
    const [afterSub] = await t.services.db.select().from(subscriptions).where(eq(subscriptions.id, m.sub.id));
    expect(afterSub?.status).toBe('active');
    expect(afterSub?.lastEventAt).toEqual(sub?.lastEventAt);
    expect(await accountStatus(m.accountId)).toBe('active');
  });

  it('a late event of an earlier paid invoice does not take the reason from a failed renewal', async () => {
    const m = await subscribed('starter');
    await settled();
    const [first] = await t.services.db
      .select()
      .from(billingInvoices)
      .where(eq(billingInvoices.accountId, m.accountId));
    expect(first?.status).toBe('paid');
    // The renewal fails while its events are held back…
    const url = sandbox.ctx.options.stripe?.webhookUrl;
    sandbox.ctx.options.stripe = { ...sandbox.ctx.options.stripe, webhookUrl: 'http://127.0.0.1:9/closed' };
    try {
      const renewed = await control(`/subscriptions/${m.sub.stripeSubscriptionId}/renew`, { outcome: 'failed' });
      expect(renewed.status).toBe(200);
    } finally {
      sandbox.ctx.options.stripe = { ...sandbox.ctx.options.stripe, webhookUrl: url };
    }
    // …and the first invoice's payment event comes in late: the subscription it reads is past due now.
    const res = await signed({
      id: `evt_late_paid_${newId('x')}`,
      object: 'event',
      type: 'invoice.paid',
      api_version: '2026-10-28.endive',
      created: Math.floor(Date.now() / 1000),
      livemode: false,
      data: {
        object: { id: first?.id, object: 'invoice', status: 'paid', subscription: m.sub.stripeSubscriptionId },
      },
    });
    expect(res.statusCode).toBe(200);
    await untilStatus(m.accountId, 'past_due');
    await settled();
    const [mail] = await mails(m.accountId, 'payment_failed');
    expect(mail?.text).toContain('Your card was declined.');
    const status = await m.trpc.query<SubscriptionStatus>('billing.getSubscriptionStatus');
    expect(status.data?.lastPaymentError).toBe('Your card was declined.');
  });

  it('an event stored and never queued (its process died in between) is queued again and applied', async () => {
    const m = await subscribed('starter');
    await settled();
    const id = `evt_stranded_${newId('x')}`;
    await t.services.db.insert(billingEvents).values({
      id,
      type: 'customer.subscription.updated',
      mode: 'sandbox',
      createdAt: new Date(),
      receivedAt: new Date(Date.now() - 10 * 60_000),
      accountId: m.accountId,
      payload: {
        id,
        type: 'customer.subscription.updated',
        data: {
          object: {
            id: m.sub.stripeSubscriptionId,
            object: 'subscription',
            status: 'active',
            customer: m.sub.stripeCustomerId,
            cancel_at_period_end: true,
          },
        },
      },
    });
    expect((await sweepStrandedEvents(t.services)).billing).toBeGreaterThanOrEqual(1);
    await settled();
    const [row] = await t.services.db.select().from(billingEvents).where(eq(billingEvents.id, id));
    expect(row).toMatchObject({ attempts: 1, error: null });
    expect(row?.processedAt).toBeInstanceOf(Date);
  });

  it('a forged signature is refused with 400 and nothing is stored', async () => {
    const id = `evt_forged_${newId('x')}`;
    const res = await signed(
      { id, object: 'event', type: 'invoice.paid', created: 1, data: { object: { id: 'in_x' } } },
      'whsec_not_ours',
    );
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ code: 400, message: 'Invalid Stripe signature' });
    const unsigned = await t.app.inject({
      method: 'POST',
      url: '/webhooks/stripe',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ id }),
    });
    expect(unsigned.statusCode).toBe(400);
    expect(await t.services.db.select().from(billingEvents).where(eq(billingEvents.id, id))).toEqual([]);
  });

  it('keeps a signed event it cannot process, made storable and marked failed, and answers 200', async () => {
    const nul = `evt_nul_${newId('x')}`;
    const res = await signed({
      id: nul,
      object: 'event',
      type: 'invoice.paid',
      created: 1,
      data: { object: { id: 'in_\u0000' } },
    });
    expect(res.json()).toEqual({ received: true, duplicate: false });
    const [kept] = await t.services.db.select().from(billingEvents).where(eq(billingEvents.id, nul));
    expect(kept).toMatchObject({
      type: 'invoice.paid',
      payload: { data: { object: { id: 'in_\uFFFD' } } },
      processedAt: expect.any(Date),
      error: 'Malformed event: payload.data.object.id must not contain the character U+0000',
    });

    const noData = `evt_nodata_${newId('x')}`;
    expect((await signed({ id: noData, object: 'event', type: 'invoice.paid', created: 1 })).statusCode).toBe(200);
    const [bare] = await t.services.db.select().from(billingEvents).where(eq(billingEvents.id, noData));
    expect(bare).toMatchObject({ processedAt: expect.any(Date), error: 'Malformed event: no data' });
  });
});

describe('plan limits', () => {
  const addChannel = (accountId: string) =>
    t.services.db.insert(channels).values({
      id: newId('chn'),
      accountId,
      type: 'shopify',
      name: `Shop ${newId('n')}`,
      status: 'connected',
      features: {} as never,
      settings: {} as never,
    });

  it('refuses another channel beyond the plan, says which limit, and lets an upgrade lift it', async () => {
    const m = await subscribed('starter');
    await assertWithinPlan(t.services.db, m.accountId, 'channels');
    await addChannel(m.accountId);
    const refusal = assertWithinPlan(t.services.db, m.accountId, 'channels');
    await expect(refusal).rejects.toMatchObject({
      code: 'PLAN_LIMIT',
      message: 'Your Starter plan includes 1 sales channel. Upgrade your plan (/settings/account) to add more.',
    });
    await expect(assertWithinPlan(t.services.db, m.accountId, 'locations', { current: 1 })).rejects.toMatchObject({
      message: expect.stringContaining('includes 1 location.'),
    });

    const growth = await planByCode('growth');
    expect(
      (await m.trpc.mutation('billing.changePlan', { planId: growth.id, interval: 'month' })).error,
    ).toBeUndefined();
    await assertWithinPlan(t.services.db, m.accountId, 'channels');
    await addChannel(m.accountId);
    await addChannel(m.accountId);
    await expect(assertWithinPlan(t.services.db, m.accountId, 'channels')).rejects.toMatchObject({
      message: expect.stringContaining('Your Growth plan includes 3 sales channels.'),
    });
    // Back down to Starter is refused while the account uses more than it allows.
    const starter = await planByCode('starter');
    const down = await m.trpc.mutation('billing.changePlan', { planId: starter.id, interval: 'month' });
    expect(down.error?.message).toBe('The Starter plan includes 1 sales channel; the account uses 3. Remove 2 first.');
  });

  // The embedded engine runs one statement at a time; a server is where two transactions really race.
  it.skipIf(!usingServer())('two channels added at once cannot both take the last place', async () => {
    const m = await subscribed('starter');
    const attempt = () =>
      t.services.db.transaction(async (tx) => {
        await assertWithinPlan(tx, m.accountId, 'channels');
        await new Promise((r) => setTimeout(r, 100));
        await tx.insert(channels).values({
          id: newId('chn'),
          accountId: m.accountId,
          type: 'shopify',
          name: 'Race',
          status: 'connected',
          features: {} as never,
          settings: {} as never,
        });
      });
    const results = await Promise.allSettled([attempt(), attempt()]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    const [row] = await t.services.db.select({ n: count() }).from(channels).where(eq(channels.accountId, m.accountId));
    expect(row?.n).toBe(1);
  });

  it('an account without a subscription cannot add what a plan counts; one set up by an operator is not metered', async () => {
    const m = await merchant();
    await expect(assertWithinPlan(t.services.db, m.accountId, 'channels')).rejects.toMatchObject({
      code: 'PLAN_LIMIT',
    });
    const operator = await createSignedInAccount(t.services, { status: 'active' });
    await assertWithinPlan(t.services.db, operator.accountId, 'channels', { current: 100 });
  });
});

describe('checkout sessions', () => {
  it('are only the account’s own: another account’s session id changes nothing', async () => {
    const a = await merchant();
    const { sessionId } = await startCheckout(a, 'starter');
    const b = await merchant();
    const status = await b.trpc.query<SubscriptionStatus>('billing.getSubscriptionStatus', { sessionId });
    expect(status.error?.data.code).toBe('NOT_FOUND');
    const own = await b.trpc.query<SubscriptionStatus>('billing.getSubscriptionStatus');
    expect(own.data).toMatchObject({ accountStatus: 'requires_payment_method', checkout: null });
    const [row] = await t.services.db.select().from(checkoutSessions).where(eq(checkoutSessions.id, sessionId));
    expect(row?.accountId).toBe(a.accountId);
  });
});
