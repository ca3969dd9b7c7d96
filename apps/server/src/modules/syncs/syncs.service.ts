// Sync records, the reading side: the runs the sync jobs write (syncs.records.ts) listed, counted and
// opened for the /syncs/ screens and the frontend REST calls, a retry of a run's failed items, and the
// sync jobs that used up their retries (pg-boss dead-letter queues).
import {
  type ChannelType,
  type DeadLetter,
  type DeadLetterList,
  SYNC_MESSAGES,
  SYNC_TYPE_LABELS,
  SYNC_TYPES,
  type SyncDetail,
  type SyncGetInput,
  type SyncList,
  type SyncRun,
  type SyncsListInput,
  type SyncType,
  type SyncTypesOutput,
} from '@switchyard/contracts';
import { and, asc, count, desc, eq, inArray, or, type SQL, sql } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.ts';
import { DomainError } from '../../lib/errors.ts';
import type { Services } from '../../services.ts';
import type { Actor } from '../../trpc/context.ts';
import { channels } from '../channels/channels.tables.ts';
import { inventoryDirty } from '../inventory/inventory.tables.ts';
import { markDirty, rowsOf } from '../inventory/ledger.ts';
import { schedulePush } from '../inventory/schedule.ts';
import { queueOrderImport } from '../orders/orders.import.ts';
import { queueCatalogImport } from '../products/catalog-import.ts';
import { queueCatalogPublish } from '../products/catalog-publish.ts';
import { finishSync, recordSyncProgress, startSync } from './syncs.records.ts';
import { syncItems, syncs } from './syncs.tables.ts';

type Owner = Pick<Actor, 'accountId'>;
type ListFilters = Pick<SyncsListInput, 'type' | 'has_errors' | 'channel_id'>;

const runColumns = {
  row: syncs,
  channelId: channels.id,
  channelName: channels.name,
  channelType: channels.type,
};

type RunRow = {
  row: typeof syncs.$inferSelect;
  channelId: string | null;
  channelName: string | null;
  channelType: (typeof channels.$inferSelect)['type'] | null;
};

function toRun({ row, channelId, channelName, channelType }: RunRow, now = new Date()): SyncRun {
  const end = row.finishedAt ?? (row.status === 'running' ? now : null);
  return {
    id: row.id,
    type: row.type,
    typeLabel: SYNC_TYPE_LABELS[row.type] ?? row.type,
    channel: channelId && channelName && channelType ? { id: channelId, name: channelName, type: channelType } : null,
    status: row.status,
    trigger: row.trigger,
    total: row.total,
    processed: row.processed,
    succeeded: row.succeeded,
    failed: row.failed,
    message: row.message,
    retryOf: row.retryOf,
    createdAt: row.createdAt,
    startedAt: row.startedAt,
    finishedAt: row.finishedAt,
    durationMs: row.startedAt && end ? Math.max(0, end.getTime() - row.startedAt.getTime()) : null,
  };
}

function listWhere(owner: Owner, filters: ListFilters): SQL | undefined {
  const conditions: (SQL | undefined)[] = [eq(syncs.accountId, owner.accountId)];
  if (filters.type) conditions.push(eq(syncs.type, filters.type));
  if (filters.channel_id) conditions.push(eq(syncs.channelId, filters.channel_id));
  // "Has errors": some items failed, or the run failed as a whole.
  if (filters.has_errors) conditions.push(or(sql`${syncs.failed} > 0`, eq(syncs.status, 'failed')));
  return and(...conditions);
}

export async function listSyncs(db: Db, owner: Owner, input: SyncsListInput & { limit: number; offset: number }) {
  const where = listWhere(owner, input);
  const [rows, total] = await Promise.all([
    db
      .select(runColumns)
      .from(syncs)
      .leftJoin(channels, eq(channels.id, syncs.channelId))
      .where(where)
      .orderBy(input.sort === 'asc' ? asc(syncs.id) : desc(syncs.id))
      .limit(input.limit)
      .offset(input.offset),
    countSyncs(db, owner, input),
  ]);
  const now = new Date();
  return { results: rows.map((r) => toRun(r, now)), total: total.total } satisfies SyncList;
}

