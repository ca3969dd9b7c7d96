// Stripe's state mirrored into ours (issue 4): a subscription, a checkout or an invoice as Stripe answers it,
// written into our tables, and the account's status moved with it (audit, e-mail, notification). The webhooks'
// job and the merchant's own changes (billing.service.ts) both write through here.
import {
  type AccountStatus,
  BILLING_SETTINGS_PATH,
  type BillingInterval,
  PAST_DUE_GRACE_DAYS,
  type Plan,
} from '@switchyard/contracts';
import { and, asc, desc, eq, sql } from 'drizzle-orm';
import { publicUrl } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import { newId } from '../../lib/ids.ts';
import type { Services } from '../../services.ts';
import type { Actor } from '../../trpc/context.ts';
import { accounts, users } from '../accounts/accounts.tables.ts';
import { recordAudit } from '../audit/audit.service.ts';
import { dispatchMail, queueMail } from '../mail/mail.service.ts';
import { notifyPaymentFailed } from '../notifications/notifications.producers.ts';
import {
  type BillingProvider,
  billingProvider,
  type ProviderCheckout,
  type ProviderInvoice,
  type ProviderSubscription,
} from './billing.provider.ts';
import { billingCustomers, billingInvoices, checkoutSessions, subscriptions } from './billing.tables.ts';
import { getPlan, getPlanByCode } from './plans.service.ts';

export type SubscriptionRow = typeof subscriptions.$inferSelect;
export type CheckoutRow = typeof checkoutSessions.$inferSelect;

/** Stripe statuses of a subscription that still bills (or tries to). */
export const LIVE_SUBSCRIPTION_STATUSES = ['active', 'trialing', 'past_due', 'unpaid', 'paused'] as const;
export const isLive = (status: string) => (LIVE_SUBSCRIPTION_STATUSES as readonly string[]).includes(status);

/** The provider for this process's configuration; tests and main reach the same code. */
export const providerFor = (services: Services): BillingProvider => billingProvider(services.providers);

/** The subscription that decides the account's status: the newest live one, else the newest of any. */
export async function currentSubscription(db: Db, accountId: string): Promise<SubscriptionRow | undefined> {
  const rows = await db
    .select()
    .from(subscriptions)
    .where(eq(subscriptions.accountId, accountId))
    .orderBy(desc(subscriptions.createdAt), desc(subscriptions.id))
    .limit(20);
  return rows.find((r) => isLive(r.status)) ?? rows[0];
}

export async function latestCheckout(db: Db, accountId: string): Promise<CheckoutRow | undefined> {
  const [row] = await db
    .select()
    .from(checkoutSessions)
    .where(eq(checkoutSessions.accountId, accountId))
    .orderBy(desc(checkoutSessions.createdAt), desc(checkoutSessions.id))
    .limit(1);
  return row;
}

// ---- Applying what Stripe says --------------------------------------------------------------------------

/** The account a Stripe customer belongs to. */
export async function accountForCustomer(db: Db, customerId: string | null | undefined) {
  if (!customerId) return undefined;
  const [row] = await db
    .select({ accountId: billingCustomers.accountId })
    .from(billingCustomers)
    .where(eq(billingCustomers.stripeCustomerId, customerId));
  return row?.accountId;
}

async function resolvePlan(
  db: Db,
  sub: ProviderSubscription,
): Promise<{ plan: Plan; interval: BillingInterval } | undefined> {
  // What is billed decides: the price's lookup key `${code}_${interval}`; our metadata otherwise.
  const match = sub.priceLookupKey ? /^(.+)_(month|year)$/.exec(sub.priceLookupKey) : null;
  if (match?.[1] && match[2]) {
    const plan = await getPlanByCode(db, match[1]);
    if (plan) return { plan, interval: match[2] as BillingInterval };
  }
  const plan = sub.metadata.planId ? await getPlan(db, sub.metadata.planId) : undefined;
  const interval = sub.interval ?? (sub.metadata.interval as BillingInterval | undefined);
  if (plan && (interval === 'month' || interval === 'year')) return { plan, interval };
  return undefined;
}

