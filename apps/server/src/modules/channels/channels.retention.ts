// Housekeeping of the webhook store (the minute sweep). An event is kept while its provider may deliver it again
// (Shopify retries for 4 hours, BigCommerce for about 48, Square for a day), so that a redelivery stays a no-op, and
// for the channel page's count of the last day's errors. Processed and older than the retention, it goes: each
// order brings about four, with their payloads, and nothing reads them again. An event not yet processed stays
// however old it is: it is work waiting.
import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { rowsOf } from '../../db/rows.ts';
import { idsBefore } from '../../lib/ids.ts';
import { webhookEvents } from './channels.tables.ts';

export const WEBHOOK_EVENT_RETENTION_DAYS = 30;

/** Events deleted by one statement, and statements at most in one sweep (a backlog goes over a few minutes). */
const PRUNE_BATCH = 5_000;
const PRUNE_BATCHES = 40;

/**
 * Deletes processed events received more than WEBHOOK_EVENT_RETENTION_DAYS before `now`, oldest first, a batch a
 * statement; answers how many. They are found by their ids (`whe_` and the time they were stored), a range of the
 * primary key: no index on received_at is kept for this, which every acknowledgement would pay for.
 */
export async function pruneWebhookEvents(db: Db, now = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - WEBHOOK_EVENT_RETENTION_DAYS * 86_400_000);
  let deleted = 0;
  for (let i = 0; i < PRUNE_BATCHES; i++) {
    const [row] = rowsOf<{ n: number }>(
      await db.execute(sql`
        with gone as (
          delete from ${webhookEvents} where ${webhookEvents.id} in (
            select ${webhookEvents.id} from ${webhookEvents}
            where ${webhookEvents.id} >= 'whe_' and ${webhookEvents.id} < ${idsBefore('whe', cutoff)}
              and ${webhookEvents.processedAt} is not null and ${webhookEvents.receivedAt} < ${cutoff.toISOString()}
            order by ${webhookEvents.id}
            limit ${PRUNE_BATCH})
          returning 1)
        select count(*)::int as n from gone`),
    );
    const n = row?.n ?? 0;
    deleted += n;
    if (n < PRUNE_BATCH) break;
  }
  return deleted;
}
