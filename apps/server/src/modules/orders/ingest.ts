// Taking a channel's order in (webhook, pull, import at connect): stored once per (channel, external id),
// latest wins by the provider's updated_at, and its stock effect made in the same transaction: the channel's
// own movement claimed (inventory/claims.ts), units reserved (or consumed, for a POS sale already complete),
// cancellations released. docs/decisions/0008-a-sale-moves-stock-once.md says why each unit counts once.
import { and, eq, inArray } from 'drizzle-orm';
import type { ProviderOrder } from '../../connectors/types.ts';
import type { Tx } from '../../db/client.ts';
import { insertRows } from '../../db/insert-rows.ts';
import { newId } from '../../lib/ids.ts';
import type { Services } from '../../services.ts';
import { type LockedChannelLevel, lockChannelLevels } from '../inventory/claims.ts';
import { DeferredLedger } from '../inventory/ledger.deferred.ts';
import { withDirtyMarkedOnce } from '../inventory/ledger.ts';
import { schedulePush } from '../inventory/schedule.ts';
import { recordOrderMetrics } from '../metrics/metrics.record.ts';
import { lockLevelsFor } from '../routing/routing.allocate.ts';
import {
  type Batch,
  batchLocations,
  batchWrites,
  catalogOf,
  contextFor,
  flushTimeline,
  headerOf,
  type IngestChannel,
  type IngestOptions,
  type IngestResult,
  locationResolver,
  settleWrites,
  statusFromChannel,
} from './ingest.context.ts';
import { createOrder } from './ingest.lines.ts';
import { sameReport, updateOrder } from './ingest.update.ts';
import { orders } from './orders.tables.ts';
import { recomputeFlags } from './orders.timeline.ts';

export {
  type IngestChannel,
  type IngestOptions,
  type IngestOutcome,
  type IngestResult,
  locationResolver,
  statusFromChannel,
} from './ingest.context.ts';
export { cancelInTx, claimCancelRestock } from './ingest.update.ts';

/**
 * Takes one channel order in, in one transaction. New: stored with its lines, the channel's own movement of
 * each line claimed, each line allocated (reserved, or consumed for a POS sale already complete, or flagged).
 * Known and newer: its fields and line quantities follow the channel; a cancel at the channel releases and a
 * fulfilment at the channel consumes. Older or the same: nothing changes.
 */
export async function ingestOrder(
  services: Services,
  channel: IngestChannel,
  order: ProviderOrder,
  options: IngestOptions = {},
): Promise<IngestResult> {
  const marked = new Set<string>();
  const results = await services.db.transaction((tx) =>
    withDirtyMarkedOnce(tx, channel.accountId, () => takeInBatch(tx, channel, [order], options), { marked }),
  );
  await schedulePush(services, marked);
  return results.get(order.externalId) as IngestResult;
}

/** Orders taken in per transaction by `ingestOrders` (a transaction's locks, and its reservations' visibility,
 * last as long as its orders take). */
export const ORDERS_PER_TRANSACTION = 25;

/**
 * Takes a channel's orders in, several per transaction (ORDERS_PER_TRANSACTION), each exactly as `ingestOrder`
 * would: what they share is read once, their timeline, flags and rollups are written once, and the affected
 * channels are pushed once. A transaction that fails is rolled back whole and its orders are taken in again one
 * by one, so one bad order does not hold the others back: it answers its own error, the others their result.
 * One entry per external id (the newest report of an id given twice).
 */
