// The billing module's entries of the tenant-isolation harness (test/isolation.ts). Test code only.
import { randomBytes } from 'node:crypto';
import type { BillingOverview } from '@switchyard/contracts';
import { eq } from 'drizzle-orm';
import { expect } from 'vitest';
import type { IdTakingOperation, Outcome, OwnRowOperation, World } from '../../../test/isolation.ts';
import { trpcOver } from '../../../test/trpc.ts';
import { newId } from '../../lib/ids.ts';
import { billingCustomers, checkoutSessions, subscriptions } from './billing.tables.ts';
import { listPlans } from './plans.service.ts';

const unique = (label: string) => `${label}_${randomBytes(6).toString('hex')}`;

async function trpc(w: World, kind: 'query' | 'mutation', path: string, input?: unknown): Promise<Outcome> {
  const result = await trpcOver(w.t.app, w.b.headers)[kind](path, input);
  return { status: result.status, body: JSON.stringify(result) };
}

/**
 * The plan the isolation accounts' subscriptions are on: one without limits (Enterprise), so the other
 * modules' entries can create as many channels and locations in A and B as they need, in any order.
 */
async function starterPlanId(w: World) {
  const all = await listPlans(w.t.services.db, { all: true });
  const plan = all.find((p) => Object.values(p.limits).every((limit) => limit === null)) ?? all[0];
  if (!plan) throw new Error('no plans');
  return plan.id;
}

/** A's subscription, as the webhooks would have mirrored it (no provider is reached by these operations). */
async function subscriptionOfA(w: World) {
  const stripeSubscriptionId = unique('sub_iso');
  const stripeCustomerId = unique('cus_iso');
  const [existing] = await w.t.services.db
    .select()
    .from(subscriptions)
    .where(eq(subscriptions.accountId, w.a.accountId));
  if (existing) return existing;
  await w.t.services.db
    .insert(billingCustomers)
    .values({ id: newId('bcu'), accountId: w.a.accountId, mode: 'sandbox', stripeCustomerId });
  const [row] = await w.t.services.db
    .insert(subscriptions)
    .values({
      id: newId('sub'),
      accountId: w.a.accountId,
      mode: 'sandbox',
      stripeSubscriptionId,
      stripeCustomerId,
      planId: await starterPlanId(w),
      interval: 'month',
      status: 'active',
      currentPeriodEnd: new Date(Date.now() + 20 * 24 * 3600 * 1000),
      paymentMethod: { brand: 'visa', last4: '4242', expMonth: 12, expYear: 2034 },
    })
    .returning();
  return row as typeof subscriptions.$inferSelect;
}

async function aUntouched(w: World, before: typeof subscriptions.$inferSelect) {
  const [after] = await w.t.services.db.select().from(subscriptions).where(eq(subscriptions.id, before.id));
  expect(after).toMatchObject({
    status: before.status,
    planId: before.planId,
    interval: before.interval,
    cancelAtPeriodEnd: before.cancelAtPeriodEnd,
  });
}

export const billingIdTakingOperations: IdTakingOperation[] = [
  {
    name: 'billing.getSubscriptionStatus with A’s checkout session',
    async create(w) {
      const id = unique('cs_iso');
      await w.t.services.db.insert(checkoutSessions).values({
        id,
        accountId: w.a.accountId,
        mode: 'sandbox',
        planId: await starterPlanId(w),
        interval: 'month',
      });
      return { id, marker: id };
    },
    attempt: (w, sessionId) => trpc(w, 'query', 'billing.getSubscriptionStatus', { sessionId }),
  },
];

export const billingOwnRowOperations: OwnRowOperation[] = [
  {
    name: 'billing.cancel and billing.resume act on B’s own subscription only',
    async run(w) {
      const a = await subscriptionOfA(w);
      for (const path of ['billing.cancel', 'billing.resume']) {
        const res = await trpc(w, 'mutation', path);
        expect(res.status).toBe(409);
        await aUntouched(w, a);
      }
    },
  },
  {
    name: 'billing.changePlan and billing.openPortal never reach A’s subscription or customer',
    async run(w) {
      const a = await subscriptionOfA(w);
      const plans = await listPlans(w.t.services.db);
      const res = await trpc(w, 'mutation', 'billing.changePlan', { planId: plans[1]?.id, interval: 'year' });
      expect(res.status).toBe(409);
      const portal = await trpc(w, 'mutation', 'billing.openPortal', {});
      expect(portal.status).toBe(409);
      expect(portal.body).not.toContain(a.stripeCustomerId);
      await aUntouched(w, a);
    },
  },
  {
    name: 'billing.getOverview and getSubscriptionStatus show B’s own billing only',
    async run(w) {
      const a = await subscriptionOfA(w);
      const overview = await trpcOver(w.t.app, w.b.headers).query<BillingOverview>('billing.getOverview');
      expect(overview.data).toMatchObject({ plan: null, invoices: [], paymentMethod: null });
      expect(overview.data?.status.subscription).toBeNull();
      const status = await trpc(w, 'query', 'billing.getSubscriptionStatus');
      expect(status.body).not.toContain(a.stripeSubscriptionId);
      const mine = await trpcOver(w.t.app, w.a.headers).query<BillingOverview>('billing.getOverview');
      expect(mine.data?.paymentMethod?.last4).toBe('4242');
    },
  },
];
