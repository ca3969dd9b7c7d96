// Subscriptions and payment (issue 4): checkout, plan changes, cancel/resume, and what the account page reads.
// What Stripe answers is written into our tables by billing.mirror.ts.
import {
  type AccountStatus,
  BILLING_SETTINGS_PATH,
  type BillingOverview,
  type Invoice,
  PAST_DUE_GRACE_DAYS,
  PLAN_LIMIT_LABELS,
  type Plan,
  type PlanLimitKey,
  type StartCheckoutInput,
  type Subscription,
  type SubscriptionStatus,
} from '@switchyard/contracts';
import { and, desc, eq } from 'drizzle-orm';
import { publicUrl } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import { DomainError } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { Services } from '../../services.ts';
import type { Actor } from '../../trpc/context.ts';
import { accounts, users } from '../accounts/accounts.tables.ts';
import {
  applyCheckout,
  currentSubscription,
  isLive,
  latestCheckout,
  providerFor,
  type SubscriptionRow,
  syncInvoice,
  syncSubscription,
} from './billing.mirror.ts';
import type { BillingProvider, ProviderSubscription } from './billing.provider.ts';
import { billingCustomers, billingInvoices, checkoutSessions, plans } from './billing.tables.ts';
import { countUsage } from './plan-limits.ts';
import { getPlan, toPlan } from './plans.service.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

// ---- Reading ---------------------------------------------------------------------------------------------

export const graceEndsAt = (sub: Pick<SubscriptionRow, 'pastDueSince'> | undefined) =>
  sub?.pastDueSince ? new Date(sub.pastDueSince.getTime() + PAST_DUE_GRACE_DAYS * DAY_MS) : null;

/** past_due beyond the grace period: the app is read-only until a payment succeeds. */
export function isReadOnly(accountStatus: AccountStatus, sub: SubscriptionRow | undefined, now = new Date()) {
  if (accountStatus !== 'past_due') return false;
  const ends = graceEndsAt(sub);
  return !!ends && now.getTime() >= ends.getTime();
}

async function accountStatusOf(db: Db, accountId: string): Promise<AccountStatus> {
  const [row] = await db.select({ status: accounts.status }).from(accounts).where(eq(accounts.id, accountId));
  if (!row) throw new DomainError('NOT_FOUND', 'Account not found');
  return row.status;
}

async function toSubscriptionShape(db: Db, sub: SubscriptionRow | undefined): Promise<Subscription | null> {
  if (!sub) return null;
  const plan = await getPlan(db, sub.planId);
  return {
    planId: sub.planId,
    planName: plan?.name ?? sub.planId,
    interval: sub.interval,
    status: sub.status as Subscription['status'],
    currentPeriodEnd: sub.currentPeriodEnd,
    cancelAtPeriodEnd: sub.cancelAtPeriodEnd,
    graceEndsAt: sub.status === 'past_due' || sub.status === 'unpaid' ? graceEndsAt(sub) : null,
  };
}

async function statusFor(db: Db, accountId: string): Promise<SubscriptionStatus> {
  const [accountStatus, sub, checkout] = await Promise.all([
    accountStatusOf(db, accountId),
    currentSubscription(db, accountId),
    latestCheckout(db, accountId),
  ]);
  return {
    accountStatus,
    subscription: await toSubscriptionShape(db, sub),
    checkout: checkout ? { status: checkout.status, paymentStatus: checkout.paymentStatus } : null,
    lastPaymentError: sub?.lastPaymentError ?? checkout?.paymentError ?? null,
    readOnly: isReadOnly(accountStatus, sub),
  };
}

/**
 * billing.getSubscriptionStatus. While the account waits on a checkout (just back from the payment page,
 * or paying by bank debit) the session is also asked of Stripe and applied, through the same idempotent
 * path as its webhook, so /subscription/success does not depend on webhook timing.
 */
export async function getSubscriptionStatus(
  services: Services,
  actor: Actor,
  input: { sessionId?: string } = {},
): Promise<SubscriptionStatus> {
  const { db } = services;
  const status = await accountStatusOf(db, actor.accountId);
  const [checkout] = input.sessionId
    ? await db
        .select()
        .from(checkoutSessions)
        .where(and(eq(checkoutSessions.accountId, actor.accountId), eq(checkoutSessions.id, input.sessionId)))
    : [await latestCheckout(db, actor.accountId)];
  if (input.sessionId && !checkout) throw new DomainError('NOT_FOUND', 'Checkout not found');
  if (status === 'requires_payment_method' || status === 'awaiting_payment') {
    const unsettled = checkout && (checkout.status === 'open' || checkout.paymentStatus === 'unpaid');
    if (checkout && unsettled && Date.now() - checkout.createdAt.getTime() < 2 * DAY_MS) {
      try {
        const session = await providerFor(services).getCheckout(checkout.id);
        if (session.status !== checkout.status || session.paymentStatus !== checkout.paymentStatus) {
          await applyCheckout(services, session, {});
        }
      } catch (err) {
        // Best effort: the webhook brings the same news; the page shows what we know meanwhile.
        services.logger.warn({ err, checkout: checkout.id }, 'billing: could not refresh a checkout from Stripe');
      }
    }
  }
  return statusFor(db, actor.accountId);
}