export async function ingestOrders(
  services: Services,
  channel: IngestChannel,
  list: ProviderOrder[],
  options: IngestOptions = {},
): Promise<Map<string, IngestResult | Error>> {
  const newest = new Map<string, ProviderOrder>();
  for (const order of list) {
    const before = newest.get(order.externalId);
    if (!before || order.updatedAt >= before.updatedAt) newest.set(order.externalId, order);
  }
  const all = [...newest.values()];
  const out = new Map<string, IngestResult | Error>();
  const asError = (err: unknown) => (err instanceof Error ? err : new Error(String(err)));
  for (let i = 0; i < all.length; i += ORDERS_PER_TRANSACTION) {
    const chunk = all.slice(i, i + ORDERS_PER_TRANSACTION);
    const marked = new Set<string>();
    try {
      // The variants the batch changes are marked for their pushes once, at its end (not once per movement); the
      // channels marked are pushed once it commits.
      const results = await services.db.transaction((tx) =>
        withDirtyMarkedOnce(tx, channel.accountId, () => takeInBatch(tx, channel, chunk, options), { marked }),
      );
      for (const [externalId, result] of results) out.set(externalId, result);
      await schedulePush(services, marked);
    } catch (err) {
      if (chunk.length === 1) {
        out.set(chunk[0]?.externalId as string, asError(err));
        continue;
      }
      services.logger.warn(
        { channelId: channel.id, orders: chunk.length, err: asError(err).message.slice(0, 300) },
        'a batch of orders failed; taken in one by one',
      );
      for (const order of chunk) {
        try {
          out.set(order.externalId, await ingestOrder(services, channel, order, options));
        } catch (one) {
          out.set(order.externalId, asError(one));
        }
      }
    }
  }
  return out;
}

/**
 * A new order's id carries the time it was placed at the channel, not the time we took it in: the orders list
 * sorts by id (SPEC §2, default `sort_by=id`, newest first), and the 60 days of history imported at connect, or an
 * order a reconciliation found late, then sit among the others by when they were placed. A time the channel gives
 * that cannot be read, or one ahead of our clock, is taken as now.
 */
function orderIdOf(order: ProviderOrder): string {
  const placed = Date.parse(order.createdAt);
  const now = Date.now();
  return newId('ord', Number.isFinite(placed) && placed > 0 && placed < now ? placed : now);
}

