// The order's timeline and its derived fields (flagged), written in the transaction of what they record.
import type { TimelineKind } from '@switchyard/contracts';
import { and, eq, sql } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.ts';
import { insertRows } from '../../db/insert-rows.ts';
import { inList } from '../../db/rows.ts';
import { newId } from '../../lib/ids.ts';
import { channels } from '../channels/channels.tables.ts';
import { notifyOrderFlagged } from '../notifications/notifications.producers.ts';
import { listings } from '../products/products.tables.ts';
import { orderAllocations, orderEvents, orders } from './orders.tables.ts';

export interface TimelineInput {
  kind: TimelineKind;
  message: string;
  actor?: string | null;
  userId?: string | null;
  fromStatus?: number | null;
  toStatus?: number | null;
  outcome?: 'ok' | 'failed' | 'pending' | null;
  /** A write-back's key: a second entry with it updates the first (its outcome). */
  key?: string | null;
}

export async function writeTimeline(tx: Tx | Db, accountId: string, orderId: string, entries: TimelineInput[]) {
  await writeTimelines(tx, accountId, [{ orderId, entries }]);
}

/** The entries of several orders in one statement (a batch of imports). */
export async function writeTimelines(
  tx: Tx | Db,
  accountId: string,
  batches: { orderId: string; entries: TimelineInput[] }[],
) {
  const rows = batches.flatMap(({ orderId, entries }) =>
    entries.map((e) => ({
      accountId,
      orderId,
      kind: e.kind,
      message: e.message,
      actor: e.actor ?? null,
      userId: e.userId ?? null,
      fromStatus: e.fromStatus ?? null,
      toStatus: e.toStatus ?? null,
      outcome: e.outcome ?? null,
      key: e.key ?? null,
    })),
  );
  // Entries written together share their time (the transaction's): their ids, in the order made, keep the order
  // they happened in (two ids of one millisecond are in random order, so the ids are sorted first).
  const ids = rows.map(() => newId('oev')).sort();
  // In statements of up to 1,000 rows.
  await insertRows(
    tx,
    orderEvents,
    rows.map((row, i) => ({ id: ids[i] as string, ...row })),
  );
}

/** A write-back's entry: made pending when queued, its outcome set when the job ends. */
export async function recordWriteBack(
  db: Tx | Db,
  accountId: string,
  orderId: string,
  key: string,
  message: string,
  outcome: 'ok' | 'failed' | 'pending',
) {
  await db
    .insert(orderEvents)
    .values({ id: newId('oev'), accountId, orderId, kind: 'write_back', message, actor: 'Switchyard', outcome, key })
    .onConflictDoUpdate({
      target: [orderEvents.accountId, orderEvents.key],
      set: { message, outcome, createdAt: sql`now()` },
    });
}

/**
 * flagged = an allocation at 0, 4 or 5 (an unknown SKU's line is at 0). Cancelled orders are never flagged. One
 * order, or several in one statement.
 */
export async function recomputeFlags(tx: Tx, orderIds: string | string[]) {
  const ids = [...new Set(Array.isArray(orderIds) ? orderIds : [orderIds])].sort();
  if (ids.length === 0) return;
  const flagged = sql`${orders.status} <> 7 and exists (select 1 from ${orderAllocations} a where a.order_id = ${orders.id} and a.status in (0, 4, 5))`;
  const changed = await tx
    .update(orders)
    .set({ flagged })
    .where(and(inList(orders.id, ids), sql`${orders.flagged} is distinct from (${flagged})`))
    .returning({ id: orders.id, accountId: orders.accountId, number: orders.number, flagged: orders.flagged });
  // On the transition only: an order that stays flagged says nothing again.
  for (const order of changed.sort((a, b) => (a.id < b.id ? -1 : 1)))
    if (order.flagged) await notifyOrderFlagged(tx, order);
}

/** The live channels with inventory sync that list any of these variants: what a stock change must push. */
export async function affectedChannels(db: Db | Tx, accountId: string, variantIds: string[]): Promise<string[]> {
  if (variantIds.length === 0) return [];
  const rows = await db
    .selectDistinct({ id: listings.channelId })
    .from(listings)
    .innerJoin(channels, eq(channels.id, listings.channelId))
    .where(
      and(
        eq(listings.accountId, accountId),
        inList(listings.variantId, variantIds),
        sql`${channels.status} in ('connected', 'error') and (${channels.features} ->> 'inventory')::boolean`,
      ),
    );
  return rows.map((r) => r.id);
}
