// Plan limits, enforced by the services that create what a plan counts (channels, locations, users).
import { BILLING_SETTINGS_PATH, PLAN_LIMIT_LABELS, type PlanLimitKey } from '@switchyard/contracts';
import { and, count, desc, eq, ne } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { DomainError } from '../../lib/errors.ts';
import { accounts, users } from '../accounts/accounts.tables.ts';
import { channels } from '../channels/channels.tables.ts';
import { countLocations } from '../locations/locations.read.ts';
import { plans, subscriptions } from './billing.tables.ts';

type Counter = (db: Db, accountId: string) => Promise<number>;

const counters: Partial<Record<PlanLimitKey, Counter>> = {
  // A disconnected channel keeps its settings but does not sync, so it does not count.
  channels: async (db, accountId) => {
    const [row] = await db
      .select({ n: count() })
      .from(channels)
      .where(and(eq(channels.accountId, accountId), ne(channels.status, 'disconnected')));
    return row?.n ?? 0;
  },
  // Every location counts, enabled or not: a disabled one is still set up and mapped. Counted here rather
  // than registered by the locations module, so a worker-only process (catalog import) counts them too.
  locations: countLocations,
  users: async (db, accountId) => {
    const [row] = await db.select({ n: count() }).from(users).where(eq(users.accountId, accountId));
    return row?.n ?? 0;
  },
};

/**
 * The module that owns what a limit counts registers its counter here (locations and orders do, once
 * they exist); until then nothing of that kind exists and its usage is 0.
 */
export function registerUsageCounter(key: PlanLimitKey, counter: Counter) {
  counters[key] = counter;
}

export async function countUsage(db: Db, accountId: string, key: PlanLimitKey): Promise<number> {
  const counter = counters[key];
  return counter ? counter(db, accountId) : 0;
}

const LIVE = new Set(['active', 'trialing', 'past_due', 'unpaid', 'paused']);

/** The plan the account is on now, 'none' when it has no subscription that bills, 'unmetered' when it never had one. */
async function planOf(db: Db, accountId: string) {
  const rows = await db
    .select({ status: subscriptions.status, plan: plans })
    .from(subscriptions)
    .innerJoin(plans, eq(plans.id, subscriptions.planId))
    .where(eq(subscriptions.accountId, accountId))
    .orderBy(desc(subscriptions.createdAt))
    .limit(20);
  const live = rows.find((r) => LIVE.has(r.status));
  if (live) return live.plan;
  if (rows.length) return 'none' as const;
  // An active account that never subscribed was set up by an operator (admin:create): not metered.
  const [account] = await db.select({ status: accounts.status }).from(accounts).where(eq(accounts.id, accountId));
  return account?.status === 'active' ? ('unmetered' as const) : ('none' as const);
}

/**
 * Refuses (PLAN_LIMIT) to add `adding` more of `key` when the account's plan does not allow it, saying which
 * limit and that upgrading lifts it. Call it in the transaction that adds the row (it locks the account row
 * until that commits). Pass `current` when the caller counts its own rows.
 */
export async function assertWithinPlan(
  db: Db,
  accountId: string,
  key: PlanLimitKey,
  options: { adding?: number; current?: number } = {},
): Promise<void> {
  const label = PLAN_LIMIT_LABELS[key];
  // In the caller's transaction this holds concurrent additions for the account until it commits, so two
  // at once cannot both take the last place.
  await db.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, accountId)).for('update');
  const plan = await planOf(db, accountId);
  if (plan === 'unmetered') return;
  if (plan === 'none') {
    throw new DomainError('PLAN_LIMIT', `Choose a plan to add ${label.many}: the account has no active subscription.`);
  }
  const limit = plan.limits[key];
  if (limit === null) return;
  const adding = options.adding ?? 1;
  const current = options.current ?? (await countUsage(db, accountId, key));
  if (current + adding > limit) {
    throw new DomainError(
      'PLAN_LIMIT',
      `Your ${plan.name} plan includes ${limit} ${limit === 1 ? label.one : label.many}. Upgrade your plan (${BILLING_SETTINGS_PATH}) to add more.`,
    );
  }
}