/** The orders of one transaction, in external id order (see Batch for the locks); a result per external id. */
async function takeInBatch(
  tx: Tx,
  channel: IngestChannel,
  list: ProviderOrder[],
  options: IngestOptions,
): Promise<Map<string, IngestResult>> {
  const sorted = [...list].sort((a, b) => (a.externalId < b.externalId ? -1 : a.externalId > b.externalId ? 1 : 0));
  const { locations, ours } = await batchLocations(tx, channel.accountId);
  const resolve = locationResolver(channel.settings, ours);
  // The orders' rows first: new ones made (a pickup's store set with it), known ones locked.
  const rows = sorted.map((order) => {
    const store = resolve(order.locationExternalId);
    return {
      id: orderIdOf(order),
      accountId: channel.accountId,
      channelId: channel.id,
      externalId: order.externalId,
      status: statusFromChannel(order),
      ...headerOf(order),
      ...(order.fulfillmentType !== 'ship' && store ? { pickupLocationId: store.id } : {}),
    };
  });
  const inserted = await insertRows(tx, orders, rows, {
    onConflictDoNothing: true,
    returning: { id: orders.id, externalId: orders.externalId },
  });
  const createdId = new Map(inserted.map((r) => [r.externalId, r.id]));
  const known = sorted.filter((o) => !createdId.has(o.externalId)).map((o) => o.externalId);
  const existing = known.length
    ? await tx
        .select()
        .from(orders)
        .where(
          and(
            eq(orders.accountId, channel.accountId),
            eq(orders.channelId, channel.id),
            inArray(orders.externalId, known),
          ),
        )
        .orderBy(orders.externalId)
        .for('update')
    : [];
  const existingOf = new Map(existing.map((o) => [o.externalId, o]));
  // A batch of known orders whose reports are older, or the same again and changing nothing (the second webhook
  // of one change, a redelivery: most batches of a stream), has nothing to read, lock or write.
  const idle = new Map<string, IngestResult>();
  for (const order of sorted) {
    const row = existingOf.get(order.externalId);
    if (!row || createdId.has(order.externalId)) break;
    const at = new Date(order.updatedAt).getTime();
    const was = row.providerUpdatedAt.getTime();
    if (at < was) idle.set(order.externalId, { orderId: row.id, outcome: 'older' });
    else if (at === was && sameReport(row, order))
      idle.set(order.externalId, { orderId: row.id, outcome: 'unchanged' });
    else break;
  }
  if (idle.size === sorted.length) return idle;
  // The catalog the lines name, and the channel's item of each variant.
  const { variantOf, variantIds, itemOf, facts } = await catalogOf(
    tx,
    channel,
    sorted.flatMap((o) => o.lines),
  );
  // Then the channel's levels the lines' claims meet, then our levels of every variant named.
  const claimLevels = sorted.flatMap((o) =>
    o.lines.flatMap((l) => {
      const variantId = l.sku ? variantOf.get(l.sku)?.id : undefined;
      const item = variantId ? itemOf.get(variantId) : undefined;
      const location = resolve(l.stockLocationExternalId);
      return variantId && item && location && l.stockLocationExternalId
        ? [
            {
              variantId,
              externalLocationId: l.stockLocationExternalId,
              locationId: location.id,
              inventoryItemId: item,
            },
          ]
        : [];
    }),
  );
  const channelLevels = claimLevels.length
    ? await lockChannelLevels(tx, channel.accountId, channel.id, claimLevels)
    : new Map<string, LockedChannelLevel>();
  const locationIds = ours.map((l) => l.id);
  const available =
    variantIds.length > 0 ? await lockLevelsFor(tx, channel.accountId, variantIds, locationIds) : new Map();
  const batch: Batch = {
    tx,
    channel,
    ours,
    locations,
    facts,
    resolve,
    variantOf,
    itemOf,
    channelLevels,
    // What the orders' contexts note as touched is not needed here: the batch's pushes follow its dirty marks.
    touched: new Set(),
    timeline: [],
    changed: new Set(),
    historical: options.historical,
    // The new orders' rows and stock movements, written together (every level they move is locked above).
    writes: batchWrites(new DeferredLedger(tx, channel.accountId, variantIds, locationIds, available)),
  };
  const results = new Map<string, IngestResult>();
  // Known orders first: an update reads its order's rows and moves stock itself, so the new orders' writes are
  // then kept together to the end (each by external id, and a cancel's release is there for the new orders).
  for (const order of sorted) {
    const row = existingOf.get(order.externalId);
    if (createdId.has(order.externalId)) continue;
    if (!row) throw new Error('order vanished while being imported');
    const incomingAt = new Date(order.updatedAt).getTime();
    if (incomingAt < row.providerUpdatedAt.getTime()) {
      results.set(order.externalId, { orderId: row.id, outcome: 'older' });
      continue;
    }
    // Nothing is kept yet (updates write as they go): the update reads and moves what is written.
    const ctx = contextFor(batch, row.id);
    const changed = await updateOrder(ctx, row, order, incomingAt === row.providerUpdatedAt.getTime());
    batch.timeline.push({ orderId: row.id, entries: ctx.timeline });
    if (changed) batch.changed.add(row.id);
    results.set(order.externalId, { orderId: row.id, outcome: changed ? 'updated' : 'unchanged' });
  }
  // Updates may have moved stock: the new orders read the levels again (a duplicate report moved nothing).
  if (batch.changed.size > 0) await settleWrites(batch);
  for (const order of sorted) {
    const id = createdId.get(order.externalId);
    if (!id) continue;
    const ctx = contextFor(batch, id);
    await createOrder(ctx, order);
    batch.timeline.push({ orderId: id, entries: ctx.timeline });
    batch.changed.add(id);
    results.set(order.externalId, { orderId: id, outcome: 'created' });
  }
  await settleWrites(batch);
  await flushTimeline(batch);
  if (batch.changed.size > 0) {
    await recomputeFlags(tx, [...batch.changed]);
    await recordOrderMetrics(tx, channel.accountId, [...batch.changed], new Set(createdId.values()));
  }
  return results;
}
