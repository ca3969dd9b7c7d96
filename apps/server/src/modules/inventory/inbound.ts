// Stock changes made at a channel (a POS sale in Square, a stock edit in Shopify or BigCommerce), from its
// webhooks, compare-and-set mismatches and reconciliation: what the channel reports now, less what we knew
// it held, is a change of on_hand at our location, written to the ledger once.
import type { MovementReason } from '@switchyard/contracts';
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Tx } from '../../db/client.ts';
import { inList } from '../../db/rows.ts';
import type { Services } from '../../services.ts';
import type { ChannelRow } from '../channels/channels.service.ts';
import { channels } from '../channels/channels.tables.ts';
import { accountLocations } from '../locations/locations.read.ts';
import { listings } from '../products/products.tables.ts';
import { pushedLocations } from './available.ts';
import { lockLevelRows } from './channel-levels.ts';
import { absorbIntoClaims, lockExpectedClaims, type OpenClaim, writeClaims } from './claims.pass.ts';
import { channelStock } from './inventory.tables.ts';
import { applyMovements, asJson, type MovementInput, markDirty } from './ledger.ts';
import { schedulePush } from './schedule.ts';

/** One level as the channel reports it. */
export interface ChannelReport {
  inventoryItemId: string;
  externalLocationId: string;
  /** The channel's sellable quantity now (Shopify available, BigCommerce available_to_sell, Square IN_STOCK). */
  quantity: number;
  /** The provider's time of the report (or of our read). */
  at: Date;
  /** What makes the report unique (a provider event id, a read's time): the movement's idempotency key. */
  key: string;
}

export interface InboundResult {
  /** Reports that changed our stock. */
  changed: number;
  /** Echoes of our own pushes, and reports equal to what we knew. */
  unchanged: number;
  /** Older than what we already had, or for an item/location we do not sync. */
  ignored: number;
  /** Channels queued for a push. */
  channelIds: string[];
}

/**
 * What we believed the channel held before this report: the newer of what it acknowledged from us and
 * what it last told us.
 */
export function believedQty(row: {
  pushedQty: number | null;
  pushedAt: Date | null;
  channelQty: number | null;
  channelQtyAt: Date | null;
  channelQtySeenAt?: Date | null;
}): number | null {
  if (row.pushedQty === null) return row.channelQty;
  if (row.channelQty === null) return row.pushedQty;
  return reportedSince(row) ? row.channelQty : row.pushedQty;
}

/** Pushes to the channel compare and set (Shopify's, unless the merchant turned it off): see push.ts. */
function comparedAndSet(channel: Pick<ChannelRow, 'type' | 'settings'>): boolean {
  return channel.type === 'shopify' && channel.settings.advanced?.compareAndSet !== false;
}

/** The channel's last report was taken in after its last acknowledgement of our push (our clock for both). */
function reportedSince(row: { pushedAt: Date | null; channelQtyAt: Date | null; channelQtySeenAt?: Date | null }) {
  const reportedAt = (row.channelQtySeenAt ?? row.channelQtyAt)?.getTime();
  if (reportedAt === undefined) return false;
  return reportedAt > (row.pushedAt?.getTime() ?? 0);
}

/**
 * A report of exactly what we pushed: the push in flight (made after it was sent: a sale just before our send
 * that happens to leave the quantity we send is a change), or the last one acknowledged when the channel has
 * reported nothing since.
 */
export function isEcho(
  row: {
    pendingQty: number | null;
    pendingAt: Date | null;
    pushedQty: number | null;
    pushedAt: Date | null;
    channelQtyAt: Date | null;
  },
  { quantity, at }: Pick<ChannelReport, 'quantity' | 'at'>,
): boolean {
  if (row.pendingQty !== null && row.pendingQty === quantity)
    return !row.pendingAt || !reportedBefore(at, row.pendingAt);
  // By the provider's time, not by when we took the last report in: our push's own webhook may come in after
  // a report of a change made later in the same second, and it is still only our push.
  return (
    row.pushedQty === quantity &&
    row.pushedAt !== null &&
    (row.channelQtyAt === null || row.channelQtyAt.getTime() <= row.pushedAt.getTime())
  );
}

