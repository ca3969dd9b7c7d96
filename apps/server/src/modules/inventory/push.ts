// The per-channel push (DESIGN §4): take the channel's dirty variants marked up to now, compute what it
// should sell at each mapped location, send only what differs from what it holds (compare-and-set where
// the provider has it), and record the run. Marks made while a push runs survive for the next one. Starting and
// running pushes (the job, one per channel at a time, full pushes, leftovers) is push.run.ts.
import type { SyncTrigger } from '@switchyard/contracts';
import { eq, sql } from 'drizzle-orm';
import type { InventorySet, InventorySetResult } from '../../connectors/types.ts';
import { newId } from '../../lib/ids.ts';
import type { Services } from '../../services.ts';
import { type ChannelRow, connectorFor, providerFailure } from '../channels/channels.service.ts';
import { channels } from '../channels/channels.tables.ts';
import { notifyStockChanges } from '../notifications/notifications.producers.ts';
import {
  finishSync,
  type NewSync,
  recordFinishedSync,
  recordSyncProgress,
  type SyncItemFailure,
  setSyncTotal,
  startSync,
} from '../syncs/syncs.records.ts';
import { type AvailableRow, loadAvailable } from './available.ts';
import { believedQty } from './inbound.ts';
import { inventoryDirty } from './inventory.tables.ts';
import { rowsOf } from './ledger.ts';
import { clearPending, keySends, markPending, recordApplied, recordFailed, takeInMismatches } from './push.records.ts';
import { replayLostSends, sendOptions, sendsInDoubt } from './push.replay.ts';

/** Variants read and diffed per round: bounds memory on a full push of a large catalog. */
const ROUND = 2000;
/**
 * Provider calls one push keeps on the wire at once. The connector's rate limiter still paces them (Shopify's
 * cost bucket, BigCommerce's window quota, Square's learned rate): this only keeps the next call from waiting
 * for the previous answer, and our database work for the next round from waiting for either.
 */
export const PUSH_IN_FLIGHT = 4;
/**
 * Answers (in levels) left unrecorded while the next round is read: the database does one thing at a time,
 * and reading and sending first gets the channel its stock sooner. Past this the answers are recorded first.
 */
const MAX_UNRECORDED = 12_000;

export interface PushOutcome {
  syncId: number;
  /** Levels sent and acknowledged. */
  sent: number;
  /** Levels the channel already held right. */
  unchanged: number;
  failed: number;
  /** Compare-and-set mismatches: taken in as channel changes, pushed again by the next run. */
  mismatched: number;
  /** Provider requests made through setInventory (one per batch; a batch a provider refused in part counts once). */
  calls: number;
}

/** A push failed as a whole (provider down after the connector's retries): the job is retried. */
export class PushFailed extends Error {}

/** A channel a push can send to: connected (or in error, still authorised) with credentials. */
export const isLive = (row: ChannelRow) => ['connected', 'error'].includes(row.status) && !!row.credentials;

interface Change {
  row: AvailableRow;
  set: InventorySet;
  /** The idempotency key of the request it goes in (a provider with `idempotentInventory`). */
  key?: string;
}

/**
 * Pushes one channel's dirty set. Answers null when there was nothing to do (no dirty marks, channel not
 * connected or inventory off). Throws PushFailed when some levels could not be sent, after recording the
 * run, so the queue retries what stays dirty.
 *
 * A pipeline: round n+1 is read, diffed and marked pending while round n's batches are on the wire; the
 * changes go out in the provider's largest batches (compare-and-set rows and the others apart, so a
 * Shopify batch is one call), up to PUSH_IN_FLIGHT at once, and answers are recorded as they come in (all
 * those that came in while the last write ran, in one write). What the channel acknowledged is recorded
 * only after it answered; a level that failed stays dirty (and pending, when the answer is unknown) for
 * the next run.
 */
