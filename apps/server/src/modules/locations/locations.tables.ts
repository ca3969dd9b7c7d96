import { sql } from 'drizzle-orm';
import {
  boolean,
  check,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { accounts } from '../accounts/accounts.tables.ts';

const at = () => timestamp({ withTimezone: true });

export interface LocationAddress {
  address1?: string | null;
  address2?: string | null;
  city?: string | null;
  province?: string | null;
  zip?: string | null;
  country?: string | null;
  phone?: string | null;
}

/**
 * The merchant's physical stores and warehouses. `store_id` is the POS store's id (a Square location id),
 * unique in the account: channels' locations map to ours through it (channel settings `locationMap`).
 */
export const locations = pgTable(
  'locations',
  {
    id: text().primaryKey(),
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    name: text().notNull(),
    storeId: text().notNull(),
    enabled: boolean().notNull().default(true),
    ships: boolean().notNull().default(true),
    pickup: boolean().notNull().default(false),
    /** Routing order: lower first. */
    priority: integer().notNull().default(0),
    address: jsonb().$type<LocationAddress>().notNull().default({}),
    /** Decimal degrees, for routing's distances (issue 14); null: not known (placed from the postal code when set). */
    latitude: doublePrecision(),
    longitude: doublePrecision(),
    createdAt: at().notNull().defaultNow(),
    updatedAt: at().notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('locations_account_store_key').on(t.accountId, t.storeId),
    index('locations_account_name_idx').on(t.accountId, t.name),
    check('locations_priority_check', sql`${t.priority} between 0 and 1000`),
    check('locations_latitude_check', sql`${t.latitude} between -90 and 90`),
    check('locations_longitude_check', sql`${t.longitude} between -180 and 180`),
  ],
);
