// The per-channel push (DESIGN §4): take the channel's dirty variants marked up to now, compute what it
// should sell at each mapped location, send only what differs from what it holds (compare-and-set where
// the provider has it), and record the run. Marks made while a push runs survive for the next one. Starting and
// running pushes (the job, one per channel at a time, full pushes, leftovers) is push.run.ts.
import type { SyncTrigger } from '@switchyard/contracts';
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { InventorySet, InventorySetResult } from '../../connectors/types.ts';
import type { Services } from '../../services.ts';
import { type ChannelRow, connectorFor, providerFailure } from '../channels/channels.service.ts';
import { channels } from '../channels/channels.tables.ts';
import { notifyStockChanges } from '../notifications/notifications.producers.ts';
import { listings } from '../products/products.tables.ts';
import {
  finishSync,
  recordSyncProgress,
  type SyncItemFailure,
  setSyncTotal,
  startSync,
} from '../syncs/syncs.records.ts';
import { type AvailableRow, loadAvailable } from './available.ts';
import { applyChannelReports, believedQty } from './inbound.ts';
import { channelStock, inventoryDirty } from './inventory.tables.ts';
import { asJson, markDirty, rowsOf } from './ledger.ts';
import { schedulePush } from './schedule.ts';

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
  // The marks up to now, in one statement with the time they are read at. A mark's time is read as text: exact to
  // the microsecond, so the run clears only the marks it read.
  const dirty = rowsOf<{ variant_id: string | null; marked_at: string | null }>(
    await services.db.execute(sql`
      with n as (select clock_timestamp() as now)
      select d.variant_id, d.marked_at::text as marked_at
      from n join ${inventoryDirty} d on d.channel_id = ${channelId} and d.marked_at <= n.now`),
  ).map((r) => ({ variantId: r.variant_id as string, markedAt: r.marked_at as string }));
  if (dirty.length === 0) return null;

  // The run's record opens once its first round is read, with that round's size and its levels already right
  // (one statement; most pushes are one round), or as the push fails before that.
  const open = (total = 0, succeeded = 0) =>
    startSync(services.db, {
      accountId: channel.accountId,
      channelId,
      type: 'inventory_push',
      trigger,
      total,
      succeeded,
      options: { variants: dirty.length },
    });
  let syncId = 0;
  const outcome: PushOutcome = { syncId, sent: 0, unchanged: 0, failed: 0, mismatched: 0, calls: 0 };
  const keepDirty = new Set<string>();
  /** Marked pending and never sent (the push stopped first): their pending marks are withdrawn. */
  const unsent: Change[] = [];
  const inFlight = new Set<Promise<void>>();
  /** The round being read ahead; awaited before the run ends so its pending marks are accounted for. */
  let next: Promise<{ rows: number; unchanged: number; changes: Change[] }> | null = null;
  /** Resolves once every answer in so far is recorded. */
  let recorded = async () => {};
  let fatal: string | null = null;
  let total = 0;
  try {
    const connector = connectorFor(services, channel);
    const compareAndSet = channel.type === 'shopify' && channel.settings.advanced?.compareAndSet !== false;
    const batchSize = Math.max(1, connector.maxInventoryBatch);

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
      await markPending(services, channel, changes);
      return { rows: rows.length, unchanged, changes };
    };

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
              await acknowledge(services, channel, connector, syncId, batch, result, outcome, keepDirty);
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
        result = await connector.setInventory(batch.map(({ set }) => set));
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
      const task = send(batch).finally(() => inFlight.delete(task));
      inFlight.add(task);
    };

    // Changes waiting for a full batch, compare-and-set ones apart from the others.
    const waiting: Change[][] = [[], []];
    const rounds: string[][] = [];
    const variantIds = dirty.map((d) => d.variantId);
    const size = Math.max(1, options.roundVariants ?? ROUND);
    for (let i = 0; i < variantIds.length; i += size) rounds.push(variantIds.slice(i, i + size));
    next = rounds.length ? prepare(rounds[0] as string[]) : null;
    for (let r = 0; next; r++) {
      const round = await next;
      next = null;
      // The next round is read while this one's batches are sent.
      next = !fatal && r + 1 < rounds.length ? prepare(rounds[r + 1] as string[]) : null;
      next?.catch(() => undefined);
      total += round.rows;
      // The round's size and its levels already right at the channel (handled), in one statement.
      if (r === 0) outcome.syncId = syncId = await open(total, round.unchanged);
      else await setSyncTotal(services.db, syncId, total, round.unchanged);
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
    if (!syncId) outcome.syncId = syncId = await open();
    await finishSync(services.db, syncId, {
      error: fatal,
      message: fatal ? null : `${outcome.sent} sent, ${outcome.unchanged} already right`,
      channelSynced: channelId,
    });
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
  syncId: number,
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
      storeId: row.storeId,
      before: believedQty(row),
      after: row.available,
    })),
  ).catch((err: unknown) => services.logger.warn({ err, channelId: channel.id }, 'stock notifications not raised'));

  const failures: SyncItemFailure[] = [];
  const mismatched: { inventoryItemId: string; locationExternalId: string }[] = [];
  const failedRows: { row: AvailableRow; reason: string; uncertain: boolean }[] = [];
  for (const f of result.failed) {
    const row = byKey.get(`${f.change.inventoryItemId}|${f.change.locationExternalId}`);
    if (!row) continue;
    keepDirty.add(row.variantId);
    if (f.mismatch)
      mismatched.push({ inventoryItemId: row.inventoryItemId, locationExternalId: row.externalLocationId });
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
  if (mismatched.length) {
    outcome.mismatched += mismatched.length;
    await takeInMismatches(services, channel, connector, mismatched, syncId);
  }
  outcome.failed += failures.length;
  await recordSyncProgress(services.db, syncId, channel.accountId, {
    succeeded: applied.length + mismatched.length,
    failures,
  });
}

