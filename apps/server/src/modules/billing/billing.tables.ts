import type { BillingInterval, PlanLimits } from '@switchyard/contracts';
import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import type { ProviderMode } from '../../providers.ts';
import { accounts } from '../accounts/accounts.tables.ts';

const at = () => timestamp({ withTimezone: true });

/** The plans merchants choose from: data, edited by a super admin (admin.plans.upsert). Money in minor units. */
export const plans = pgTable(
  'plans',
  {
    id: text().primaryKey(),
    /** Stable; Stripe prices are found by the lookup key `${code}_${interval}`. */
    code: text().notNull(),
    name: text().notNull(),
    description: text().notNull().default(''),
    monthlyPrice: integer().notNull(),
    yearlyPrice: integer().notNull(),
    currency: text().notNull().default('usd'),
    limits: jsonb().$type<PlanLimits>().notNull(),
    features: jsonb().$type<string[]>().notNull().default([]),
    public: boolean().notNull().default(true),
    active: boolean().notNull().default(true),
    sortOrder: integer().notNull().default(0),
    createdAt: at().notNull().defaultNow(),
    updatedAt: at().notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('plans_code_key').on(t.code),
    check('plans_prices_check', sql`${t.monthlyPrice} >= 0 and ${t.yearlyPrice} >= 0`),
  ],
);

/** One Stripe customer per account and Stripe mode (the sandbox's customers are not live Stripe's). */
export const billingCustomers = pgTable(
  'billing_customers',
  {
    id: text().primaryKey(),
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    mode: text().$type<ProviderMode>().notNull(),
    stripeCustomerId: text().notNull(),
    createdAt: at().notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('billing_customers_account_key').on(t.accountId, t.mode),
    uniqueIndex('billing_customers_stripe_key').on(t.stripeCustomerId),
  ],
);

export interface StoredPaymentMethod {
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
}

/** Our mirror of the account's Stripe subscriptions, kept current by webhooks (and by our own calls). */
export const subscriptions = pgTable(
  'subscriptions',
  {
    id: text().primaryKey(),
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    mode: text().$type<ProviderMode>().notNull(),
    stripeSubscriptionId: text().notNull(),
    stripeCustomerId: text().notNull(),
    planId: text()
      .notNull()
      .references(() => plans.id),
    interval: text().$type<BillingInterval>().notNull(),
    /** Stripe's subscription status. */
    status: text().notNull(),
    currentPeriodEnd: at(),
    cancelAtPeriodEnd: boolean().notNull().default(false),
    /** When it became past_due; the grace period counts from here. */
    pastDueSince: at(),
    /** The `created` of the newest Stripe event applied: older events never move the row back. */
    lastEventAt: at(),
    paymentMethod: jsonb().$type<StoredPaymentMethod>(),
    /** The provider's words for the most recent failed payment, until a payment succeeds. */
    lastPaymentError: text(),
    endedAt: at(),
    createdAt: at().notNull().defaultNow(),
    updatedAt: at().notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('subscriptions_stripe_key').on(t.stripeSubscriptionId),
    index('subscriptions_account_idx').on(t.accountId, t.createdAt),
  ],
);

/** Checkout Sessions we started, so /subscription/success and awaiting-payment know how the last one ended. */
export const checkoutSessions = pgTable(
  'checkout_sessions',
  {
    id: text().primaryKey(),
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    mode: text().$type<ProviderMode>().notNull(),
    planId: text()
      .notNull()
      .references(() => plans.id),
    interval: text().$type<BillingInterval>().notNull(),
    status: text().$type<'open' | 'complete' | 'expired'>().notNull().default('open'),
    paymentStatus: text().$type<'paid' | 'unpaid' | 'no_payment_required'>().notNull().default('unpaid'),
    stripeSubscriptionId: text(),
    /** Set when an async payment (bank debit) failed after the checkout completed. */
    paymentError: text(),
    createdAt: at().notNull().defaultNow(),
    updatedAt: at().notNull().defaultNow(),
  },
  (t) => [index('checkout_sessions_account_idx').on(t.accountId, t.createdAt)],
);

/** Invoices as Stripe last told us, for settings → account without a round trip. */
export const billingInvoices = pgTable(
  'billing_invoices',
  {
    id: text().primaryKey(),
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    stripeSubscriptionId: text(),
    number: text(),
    status: text().$type<'draft' | 'open' | 'paid' | 'uncollectible' | 'void'>().notNull(),
    amountDue: integer().notNull(),
    amountPaid: integer().notNull(),
    currency: text().notNull(),
    billingReason: text(),
    periodStart: at(),
    periodEnd: at(),
    hostedInvoiceUrl: text(),
    pdfUrl: text(),
    /** Stripe's `created`. */
    createdAt: at().notNull(),
    updatedAt: at().notNull().defaultNow(),
  },
  (t) => [index('billing_invoices_account_idx').on(t.accountId, t.createdAt)],
);

/**
 * Every verified Stripe event, stored once by its id before we answer 200, then processed by the
 * `billing.event` job. A second delivery of the same id is a no-op.
 */
export const billingEvents = pgTable(
  'billing_events',
  {
    id: text().primaryKey(),
    type: text().notNull(),
    mode: text().$type<ProviderMode>().notNull(),
    /** The event's `created`. */
    createdAt: at().notNull(),
    payload: jsonb().$type<Record<string, unknown>>().notNull(),
    accountId: text(),
    receivedAt: at().notNull().defaultNow(),
    processedAt: at(),
    attempts: integer().notNull().default(0),
    error: text(),
  },
  (t) => [index('billing_events_unprocessed_idx').on(t.receivedAt).where(sql`${t.processedAt} is null`)],
);