// ---- Checkout, plan changes, cancel and resume ---------------------------------------------------------

async function ensureCustomer(services: Services, provider: BillingProvider, actor: Actor): Promise<string> {
  const { db } = services;
  const [existing] = await db
    .select()
    .from(billingCustomers)
    .where(and(eq(billingCustomers.accountId, actor.accountId), eq(billingCustomers.mode, provider.mode)));
  if (existing) return existing.stripeCustomerId;
  const [who] = await db
    .select({ email: users.email, business: accounts.business })
    .from(users)
    .innerJoin(accounts, eq(accounts.id, users.accountId))
    .where(eq(users.id, actor.userId));
  if (!who) throw new DomainError('NOT_FOUND', 'Account not found');
  // The idempotency key makes a concurrent second call answer the same customer.
  const customerId = await provider.createCustomer({
    accountId: actor.accountId,
    email: who.email,
    name: who.business,
  });
  await db
    .insert(billingCustomers)
    .values({ id: newId('bcu'), accountId: actor.accountId, mode: provider.mode, stripeCustomerId: customerId })
    .onConflictDoNothing();
  const [stored] = await db
    .select()
    .from(billingCustomers)
    .where(and(eq(billingCustomers.accountId, actor.accountId), eq(billingCustomers.mode, provider.mode)));
  return stored?.stripeCustomerId ?? customerId;
}

async function offeredPlan(db: Db, planId: string): Promise<Plan> {
  const plan = await getPlan(db, planId);
  if (!plan) throw new DomainError('NOT_FOUND', 'Plan not found');
  if (!plan.active) throw new DomainError('VALIDATION', `The ${plan.name} plan is no longer offered.`);
  return plan;
}

/** billing.startCheckout: a Stripe Checkout Session in subscription mode; answers the hosted page's address. */
export async function startCheckout(services: Services, actor: Actor, input: StartCheckoutInput) {
  const { db } = services;
  const status = await accountStatusOf(db, actor.accountId);
  if (status === 'created')
    throw new DomainError('INVALID_STATE', 'Confirm your e-mail address before choosing a plan.');
  const plan = await offeredPlan(db, input.planId);
  const sub = await currentSubscription(db, actor.accountId);
  if (sub && isLive(sub.status)) {
    throw new DomainError('CONFLICT', 'The account already has a subscription. Change its plan instead.');
  }
  if (status === 'awaiting_payment') {
    throw new DomainError('CONFLICT', 'A payment for this account is still being processed. Wait for it to settle.');
  }
  const provider = providerFor(services);
  const customerId = await ensureCustomer(services, provider, actor);
  const priceId = await provider.priceFor(plan, input.interval);
  const base = publicUrl(services.config);
  const session = await provider.createCheckout({
    customerId,
    accountId: actor.accountId,
    priceId,
    successUrl: `${base}/subscription/success?session_id={CHECKOUT_SESSION_ID}`,
    cancelUrl: `${base}/subscription/plans?checkout=canceled`,
    metadata: { accountId: actor.accountId, planId: plan.id, interval: input.interval },
  });
  await db.insert(checkoutSessions).values({
    id: session.id,
    accountId: actor.accountId,
    mode: provider.mode,
    planId: plan.id,
    interval: input.interval,
  });
  return { url: session.url };
}

async function liveSubscription(db: Db, accountId: string): Promise<SubscriptionRow> {
  const sub = await currentSubscription(db, accountId);
  if (!sub || !isLive(sub.status))
    throw new DomainError('INVALID_STATE', 'The account has no subscription. Choose a plan first.');
  return sub;
}

