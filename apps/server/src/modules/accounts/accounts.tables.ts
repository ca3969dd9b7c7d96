import type { AccountStatus, UserSettings } from '@switchyard/contracts';
import { sql } from 'drizzle-orm';
import { check, index, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

const createdAt = () => timestamp({ withTimezone: true }).notNull().defaultNow();

/** The tenant: one merchant business. Every tenant-owned row elsewhere carries its id. */
export const accounts = pgTable(
  'accounts',
  {
    id: text().primaryKey(),
    business: text().notNull(),
    status: text().$type<AccountStatus>().notNull().default('created'),
    // Business details (settings → account).
    phone: text(),
    addressLine1: text(),
    city: text(),
    postcode: text(),
    /** ISO 3166-1 alpha-2. */
    country: text(),
    /** IANA time zone; reports and "today" are in it. */
    timezone: text().notNull().default('UTC'),
    /** ISO 4217: the currency money is shown in. */
    currency: text().notNull().default('USD'),
    confirmedAt: timestamp({ withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: createdAt(),
  },
  (t) => [
    check(
      'accounts_status_check',
      sql`${t.status} in ('created','requires_payment_method','awaiting_payment','active','past_due','canceled')`,
    ),
  ],
);

export const users = pgTable(
  'users',
  {
    id: text().primaryKey(),
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    /** Stored lower-cased; unique across the product, since an address signs in to one account. */
    email: text().notNull(),
    passwordHash: text().notNull(),
    firstname: text().notNull(),
    lastname: text().notNull(),
    phone: text().notNull(),
    authorizationLevel: text().$type<'user' | 'superuser'>().notNull().default('user'),
    superUserRole: text().$type<'admin'>(),
    settings: jsonb().$type<UserSettings>().notNull().default({ columnsFilter: [] }),
    emailConfirmedAt: timestamp({ withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: createdAt(),
  },
  (t) => [uniqueIndex('users_email_key').on(t.email), index('users_account_idx').on(t.accountId)],
);

/** One signed-in session per token: sign-out and a password change end them server-side. */
export const sessions = pgTable(
  'sessions',
  {
    id: text().primaryKey(),
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    userId: text()
      .notNull()
      .references(() => users.id),
    createdAt: createdAt(),
    expiresAt: timestamp({ withTimezone: true }).notNull(),
    revokedAt: timestamp({ withTimezone: true }),
    userAgent: text(),
    ip: text(),
  },
  (t) => [index('sessions_user_idx').on(t.accountId, t.userId)],
);

/** Confirmation, password-reset and e-mail-change codes: only a hash is stored, each used once. */
export const authCodes = pgTable(
  'auth_codes',
  {
    id: text().primaryKey(),
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    userId: text()
      .notNull()
      .references(() => users.id),
    purpose: text().$type<'confirm' | 'reset' | 'email_change'>().notNull(),
    codeHash: text().notNull(),
    newEmail: text(),
    expiresAt: timestamp({ withTimezone: true }).notNull(),
    usedAt: timestamp({ withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('auth_codes_hash_key').on(t.codeHash), index('auth_codes_user_idx').on(t.userId, t.purpose)],
);

/**
 * Attempts that throttles count: failed sign-ins, reset and resend requests. Kept in the database so
 * every process sees the same counts.
 */
export const authAttempts = pgTable(
  'auth_attempts',
  {
    id: text().primaryKey(),
    kind: text().$type<'sign_in_failure' | 'reset_request' | 'confirm_resend'>().notNull(),
    email: text().notNull(),
    ip: text().notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    index('auth_attempts_email_idx').on(t.kind, t.email, t.createdAt),
    index('auth_attempts_ip_idx').on(t.kind, t.ip, t.createdAt),
  ],
);

/** SPEC §3: account settings, a list of items keyed by key. */
export const accountSettings = pgTable(
  'account_settings',
  {
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    key: text().notNull(),
    value: jsonb().$type<unknown>().notNull(),
    updatedAt: createdAt(),
  },
  (t) => [uniqueIndex('account_settings_key').on(t.accountId, t.key)],
);