/**
 * A report of a send whose answer we never had (cut off by a crash or a timeout, or failed with a 5xx), made
 * after it went out and with nothing acknowledged since: that send landing, not a change made at the channel.
 */
export function isLateLanding(
  row: { pendingAt: Date | null; pushedAt: Date | null; sentQtys: number[] | null },
  { quantity, at }: Pick<ChannelReport, 'quantity' | 'at'>,
): boolean {
  if (!row.pendingAt || (row.pushedAt && row.pushedAt.getTime() >= row.pendingAt.getTime())) return false;
  return (row.sentQtys ?? []).includes(quantity) && !reportedBefore(at, row.pendingAt);
}

/** True when a provider time surely precedes `moment` (a whole-second stamp stands for its whole second). */
export function reportedBefore(at: Date, moment: Date): boolean {
  const end = at.getTime() + (at.getMilliseconds() === 0 ? 1000 : 1);
  return end <= moment.getTime();
}

/**
 * Applies channel reports in one transaction: each level row is locked, an out-of-order report (older than
 * the last one) or an echo of our own push changes nothing, anything else moves on_hand by the difference
 * (idempotent by the report's key). Every channel whose number may have moved is pushed afterwards.
 */
export async function applyChannelReports(
  services: Services,
  channel: Pick<ChannelRow, 'id' | 'accountId' | 'type' | 'settings'>,
  reports: ChannelReport[],
  reason: Extract<MovementReason, 'channel' | 'reconcile'> = 'channel',
): Promise<InboundResult> {
  const result: InboundResult = { changed: 0, unchanged: 0, ignored: 0, channelIds: [] };
  if (reports.length === 0) return result;
  const marked = await services.db.transaction(async (tx) => {
    const ours = await accountLocations(tx, channel.accountId);
    const locationOf = new Map(pushedLocations(channel.settings, ours).map((l) => [l.externalLocationId, l]));
    const items = [...new Set(reports.map((r) => r.inventoryItemId))];
    const listed = new Map<string, string>();
    for (let i = 0; i < items.length; i += 2000) {
      const rows = await tx
        .select({ variantId: listings.variantId, inventoryItemId: listings.inventoryItemId })
        .from(listings)
        .where(and(eq(listings.channelId, channel.id), inList(listings.inventoryItemId, items.slice(i, i + 2000))));
      for (const r of rows) listed.set(r.inventoryItemId as string, r.variantId);
    }
    const movements: MovementInput[] = [];
    const firstSeen: string[] = [];
    const landed: string[] = [];
    const met: string[] = [];
    // Reports of one level in the order they happened.
    const ordered = [...reports].sort(
      (a, b) =>
        `${a.inventoryItemId}|${a.externalLocationId}`.localeCompare(`${b.inventoryItemId}|${b.externalLocationId}`) ||
        a.at.getTime() - b.at.getTime(),
    );
    const levelOf = (report: ChannelReport) => {
      const variantId = listed.get(report.inventoryItemId);
      const location = locationOf.get(report.externalLocationId);
      return variantId && location ? { variantId, locationId: location.locationId } : null;
    };
    // Every level the reports name, locked in one statement; what this pass learns is written back at its end.
    const levels = await lockLevels(
      tx,
      channel,
      ordered.flatMap((report) => {
        const level = levelOf(report);
        return level
          ? [{ ...level, externalLocationId: report.externalLocationId, inventoryItemId: report.inventoryItemId }]
          : [];
      }),
    );
    // Orders imported before their channel's report of the sale: the report is absorbed, not counted again.
    const claims = await lockExpectedClaims(tx, channel.id, [...levels.values()]);
    const changedClaims: OpenClaim[] = [];
    const counted: Parameters<typeof writeClaims>[4] = [];
    /** The level's last acknowledged push compared and set (made against a belief, on a channel that does). */
    const guarded = (row: LevelRow) => comparedAndSet(channel) && row.basisQty !== null;
    /**
     * A push acknowledged after a claim was written closes it to later reports (`claimsOf`), unless the push
     * compared and set. Such a push overwrote nothing: landing after the channel's movement it would have failed
     * (and the mismatch's read took the movement in); landing before it (a cancel's release, then Shopify's
     * restock on top) it left the movement to be met, and closing the claim counted it (found by the orders
     * journey under load).
     */
    const closedBy = (row: LevelRow) => (guarded(row) ? null : row.pushedAt);
    /**
     * The claims a report can meet. A channel moves its stock for an order before it tells us of the order, so
     * an acknowledged push without compare-and-set made after an order's claim was written overwrote the
     * channel's movement: a report from after that push (`after`) is a new change there, never that order's.
     * Only reports from before the push can still be the order's own.
     */
    const claimsOf = (key: string, after: Date | null) =>
      (claims.get(key) ?? []).filter((c) => !after || c.createdAt.getTime() > after.getTime());
    /** A change the report shows, less what orders already account for; what is left is counted. */
    const count = (
      key: string,
      report: ChannelReport,
      variantId: string,
      locationId: string,
      delta: number,
      settle: boolean,
      after: Date | null,
    ) => {
      const absorbed = absorbIntoClaims(claimsOf(key, after), delta, report.at, settle);
      changedClaims.push(...absorbed.changed);
      // What orders met is not counted, but the channel may now offer other than it should (a restock of a
      // cancel made here lands on top of the release we pushed): its push compares and corrects it.
      if (absorbed.delta !== delta) met.push(variantId);
      if (absorbed.delta === 0) {
        result.unchanged += 1;
        return;
      }
      const movement = movementOf(channel, reason, report, variantId, locationId, absorbed.delta);
      movements.push(movement);
      counted.push({
        variantId,
        externalLocationId: report.externalLocationId,
        locationId,
        qty: absorbed.delta,
        at: report.at,
        key: movement.idempotencyKey as string,
      });
    };
    const changed = new Map<string, LevelChange>();
    /** What the pass learnt of a level: on its row (later reports of the level see it) and to be written. */
    const learn = (key: string, row: LevelRow, fields: LevelChange) => {
      Object.assign(row, fields);
      changed.set(key, { ...changed.get(key), ...fields });
    };
    for (const report of ordered) {
      const level = levelOf(report);
      const key = level ? `${level.variantId}|${report.externalLocationId}` : '';
      const row = levels.get(key);
      if (!level || !row) {
        result.ignored += 1;
        continue;
      }
      const { variantId, locationId } = level;
      // A report of a state from before our last acknowledged push. Of a quantity we sent: a late echo (or a
      // redelivery after a crash). Of anything else, made after what we knew when we made that push: a change
      // at the channel that the push overwrote (Square and BigCommerce have no compare-and-set), counted from
      // what we knew then, in the order such reports happened, and pushed again. Older than that knowledge:
      // nothing to take in. Providers stamp whole seconds, so such a time covers its whole second.
      if (row.pushedAt && reportedBefore(report.at, row.pushedAt)) {
        const sentSince = !row.pendingAt || !reportedBefore(report.at, row.pendingAt);
        if (sentSince && (row.pendingQty === report.quantity || (row.sentQtys ?? []).includes(report.quantity))) {
          result.unchanged += 1;
          continue;
        }
        // A compare-and-set push (Shopify's, made against what we believed) overwrites nothing: where it landed,
        // the channel held what it compared with. A report from before it was sent is in that number already;
        // one made after it was sent is after it landed (anything else would have failed the comparison) and is
        // taken against what the push set, below. Counted from what we knew before the push instead, it counted
        // our own push again (found by the orders and returns journeys under load).
        if (guarded(row)) {
          if (!sentSince) {
            result.ignored += 1;
            continue;
          }
        } else {
          if (row.basisQty === null || (row.basisAt && reportedBefore(report.at, row.basisAt))) {
            result.ignored += 1;
            continue;
          }
          const overwritten = report.quantity - row.basisQty;
          learn(key, row, { basisQty: report.quantity, basisAt: report.at });
          if (overwritten === 0) {
            result.unchanged += 1;
            continue;
          }
          count(key, report, variantId, locationId, overwritten, false, null);
          continue;
        }
      }
      // Out of order: older than the channel's last report since the push, which already includes it.
      if (row.channelQtyAt && report.at.getTime() < row.channelQtyAt.getTime()) {
        result.ignored += 1;
        continue;
      }
      // The echo of our push (in flight, or acknowledged with nothing reported since) is not recorded as a
      // report: it says nothing new, and it must not make an earlier real change look out of order.
      if (isEcho(row, report)) {
        result.unchanged += 1;
        continue;
      }
      if (isLateLanding(row, report)) {
        // With a send in flight, its answer settles what the channel holds. Otherwise the channel holds what
        // that earlier send carried: acknowledged now, and pushed again if it is not what it should sell.
        if (row.pendingQty === null) {
          const times = [row.channelQtyAt, row.pushedAt].filter((d): d is Date => d !== null);
          learn(key, row, {
            basisQty: believedQty(row),
            basisAt: times.length ? new Date(Math.max(...times.map((d) => d.getTime()))) : null,
            pushedQty: report.quantity,
            pushedAt: new Date(),
          });
          landed.push(variantId);
        }
        result.unchanged += 1;
        continue;
      }
      const known = believedQty(row);
      learn(key, row, { channelQty: report.quantity, channelQtyAt: report.at, channelQtySeenAt: new Date() });
      if (known === null) {
        // The first we hear of this level: nothing to compare with; our number is pushed over it.
        firstSeen.push(variantId);
        result.unchanged += 1;
        continue;
      }
      const delta = report.quantity - known;
      if (delta === 0) {
        // Still, an order's claim the report surely includes is settled: the channel's number has it now.
        changedClaims.push(...absorbIntoClaims(claimsOf(key, closedBy(row)), 0, report.at, true).changed);
        result.unchanged += 1;
        continue;
      }
      count(key, report, variantId, locationId, delta, true, closedBy(row));
    }
    await writeLevels(tx, channel, changed);
    await writeClaims(tx, channel.accountId, channel.id, changedClaims, counted);
    const applied = movements.length ? await applyMovements(tx, channel.accountId, movements) : [];
    result.changed += applied.filter((a) => a.applied).length;
    result.unchanged += applied.filter((a) => !a.applied).length;
    // applyMovements marked every channel listing the changed variants (this one too: its push finds
    // nothing to send unless buffers or safety stock make its number differ).
    const channelIds = new Set<string>();
    const changedVariants = [...new Set(applied.filter((a) => a.applied).map((a) => a.variantId))];
    if (changedVariants.length) {
      const [{ ids } = { ids: [] }] = await tx
        .select({ ids: sql<string[]>`coalesce(array_agg(distinct ${listings.channelId}), '{}')` })
        .from(listings)
        .innerJoin(channels, eq(channels.id, listings.channelId))
        .where(
          and(
            eq(listings.accountId, channel.accountId),
            inArray(listings.variantId, changedVariants),
            sql`${channels.status} in ('connected', 'error') and (${channels.features} ->> 'inventory')::boolean`,
          ),
        );
      for (const id of ids ?? []) channelIds.add(id);
    }
    if (firstSeen.length || landed.length || met.length) {
      const dirty = [...new Set([...firstSeen, ...landed, ...met])];
      for (const id of await markDirty(tx, channel.accountId, dirty, { channelIds: [channel.id] })) channelIds.add(id);
    }
    return [...channelIds];
  });
  result.channelIds = marked;
  await schedulePush(services, marked);
  return result;
}