export async function pushChannel(
  services: Services,
  channelId: string,
  trigger: SyncTrigger = 'change',
  /** Variants per round (default 2,000): smaller in tests, to push many rounds through a small catalog. */
  options: { roundVariants?: number } = {},
): Promise<PushOutcome | null> {
  const [channel] = await services.db.select().from(channels).where(eq(channels.id, channelId));
  if (!channel || !isLive(channel) || !channel.features?.inventory) return null;
  // Sends whose answers were lost go again first, with their keys: the channel answers what it did with them, so
  // nothing it reports meanwhile is read against a belief that does not know (push.replay.ts).
  await replayLostSends(services, channel).catch((err: unknown) => {
    throw new PushFailed(err instanceof Error ? err.message : 'Sends of unknown outcome could not be replayed');
  });
  // The marks up to now, in one statement with the time they are read at. A mark's time is read as text: exact to
  // the microsecond, so the run clears only the marks it read.
  const dirty = rowsOf<{ variant_id: string | null; marked_at: string | null }>(
    await services.db.execute(sql`
      with n as (select clock_timestamp() as now)
      select d.variant_id, d.marked_at::text as marked_at
      from n join ${inventoryDirty} d on d.channel_id = ${channelId} and d.marked_at <= n.now`),
  ).map((r) => ({ variantId: r.variant_id as string, markedAt: r.marked_at as string }));
  if (dirty.length === 0) return null;

  const run = new PushRun(services, {
    accountId: channel.accountId,
    channelId,
    type: 'inventory_push',
    trigger,
    options: { variants: dirty.length },
  });
  const outcome: PushOutcome = { syncId: 0, sent: 0, unchanged: 0, failed: 0, mismatched: 0, calls: 0 };
  const keepDirty = new Set<string>();
  /** Marked pending and never sent (the push stopped first): their pending marks are withdrawn. */
  const unsent: Change[] = [];
  const inFlight = new Set<Promise<void>>();
  /** The round being read ahead; awaited before the run ends so its pending marks are accounted for. */
  let next: Promise<{ rows: number; unchanged: number; changes: Change[] }> | null = null;
  /** Resolves once every answer in so far is recorded. */
  let recorded = async () => {};
  let fatal: string | null = null;
  try {
    const connector = connectorFor(services, channel);
    const compareAndSet = channel.type === 'shopify' && channel.settings.advanced?.compareAndSet !== false;
    const batchSize = Math.max(1, connector.maxInventoryBatch);

    const rounds: string[][] = [];
    const variantIds = dirty.map((d) => d.variantId);
    const size = Math.max(1, options.roundVariants ?? ROUND);
    for (let i = 0; i < variantIds.length; i += size) rounds.push(variantIds.slice(i, i + size));

    /** Reads and diffs a round, and marks what will be sent pending (before any of it can be sent). */
    const prepare = async (variantIds: string[]) => {
      const rows = await loadAvailable(services.db, channel.accountId, {
        variantIds,
        channelIds: [channelId],
        pushableOnly: true,
        channels: [channel],
      });
      const changes: Change[] = [];
      let unchanged = 0;
      for (const row of rows) {
        const believed = believedQty(row);
        if (believed === row.available && row.pendingQty === null) {
          unchanged += 1;
          continue;
        }
        changes.push({
          row,
          set: {
            inventoryItemId: row.inventoryItemId,
            locationExternalId: row.externalLocationId,
            quantity: row.available,
            compareQuantity: compareAndSet && believed !== null ? believed : null,
          },
        });
      }
      // A push of one round sends its changes in the batches below (compare-and-set ones apart, batchSize each):
      // each batch's key is marked with its rows. Batches made across rounds are keyed as they go (keySends).
      if (connector.idempotentInventory && rounds.length === 1) {
        const base = newId('snd');
        const seen = [0, 0];
        for (const change of changes) {
          const g = change.set.compareQuantity != null ? 0 : 1;
          change.key = `${base}.${g}.${Math.floor((seen[g] as number) / batchSize)}`;
          seen[g] = (seen[g] as number) + 1;
          keySizes.set(change.key, (keySizes.get(change.key) ?? 0) + 1);
        }
      }
      await markPending(services, channel, changes);
      return { rows: rows.length, unchanged, changes };
    };
    /** Rows per key marked by prepare: a batch is sent under a key only when it is exactly that key's rows. */
    const keySizes = new Map<string, number>();

    // Answers waiting to be recorded. One writer records whatever has come in meanwhile in one go, so the
    // database work per answer shrinks when answers come faster than it can record them one by one.
    const answered: { batch: Change[]; result: InventorySetResult }[] = [];
    let recording: Promise<void> | null = null;
    const record = () => {
      recording ??= (async () => {
        try {
          while (answered.length > 0) {
            // The round being read ahead goes first (its levels stay pending meanwhile), up to a bound.
            while (next && answered.reduce((n, a) => n + a.batch.length, 0) < MAX_UNRECORDED) {
              const reading = next;
              await reading.catch(() => undefined);
              if (next === reading) break; // no round after it (yet): record now
            }
            const group = answered.splice(0, answered.length);
            const batch = group.flatMap((g) => g.batch);
            const result = {
              applied: group.flatMap((g) => g.result.applied),
              failed: group.flatMap((g) => g.result.failed),
            };
            try {
              await acknowledge(services, channel, connector, run, batch, result, outcome, keepDirty);
            } catch (err) {
              for (const { row } of batch) keepDirty.add(row.variantId);
              if (!fatal) fatal = err instanceof Error ? err.message : 'The push failed';
            }
          }
        } finally {
          recording = null;
        }
      })();
    };
    recorded = async () => {
      while (recording) await recording;
    };

    /** One provider call; its answer goes to the writer. Never rejects: a failure stops the push through `fatal`. */
    const send = async (batch: Change[]) => {
      let result: InventorySetResult;
      try {
        outcome.calls += 1;
        const key = batch[0]?.key;
        result = await connector.setInventory(
          batch.map(({ set }) => set),
          sendOptions(key),
        );
      } catch (err) {
        // The answer is unknown: the levels stay dirty and pending (the next run sends them again).
        for (const { row } of batch) keepDirty.add(row.variantId);
        if (!fatal)
          fatal = (await providerFailure(services, channel, err).catch(() => null))?.message ?? 'The push failed';
        return;
      }
      answered.push({ batch, result });
      record();
    };
    const start = async (batch: Change[]) => {
      while (inFlight.size >= PUSH_IN_FLIGHT) await Promise.race(inFlight);
      if (fatal) {
        unsent.push(...batch);
        return;
      }
      if (connector.idempotentInventory) {
        const key = batch[0]?.key;
        if (!key || keySizes.get(key) !== batch.length || batch.some((c) => c.key !== key)) {
          const fresh = newId('snd');
          await keySends(services, channel, fresh, batch);
          for (const change of batch) change.key = fresh;
        }
      }
      const task = send(batch).finally(() => inFlight.delete(task));
      inFlight.add(task);
    };

    // Changes waiting for a full batch, compare-and-set ones apart from the others.
    const waiting: Change[][] = [[], []];
    next = rounds.length ? prepare(rounds[0] as string[]) : null;
    for (let r = 0; next; r++) {
      const round = await next;
      next = null;
      // The next round is read while this one's batches are sent.
      next = !fatal && r + 1 < rounds.length ? prepare(rounds[r + 1] as string[]) : null;
      next?.catch(() => undefined);
      await run.round(r, round.rows, round.unchanged);
      outcome.unchanged += round.unchanged;
      for (const change of round.changes) {
        const group = waiting[change.set.compareQuantity != null ? 0 : 1] as Change[];
        group.push(change);
        if (group.length >= batchSize) await start(group.splice(0, group.length));
      }
      if (!next) for (const group of waiting) if (group.length > 0) await start(group.splice(0, group.length));
      if (fatal) break;
    }
    for (const group of waiting) unsent.push(...group.splice(0, group.length));
  } catch (err) {
    if (!fatal) fatal = err instanceof Error ? err.message : 'The push failed';
  } finally {
    const ahead = await next?.catch(() => null);
    next = null;
    if (ahead) unsent.push(...ahead.changes);
    await Promise.all(inFlight);
    await recorded();
    for (const { row } of unsent) keepDirty.add(row.variantId);
    await clearPending(
      services,
      channel,
      unsent.map(({ row }) => row),
    ).catch(() => undefined);
    // Handled marks go: exactly the marks this run read. A mark made since (or re-made: a new time), one whose
    // transaction began before the run and committed after it read (on PostgreSQL: an order's import), and the
    // variants that failed stay for the next run. A mark locked by a transaction still open is one being made
    // again (its time changes when that commits), so it is skipped, not waited for: waiting on an order import
    // that holds marks in another order deadlocked here (4–9 push jobs per 1,000-order burst, issue 13).
    const handled = dirty.filter((d) => !keepDirty.has(d.variantId)).map((d) => [d.variantId, d.markedAt]);
    for (let i = 0; i < handled.length; i += 5000) {
      await services.db.execute(sql`
        delete from ${inventoryDirty} d
        using (
          select m.channel_id, m.variant_id from ${inventoryDirty} m
          join jsonb_array_elements(${JSON.stringify(handled.slice(i, i + 5000))}::jsonb) as v
            on m.variant_id = v ->> 0 and m.marked_at = (v ->> 1)::timestamptz
          where m.channel_id = ${channelId}
          order by m.variant_id
          for update of m skip locked
        ) as s
        where d.channel_id = s.channel_id and d.variant_id = s.variant_id`);
    }
    // A call that failed may have landed: its send is replayed by the next push.
    if (fatal) sendsInDoubt(channelId);
    outcome.syncId = await run.finish(fatal, `${outcome.sent} sent, ${outcome.unchanged} already right`);
  }
  if (fatal) throw new PushFailed(fatal);
  if (outcome.failed > 0) throw new PushFailed(`${outcome.failed} levels could not be sent to ${channel.name}`);
  return outcome;
}