/**
 * Set at an acknowledgement (of `channel_stock cs`): what we believed the channel held before it (the newer of
 * our last acknowledged push and its last report, as `believedQty`), and when that was so.
 */
const BASIS_FROM_BELIEF = sql.raw(`basis_qty = case when cs.pushed_qty is null then cs.channel_qty
    when cs.channel_qty is null then cs.pushed_qty
    when coalesce(cs.channel_qty_seen_at, cs.channel_qty_at) > cs.pushed_at then cs.channel_qty else cs.pushed_qty end,
  basis_at = greatest(cs.channel_qty_at, cs.pushed_at)`);

/**
 * Writes pendingQty for what is about to be sent (creating the channel_stock rows first seen), in one
 * statement, and remembers the quantity among the last ones sent (an echo of any of them is ours).
 */
export async function markPending(
  services: Services,
  channel: Pick<ChannelRow, 'id' | 'accountId'>,
  changes: { row: AvailableRow }[],
) {
  if (changes.length === 0) return;
  const now = new Date();
  const rows = changes.map(({ row }) => [
    row.variantId,
    row.externalLocationId,
    row.locationId,
    row.inventoryItemId,
    row.available,
  ]);
  await services.db.execute(sql`
    insert into ${channelStock} as cs (account_id, channel_id, variant_id, external_location_id, location_id,
      inventory_item_id, pending_qty, pending_at, sent_qtys, updated_at)
    select ${channel.accountId}, ${channel.id}, v ->> 0, v ->> 1, v ->> 2, v ->> 3, (v ->> 4)::int, ${now},
      array[(v ->> 4)::int], ${now}
    from jsonb_array_elements(${asJson(rows)}) as v
    on conflict (channel_id, variant_id, external_location_id) do update set
      pending_qty = excluded.pending_qty,
      -- When the first send since the last acknowledgement went out, and the quantities sent since (up to
      -- three: a send cut off by a crash or a timeout may still have landed): a report of one of them made
      -- after that time and before the acknowledgement is an echo.
      pending_at = case when cs.pending_at is null or cs.pushed_at >= cs.pending_at then excluded.pending_at
        else cs.pending_at end,
      sent_qtys = case when cs.pending_at is null or cs.pushed_at >= cs.pending_at then array[excluded.pending_qty]
        else (coalesce(cs.sent_qtys, '{}') || excluded.pending_qty)[greatest(1, cardinality(coalesce(cs.sent_qtys, '{}')) - 1):] end,
      location_id = excluded.location_id,
      inventory_item_id = excluded.inventory_item_id,
      updated_at = excluded.updated_at`);
}

/**
 * A send that will not land (never sent, refused by the channel, compare-and-set mismatched) leaves the sends of
 * unknown fate (`cs`): its quantity, the last one markPending added, goes; the sends before it since the last
 * acknowledgement (cut off by a crash or a timeout, they may still have landed) stay, with their time.
 */
const DROP_LAST_SEND = sql.raw(`pending_qty = null,
  sent_qtys = cs.sent_qtys[1:cardinality(cs.sent_qtys) - 1],
  pending_at = case when cardinality(coalesce(cs.sent_qtys, '{}')) > 1 then cs.pending_at end`);

/** Withdraws the pending marks of levels that were never sent (the push stopped before their turn). */
export async function clearPending(services: Services, channel: Pick<ChannelRow, 'id'>, rows: AvailableRow[]) {
  if (rows.length === 0) return;
  await services.db.execute(sql`
    update ${channelStock} cs set ${DROP_LAST_SEND}
    from jsonb_array_elements(${asJson(rows.map((r) => [r.variantId, r.externalLocationId]))}) as v
    where cs.channel_id = ${channel.id} and cs.variant_id = v ->> 0 and cs.external_location_id = v ->> 1`);
}