function movementOf(
  channel: Pick<ChannelRow, 'id' | 'type'>,
  reason: Extract<MovementReason, 'channel' | 'reconcile'>,
  report: ChannelReport,
  variantId: string,
  locationId: string,
  delta: number,
): MovementInput {
  return {
    variantId,
    locationId,
    delta,
    reason,
    source: channel.type,
    reference: `${channel.type}:${report.inventoryItemId}@${report.externalLocationId}`,
    idempotencyKey: `${reason}:${channel.id}:${report.key}:${report.inventoryItemId}:${report.externalLocationId}`,
  };
}

type LevelRow = typeof channelStock.$inferSelect;
/** What a pass learnt of a level: the fields it changed. */
type LevelChange = Partial<
  Pick<LevelRow, 'channelQty' | 'channelQtyAt' | 'channelQtySeenAt' | 'basisQty' | 'basisAt' | 'pushedQty' | 'pushedAt'>
>;

/**
 * The channel_stock rows of these levels (made when first seen), locked for the transaction in one stable
 * order: two passes over the same levels take them alike. Keyed by `variantId|externalLocationId`.
 */
async function lockLevels(
  tx: Tx,
  channel: Pick<ChannelRow, 'id' | 'accountId'>,
  levels: { variantId: string; externalLocationId: string; locationId: string; inventoryItemId: string }[],
): Promise<Map<string, LevelRow>> {
  const out = new Map<string, LevelRow>();
  const unique = [...new Map(levels.map((l) => [`${l.variantId}|${l.externalLocationId}`, l])).values()];
  for (let i = 0; i < unique.length; i += 2000) {
    const rows = await lockLevelRows(tx, channel.accountId, channel.id, unique.slice(i, i + 2000), (named) =>
      tx
        .select()
        .from(channelStock)
        .where(and(eq(channelStock.channelId, channel.id), named))
        .orderBy(channelStock.variantId, channelStock.externalLocationId)
        .for('update'),
    );
    for (const row of rows) out.set(`${row.variantId}|${row.externalLocationId}`, row);
  }
  return out;
}