/** Records one answered batch: what was applied, what failed, what the channel held otherwise. */
async function acknowledge(
  services: Services,
  channel: ChannelRow,
  connector: ReturnType<typeof connectorFor>,
  run: PushRun,
  batch: Change[],
  result: InventorySetResult,
  outcome: PushOutcome,
  keepDirty: Set<string>,
) {
  const byKey = new Map(batch.map((c) => [`${c.row.inventoryItemId}|${c.row.externalLocationId}`, c.row]));
  const applied: AvailableRow[] = [];
  for (const a of result.applied) {
    const row = byKey.get(`${a.inventoryItemId}|${a.locationExternalId}`);
    if (row) applied.push(row);
  }
  await recordApplied(services, channel, applied);
  outcome.sent += applied.length;
  // Sold out or fell to the low-stock threshold on this channel: told once, on the transition.
  await notifyStockChanges(
    services.db,
    channel.accountId,
    channel,
    applied.map((row) => ({
      variantId: row.variantId,
      sku: row.sku,
      locationId: row.locationId,
      storeId: row.storeId,
      before: believedQty(row),
      after: row.available,
    })),
  ).catch((err: unknown) => services.logger.warn({ err, channelId: channel.id }, 'stock notifications not raised'));

  const failures: SyncItemFailure[] = [];
  const mismatched: Parameters<typeof takeInMismatches>[3] = [];
  const failedRows: { row: AvailableRow; reason: string; uncertain: boolean }[] = [];
  for (const f of result.failed) {
    const row = byKey.get(`${f.change.inventoryItemId}|${f.change.locationExternalId}`);
    if (!row) continue;
    keepDirty.add(row.variantId);
    if (f.mismatch)
      mismatched.push({
        inventoryItemId: row.inventoryItemId,
        locationExternalId: row.externalLocationId,
        held: f.held,
      });
    else {
      failedRows.push({ row, reason: f.reason, uncertain: f.uncertain === true });
      failures.push({
        label: `${row.sku} @ ${row.storeId}`,
        variantId: row.variantId,
        error: f.reason,
        payload: {
          variantId: row.variantId,
          channelId: channel.id,
          externalLocationId: row.externalLocationId,
          inventoryItemId: row.inventoryItemId,
          quantity: row.available,
        },
      });
    }
  }
  await recordFailed(services, channel, failedRows);
  // A send that failed in a way that may have landed is replayed by the channel's next push (push.replay.ts).
  if (failedRows.some((f) => f.uncertain)) sendsInDoubt(channel.id);
  if (mismatched.length) {
    outcome.mismatched += mismatched.length;
    await takeInMismatches(services, channel, connector, mismatched, `cas-${await run.open()}`);
  }
  outcome.failed += failures.length;
  await run.progress(applied.length + mismatched.length, failures);
}