/** What the channel acknowledged, after it answered: one statement for the levels, one for the listings. */
async function recordApplied(services: Services, channel: ChannelRow, rows: AvailableRow[]) {
  if (rows.length === 0) return;
  const now = new Date();
  const values = rows.map((r) => [r.variantId, r.externalLocationId, r.available]);
  await services.db.execute(sql`
    update ${channelStock} cs set pushed_qty = (v ->> 2)::int, pushed_at = ${now}, pending_qty = null,
      ${BASIS_FROM_BELIEF},
      last_error = null, updated_at = ${now}
    from jsonb_array_elements(${asJson(values)}) as v
    where cs.channel_id = ${channel.id} and cs.variant_id = v ->> 0 and cs.external_location_id = v ->> 1`);
  const variantIds = [...new Set(rows.map((r) => r.variantId))];
  await services.db.execute(sql`
    update ${listings} set sync_status_code = 1, last_error = null, last_synced_at = ${now}, updated_at = ${now}
    where ${listings.channelId} = ${channel.id}
      and ${listings.variantId} in (select jsonb_array_elements_text(${asJson(variantIds)}))`);
}

async function recordFailed(
  services: Services,
  channel: ChannelRow,
  rows: { row: AvailableRow; reason: string; uncertain: boolean }[],
) {
  if (rows.length === 0) return;
  const now = new Date();
  // Refused: what was sent did not land. Failed otherwise (a 5xx): it may have, and stays a send of unknown fate.
  const values = rows.map(({ row, reason, uncertain }) => [
    row.variantId,
    row.externalLocationId,
    reason.slice(0, 500),
    uncertain,
  ]);
  await services.db.execute(sql`
    update ${channelStock} cs set last_error = v ->> 2, updated_at = ${now}, pending_qty = null,
      sent_qtys = case when (v ->> 3)::boolean then cs.sent_qtys else cs.sent_qtys[1:cardinality(cs.sent_qtys) - 1] end,
      pending_at = case when (v ->> 3)::boolean or cardinality(coalesce(cs.sent_qtys, '{}')) > 1 then cs.pending_at end
    from jsonb_array_elements(${asJson(values)}) as v
    where cs.channel_id = ${channel.id} and cs.variant_id = v ->> 0 and cs.external_location_id = v ->> 1`);
  // The listings show the error (a variant failed at several locations: one of their reasons).
  await services.db.execute(sql`
    update ${listings} l set sync_status_code = 3, last_error = v ->> 2, updated_at = ${now}
    from jsonb_array_elements(${asJson(values)}) as v
    where l.channel_id = ${channel.id} and l.variant_id = v ->> 0`);
}

/**
 * The channel held something other than we believed: someone changed it there. Read it, take the
 * difference in as a channel change, and mark the variants so the next run pushes with the new belief.
 */
async function takeInMismatches(
  services: Services,
  channel: ChannelRow,
  connector: ReturnType<typeof connectorFor>,
  pairs: { inventoryItemId: string; locationExternalId: string }[],
  syncId: number,
) {
  const readAt = new Date();
  const levels = await connector.readInventory(pairs);
  // This send did not land. The channel holding what an earlier send since our last acknowledgement carried
  // (one cut off by a crash or a timeout) is that send landing late: an acknowledgement, not a change.
  const read = asJson(levels.map((l) => [l.inventoryItemId, l.locationExternalId, l.available]));
  const acknowledged = rowsOf<{ item: string; location: string }>(
    await services.db.execute(sql`
      update ${channelStock} cs set ${BASIS_FROM_BELIEF},
        pushed_qty = (v ->> 2)::int, pushed_at = ${readAt}, pending_qty = null, updated_at = ${readAt}
      from jsonb_array_elements(${read}) as v
      where cs.channel_id = ${channel.id} and cs.inventory_item_id = v ->> 0 and cs.external_location_id = v ->> 1
        and cardinality(coalesce(cs.sent_qtys, '{}')) > 1
        and (v ->> 2)::int = any(cs.sent_qtys[1:cardinality(cs.sent_qtys) - 1])
      returning cs.inventory_item_id as item, cs.external_location_id as location`),
  );
  const landed = new Set(acknowledged.map((r) => `${r.item}|${r.location}`));
  // What was pending is not in flight any more, and was refused: it leaves the sends of unknown fate.
  await services.db.execute(sql`
    update ${channelStock} cs set ${DROP_LAST_SEND}
    from jsonb_array_elements(${asJson(pairs.map((p) => [p.inventoryItemId, p.locationExternalId]))}) as v
    where cs.channel_id = ${channel.id} and cs.inventory_item_id = v ->> 0 and cs.external_location_id = v ->> 1`);
  await applyChannelReports(
    services,
    channel,
    levels
      .filter((l) => !landed.has(`${l.inventoryItemId}|${l.locationExternalId}`))
      .map((l) => ({
        inventoryItemId: l.inventoryItemId,
        externalLocationId: l.locationExternalId,
        quantity: l.available,
        at: readAt,
        key: `cas-${syncId}`,
      })),
    'channel',
  );
  const variants = await services.db
    .select({ variantId: listings.variantId })
    .from(listings)
    .where(
      and(
        eq(listings.channelId, channel.id),
        inArray(
          listings.inventoryItemId,
          pairs.map((p) => p.inventoryItemId),
        ),
      ),
    );
  const marked = await markDirty(
    services.db,
    channel.accountId,
    variants.map((v) => v.variantId),
    { channelIds: [channel.id] },
  );
  await schedulePush(services, marked);
}
