import { index, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { accounts, users } from '../accounts/accounts.tables.ts';

/** A superuser's session inside another account (admin.actAs): short-lived, audited, revocable. */
export const actingSessions = pgTable(
  'acting_sessions',
  {
    id: text().primaryKey(),
    /** The account acted in. */
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    /** The superuser acting. */
    userId: text()
      .notNull()
      .references(() => users.id),
    reason: text().notNull(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp({ withTimezone: true }).notNull(),
    revokedAt: timestamp({ withTimezone: true }),
  },
  (t) => [index('acting_sessions_user_idx').on(t.userId, t.createdAt)],
);
