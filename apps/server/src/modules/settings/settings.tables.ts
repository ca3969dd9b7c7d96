import { boolean, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/** Product-wide settings a super admin manages (SPEC §3: a list of items keyed by key). */
export const systemSettings = pgTable('system_settings', {
  key: text().primaryKey(),
  value: jsonb().$type<unknown>().notNull(),
  updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
});

/** SPEC §3: product modules a super admin switches on and off, keyed by dev_name. */
export const modules = pgTable('modules', {
  devName: text().primaryKey(),
  name: text().notNull(),
  enabled: boolean().notNull().default(false),
  updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
});
