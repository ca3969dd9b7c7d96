import { index, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { accounts } from '../accounts/accounts.tables.ts';

const at = () => timestamp({ withTimezone: true });

/**
 * What a store has done with an allocation of an order (issue 15): units confirmed by a scan, and when the
 * order's parcel was packed. The allocation's own status (picked, fulfilled, rejected) is the orders module's;
 * this is the store's working state beside it. No foreign key to the allocation: a re-imported or re-routed
 * order may replace its allocations, and a stale row here is simply never read.
 */
export const fulfillmentSteps = pgTable(
  'fulfillment_steps',
  {
    allocationId: text().primaryKey(),
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    orderId: text().notNull(),
    scanned: integer().notNull().default(0),
    packedAt: at(),
    packedBy: text(),
    updatedAt: at().notNull().defaultNow(),
  },
  (t) => [index('fulfillment_steps_order_idx').on(t.accountId, t.orderId)],
);
