// What a push writes about the levels it sends (push.ts): marked pending before a send, acknowledged or failed
// after its answer, withdrawn when never sent, and a compare-and-set mismatch taken in as the channel's change.
// channel_stock keeps, per level, what we last pushed, what is in flight and what the channel last reported; an
// echo of our own push is recognised from it (inbound.ts).
import { and, eq, inArray, sql } from 'drizzle-orm';
import { inList } from '../../db/rows.ts';
import type { Services } from '../../services.ts';
import type { ChannelRow, connectorFor } from '../channels/channels.service.ts';
import { listings } from '../products/products.tables.ts';
import type { AvailableRow } from './available.ts';
import { applyChannelReports } from './inbound.ts';
import { channelStock } from './inventory.tables.ts';
import { asJson, markDirty, rowsOf } from './ledger.ts';
import { schedulePush } from './schedule.ts';

/**
 * Set at an acknowledgement (of `channel_stock cs`): what we believed the channel held before it (the newer of
 * our last acknowledged push and its last report, as `believedQty`), and when that was so.
 */
const BASIS_FROM_BELIEF = sql.raw(`basis_qty = case when cs.pushed_qty is null then cs.channel_qty
    when cs.channel_qty is null then cs.pushed_qty
    when coalesce(cs.channel_qty_seen_at, cs.channel_qty_at) > cs.pushed_at then cs.channel_qty else cs.pushed_qty end,
  basis_at = greatest(cs.channel_qty_at, cs.pushed_at)`);

/**
 * `from … where …` of an update of `channel_stock cs`: the channel's levels `values` names (each `[variant id, external
 * location id, …]`, or with `key` 'inventory_item_id' an inventory item's id first), read as `v`. The rows are locked
 * first, in (variant, location) order: the order a stock pass locks them in (inbound.ts). Updated in the order a
 * join met them, a push's acknowledgement and a stock pass each held a level the other waited for (a deadlock in the
 * order bench on PostgreSQL, 2026-11-27: the push failed and went again).
 */
function levelsOf(channelId: string, values: unknown[], key: 'variant_id' | 'inventory_item_id' = 'variant_id') {
  return sql`from (
      select v, s.variant_id as level_variant, s.external_location_id as level_location from ${channelStock} s
      join jsonb_array_elements(${asJson(values)}) as v on s.${sql.raw(key)} = v ->> 0 and s.external_location_id = v ->> 1
      where s.channel_id = ${channelId}
      order by s.variant_id, s.external_location_id
      for update of s
    ) as l
    where cs.channel_id = ${channelId} and cs.variant_id = l.level_variant and cs.external_location_id = l.level_location`;
}

/**
 * Writes pendingQty for what is about to be sent (creating the channel_stock rows first seen), in one
 * statement, and remembers the quantity among the last ones sent (an echo of any of them is ours).
 */
