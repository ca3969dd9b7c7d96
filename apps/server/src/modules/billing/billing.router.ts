import {
  BillingOverview,
  GetSubscriptionStatusInput,
  ListPlansInput,
  OpenPortalInput,
  Plan,
  PlanInput,
  StartCheckoutInput,
  SubscriptionStatus,
} from '@switchyard/contracts';
import { z } from 'zod';
import { authedProcedure, publicProcedure, router, superAdminProcedure } from '../../trpc/init.ts';
import {
  changePlan,
  getOverview,
  getSubscriptionStatus,
  openPortal,
  setCancelAtPeriodEnd,
  startCheckout,
} from './billing.service.ts';
import { listAllPlans, listPlans, upsertPlan } from './plans.service.ts';

const Url = z.object({ url: z.string() });

export const plansRouter = router({
  listPlans: publicProcedure
    .input(ListPlansInput)
    .output(z.array(Plan))
    .query(({ ctx, input }) => listPlans(ctx.services.db, { all: input?.all })),
});

export const billingRouter = router({
  getSubscriptionStatus: authedProcedure
    .input(GetSubscriptionStatusInput)
    .output(SubscriptionStatus)
    .query(({ ctx, input }) => getSubscriptionStatus(ctx.services, ctx.actor, input ?? {})),
  startCheckout: authedProcedure
    .input(StartCheckoutInput)
    .output(Url)
    .mutation(({ ctx, input }) => startCheckout(ctx.services, ctx.actor, input)),
  getOverview: authedProcedure.output(BillingOverview).query(({ ctx }) => getOverview(ctx.services, ctx.actor)),
  changePlan: authedProcedure
    .input(StartCheckoutInput)
    .output(SubscriptionStatus)
    .mutation(({ ctx, input }) => changePlan(ctx.services, ctx.actor, input)),
  cancel: authedProcedure
    .output(SubscriptionStatus)
    .mutation(({ ctx }) => setCancelAtPeriodEnd(ctx.services, ctx.actor, true)),
  resume: authedProcedure
    .output(SubscriptionStatus)
    .mutation(({ ctx }) => setCancelAtPeriodEnd(ctx.services, ctx.actor, false)),
  openPortal: authedProcedure
    .input(OpenPortalInput)
    .output(Url)
    .mutation(({ ctx, input }) => openPortal(ctx.services, ctx.actor, input?.returnPath)),
});

/** admin.plans.* (super admin): every plan, and creating or changing one. */
export const adminPlansRouter = router({
  list: superAdminProcedure.output(z.array(Plan)).query(({ ctx }) => listAllPlans(ctx.services.db)),
  upsert: superAdminProcedure
    .input(PlanInput)
    .output(Plan)
    .mutation(({ ctx, input }) => upsertPlan(ctx.services.db, ctx.actor, input)),
});