interface SyncOptions {
  /** When the state comes with an event: its `created`. Older than what was applied → ignored. */
  eventCreated?: Date;
  accountId?: string;
  /** An audit entry for the change that caused this (by the merchant), in the same transaction. */
  audit?: {
    actor: Actor;
    action: string;
    detail: Record<string, unknown> | ((ps: ProviderSubscription) => Record<string, unknown>);
  };
  /** A failed payment's message to keep (or null to clear it once a payment succeeds). */
  paymentError?: string | null;
}

/** Stripe's subscription as one read (or one change) answers it, with what that read says of its payment. */
export interface SubscriptionRead {
  subscription: ProviderSubscription;
  paymentError?: string | null;
}

export type SyncResult = 'applied' | 'stale' | 'unknown';

/** How many times a write that lost its row to another one reads Stripe again before giving up. */
const SYNC_ATTEMPTS = 5;

/**
 * Writes Stripe's state of a subscription into our mirror and moves the account's status with it.
 * Idempotent; an event older than the newest one applied does not move the row back, and a canceled
 * subscription is never brought back by a late update.
 *
 * `read` asks Stripe (or changes it and answers the result); `reread` asks again (default: `read`). The row is
 * read before Stripe is, and written only if no one wrote it since: a webhook's job that read Stripe before the
 * merchant resumed must not write its older answer over the resume. A write that lost the row reads Stripe again.
 */
export async function syncSubscription(
  services: Services,
  stripeSubscriptionId: string,
  read: () => Promise<SubscriptionRead>,
  options: SyncOptions & { reread?: () => Promise<SubscriptionRead> } = {},
): Promise<SyncResult> {
  for (let attempt = 1; ; attempt++) {
    const result = await syncOnce(
      services,
      stripeSubscriptionId,
      attempt === 1 ? read : (options.reread ?? read),
      options,
    );
    if (result !== 'lost') return result;
    if (attempt === SYNC_ATTEMPTS) {
      throw new Error(`billing: subscription ${stripeSubscriptionId} changed under ${SYNC_ATTEMPTS} writes in a row`);
    }
  }
}

async function syncOnce(
  services: Services,
  stripeSubscriptionId: string,
  read: () => Promise<SubscriptionRead>,
  options: SyncOptions,
): Promise<SyncResult | 'lost'> {
  const { db } = services;
  const [found] = await db
    .select({ row: subscriptions, version: sql<string>`${subscriptions}.xmin::text` })
    .from(subscriptions)
    .where(eq(subscriptions.stripeSubscriptionId, stripeSubscriptionId));
  const row = found?.row;
  if (row && options.eventCreated && row.lastEventAt && options.eventCreated < row.lastEventAt) return 'stale';
  const answer = await read();
  const ps = answer.subscription;
  if (row?.status === 'canceled' && ps.status !== 'canceled') return 'stale';
  const accountId =
    row?.accountId ??
    options.accountId ??
    (await accountForCustomer(db, ps.customerId)) ??
    (ps.metadata.accountId && (await accountExists(db, ps.metadata.accountId)) ? ps.metadata.accountId : undefined);
  if (!accountId) return 'unknown';
  const resolved = await resolvePlan(db, ps);
  if (!resolved && !row) {
    services.logger.warn({ subscription: ps.id }, 'billing: a subscription for no known plan; not mirrored');
    return 'unknown';
  }
  const now = new Date();
  const pastDue = ps.status === 'past_due' || ps.status === 'unpaid';
  let paymentError = answer.paymentError !== undefined ? answer.paymentError : options.paymentError;
  if (pastDue && paymentError === undefined && !row?.lastPaymentError && ps.latestInvoiceId) {
    // The subscription's event can come before the invoice's: the reason is on the latest invoice.
    paymentError = await providerFor(services).invoicePaymentError(ps.latestInvoiceId);
  }
  const lastEventAt =
    options.eventCreated && (!row?.lastEventAt || options.eventCreated > row.lastEventAt)
      ? options.eventCreated
      : (row?.lastEventAt ?? null);
  const values = {
    status: ps.status,
    planId: resolved?.plan.id ?? (row?.planId as string),
    interval: resolved?.interval ?? (row?.interval as BillingInterval),
    currentPeriodEnd: ps.currentPeriodEnd,
    cancelAtPeriodEnd: ps.cancelAtPeriodEnd,
    pastDueSince: pastDue ? (row?.pastDueSince ?? now) : null,
    lastEventAt,
    paymentMethod: ps.paymentMethod ?? row?.paymentMethod ?? null,
    // A subscription in good standing has no payment problem, whatever an older event said.
    lastPaymentError:
      ps.status === 'active' || ps.status === 'trialing'
        ? null
        : paymentError !== undefined
          ? paymentError
          : (row?.lastPaymentError ?? null),
    endedAt: ps.endedAt,
    updatedAt: now,
  };
  const mailIds = await db.transaction(async (tx) => {
    const written = row
      ? await tx
          .update(subscriptions)
          .set(values)
          .where(and(eq(subscriptions.id, row.id), sql`${subscriptions}.xmin = ${found.version}::xid`))
          .returning({ id: subscriptions.id })
      : await tx
          .insert(subscriptions)
          .values({
            id: newId('sub'),
            accountId,
            mode: providerFor(services).mode,
            stripeSubscriptionId: ps.id,
            stripeCustomerId: ps.customerId,
            ...values,
          })
          .onConflictDoNothing({ target: subscriptions.stripeSubscriptionId })
          .returning({ id: subscriptions.id });
    if (written.length === 0) return undefined;
    if (options.audit) {
      await recordAudit(tx, {
        accountId,
        actorUserId: options.audit.actor.userId,
        action: options.audit.action,
        detail: typeof options.audit.detail === 'function' ? options.audit.detail(ps) : options.audit.detail,
      });
    }
    return updateAccountStatus(services, tx, accountId);
  });
  if (!mailIds) return 'lost';
  await dispatchMail(services, mailIds);
  return 'applied';
}

