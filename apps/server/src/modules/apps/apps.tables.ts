import { index, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { accounts, users } from '../accounts/accounts.tables.ts';

/** The merchant's keys for the public REST API (v1, v2): only a SHA-256 of the secret is stored. */
export const apiKeys = pgTable(
  'api_keys',
  {
    id: text().primaryKey(),
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    name: text().notNull(),
    /** The first characters of the secret, shown so a merchant can tell keys apart. */
    prefix: text().notNull(),
    keyHash: text().notNull(),
    createdBy: text()
      .notNull()
      .references(() => users.id),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    lastUsedAt: timestamp({ withTimezone: true }),
    revokedAt: timestamp({ withTimezone: true }),
  },
  (t) => [uniqueIndex('api_keys_hash_key').on(t.keyHash), index('api_keys_account_idx').on(t.accountId, t.createdAt)],
);
