import type { DecisionKind, DecisionTrace, RoutingRule } from '@switchyard/contracts';
import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { accounts } from '../accounts/accounts.tables.ts';
import { orders } from '../orders/orders.tables.ts';

const at = () => timestamp({ withTimezone: true });

/**
 * The merchant's routing rules (issue 14), one row per version: a change is a new version, with who made it and
 * when. The live set is the account's highest version; an account with none routes by the built-in default rule
 * (version 0). Rows are never updated.
 */
export const routingRuleSets = pgTable(
  'routing_rule_sets',
  {
    id: text().primaryKey(),
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    version: integer().notNull(),
    rules: jsonb().$type<RoutingRule[]>().notNull(),
    note: text(),
    createdByUserId: text(),
    createdBy: text(),
    createdAt: at().notNull().defaultNow(),
  },
  (t) => [uniqueIndex('routing_rule_sets_version_key').on(t.accountId, t.version)],
);

/**
 * Every routing decision with its trace: the rule set version it used, the allocations it wrote, and why (the
 * rule that matched and why the ones above did not, each candidate location with its available units, distance
 * and why it was or was not chosen). Written in the transaction that reserved.
 */
export const routingDecisions = pgTable(
  'routing_decisions',
  {
    id: text().primaryKey(),
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    orderId: text()
      .notNull()
      .references(() => orders.id, { onDelete: 'cascade' }),
    kind: text().$type<DecisionKind>().notNull(),
    ruleSetVersion: integer().notNull(),
    allocationIds: text().array().notNull().default(sql`'{}'::text[]`),
    actor: text(),
    userId: text(),
    trace: jsonb().$type<DecisionTrace>().notNull(),
    createdAt: at().notNull().defaultNow(),
  },
  (t) => [index('routing_decisions_order_idx').on(t.orderId, t.createdAt)],
);
