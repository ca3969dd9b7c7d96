import { bigint, date, index, integer, jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { accounts } from '../accounts/accounts.tables.ts';

const count = () => integer().notNull().default(0);
const money = () => bigint({ mode: 'number' }).notNull().default(0);

/**
 * The dashboard's rollup (issue 17): per account, day (the account's time zone), channel and location ('' for
 * none), what that day sold and shipped and took back. Kept in the transaction of each order or return change
 * (metrics.record.ts applies the change's difference); metrics.rebuild.ts recomputes it from the orders.
 */
export const metricDaily = pgTable(
  'metric_daily',
  {
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    day: date().notNull(),
    channelId: text().notNull().default(''),
    locationId: text().notNull().default(''),
    orders: count(),
    units: count(),
    /** Minor units of the account's currency. */
    sales: money(),
    /** Orders first shipped or picked up this day, and the sum of their placed → shipped seconds. */
    fulfilled: count(),
    fulfilledSeconds: money(),
    returns: count(),
    returnUnits: count(),
    returnTotal: money(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.day, t.channelId, t.locationId] })],
);

/** Units and sales per SKU and day: the top SKUs of any window. */
export const metricSkuDaily = pgTable(
  'metric_sku_daily',
  {
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    day: date().notNull(),
    sku: text().notNull(),
    units: count(),
    sales: money(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.day, t.sku] })],
);

/**
 * The same per calendar month (its first day): the 6-month and 1-year windows start on a month's first day, so
 * their top SKUs read a dozen rows per SKU, not a year of days.
 */
export const metricSkuMonthly = pgTable(
  'metric_sku_monthly',
  {
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    month: date().notNull(),
    sku: text().notNull(),
    units: count(),
    sales: money(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.month, t.sku] })],
);

/**
 * The same per calendar year (its January 1st): a 1-year window is then read as a month or two and a year, each
 * part added or taken away (metrics.pieces.ts), not a dozen months.
 */
export const metricSkuYearly = pgTable(
  'metric_sku_yearly',
  {
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    year: date().notNull(),
    sku: text().notNull(),
    units: count(),
    sales: money(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.year, t.sku] })],
);

/** One SKU's part of an order: [sku, units, sales]. */
export type SkuPart = [string, number, number];

/**
 * What each order (or return) adds to the rollups now, so a change applies only its difference: the old
 * contribution is taken out and the new one put in. `source` is 'order' or 'return'.
 */
export const metricFacts = pgTable(
  'metric_facts',
  {
    sourceId: text().notNull(),
    source: text().$type<'order' | 'return'>().notNull(),
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    day: date().notNull(),
    channelId: text().notNull().default(''),
    locationId: text().notNull().default(''),
    orders: count(),
    units: count(),
    sales: money(),
    skus: jsonb().$type<SkuPart[]>().notNull().default([]),
    fulfilledDay: date(),
    fulfilledSeconds: bigint({ mode: 'number' }),
    returns: count(),
    returnUnits: count(),
    returnTotal: money(),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.source, t.sourceId] }), index('metric_facts_account_idx').on(t.accountId)],
);
