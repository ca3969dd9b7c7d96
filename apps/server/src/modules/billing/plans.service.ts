// Plans are data: seeded once (idempotently, by code) and edited by a super admin.
import type { Plan, PlanInput } from '@switchyard/contracts';
import { and, asc, eq } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { DomainError, fromDatabaseError } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { Actor } from '../../trpc/context.ts';
import { recordAudit } from '../audit/audit.service.ts';
import { plans } from './billing.tables.ts';

type PlanRow = typeof plans.$inferSelect;

export const toPlan = (row: PlanRow): Plan => ({
  id: row.id,
  code: row.code,
  name: row.name,
  description: row.description,
  monthlyPrice: row.monthlyPrice,
  yearlyPrice: row.yearlyPrice,
  currency: row.currency,
  limits: row.limits,
  features: row.features,
  public: row.public,
  active: row.active,
  sortOrder: row.sortOrder,
});

/** The plans a new installation starts with. A super admin changes them afterwards; seeding never overwrites. */
export const DEFAULT_PLANS: Omit<Plan, 'id'>[] = [
  {
    code: 'starter',
    name: 'Starter',
    description: 'One store and one sales channel, kept in sync.',
    monthlyPrice: 2900,
    yearlyPrice: 29000,
    currency: 'usd',
    limits: { channels: 1, locations: 1, ordersPerMonth: 1000, users: 2 },
    features: ['Inventory sync', 'Order import', 'E-mail support'],
    public: true,
    active: true,
    sortOrder: 10,
  },
  {
    code: 'growth',
    name: 'Growth',
    description: 'Several channels and locations, with order routing.',
    monthlyPrice: 7900,
    yearlyPrice: 79000,
    currency: 'usd',
    limits: { channels: 3, locations: 5, ordersPerMonth: 10000, users: 10 },
    features: ['Everything in Starter', 'Order routing', 'Dynamic buffers', 'Returns'],
    public: true,
    active: true,
    sortOrder: 20,
  },
  {
    code: 'scale',
    name: 'Scale',
    description: 'For busy merchants with many stores.',
    monthlyPrice: 19900,
    yearlyPrice: 199000,
    currency: 'usd',
    limits: { channels: 10, locations: 25, ordersPerMonth: null, users: null },
    features: ['Everything in Growth', 'Unlimited orders', 'Priority support'],
    public: true,
    active: true,
    sortOrder: 30,
  },
  {
    code: 'enterprise',
    name: 'Enterprise',
    description: 'Agreed with our sales team; no limits.',
    monthlyPrice: 49900,
    yearlyPrice: 499000,
    currency: 'usd',
    limits: { channels: null, locations: null, ordersPerMonth: null, users: null },
    features: ['Everything in Scale', 'No limits', 'A named contact'],
    public: false,
    active: true,
    sortOrder: 40,
  },
];

/** Inserts the default plans that are missing (by code); existing plans are left as a super admin made them. */
export async function ensureDefaultPlans(db: Db) {
  await db
    .insert(plans)
    .values(DEFAULT_PLANS.map((p) => ({ id: newId('pln'), ...p })))
    .onConflictDoNothing({ target: plans.code });
}

// Seeded on the first read of the plans in each process (after migrations ran), then never again.
const seeded = new WeakMap<Db, Promise<void>>();
function seedOnce(db: Db): Promise<void> {
  let done = seeded.get(db);
  if (!done) {
    done = ensureDefaultPlans(db).catch((err) => {
      seeded.delete(db);
      throw err;
    });
    seeded.set(db, done);
  }
  return done;
}

/** /subscription/plans: the public, offered plans; `all` adds the ones not publicly listed. */
export async function listPlans(db: Db, options: { all?: boolean } = {}): Promise<Plan[]> {
  await seedOnce(db);
  const rows = await db
    .select()
    .from(plans)
    .where(options.all ? eq(plans.active, true) : and(eq(plans.active, true), eq(plans.public, true)))
    .orderBy(asc(plans.sortOrder), asc(plans.monthlyPrice));
  return rows.map(toPlan);
}

/** Super admin: every plan, withdrawn ones too. */
export async function listAllPlans(db: Db): Promise<Plan[]> {
  await seedOnce(db);
  const rows = await db.select().from(plans).orderBy(asc(plans.sortOrder), asc(plans.monthlyPrice));
  return rows.map(toPlan);
}

export async function getPlan(db: Db, id: string): Promise<Plan | undefined> {
  const [row] = await db.select().from(plans).where(eq(plans.id, id));
  return row ? toPlan(row) : undefined;
}

export async function getPlanByCode(db: Db, code: string): Promise<Plan | undefined> {
  const [row] = await db.select().from(plans).where(eq(plans.code, code));
  return row ? toPlan(row) : undefined;
}

/**
 * Creates (no id) or changes a plan. The code is fixed once made: Stripe prices are found by it and
 * subscriptions on it must keep resolving. A price change makes a new Stripe price at the next checkout;
 * existing subscriptions keep what they pay.
 */
export async function upsertPlan(db: Db, actor: Actor, input: PlanInput): Promise<Plan> {
  const values = {
    code: input.code,
    name: input.name,
    description: input.description,
    monthlyPrice: input.monthlyPrice,
    yearlyPrice: input.yearlyPrice,
    currency: input.currency,
    limits: input.limits,
    features: input.features,
    public: input.public,
    active: input.active,
    sortOrder: input.sortOrder,
  };
  try {
    return await db.transaction(async (tx) => {
      let row: PlanRow | undefined;
      if (input.id) {
        const [existing] = await tx.select().from(plans).where(eq(plans.id, input.id));
        if (!existing) throw new DomainError('NOT_FOUND', 'Plan not found');
        if (existing.code !== input.code) {
          throw new DomainError('VALIDATION', 'A plan’s code cannot be changed once it exists.');
        }
        [row] = await tx
          .update(plans)
          .set({ ...values, updatedAt: new Date() })
          .where(eq(plans.id, input.id))
          .returning();
      } else {
        [row] = await tx
          .insert(plans)
          .values({ id: newId('pln'), ...values })
          .returning();
      }
      if (!row) throw new DomainError('NOT_FOUND', 'Plan not found');
      await recordAudit(tx, {
        accountId: actor.accountId,
        actorUserId: actor.userId,
        action: input.id ? 'plans.update' : 'plans.create',
        detail: { planId: row.id, code: row.code },
      });
      return toPlan(row);
    });
  } catch (err) {
    throw fromDatabaseError(err, `A plan with the code "${input.code}" already exists.`) ?? err;
  }
}