async function accountExists(db: Db, accountId: string) {
  const [row] = await db.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, accountId));
  return !!row;
}

/** The account status the billing state implies (DESIGN §3), or undefined to leave it as it is. */
export function deriveAccountStatus(
  sub: Pick<SubscriptionRow, 'status'> | undefined,
  checkout: Pick<CheckoutRow, 'status' | 'paymentStatus' | 'paymentError'> | undefined,
): AccountStatus | undefined {
  switch (sub?.status) {
    case 'active':
    case 'trialing':
      return 'active';
    case 'past_due':
    case 'unpaid':
    case 'paused':
      return 'past_due';
    case 'canceled':
      return 'canceled';
  }
  // No subscription that bills: a completed checkout whose payment has not settled waits for it (an
  // incomplete_expired subscription's never will).
  const pending = !sub || sub.status === 'incomplete';
  if (pending && checkout?.status === 'complete' && checkout.paymentStatus === 'unpaid' && !checkout.paymentError) {
    return 'awaiting_payment';
  }
  if (sub || checkout) return 'requires_payment_method';
  return undefined;
}

/**
 * Moves the account to the status its billing implies, in the caller's transaction; on becoming active,
 * past_due or canceled it records an audit entry, and it queues the merchant's e-mail for a failed payment
 * and a canceled subscription. Answers the queued mail ids (dispatch them after commit).
 */