/** Each field of a LevelChange set from the update's `v` when it has it, else kept. */
const WRITE_LEVEL_FIELDS = sql.raw(
  (
    [
      ['channel_qty', 'channelQty', 'int'],
      ['channel_qty_at', 'channelQtyAt', 'timestamptz'],
      ['channel_qty_seen_at', 'channelQtySeenAt', 'timestamptz'],
      ['basis_qty', 'basisQty', 'int'],
      ['basis_at', 'basisAt', 'timestamptz'],
      ['pushed_qty', 'pushedQty', 'int'],
      ['pushed_at', 'pushedAt', 'timestamptz'],
    ] as const
  )
    .map(
      ([column, field, type]) =>
        `${column} = case when v ? '${field}' then (v ->> '${field}')::${type} else cs.${column} end`,
    )
    .join(',\n'),
);

/** Writes back, in one statement per 2,000 levels, the fields a pass changed (each level only its own). */
async function writeLevels(tx: Tx, channel: Pick<ChannelRow, 'id'>, changed: Map<string, LevelChange>) {
  const entries = [...changed].map(([key, c]) => {
    const [variantId, externalLocationId] = key.split('|') as [string, string];
    return { v: variantId, l: externalLocationId, ...c };
  });
  for (let i = 0; i < entries.length; i += 2000) {
    await tx.execute(sql`
      update ${channelStock} cs set ${WRITE_LEVEL_FIELDS}, updated_at = now()
      from jsonb_array_elements(${asJson(entries.slice(i, i + 2000))}) as v
      where cs.channel_id = ${channel.id} and cs.variant_id = v ->> 'v' and cs.external_location_id = v ->> 'l'`);
  }
}

// ------------------------------------------------------------------------------------------- webhooks
