// The account (tenant) as its users see it: business details and the catalog data kept after sign-in.
import type { AccountCatalogs, AccountDetails, UpdateAccountInput } from '@switchyard/contracts';
import { eq } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { DomainError } from '../../lib/errors.ts';
import type { Actor } from '../../trpc/context.ts';
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

/** Changes the business details given; status and ids are never changed here. */
export async function updateAccount(db: Db, actor: Actor, input: UpdateAccountInput): Promise<AccountDetails> {
  const changes = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));
  if (Object.keys(changes).length === 0) return getAccount(db, actor);
  const [row] = await db
    .update(accounts)
    .set({ ...changes, updatedAt: new Date() })
    .where(eq(accounts.id, actor.accountId))
    .returning();
  if (!row) throw new DomainError('NOT_FOUND', 'Account not found');
  return toAccountDetails(row);
}