/**
 * The push's run on /syncs. An uneventful push (one round, every level acknowledged: most of them) writes its row
 * once, finished, at its end, where opening, counting and closing it cost three statements. A push that takes a
 * second round, fails items, meets a compare-and-set mismatch or fails as a whole opens its row as that happens
 * (with what it counted so far), and counts and closes it as it goes.
 */
class PushRun {
  readonly #services: Services;
  readonly #input: NewSync;
  readonly #startedAt = new Date();
  #total = 0;
  #succeeded = 0;
  #opening: Promise<number> | null = null;

  constructor(services: Services, input: NewSync) {
    this.#services = services;
    this.#input = input;
  }

  /** The row, opened now if it was not (with the counts so far); answers its id. */
  open(): Promise<number> {
    this.#opening ??= startSync(this.#services.db, { ...this.#input, total: this.#total, succeeded: this.#succeeded });
    return this.#opening;
  }

  /** A round read: its levels, and those already right at the channel (handled). */
  async round(index: number, rows: number, unchanged: number) {
    this.#total += rows;
    if (this.#opening) {
      await setSyncTotal(this.#services.db, await this.#opening, this.#total, unchanged);
      return;
    }
    this.#succeeded += unchanged;
    // A second round: a push long enough for the merchant to watch.
    if (index > 0) await this.open();
  }

  /** Levels handled: acknowledged, and failed (kept on the run to retry). */
  async progress(succeeded: number, failures: SyncItemFailure[]) {
    if (!this.#opening && failures.length === 0) {
      this.#succeeded += succeeded;
      return;
    }
    const id = await this.open();
    await recordSyncProgress(this.#services.db, id, this.#input.accountId, { succeeded, failures });
  }

  /** Closes the run (failed with `fatal`), and sets the channel's last sync time; answers its id. */
  async finish(fatal: string | null, message: string): Promise<number> {
    const channelSynced = this.#input.channelId ?? undefined;
    if (!this.#opening && !fatal) {
      this.#opening = recordFinishedSync(this.#services.db, {
        ...this.#input,
        total: this.#total,
        succeeded: this.#succeeded,
        startedAt: this.#startedAt,
        message,
        channelSynced,
      });
      return this.#opening;
    }
    const id = await this.open();
    await finishSync(this.#services.db, id, { error: fatal, message: fatal ? null : message, channelSynced });
    return id;
  }
}