/** billing.changePlan: prorated at once (the difference is invoiced and charged now). */
export async function changePlan(services: Services, actor: Actor, input: StartCheckoutInput) {
  const { db } = services;
  const sub = await liveSubscription(db, actor.accountId);
  const plan = await offeredPlan(db, input.planId);
  if (sub.planId === plan.id && sub.interval === input.interval) {
    throw new DomainError('VALIDATION', `The account is already on the ${plan.name} plan, billed ${input.interval}ly.`);
  }
  // A smaller plan must still hold what the account uses.
  for (const key of Object.keys(plan.limits) as PlanLimitKey[]) {
    const limit = plan.limits[key];
    if (limit === null) continue;
    const used = await countUsage(db, actor.accountId, key);
    if (used > limit) {
      const label = PLAN_LIMIT_LABELS[key];
      throw new DomainError(
        'VALIDATION',
        `The ${plan.name} plan includes ${limit} ${limit === 1 ? label.one : label.many}; the account uses ${used}. Remove ${used - limit} first.`,
      );
    }
  }
  const provider = providerFor(services);
  const stripeSub = await provider.getSubscription(sub.stripeSubscriptionId);
  if (!stripeSub.itemId) throw new DomainError('UPSTREAM_FAILED', 'The subscription has no item to change.');
  const priceId = await provider.priceFor(plan, input.interval);
  const itemId = stripeSub.itemId;
  let updated: ProviderSubscription | undefined;
  const change = async () => {
    updated = await provider.changePrice(sub.stripeSubscriptionId, itemId, priceId, {
      accountId: actor.accountId,
      planId: plan.id,
      interval: input.interval,
    });
    return { subscription: updated };
  };
  await syncSubscription(services, sub.stripeSubscriptionId, change, {
    reread: async () => ({ subscription: await provider.getSubscription(sub.stripeSubscriptionId) }),
    accountId: actor.accountId,
    audit: {
      actor,
      action: 'billing.plan_changed',
      detail: { from: sub.planId, to: plan.id, interval: input.interval },
    },
  });
  if (updated?.latestInvoiceId)
    await syncInvoice(services, await provider.getInvoice(updated.latestInvoiceId), actor.accountId);
  return statusFor(db, actor.accountId);
}

/** billing.cancel (at the end of the paid period) and billing.resume (undo that before it ends). */
export async function setCancelAtPeriodEnd(services: Services, actor: Actor, cancel: boolean) {
  const { db } = services;
  const sub = await liveSubscription(db, actor.accountId);
  if (sub.cancelAtPeriodEnd === cancel) {
    throw new DomainError(
      'INVALID_STATE',
      cancel
        ? 'The subscription is already set to end at the end of the period.'
        : 'The subscription is not set to end.',
    );
  }
  const provider = providerFor(services);
  const id = sub.stripeSubscriptionId;
  await syncSubscription(
    services,
    id,
    async () => ({ subscription: await provider.setCancelAtPeriodEnd(id, cancel) }),
    {
      reread: async () => ({ subscription: await provider.getSubscription(id) }),
      accountId: actor.accountId,
      audit: {
        actor,
        action: cancel ? 'billing.cancel_requested' : 'billing.resumed',
        detail: (ps) => ({ subscriptionId: sub.id, currentPeriodEnd: ps.currentPeriodEnd?.toISOString() ?? null }),
      },
    },
  );
  return statusFor(db, actor.accountId);
}

/** billing.openPortal: Stripe's customer portal (payment method, invoices), back to an in-app path. */
export async function openPortal(services: Services, actor: Actor, returnPath = BILLING_SETTINGS_PATH) {
  const provider = providerFor(services);
  const [customer] = await services.db
    .select()
    .from(billingCustomers)
    .where(and(eq(billingCustomers.accountId, actor.accountId), eq(billingCustomers.mode, provider.mode)));
  if (!customer) throw new DomainError('INVALID_STATE', 'The account has no billing details yet. Choose a plan first.');
  const url = await provider.createPortal(customer.stripeCustomerId, `${publicUrl(services.config)}${returnPath}`);
  return { url };
}

/** billing.getOverview: settings → account. */
export async function getOverview(services: Services, actor: Actor): Promise<BillingOverview> {
  const { db } = services;
  const status = await statusFor(db, actor.accountId);
  const sub = await currentSubscription(db, actor.accountId);
  const [planRow] = sub ? await db.select().from(plans).where(eq(plans.id, sub.planId)) : [];
  const invoiceRows = await db
    .select()
    .from(billingInvoices)
    .where(eq(billingInvoices.accountId, actor.accountId))
    .orderBy(desc(billingInvoices.createdAt), desc(billingInvoices.id))
    .limit(24);
  const [channels, locations, ordersThisMonth, seats] = await Promise.all([
    countUsage(db, actor.accountId, 'channels'),
    countUsage(db, actor.accountId, 'locations'),
    countUsage(db, actor.accountId, 'ordersPerMonth'),
    countUsage(db, actor.accountId, 'users'),
  ]);
  return {
    status,
    plan: planRow ? toPlan(planRow) : null,
    invoices: invoiceRows.map(
      (r): Invoice => ({
        id: r.id,
        number: r.number,
        status: r.status,
        amountDue: r.amountDue,
        amountPaid: r.amountPaid,
        currency: r.currency,
        createdAt: r.createdAt,
        periodStart: r.periodStart,
        periodEnd: r.periodEnd,
        hostedInvoiceUrl: r.hostedInvoiceUrl,
        pdfUrl: r.pdfUrl,
      }),
    ),
    paymentMethod: sub?.paymentMethod ?? null,
    usage: { channels, locations, ordersThisMonth, users: seats },
  };
}
