import { index, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { accounts } from '../accounts/accounts.tables.ts';

/** Comments on an entity (SPEC §3: entity_id, type, text); today orders. */
export const comments = pgTable(
  'comments',
  {
    id: text().primaryKey(),
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    entityType: text().notNull(),
    entityId: text().notNull(),
    text: text().notNull(),
    userId: text(),
    author: text(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('comments_entity_idx').on(t.accountId, t.entityType, t.entityId, t.createdAt)],
);
