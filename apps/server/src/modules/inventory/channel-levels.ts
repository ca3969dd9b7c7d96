// A channel's level rows (channel_stock), locked for a transaction that writes about them: a stock pass taking
// the channel's reports in (inbound.ts), a batch of orders claiming the channel's own movements (claims.ts).
import { type SQL, sql } from 'drizzle-orm';
import type { Tx } from '../../db/client.ts';
import { channelStock } from './inventory.tables.ts';
import { asJson } from './ledger.ts';

/** A level of a channel as a caller names it: made with these ids when missing. */
export interface ChannelLevelRef {
  variantId: string;
  externalLocationId: string;
  locationId: string;
  inventoryItemId: string;
}

const keyOf = (l: { variantId: string; externalLocationId: string }) => `${l.variantId}|${l.externalLocationId}`;
const byLevel = (a: ChannelLevelRef, b: ChannelLevelRef) =>
  a.variantId < b.variantId
    ? -1
    : a.variantId > b.variantId
      ? 1
      : a.externalLocationId < b.externalLocationId
        ? -1
        : a.externalLocationId > b.externalLocationId
          ? 1
          : 0;

/**
 * Locks the channel's rows of `levels` (unique) in (variant, location) order, the order every writer of several
 * levels takes them in, and makes the missing ones first. `read(named)` selects the caller's columns of the rows
 * whose (variant_id, external_location_id) pair `named` holds (an SQL condition on `channel_stock`), ordered by
 * variant and location, `for update`.
 *
 * A level is made once, when first met, and stays: nearly always every row exists, and this is one statement.
 * When some are missing, they are made (in the same order; a concurrent maker of the same row is waited for by
 * the insert) and read and locked after the others: two more.
 */
export async function lockLevelRows<T extends { variantId: string; externalLocationId: string }>(
  tx: Tx,
  accountId: string,
  channelId: string,
  levels: ChannelLevelRef[],
  read: (named: SQL) => Promise<T[]>,
): Promise<T[]> {
  if (levels.length === 0) return [];
  const named = (ls: ChannelLevelRef[]) =>
    sql`(${channelStock.variantId}, ${channelStock.externalLocationId}) in
      (select v ->> 0, v ->> 1 from jsonb_array_elements(${asJson(ls.map((l) => [l.variantId, l.externalLocationId]))}) as v)`;
  const rows = await read(named(levels));
  if (rows.length >= levels.length) return rows;
  const found = new Set(rows.map(keyOf));
  const missing = levels.filter((l) => !found.has(keyOf(l))).sort(byLevel);
  if (missing.length === 0) return rows;
  await tx.execute(sql`
    insert into ${channelStock} (account_id, channel_id, variant_id, external_location_id, location_id, inventory_item_id)
    select ${accountId}, ${channelId}, v ->> 0, v ->> 1, v ->> 2, v ->> 3
    from jsonb_array_elements(${asJson(missing.map((l) => [l.variantId, l.externalLocationId, l.locationId, l.inventoryItemId]))}) as v
    on conflict do nothing`);
  return [...rows, ...(await read(named(missing)))];
}