export async function markPending(
  services: Services,
  channel: Pick<ChannelRow, 'id' | 'accountId'>,
  changes: { row: AvailableRow; key?: string | null; set?: { compareQuantity?: number | null } }[],
) {
  if (changes.length === 0) return;
  const now = new Date();
  const rows = changes.map(({ row, key, set }) => [
    row.variantId,
    row.externalLocationId,
    row.locationId,
    row.inventoryItemId,
    row.available,
    key ?? null,
    set?.compareQuantity ?? null,
  ]);
  await services.db.execute(sql`
    insert into ${channelStock} as cs (account_id, channel_id, variant_id, external_location_id, location_id,
      inventory_item_id, pending_qty, pending_at, sent_qtys, pending_key, pending_compare, updated_at)
    select ${channel.accountId}, ${channel.id}, v ->> 0, v ->> 1, v ->> 2, v ->> 3, (v ->> 4)::int, ${now},
      array[(v ->> 4)::int], v ->> 5, (v ->> 6)::int, ${now}
    from jsonb_array_elements(${asJson(rows)}) as v
    -- Existing levels are locked as they are met: in the order a stock pass locks them (levelsOf).
    order by v ->> 0, v ->> 1
    on conflict (channel_id, variant_id, external_location_id) do update set
      pending_qty = excluded.pending_qty,
      pending_key = excluded.pending_key,
      pending_compare = excluded.pending_compare,
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
const DROP_LAST_SEND = sql.raw(`pending_qty = null, pending_key = null, pending_compare = null,
  sent_qtys = cs.sent_qtys[1:cardinality(cs.sent_qtys) - 1],
  pending_at = case when cardinality(coalesce(cs.sent_qtys, '{}')) > 1 then cs.pending_at end`);

/** A level a push wrote about: the row it read, or (a replayed send) what it carried. */
type LevelSent = Pick<AvailableRow, 'variantId' | 'externalLocationId' | 'available'>;

/**
 * The keys of a batch about to be sent, where its rows were marked pending with none (or another): a batch made
 * of rows from several rounds. A batch of one round has its key from markPending.
 */
export async function keySends(
  services: Services,
  channel: Pick<ChannelRow, 'id'>,
  key: string,
  changes: { row: LevelSent; set: { compareQuantity?: number | null } }[],
) {
  const values = changes.map(({ row, set }) => [row.variantId, row.externalLocationId, set.compareQuantity ?? null]);
  await services.db.execute(sql`
    update ${channelStock} cs set pending_key = ${key}, pending_compare = (v ->> 2)::int
    ${levelsOf(channel.id, values)}`);
}

/** Withdraws the pending marks of levels that were never sent (the push stopped before their turn). */
export async function clearPending(services: Services, channel: Pick<ChannelRow, 'id'>, rows: LevelSent[]) {
  if (rows.length === 0) return;
  await services.db.execute(sql`
    update ${channelStock} cs set ${DROP_LAST_SEND}
    ${levelsOf(
      channel.id,
      rows.map((r) => [r.variantId, r.externalLocationId]),
    )}`);
}

/**
 * What the channel acknowledged, after it answered: its levels and their listings (synced now), in one statement.
 */
export async function recordApplied(services: Services, channel: Pick<ChannelRow, 'id'>, rows: LevelSent[]) {
  if (rows.length === 0) return;
  const now = new Date();
  const values = rows.map((r) => [r.variantId, r.externalLocationId, r.available]);
  const variantIds = [...new Set(rows.map((r) => r.variantId))];
  await services.db.execute(sql`
    with acknowledged as (
      update ${channelStock} cs set pushed_qty = (v ->> 2)::int, pushed_at = ${now}, pending_qty = null,
        pending_key = null, pending_compare = null,
        ${BASIS_FROM_BELIEF},
        last_error = null, updated_at = ${now}
      ${levelsOf(channel.id, values)}
    )
    update ${listings} set sync_status_code = 1, last_error = null, last_synced_at = ${now}, updated_at = ${now}
    where ${listings.channelId} = ${channel.id}
      and ${inList(listings.variantId, variantIds)}`);
}

export async function recordFailed(
  services: Services,
  channel: ChannelRow,
  rows: { row: LevelSent; reason: string; uncertain: boolean }[],
) {
  if (rows.length === 0) return;
  const now = new Date();
  // Refused: what was sent did not land. Failed otherwise (a 5xx): it may have, and stays a send of unknown fate;
  // one sent under a key stays pending with it, as a send cut off by a crash does, and the next push replays it
  // (push.replay.ts): the channel then answers what it did, and a change made there meanwhile reads as itself.
  const values = rows.map(({ row, reason, uncertain }) => [
    row.variantId,
    row.externalLocationId,
    reason.slice(0, 500),
    uncertain,
  ]);
  await services.db.execute(sql`
    update ${channelStock} cs set last_error = v ->> 2, updated_at = ${now},
      pending_qty = case when (v ->> 3)::boolean and cs.pending_key is not null then cs.pending_qty end,
      pending_key = case when (v ->> 3)::boolean then cs.pending_key end,
      pending_compare = case when (v ->> 3)::boolean and cs.pending_key is not null then cs.pending_compare end,
      sent_qtys = case when (v ->> 3)::boolean then cs.sent_qtys else cs.sent_qtys[1:cardinality(cs.sent_qtys) - 1] end,
      pending_at = case when (v ->> 3)::boolean or cardinality(coalesce(cs.sent_qtys, '{}')) > 1 then cs.pending_at end
    ${levelsOf(channel.id, values)}`);
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
export async function takeInMismatches(
  services: Services,
  channel: ChannelRow,
  connector: ReturnType<typeof connectorFor>,
  /** `held`: what the connector read right after the mismatch (then not read again). */
  pairs: { inventoryItemId: string; locationExternalId: string; held?: { available: number; at: Date } }[],
  /** What makes this read's reports unique (the movements' idempotency keys): `cas-{sync id}`. */
  readKey: string,
) {
  const readAt = new Date();
  const unread = pairs.filter((p) => !p.held);
  const levels = [
    ...pairs.flatMap((p) =>
      p.held ? [{ inventoryItemId: p.inventoryItemId, locationExternalId: p.locationExternalId, ...p.held }] : [],
    ),
    ...(unread.length ? await connector.readInventory(unread) : []).map((l) => ({ ...l, at: readAt })),
  ];
  // This send did not land. The channel holding what an earlier send since our last acknowledgement carried
  // (one cut off by a crash or a timeout) is that send landing late: an acknowledgement, not a change.
  const read = levels.map((l) => [l.inventoryItemId, l.locationExternalId, l.available, l.at.toISOString()]);
  const acknowledged = rowsOf<{ item: string; location: string }>(
    await services.db.execute(sql`
      update ${channelStock} cs set ${BASIS_FROM_BELIEF},
        pushed_qty = (v ->> 2)::int, pushed_at = (v ->> 3)::timestamptz, pending_qty = null, pending_key = null,
        pending_compare = null, updated_at = ${readAt}
      ${levelsOf(channel.id, read, 'inventory_item_id')}
        and cardinality(coalesce(cs.sent_qtys, '{}')) > 1
        and (v ->> 2)::int = any(cs.sent_qtys[1:cardinality(cs.sent_qtys) - 1])
      returning cs.inventory_item_id as item, cs.external_location_id as location`),
  );
  const landed = new Set(acknowledged.map((r) => `${r.item}|${r.location}`));
  // What was pending is not in flight any more, and was refused: it leaves the sends of unknown fate.
  await services.db.execute(sql`
    update ${channelStock} cs set ${DROP_LAST_SEND}
    ${levelsOf(
      channel.id,
      pairs.map((p) => [p.inventoryItemId, p.locationExternalId]),
      'inventory_item_id',
    )}`);
  await applyChannelReports(
    services,
    channel,
    levels
      .filter((l) => !landed.has(`${l.inventoryItemId}|${l.locationExternalId}`))
      .map((l) => ({
        inventoryItemId: l.inventoryItemId,
        externalLocationId: l.locationExternalId,
        quantity: l.available,
        at: l.at,
        key: readKey,
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
