// The channels module's reads for other modules: they call these rather than select from `channels` themselves.
// Every read is scoped to the account, and each takes the caller's transaction when it has one.
import { and, eq, inArray } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.ts';
import { channels } from './channels.tables.ts';

/** Which of these ids are channels of the account (whatever their status). */
export async function ownChannelIds(db: Db | Tx, accountId: string, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .select({ id: channels.id })
    .from(channels)
    .where(and(eq(channels.accountId, accountId), inArray(channels.id, [...new Set(ids)])));
  return new Set(rows.map((r) => r.id));
}
