import { index, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { accounts, users } from '../accounts/accounts.tables.ts';

/**
 * What was done to an account by someone with more than its own rights: a superuser acting in it, a
 * super admin's change. The account reads its own entries (audit.list).
 */
export const auditEntries = pgTable(
  'audit_entries',
  {
    id: text().primaryKey(),
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    actorUserId: text()
      .notNull()
      .references(() => users.id),
    action: text().notNull(),
    detail: jsonb().$type<Record<string, unknown>>().notNull().default({}),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('audit_entries_account_idx').on(t.accountId, t.createdAt)],
);
