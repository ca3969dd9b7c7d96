// Sync records (DESIGN §3): every run of a sync job writes one row, with live progress and per-item
// failures, so the merchant can see what happened and retry what failed (/syncs/, /syncs/{id}).
import type { SyncStatus, SyncTrigger, SyncType } from '@switchyard/contracts';
import { and, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.ts';
import { rowsOf } from '../../db/rows.ts';
import { channels } from '../channels/channels.tables.ts';
import { notifySyncOutcome } from '../notifications/notifications.producers.ts';
import { syncItems, syncs } from './syncs.tables.ts';

export interface NewSync {
  accountId: string;
  channelId: string | null;
  type: SyncType;
  trigger: SyncTrigger;
  total?: number;
  /** Items of `total` already done when the run opens (counted handled and succeeded). */
  succeeded?: number;
  options?: Record<string, unknown>;
  retryOf?: number | null;
}

/** A queued or running run older than this is taken for dead (its process went away): a new one may start. */
const RUN_ALIVE_MS = 6 * 60 * 60 * 1000;

/** A queued or running run of `type` on the channel, if one is alive. */
export async function runningSync(
  db: Db,
  accountId: string,
  channelId: string,
  type: SyncType,
): Promise<number | null> {
  const [row] = await db
    .select({ id: syncs.id })
    .from(syncs)
    .where(
      and(
        eq(syncs.accountId, accountId),
        eq(syncs.channelId, channelId),
        eq(syncs.type, type),
        inArray(syncs.status, ['queued', 'running']),
        isNull(syncs.finishedAt),
        sql`${syncs.createdAt} > ${new Date(Date.now() - RUN_ALIVE_MS).toISOString()}::timestamptz`,
      ),
    )
    .orderBy(syncs.id)
    .limit(1);
  return row?.id ?? null;
}

/** Opens a run in `running` (or `queued` with `status: 'queued'`, for a job that starts it later). */
export async function startSync(db: Db | Tx, input: NewSync & { status?: 'queued' | 'running' }): Promise<number> {
  const now = new Date();
  const queued = input.status === 'queued';
  const [row] = await db
    .insert(syncs)
    .values({
      accountId: input.accountId,
      channelId: input.channelId,
      type: input.type,
      trigger: input.trigger,
      status: queued ? 'queued' : 'running',
      total: input.total ?? 0,
      processed: input.succeeded ?? 0,
      succeeded: input.succeeded ?? 0,
      options: input.options ?? {},
      retryOf: input.retryOf ?? null,
      startedAt: queued ? null : now,
      updatedAt: now,
    })
    .returning({ id: syncs.id });
  return (row as { id: number }).id;
}

/**
 * A run over before anyone could watch it (an uneventful stock push: one round, every item done): written once,
 * succeeded and finished, with its counts and message, and the channel's last sync time set in the same statement.
 * Answers its id. A run with failed items, or one long enough to show progress, opens with startSync instead.
 */
export async function recordFinishedSync(
  db: Db | Tx,
  input: NewSync & { startedAt: Date; message: string | null; channelSynced?: string },
): Promise<number> {
  const now = new Date().toISOString();
  const started = input.startedAt.toISOString();
  const total = input.total ?? 0;
  const succeeded = input.succeeded ?? 0;
  const [row] = rowsOf<{ id: number }>(
    await db.execute(sql`
      with run as (
        insert into ${syncs} (account_id, channel_id, type, trigger, status, total, processed, succeeded, options,
          retry_of, message, created_at, started_at, finished_at, updated_at)
        values (${input.accountId}, ${input.channelId}, ${input.type}, ${input.trigger}, 'succeeded', ${total},
          ${succeeded}, ${succeeded}, ${JSON.stringify(input.options ?? {})}::jsonb, ${input.retryOf ?? null},
          ${input.message}, ${started}::timestamptz, ${started}::timestamptz, ${now}::timestamptz, ${now}::timestamptz)
        returning id
      )${
        input.channelSynced
          ? sql`, touched as (
        update ${channels} set last_sync_at = ${now}::timestamptz where ${channels.id} = ${input.channelSynced})`
          : sql``
      }
      select id from run`),
  );
  return (row as { id: number }).id;
}

/**
 * A queued run's job starts (or a failed attempt of it starts over): `running`, counts and failed items
 * cleared, so an attempt that repeats the whole run counts each item once.
 */
export async function restartSync(db: Db | Tx, id: number): Promise<void> {
  const now = new Date();
  await db.delete(syncItems).where(eq(syncItems.syncId, id));
  await db
    .update(syncs)
    .set({
      status: 'running',
      total: 0,
      processed: 0,
      succeeded: 0,
      failed: 0,
      message: null,
      startedAt: sql`coalesce(${syncs.startedAt}, ${now.toISOString()}::timestamptz)`,
      updatedAt: now,
    })
    .where(and(eq(syncs.id, id), sql`${syncs.finishedAt} is null`));
}

/** Sets the number of items once known; `succeeded` of them, done already, are counted in the same statement. */
export async function setSyncTotal(db: Db | Tx, id: number, total: number, succeeded = 0): Promise<void> {
  await db
    .update(syncs)
    .set({
      total,
      ...(succeeded > 0
        ? { processed: sql`${syncs.processed} + ${succeeded}`, succeeded: sql`${syncs.succeeded} + ${succeeded}` }
        : {}),
      updatedAt: new Date(),
    })
    .where(eq(syncs.id, id));
}

export interface SyncItemFailure {
  label: string;
  variantId?: string | null;
  error: string;
  payload?: Record<string, unknown>;
}

/** Adds handled items to the counts (live progress) and records the failures among them. */
export async function recordSyncProgress(
  db: Db | Tx,
  id: number,
  accountId: string,
  progress: { succeeded: number; failures?: SyncItemFailure[] },
): Promise<void> {
  const failures = progress.failures ?? [];
  const handled = progress.succeeded + failures.length;
  if (handled > 0) {
    await db
      .update(syncs)
      .set({
        processed: sql`${syncs.processed} + ${handled}`,
        succeeded: sql`${syncs.succeeded} + ${progress.succeeded}`,
        failed: sql`${syncs.failed} + ${failures.length}`,
        updatedAt: new Date(),
      })
      .where(eq(syncs.id, id));
  }
  for (let i = 0; i < failures.length; i += 500) {
    await db.insert(syncItems).values(
      failures.slice(i, i + 500).map((f) => ({
        syncId: id,
        accountId,
        label: f.label.slice(0, 300),
        variantId: f.variantId ?? null,
        error: f.error.slice(0, 1000),
        payload: f.payload ?? {},
      })),
    );
  }
}

/**
 * Closes a run: failed when `error` is given (the run as a whole failed), partial when some items
 * failed, else succeeded.
 */
export async function finishSync(
  db: Db | Tx,
  id: number,
  outcome: {
    error?: string | null;
    message?: string | null;
    /** The channel's last sync time set to now in the same statement (a push, an import). */
    channelSynced?: string;
  } = {},
): Promise<void> {
  const now = new Date();
  const message = outcome.error ?? outcome.message ?? null;
  // Partial or succeeded by the failures counted on the row, in the same statement that closes it.
  const status = outcome.error ? sql`'failed'` : sql`case when ${syncs.failed} > 0 then 'partial' else 'succeeded' end`;
  const [closed] = rowsOf<{
    account_id: string;
    channel_id: string | null;
    type: SyncType;
    failed: number;
    status: SyncStatus;
  }>(
    await db.execute(sql`
      with closed as (
        update ${syncs} set status = ${status}, message = ${message}, finished_at = ${now.toISOString()}::timestamptz,
          updated_at = ${now.toISOString()}::timestamptz
        where ${syncs.id} = ${id} and ${syncs.finishedAt} is null
        returning account_id, channel_id, type, failed, status
      )${
        outcome.channelSynced
          ? sql`, touched as (
        update ${channels} set last_sync_at = ${now.toISOString()}::timestamptz where ${channels.id} = ${outcome.channelSynced})`
          : sql``
      }
      select * from closed`),
  ).map((r) => ({
    accountId: r.account_id,
    channelId: r.channel_id,
    type: r.type,
    failed: r.failed,
    status: r.status,
  }));
  // Only the call that closed the run tells the merchant about a failure.
  if (!closed || closed.status === 'succeeded') return;
  const [channel] = closed.channelId
    ? await db.select({ name: channels.name }).from(channels).where(eq(channels.id, closed.channelId))
    : [];
  await notifySyncOutcome(db, { id, ...closed, channelName: channel?.name ?? null, message });
}
