// The pull of what a channel changed since its cursor (orders, returns): the connector's pages of what was updated
// since the cursor (less a little overlap: providers stamp whole seconds, and a duplicate changes nothing), each
// item taken in by the caller; the cursor moves to the newest updated-at seen only once the whole pull is done, so
// a failed pull is taken again from where the last good one ended. One row per channel in the caller's table.
import { eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import type { orderImportCursors } from '../orders/orders.tables.ts';
import type { returnImportCursors } from '../returns/returns.tables.ts';
import type { ChannelRow } from './channels.service.ts';

/** The tables that keep a pull's cursor: the same columns (channel, account, since, last run, last error). */
export type CursorTable = typeof orderImportCursors | typeof returnImportCursors;

/** A little overlap on each pull. */
const OVERLAP_MS = 2000;

/** The cursor's row: where the last completed pull left off (null before the first), and when it last ran. */
export async function readCursor(db: Db, table: CursorTable, channelId: string) {
  const [row] = await db
    .select({ since: table.since, lastRunAt: table.lastRunAt })
    .from(table as typeof orderImportCursors)
    .where(eq(table.channelId, channelId));
  return row ?? null;
}

/**
 * Pulls `list`'s pages from the cursor (the first time: from `firstSince`) and hands each item to `take`, then
 * calls `page` after each page. A failure is written on the cursor's row (which keeps its since) and thrown again.
 */
export async function pullSinceCursor<T extends { updatedAt: string }>(
  db: Db,
  table: CursorTable,
  row: Pick<ChannelRow, 'id' | 'accountId'>,
  pull: {
    firstSince: Date;
    list: (input: {
      cursor: string | null;
      since: string;
      initial: boolean;
    }) => Promise<{ items: T[]; nextCursor: string | null }>;
    /** `initial`: the channel's first pull (no cursor yet). */
    take: (item: T, at: { initial: boolean }) => Promise<void>;
    page?: () => Promise<void>;
  },
): Promise<{ initial: boolean }> {
  const cursor = await readCursor(db, table, row.id);
  const initial = !cursor?.since;
  const since = cursor?.since ? new Date(cursor.since.getTime() - OVERLAP_MS) : pull.firstSince;
  let newest = cursor?.since ?? null;
  let page: string | null = null;
  try {
    do {
      const result = await pull.list({ cursor: page, since: since.toISOString(), initial });
      for (const item of result.items) {
        const updated = new Date(item.updatedAt);
        if (!newest || updated > newest) newest = updated;
        await pull.take(item, { initial });
      }
      await pull.page?.();
      page = result.nextCursor;
    } while (page);
  } catch (err) {
    await saveCursor(db, table, row, null, err instanceof Error ? err.message.slice(0, 500) : 'import failed');
    throw err;
  }
  await saveCursor(db, table, row, newest ?? new Date(), null);
  return { initial };
}

/** Records a run: its error (or none), and, for a completed pull, the newest updated-at (never moved back). */
export async function saveCursor(
  db: Db,
  table: CursorTable,
  row: Pick<ChannelRow, 'id' | 'accountId'>,
  since: Date | null,
  error: string | null,
) {
  const now = new Date();
  const t = table as typeof orderImportCursors;
  await db
    .insert(t)
    .values({ channelId: row.id, accountId: row.accountId, since, lastRunAt: now, lastError: error })
    .onConflictDoUpdate({
      target: t.channelId,
      set: { lastRunAt: now, lastError: error, ...(since ? { since: sql`greatest(${t.since}, ${since})` } : {}) },
    });
}