async function updateAccountStatus(services: Services, tx: Db, accountId: string): Promise<string[]> {
  const [account] = await tx.select().from(accounts).where(eq(accounts.id, accountId)).for('update');
  if (!account || account.status === 'created') return [];
  const sub = await currentSubscription(tx, accountId);
  const checkout = await latestCheckout(tx, accountId);
  const next = deriveAccountStatus(sub, checkout);
  if (!next || next === account.status) return [];
  await tx.update(accounts).set({ status: next, updatedAt: new Date() }).where(eq(accounts.id, accountId));
  services.logger.info({ accountId, from: account.status, to: next }, 'billing: account status changed');
  if (next !== 'active' && next !== 'past_due' && next !== 'canceled') return [];
  const [owner] = await tx
    .select({ id: users.id, email: users.email, firstname: users.firstname })
    .from(users)
    .where(eq(users.accountId, accountId))
    .orderBy(asc(users.createdAt), asc(users.id))
    .limit(1);
  if (!owner) return [];
  await recordAudit(tx, {
    accountId,
    actorUserId: owner.id,
    action: `billing.${next}`,
    detail: { from: account.status, to: next, subscriptionId: sub?.stripeSubscriptionId ?? null, by: 'stripe' },
  });
  const plan = sub ? await getPlan(tx, sub.planId) : undefined;
  const base = publicUrl(services.config);
  if (next === 'past_due') {
    await notifyPaymentFailed(tx, accountId, {
      reason: sub?.lastPaymentError ?? 'the payment was declined.',
      link: BILLING_SETTINGS_PATH,
    });
    return [
      await queueMail(
        tx,
        owner.email,
        {
          template: 'payment_failed',
          firstname: owner.firstname,
          link: `${base}${BILLING_SETTINGS_PATH}`,
          planName: plan?.name ?? 'Switchyard',
          reason: sub?.lastPaymentError ?? 'the payment was declined.',
          graceDays: PAST_DUE_GRACE_DAYS,
        },
        accountId,
      ),
    ];
  }
  if (next === 'canceled') {
    return [
      await queueMail(
        tx,
        owner.email,
        {
          template: 'subscription_canceled',
          firstname: owner.firstname,
          link: `${base}/subscription/plans`,
          planName: plan?.name ?? 'Switchyard',
        },
        accountId,
      ),
    ];
  }
  return [];
}

/** A checkout session as Stripe has it now (from its webhook, or asked for by the success page). */
export async function applyCheckout(
  services: Services,
  session: ProviderCheckout,
  options: { eventCreated?: Date; paymentError?: string | null },
): Promise<SyncResult> {
  const { db } = services;
  const [row] = await db.select().from(checkoutSessions).where(eq(checkoutSessions.id, session.id));
  // Only sessions we started: anything else on the Stripe account is none of ours.
  if (!row) return 'unknown';
  // A session only moves forward (open → complete or expired; unpaid → paid): a snapshot older than what we hold (an
  // event's copy, or a read that lost the race with a newer one) does not take it back.
  await db
    .update(checkoutSessions)
    .set({
      status: sql`case when ${checkoutSessions.status} = 'open' then ${session.status} else ${checkoutSessions.status} end`,
      paymentStatus: sql`case when ${checkoutSessions.paymentStatus} = 'unpaid' then ${session.paymentStatus}
        else ${checkoutSessions.paymentStatus} end`,
      stripeSubscriptionId: sql`coalesce(${session.subscriptionId}, ${checkoutSessions.stripeSubscriptionId})`,
      ...(options.paymentError !== undefined ? { paymentError: options.paymentError } : {}),
      updatedAt: new Date(),
    })
    .where(eq(checkoutSessions.id, row.id));
  if (session.subscriptionId) {
    const id = session.subscriptionId;
    const provider = providerFor(services);
    const result = await syncSubscription(
      services,
      id,
      async () => ({ subscription: await provider.getSubscription(id) }),
      {
        accountId: row.accountId,
        eventCreated: options.eventCreated,
        paymentError: options.paymentError,
      },
    );
    if (result !== 'stale') return result;
  }
  const mailIds = await db.transaction((tx) => updateAccountStatus(services, tx, row.accountId));
  await dispatchMail(services, mailIds);
  return 'applied';
}

/** Mirrors one invoice for the account page. */
export async function syncInvoice(services: Services, inv: ProviderInvoice, accountHint?: string) {
  const { db } = services;
  const accountId = accountHint ?? (await accountForCustomer(db, inv.customerId));
  if (!accountId) return 'unknown' as const;
  const values = {
    stripeSubscriptionId: inv.subscriptionId,
    number: inv.number,
    status: inv.status,
    amountDue: inv.amountDue,
    amountPaid: inv.amountPaid,
    currency: inv.currency,
    billingReason: inv.billingReason,
    periodStart: inv.periodStart,
    periodEnd: inv.periodEnd,
    hostedInvoiceUrl: inv.hostedInvoiceUrl,
    pdfUrl: inv.pdfUrl,
    updatedAt: new Date(),
  };
  await db
    .insert(billingInvoices)
    .values({ id: inv.id, accountId, createdAt: inv.createdAt, ...values })
    .onConflictDoUpdate({ target: billingInvoices.id, set: values });
  return 'applied' as const;
}
