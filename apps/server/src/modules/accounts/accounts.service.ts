// The account (tenant) as its users see it: business details and the catalog data kept after sign-in.
import type { AccountCatalogs, AccountDetails, UpdateAccountInput } from '@switchyard/contracts';
import { eq } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { DomainError } from '../../lib/errors.ts';
import type { Services } from '../../services.ts';
import type { Actor } from '../../trpc/context.ts';
import { queueMetricsRebuild } from '../metrics/metrics.jobs.ts';
import { rebuildAccountMetrics } from '../metrics/metrics.rebuild.ts';
import { accountSettings, accounts } from './accounts.tables.ts';

type AccountRow = typeof accounts.$inferSelect;

export const toAccountDetails = (a: AccountRow): AccountDetails => ({
  id: a.id,
  business: a.business,
  status: a.status,
  phone: a.phone,
  addressLine1: a.addressLine1,
  city: a.city,
  postcode: a.postcode,
  country: a.country,
  timezone: a.timezone,
  currency: a.currency,
});

export async function getAccount(db: Db, actor: Actor): Promise<AccountDetails> {
  const [row] = await db.select().from(accounts).where(eq(accounts.id, actor.accountId));
  if (!row) throw new DomainError('NOT_FOUND', 'Account not found');
  return toAccountDetails(row);
}

export async function getCatalogs(db: Db, actor: Actor): Promise<AccountCatalogs> {
  const [account, settings] = await Promise.all([
    getAccount(db, actor),
    db
      .select({ key: accountSettings.key, value: accountSettings.value })
      .from(accountSettings)
      .where(eq(accountSettings.accountId, actor.accountId))
      .orderBy(accountSettings.key),
  ]);
  return { account, accountSettings: settings };
}

/**
 * Changes the business details given; status and ids are never changed here. A new time zone moves the days the
 * dashboard counts in: the account's rollups are rebuilt (by a job where there is a queue).
 */
export async function updateAccount(
  db: Db,
  actor: Actor,
  input: UpdateAccountInput,
  services: Pick<Services, 'queue'> = {},
): Promise<AccountDetails> {
  const changes = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));
  if (Object.keys(changes).length === 0) return getAccount(db, actor);
  const [before] = await db
    .select({ timezone: accounts.timezone })
    .from(accounts)
    .where(eq(accounts.id, actor.accountId));
  const [row] = await db
    .update(accounts)
    .set({ ...changes, updatedAt: new Date() })
    .where(eq(accounts.id, actor.accountId))
    .returning();
  if (!row) throw new DomainError('NOT_FOUND', 'Account not found');
  if (before && before.timezone !== row.timezone && !(await queueMetricsRebuild(services, row.id))) {
    await rebuildAccountMetrics(db, row.id);
  }
  return toAccountDetails(row);
}
