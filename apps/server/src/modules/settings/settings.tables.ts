import { jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/** Product-wide settings a super admin manages (SPEC §3: a list of items keyed by key). */
export const systemSettings = pgTable('system_settings', {
  key: text().primaryKey(),
  value: jsonb().$type<unknown>().notNull(),
  updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
});