export async function countSyncs(db: Db, owner: Owner, filters: ListFilters): Promise<{ total: number }> {
  const [row] = await db.select({ n: count() }).from(syncs).where(listWhere(owner, filters));
  return { total: row?.n ?? 0 };
}

async function findRun(db: Db, owner: Owner, id: number): Promise<RunRow> {
  const [found] = await db
    .select(runColumns)
    .from(syncs)
    .leftJoin(channels, eq(channels.id, syncs.channelId))
    .where(and(eq(syncs.accountId, owner.accountId), eq(syncs.id, id)));
  if (!found) throw new DomainError('NOT_FOUND', SYNC_MESSAGES.notFound);
  return found;
}

export async function getSync(
  db: Db,
  owner: Owner,
  input: Pick<SyncGetInput, 'id'> & { items_limit: number; items_offset: number },
): Promise<SyncDetail> {
  const run = await findRun(db, owner, Number(input.id));
  const id = run.row.id;
  const [items, counts, retries] = await Promise.all([
    db
      .select()
      .from(syncItems)
      .where(eq(syncItems.syncId, id))
      .orderBy(asc(syncItems.id))
      .limit(input.items_limit)
      .offset(input.items_offset),
    db
      .select({
        total: count(),
        retryable: sql<number>`count(*) filter (where ${syncItems.status} = 'failed')`.mapWith(Number),
      })
      .from(syncItems)
      .where(eq(syncItems.syncId, id)),
    db
      .select({ id: syncs.id, status: syncs.status, createdAt: syncs.createdAt })
      .from(syncs)
      .where(and(eq(syncs.accountId, owner.accountId), eq(syncs.retryOf, id)))
      .orderBy(desc(syncs.id))
      .limit(20),
  ]);
  return {
    sync: toRun(run),
    items: {
      results: items.map((item) => ({
        id: item.id,
        label: item.label,
        variantId: item.variantId,
        status: item.status,
        error: item.error,
        createdAt: item.createdAt,
      })),
      total: counts[0]?.total ?? 0,
      limit: input.items_limit,
      offset: input.items_offset,
    },
    retryable: counts[0]?.retryable ?? 0,
    retries,
  };
}

export async function listSyncTypes(db: Db, owner: Owner): Promise<SyncTypesOutput> {
  const rows = await db
    .select({ type: syncs.type, n: count() })
    .from(syncs)
    .where(eq(syncs.accountId, owner.accountId))
    .groupBy(syncs.type);
  const counts = new Map(rows.map((r) => [r.type, r.n]));
  return {
    types: SYNC_TYPES.map((type) => ({ type, label: SYNC_TYPE_LABELS[type], count: counts.get(type) ?? 0 })),
    total: rows.reduce((sum, r) => sum + r.n, 0),
  };
}

/**
 * Retries the failed items of a finished run and answers the new run. Catalog runs: see retryCatalogRun.
 * Stock runs (push, reconcile): the
 * items' variants are marked dirty again on the run's channel and a push is queued; the new run records
 * what was queued again (and what could not be: a variant no longer listed there, a channel no longer
 * connected) and the push's own run shows what the channel answered. The old items become 'retried'.
 */
