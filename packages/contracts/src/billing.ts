import { z } from 'zod';
import { AccountStatus } from './accounts.ts';

/**
 * Plans, subscriptions and payment (issue 4). Shared by the billing module and the setup/settings screens.
 *
 * Calls (tRPC):
 * - `plans.listPlans({ all? })` → Plan[] (public; `all: true` adds plans that are not publicly listed)
 * - `billing.getSubscriptionStatus()` → SubscriptionStatus (signed in)
 * - `billing.startCheckout(StartCheckoutInput)` → { url } (the hosted payment page)
 * - `billing.getOverview()` → BillingOverview (settings → account)
 * - `billing.changePlan(StartCheckoutInput)` → SubscriptionStatus (prorated)
 * - `billing.cancel()` / `billing.resume()` → SubscriptionStatus (cancel at period end; undo that)
 * - `billing.openPortal({ returnPath? })` → { url } (payment method and invoices at the provider)
 * - `admin.plans.list()` / `admin.plans.upsert(PlanInput)` (super admin)
 * - webhook: POST /webhooks/stripe
 */

export const BILLING_INTERVALS = ['month', 'year'] as const;
export const BillingInterval = z.enum(BILLING_INTERVALS);
export type BillingInterval = z.infer<typeof BillingInterval>;

/** null: unlimited. */
export const PlanLimits = z.object({
  channels: z.number().int().min(0).nullable(),
  locations: z.number().int().min(0).nullable(),
  ordersPerMonth: z.number().int().min(0).nullable(),
  users: z.number().int().min(0).nullable(),
});
export type PlanLimits = z.infer<typeof PlanLimits>;
export type PlanLimitKey = keyof PlanLimits;

export const PLAN_LIMIT_LABELS: Record<PlanLimitKey, { one: string; many: string }> = {
  channels: { one: 'sales channel', many: 'sales channels' },
  locations: { one: 'location', many: 'locations' },
  ordersPerMonth: { one: 'order a month', many: 'orders a month' },
  users: { one: 'user', many: 'users' },
};

export const Plan = z.object({
  id: z.string(),
  /** Stable code, e.g. 'starter'; Stripe prices are looked up by it. */
  code: z.string(),
  name: z.string(),
  description: z.string(),
  /** Minor units. */
  monthlyPrice: z.number().int().min(0),
  yearlyPrice: z.number().int().min(0),
  /** ISO 4217, lower case as Stripe has it ('usd'). */
  currency: z.string(),
  limits: PlanLimits,
  features: z.array(z.string()),
  /** Shown on /subscription/plans without all=true. */
  public: z.boolean(),
  /** Plans no longer offered stay on existing subscriptions but cannot be chosen. */
  active: z.boolean(),
  sortOrder: z.number().int(),
});
export type Plan = z.infer<typeof Plan>;

export const PlanInput = Plan.omit({ id: true }).extend({
  id: z.string().optional(),
  code: z
    .string()
    .trim()
    .regex(/^[a-z0-9][a-z0-9-]{1,40}$/, 'Lower-case letters, digits and dashes'),
  name: z.string().trim().min(1, '* Required').max(60),
  description: z.string().trim().max(300),
  currency: z
    .string()
    .trim()
    .toLowerCase()
    .regex(/^[a-z]{3}$/, 'A three-letter currency code'),
  features: z.array(z.string().trim().min(1).max(120)).max(20),
});
export type PlanInput = z.infer<typeof PlanInput>;

export const ListPlansInput = z.object({ all: z.boolean().optional() }).optional();

export const StartCheckoutInput = z.object({ planId: z.string(), interval: BillingInterval });
export type StartCheckoutInput = z.infer<typeof StartCheckoutInput>;

/** Stripe's subscription statuses, as we store them. */
export const SUBSCRIPTION_STATUSES = [
  'incomplete',
  'incomplete_expired',
  'trialing',
  'active',
  'past_due',
  'unpaid',
  'canceled',
  'paused',
] as const;
export const SubscriptionState = z.enum(SUBSCRIPTION_STATUSES);

export const Subscription = z.object({
  planId: z.string(),
  planName: z.string(),
  interval: BillingInterval,
  status: SubscriptionState,
  currentPeriodEnd: z.date().nullable(),
  cancelAtPeriodEnd: z.boolean(),
  /** past_due: when the account becomes read-only unless a payment succeeds. */
  graceEndsAt: z.date().nullable(),
});
export type Subscription = z.infer<typeof Subscription>;

export const SubscriptionStatus = z.object({
  /** The account's status (SPEC §4), which the gate routes on. */
  accountStatus: AccountStatus,
  subscription: Subscription.nullable(),
  /** The last checkout and how it ended, for /subscription/success and awaiting-payment. */
  checkout: z
    .object({
      status: z.enum(['open', 'complete', 'expired']),
      paymentStatus: z.enum(['paid', 'unpaid', 'no_payment_required']),
    })
    .nullable(),
  /** The most recent failed payment, in the provider's words ("Your card was declined."). */
  lastPaymentError: z.string().nullable(),
  /** true when past_due beyond the grace period: the app is read-only. */
  readOnly: z.boolean(),
});
export type SubscriptionStatus = z.infer<typeof SubscriptionStatus>;

export const Invoice = z.object({
  id: z.string(),
  number: z.string().nullable(),
  status: z.enum(['draft', 'open', 'paid', 'uncollectible', 'void']),
  amountDue: z.number().int(),
  amountPaid: z.number().int(),
  currency: z.string(),
  createdAt: z.date(),
  periodStart: z.date().nullable(),
  periodEnd: z.date().nullable(),
  hostedInvoiceUrl: z.string().nullable(),
  pdfUrl: z.string().nullable(),
});
export type Invoice = z.infer<typeof Invoice>;

export const PaymentMethodSummary = z.object({
  brand: z.string(),
  last4: z.string(),
  expMonth: z.number().int(),
  expYear: z.number().int(),
});

export const BillingOverview = z.object({
  status: SubscriptionStatus,
  plan: Plan.nullable(),
  invoices: z.array(Invoice),
  paymentMethod: PaymentMethodSummary.nullable(),
  usage: z.object({
    channels: z.number().int(),
    locations: z.number().int(),
    ordersThisMonth: z.number().int(),
    users: z.number().int(),
  }),
});
export type BillingOverview = z.infer<typeof BillingOverview>;

/** Days a past_due account keeps full use before it becomes read-only. */
export const PAST_DUE_GRACE_DAYS = 7;

/** billing.getSubscriptionStatus: the checkout Stripe sent the browser back from (/subscription/success?session_id=…). */
export const GetSubscriptionStatusInput = z.object({ sessionId: z.string().max(300).optional() }).optional();

/** billing.openPortal: an in-app path to come back to. */
export const OpenPortalInput = z
  .object({
    returnPath: z
      .string()
      .max(300)
      .regex(/^\/(?!\/)[^\s\\]*$/, 'An in-app path')
      .optional(),
  })
  .optional();

/** Where a merchant changes plan (the upgrade link of a PLAN_LIMIT refusal) and updates the payment method. */
export const BILLING_SETTINGS_PATH = '/settings/account';