export async function retrySync(services: Services, owner: Owner, rawId: number): Promise<{ id: number }> {
  const { db } = services;
  const { row } = await findRun(db, owner, Number(rawId));
  if (row.status === 'running' || row.status === 'queued') {
    throw new DomainError('INVALID_STATE', SYNC_MESSAGES.stillRunning);
  }
  if (!row.channelId) throw new DomainError('INVALID_STATE', SYNC_MESSAGES.noChannel);
  const channelId = row.channelId;
  if (row.type === 'catalog_import' || row.type === 'catalog_publish') {
    return retryCatalogRun(services, owner, { ...row, channelId });
  }
  if (row.type === 'order_import') {
    // A pull runs whole again from the channel's cursor (a failed one left it where it was).
    if (row.status !== 'failed') throw new DomainError('INVALID_STATE', SYNC_MESSAGES.nothingToRetry);
    const id = await queueOrderImport(services, channelId, {
      accountId: owner.accountId,
      trigger: 'retry',
      retryOf: row.id,
    });
    return { id: id as number };
  }

  const { id, queued } = await db.transaction(async (tx) => {
    // Claiming the items first makes a second retry of the same run (a double click) find none.
    const items = await claimFailedItems(tx, row.id);
    if (items.length === 0) throw new DomainError('INVALID_STATE', SYNC_MESSAGES.nothingToRetry);
    const id = await startSync(tx, {
      accountId: owner.accountId,
      channelId,
      type: row.type,
      trigger: 'retry',
      total: items.length,
      retryOf: row.id,
    });
    const variantIds = [...new Set(items.flatMap((f) => (f.variantId ? [f.variantId] : [])))];
    // markDirty answers the channels it marked; which of the variants are now dirty there we read back.
    const marked = (await markDirty(tx, owner.accountId, variantIds, { channelIds: [channelId] })).length > 0;
    const dirty = new Set(
      marked
        ? (
            await tx
              .select({ variantId: inventoryDirty.variantId })
              .from(inventoryDirty)
              .where(and(eq(inventoryDirty.channelId, channelId), inArray(inventoryDirty.variantId, variantIds)))
          ).map((r) => r.variantId)
        : [],
    );
    const queued = items.filter((f) => f.variantId && dirty.has(f.variantId));
    const refused = items.filter((f) => !f.variantId || !dirty.has(f.variantId));
    await recordSyncProgress(tx, id, owner.accountId, {
      succeeded: queued.length,
      failures: refused.map((f) => ({
        label: f.label,
        variantId: f.variantId,
        error: f.variantId
          ? 'Not queued again: the variant is no longer listed on this channel, or the channel is not connected with stock sync on.'
          : 'Not queued again: the item names no variant.',
      })),
    });
    await finishSync(tx, id, {
      message:
        queued.length > 0
          ? `${queued.length} of ${items.length} item${items.length === 1 ? '' : 's'} queued again for the next stock push.`
          : 'Nothing could be queued again.',
    });
    return { id, queued: queued.length };
  });
  if (queued > 0) await schedulePush(services, [channelId]);
  return { id };
}

/** Marks a run's failed items retried and answers them (none when another retry took them first). */
async function claimFailedItems(db: Db | Tx, syncId: number) {
  return db
    .update(syncItems)
    .set({ status: 'retried' })
    .where(and(eq(syncItems.syncId, syncId), eq(syncItems.status, 'failed')))
    .returning({ id: syncItems.id, label: syncItems.label, variantId: syncItems.variantId });
}

/**
 * Catalog runs are retried by their own jobs (modules/products): an import runs whole again (also after it
 * failed as a whole, with no items); a publish publishes the products of the failed items again. Both
 * answer the new, queued run. The items are given back when the job cannot be queued.
 */
async function retryCatalogRun(
  services: Services,
  owner: Owner,
  row: { id: number; type: SyncType; status: string; channelId: string },
): Promise<{ id: number }> {
  const { db } = services;
  const items = await claimFailedItems(db, row.id);
  const wholeRun = row.type === 'catalog_import' && row.status === 'failed';
  if (items.length === 0 && !wholeRun) throw new DomainError('INVALID_STATE', SYNC_MESSAGES.nothingToRetry);
  const input = { accountId: owner.accountId, channelId: row.channelId, trigger: 'retry' as const, retryOf: row.id };
  try {
    const id =
      row.type === 'catalog_import'
        ? await queueCatalogImport(services, input)
        : await queueCatalogPublish(services, input);
    return { id };
  } catch (err) {
    if (items.length > 0) {
      await db
        .update(syncItems)
        .set({ status: 'failed' })
        .where(
          inArray(
            syncItems.id,
            items.map((i) => i.id),
          ),
        );
    }
    throw err;
  }
}

/** A queue's dead letters are the queue `<name>.dead` (jobs/queue.ts). */
const DEAD_LETTER_SUFFIX = '.dead';

/**
 * The account's jobs in the dead-letter queues (`<queue>.dead`, jobs/queue.ts): a job that failed every
 * retry lands there with its data and last error. Answers none before the queue's tables exist.
 */
export async function listDeadLetters(
  db: Db,
  owner: Owner,
  page: { limit: number; offset: number },
): Promise<DeadLetterList> {
  const [exists] = rowsOf<{ ok: boolean }>(await db.execute(sql`select to_regclass('pgboss.queue') is not null as ok`));
  if (!exists?.ok) return { results: [], total: 0 };
  // The job table is partitioned by queue name: naming the dead-letter queues reads only their partitions.
  const queues = rowsOf<{ name: string }>(
    await db.execute(sql`select name from pgboss.queue where name like ${`%${DEAD_LETTER_SUFFIX}`}`),
  ).map((q) => q.name);
  if (queues.length === 0) return { results: [], total: 0 };
  const where = sql`
    j.name in (${sql.join(
      queues.map((q) => sql`${q}`),
      sql`, `,
    )})
    and (c.account_id = ${owner.accountId} or (c.id is null and j.data ->> 'accountId' = ${owner.accountId}))`;
  const from = sql`pgboss.job j left join ${channels} c on c.id = j.data ->> 'channelId'`;
  const [rows, totals] = await Promise.all([
    db.execute(sql`
      select j.id::text as id, j.name, j.data, j.output, j.created_on,
             c.id as channel_id, c.name as channel_name, c.type as channel_type
      from ${from} where ${where}
      order by j.created_on desc, j.id desc
      limit ${page.limit} offset ${page.offset}`),
    db.execute(sql`select count(*)::int as n from ${from} where ${where}`),
  ]);
  type Raw = {
    id: string;
    name: string;
    data: unknown;
    output: unknown;
    created_on: Date | string;
    channel_id: string | null;
    channel_name: string | null;
    channel_type: ChannelType | null;
  };
  const results = rowsOf<Raw>(rows).map(
    (r): DeadLetter => ({
      id: r.id,
      queue: r.name.slice(0, -DEAD_LETTER_SUFFIX.length),
      channel:
        r.channel_id && r.channel_name && r.channel_type
          ? { id: r.channel_id, name: r.channel_name, type: r.channel_type }
          : null,
      error: errorOf(r.output),
      data: plainData(r.data),
      createdAt: new Date(r.created_on),
    }),
  );
  return { results, total: rowsOf<{ n: number }>(totals)[0]?.n ?? 0 };
}

/** pg-boss keeps a failed job's error as its output ({ message, stack } for an Error): the message only. */
function errorOf(output: unknown): string | null {
  if (output === null || output === undefined) return null;
  if (typeof output === 'string') return output.slice(0, 1000);
  if (typeof output === 'object') {
    const message = (output as { message?: unknown }).message;
    if (typeof message === 'string') return message.slice(0, 1000);
    const value = (output as { value?: unknown }).value;
    if (typeof value === 'string') return value.slice(0, 1000);
  }
  return null;
}

/** A job's data as shown to the merchant: its flat, plain fields only. */
function plainData(data: unknown): Record<string, unknown> {
  if (!data || typeof data !== 'object') return {};
  return Object.fromEntries(
    Object.entries(data as Record<string, unknown>).filter(
      ([, v]) => v === null || ['string', 'number', 'boolean'].includes(typeof v),
    ),
  );
}
