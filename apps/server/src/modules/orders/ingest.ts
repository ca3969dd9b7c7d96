// Taking a channel's order in (webhook, pull, import at connect): stored once per (channel, external id),
// latest wins by the provider's updated_at, and its stock effect made in the same transaction: the channel's
// own movement claimed (inventory/claims.ts), units reserved (or consumed, for a POS sale already complete),
// cancellations released. docs/decisions/0008-a-sale-moves-stock-once.md says why each unit counts once.
import { CHANNEL_LABELS, type ChannelSettings, type OrderStatus } from '@switchyard/contracts';
import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type { ProviderOrder, ProviderOrderLine } from '../../connectors/types.ts';
import type { Tx } from '../../db/client.ts';
import { newId } from '../../lib/ids.ts';
import type { Services } from '../../services.ts';
import type { ChannelRow } from '../channels/channels.service.ts';
import {
  channelLevelKey,
  claimChannelMovement,
  type LockedChannelLevel,
  lockChannelLevels,
} from '../inventory/claims.ts';
import { inventoryLevels } from '../inventory/inventory.tables.ts';
import { withDirtyMarkedOnce } from '../inventory/ledger.ts';
import { consumeStock, releaseReservation } from '../inventory/reservations.ts';
import { schedulePush } from '../inventory/schedule.ts';
import { locations } from '../locations/locations.tables.ts';
import { recordOrderMetrics } from '../metrics/metrics.record.ts';
import { listings, variants } from '../products/products.tables.ts';
import { countryCode } from '../routing/geo.ts';
import {
  linkDecision,
  lockLevelsFor,
  type RouteLine,
  type RoutingInputs,
  routeAndReserve,
  routingInputs,
} from '../routing/routing.allocate.ts';
import { type AllocationPlan, type OurLocation, storePlan } from './allocate.ts';
import { insertAllocations, type NewAllocation } from './orders.allocations.ts';
import { refundedSince } from './orders.refunds.ts';
import { orderAllocations, orderLines, orders } from './orders.tables.ts';
import {
  affectedChannels,
  recomputeFlags,
  type TimelineInput,
  writeTimeline,
  writeTimelines,
} from './orders.timeline.ts';

export type IngestChannel = Pick<ChannelRow, 'id' | 'accountId' | 'type' | 'name' | 'settings'>;
export type IngestOutcome = 'created' | 'updated' | 'unchanged' | 'older';

export interface IngestResult {
  orderId: string;
  outcome: IngestOutcome;
}

/** The status an order arrives in, from what its channel says. */
export function statusFromChannel(order: ProviderOrder): OrderStatus {
  if (order.cancelled) return 7;
  if (order.completedAtStore) return 3;
  const fs = (order.fulfillmentStatus ?? '').toLowerCase();
  if (fs === 'fulfilled' || fs === 'shipped' || fs === 'completed') return 3;
  if (fs === 'partial' || fs === 'partially_fulfilled' || fs === 'partially_shipped') return 2;
  if ((order.financialStatus ?? '').toLowerCase() === 'refunded') return 8;
  return 1;
}

/** Our location a channel's location is: by the channel's location map, else a store id equal to it (Square). */
export function locationResolver(settings: Pick<ChannelSettings, 'channel'>, ours: OurLocation[]) {
  const byStore = new Map(ours.map((l) => [l.storeId, l]));
  const mapped = new Map<string, OurLocation>();
  for (const m of settings.channel?.locationMap ?? []) {
    const location = m.storeId ? byStore.get(m.storeId) : undefined;
    if (location) mapped.set(m.externalLocationId, location);
  }
  return (externalId: string | null | undefined): OurLocation | null =>
    externalId ? (mapped.get(externalId) ?? byStore.get(externalId) ?? null) : null;
}

const searchTextOf = (order: ProviderOrder) =>
  [order.name, order.customer?.name, order.customer?.email, ...order.lines.map((l) => l.sku)]
    .filter(Boolean)
    .join(' ')
    .toLowerCase()
    .slice(0, 4000);

const lineLabel = (line: { sku: string | null; title: string }) => line.sku ?? line.title;

function headerOf(order: ProviderOrder) {
  const addr = (a: Record<string, string | null | undefined> | null | undefined) =>
    a
      ? {
          name: a.name ?? null,
          company: a.company ?? null,
          address1: a.address1 ?? null,
          address2: a.address2 ?? null,
          city: a.city ?? null,
          province: a.province ?? null,
          zip: a.zip ?? null,
          country: a.country ?? a.countryCode ?? a.country_code ?? null,
          phone: a.phone ?? null,
        }
      : null;
  const subtotal = order.subtotal ?? order.lines.reduce((s, l) => s + l.price * l.quantity, 0);
  return {
    number: order.name,
    fulfillmentType: order.fulfillmentType,
    customerName: order.customer?.name ?? null,
    customerEmail: order.customer?.email ?? null,
    customerPhone: order.customer?.phone ?? null,
    shippingAddress: addr(order.shippingAddress),
    billingAddress: addr(order.billingAddress as Record<string, string | null> | null | undefined),
    channelLocationId: order.locationExternalId,
    currency: order.currency || 'USD',
    subtotal,
    shippingTotal: order.shippingTotal ?? 0,
    discountTotal: order.discountTotal ?? 0,
    taxTotal: order.taxTotal ?? 0,
    total: order.total,
    financialStatus: order.financialStatus,
    fulfillmentStatus: order.fulfillmentStatus,
    note: order.note ?? null,
    tags: order.tags ?? [],
    adminUrl: order.adminUrl ?? null,
    itemCount: order.lines.reduce((s, l) => s + l.quantity, 0),
    searchText: searchTextOf(order),
    cancelledAt: order.cancelled ? new Date(order.cancelledAt ?? order.updatedAt) : null,
    cancelReason: order.cancelled ? (order.cancelReason ?? null) : null,
    placedAt: new Date(order.createdAt),
    providerUpdatedAt: new Date(order.updatedAt),
  };
}

/** The account's locations, as allocation and the channel's location map read them. */
const ourLocations = (tx: Tx, accountId: string): Promise<OurLocation[]> =>
  tx
    .select({
      id: locations.id,
      name: locations.name,
      storeId: locations.storeId,
      enabled: locations.enabled,
      ships: locations.ships,
      pickup: locations.pickup,
      priority: locations.priority,
    })
    .from(locations)
    .where(eq(locations.accountId, accountId));

/**
 * What the orders of one transaction share: read and locked once at its start, written once at its end.
 * Lock order, as a single import always took it: the orders' rows (by external id), then the channel's levels
 * the lines' claims meet (by variant, then channel location, as the stock pass takes them), then our levels of
 * every variant of the batch at every location (by variant, then location, as every reserve takes them).
 */
interface Batch {
  tx: Tx;
  channel: IngestChannel;
  ours: OurLocation[];
  resolve: ReturnType<typeof locationResolver>;
  variantOf: Map<string, { id: string }>;
  /** channel listing of each variant: the inventory item the channel keeps its stock against. */
  itemOf: Map<string, string>;
  /** The channel's levels the claims of the batch meet, locked up front (claims.ts lockChannelLevels). */
  channelLevels: Map<string, LockedChannelLevel>;
  /** Our levels of the batch's variants, locked up front at every location: no line locks its own. */
  levelsLocked: boolean;
  /** Routing's inputs (locations, live rules), read once for the batch on first use. */
  routing?: Promise<RoutingInputs>;
  touched: Set<string>;
  /** Timeline entries not written yet: written in one statement, before anything writes another timeline. */
  timeline: { orderId: string; entries: TimelineInput[] }[];
  /** Orders whose flag and rollups are computed again at the end (they changed). */
  changed: Set<string>;
  historical?: boolean;
}

interface IngestContext {
  tx: Tx;
  channel: IngestChannel;
  orderId: string;
  ours: OurLocation[];
  resolve: ReturnType<typeof locationResolver>;
  /** channel listing of each variant: the inventory item the channel keeps its stock against. */
  itemOf: Map<string, string>;
  timeline: TimelineInput[];
  variantsTouched: Set<string>;
  /** The first pull at connect: the channel's stock we started from has these orders in it. */
  historical?: boolean;
  /** The batch this order is taken in with, when it is one. */
  batch?: Batch;
  /** Lines written in this transaction with their claim flags already set (no update needed to mark them). */
  flaggedAtInsert?: Set<string>;
}

export interface IngestOptions {
  /** The first pull at connect: the channel's stock we started from has these orders in it. */
  historical?: boolean;
}

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
  const touched = new Set<string>();
  const results = await services.db.transaction((tx) => takeInBatch(tx, channel, [order], options, touched));
  await pushTouched(services, channel, touched);
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
    const touched = new Set<string>();
    try {
      // The variants the batch changes are marked for their pushes once, at its end (not once per movement).
      const results = await services.db.transaction((tx) =>
        withDirtyMarkedOnce(tx, channel.accountId, () => takeInBatch(tx, channel, chunk, options, touched)),
      );
      for (const [externalId, result] of results) out.set(externalId, result);
      await pushTouched(services, channel, touched);
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

/** After the commit: the channels listing what changed are pushed (one job per channel, whatever the count). */
async function pushTouched(services: Services, channel: IngestChannel, touched: Set<string>) {
  if (touched.size > 0)
    await schedulePush(services, await affectedChannels(services.db, channel.accountId, [...touched]));
}

/** The orders of one transaction, in external id order (see Batch for the locks); a result per external id. */
async function takeInBatch(
  tx: Tx,
  channel: IngestChannel,
  list: ProviderOrder[],
  options: IngestOptions,
  touched: Set<string>,
): Promise<Map<string, IngestResult>> {
  const sorted = [...list].sort((a, b) => (a.externalId < b.externalId ? -1 : a.externalId > b.externalId ? 1 : 0));
  const ours = await ourLocations(tx, channel.accountId);
  const resolve = locationResolver(channel.settings, ours);
  // The orders' rows first: new ones made (a pickup's store set with it), known ones locked.
  const rows = sorted.map((order) => {
    const store = resolve(order.locationExternalId);
    return {
      id: newId('ord'),
      accountId: channel.accountId,
      channelId: channel.id,
      externalId: order.externalId,
      status: statusFromChannel(order),
      ...headerOf(order),
      ...(order.fulfillmentType !== 'ship' && store ? { pickupLocationId: store.id } : {}),
    };
  });
  const inserted = await tx
    .insert(orders)
    .values(rows)
    .onConflictDoNothing()
    .returning({ id: orders.id, externalId: orders.externalId });
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
  // The catalog the lines name, and the channel's item of each variant.
  const skus = [...new Set(sorted.flatMap((o) => o.lines.map((l) => l.sku)).filter((x): x is string => !!x))];
  const found = skus.length
    ? await tx
        .select({ id: variants.id, sku: variants.sku })
        .from(variants)
        .where(and(eq(variants.accountId, channel.accountId), inArray(variants.sku, skus)))
    : [];
  const variantOf = new Map(found.map((v) => [v.sku, { id: v.id }]));
  const variantIds = [...new Set(found.map((v) => v.id))].sort();
  const items = variantIds.length
    ? await tx
        .select({ variantId: listings.variantId, inventoryItemId: listings.inventoryItemId })
        .from(listings)
        .where(and(eq(listings.channelId, channel.id), inArray(listings.variantId, variantIds)))
    : [];
  const itemOf = new Map(
    items.filter((i) => i.inventoryItemId).map((i) => [i.variantId, i.inventoryItemId as string] as const),
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
  if (variantIds.length > 0)
    await lockLevelsFor(
      tx,
      channel.accountId,
      variantIds,
      ours.map((l) => l.id),
    );
  const batch: Batch = {
    tx,
    channel,
    ours,
    resolve,
    variantOf,
    itemOf,
    channelLevels,
    levelsLocked: true,
    touched,
    timeline: [],
    changed: new Set(),
    historical: options.historical,
  };
  const results = new Map<string, IngestResult>();
  for (const order of sorted) {
    const id = createdId.get(order.externalId);
    if (id) {
      const ctx = contextFor(batch, id);
      await createOrder(ctx, order);
      batch.timeline.push({ orderId: id, entries: ctx.timeline });
      batch.changed.add(id);
      results.set(order.externalId, { orderId: id, outcome: 'created' });
      continue;
    }
    const row = existingOf.get(order.externalId);
    if (!row) throw new Error('order vanished while being imported');
    const incomingAt = new Date(order.updatedAt).getTime();
    if (incomingAt < row.providerUpdatedAt.getTime()) {
      results.set(order.externalId, { orderId: row.id, outcome: 'older' });
      continue;
    }
    const ctx = contextFor(batch, row.id);
    const changed = await updateOrder(ctx, row, order, incomingAt === row.providerUpdatedAt.getTime());
    batch.timeline.push({ orderId: row.id, entries: ctx.timeline });
    if (changed) batch.changed.add(row.id);
    results.set(order.externalId, { orderId: row.id, outcome: changed ? 'updated' : 'unchanged' });
  }
  await flushTimeline(batch);
  if (batch.changed.size > 0) {
    await recomputeFlags(tx, [...batch.changed]);
    await recordOrderMetrics(tx, channel.accountId, [...batch.changed]);
  }
  return results;
}

/** Writes the batch's pending timeline entries (one statement for all its orders). */
async function flushTimeline(batch: Batch) {
  const pending = batch.timeline.splice(0);
  await writeTimelines(batch.tx, batch.channel.accountId, pending);
}

function contextFor(batch: Batch, orderId: string): IngestContext & { variantOf: Map<string, { id: string }> } {
  return {
    tx: batch.tx,
    channel: batch.channel,
    orderId,
    ours: batch.ours,
    resolve: batch.resolve,
    itemOf: batch.itemOf,
    timeline: [],
    variantsTouched: batch.touched,
    variantOf: batch.variantOf,
    historical: batch.historical,
    batch,
    flaggedAtInsert: new Set(),
  };
}

/** The catalog of some lines, for a context outside a batch (claimCancelRestock). */
async function soloContext(
  tx: Tx,
  channel: IngestChannel,
  orderId: string,
  ours: OurLocation[],
  resolve: ReturnType<typeof locationResolver>,
  lines: ProviderOrderLine[],
  touched: Set<string>,
): Promise<IngestContext> {
  const skus = [...new Set(lines.map((l) => l.sku).filter((s): s is string => !!s))];
  const found = skus.length
    ? await tx
        .select({ id: variants.id, sku: variants.sku })
        .from(variants)
        .where(and(eq(variants.accountId, channel.accountId), inArray(variants.sku, skus)))
    : [];
  const variantIds = found.map((v) => v.id);
  const items = variantIds.length
    ? await tx
        .select({ variantId: listings.variantId, inventoryItemId: listings.inventoryItemId })
        .from(listings)
        .where(and(eq(listings.channelId, channel.id), inArray(listings.variantId, variantIds)))
    : [];
  const itemOf = new Map(
    items.filter((i) => i.inventoryItemId).map((i) => [i.variantId, i.inventoryItemId as string] as const),
  );
  return { tx, channel, orderId, ours, resolve, itemOf, timeline: [], variantsTouched: touched };
}

async function createOrder(ctx: IngestContext & { variantOf: Map<string, { id: string }> }, order: ProviderOrder) {
  const { tx, channel, orderId } = ctx;
  const label = CHANNEL_LABELS[channel.type];
  const status = statusFromChannel(order);
  ctx.timeline.push({
    kind: 'imported',
    message: `Imported from ${label} (${channel.name}) as ${status === 7 ? 'cancelled' : 'order'} ${order.name}.`,
    actor: channel.name,
    toStatus: status,
  });
  // The pickup store was set with the order's row (takeInBatch).
  const store = ctx.resolve(order.locationExternalId);
  const taken = order.lines.map((l) => l.stockLocationExternalId).find(Boolean);
  const takenAt = ctx.resolve(taken)?.id ?? null;
  // A POS sale complete at its store is sold there; every other line is routed (issue 14) once all are in.
  const plan = storePlan(store?.id ?? null, ctx.ours);
  const toRoute: RouteLine[] = [];
  const locationIds = ctx.ours.map((l) => l.id);
  // Already fulfilled at the channel before we knew it (not a POS sale): its units left before our ledger
  // counted them; recorded, with nothing to reserve.
  const settled = status === 3 && !order.completedAtStore;
  // Lines are taken in the order of their variants: the levels and channel rows they lock are then locked in
  // one order by every import and stock pass, so two orders with the same SKUs cannot deadlock.
  const variantOfLine = (l: ProviderOrderLine) => (l.sku ? (ctx.variantOf.get(l.sku)?.id ?? '') : '');
  const inLockOrder = order.lines
    .map((line, position) => ({
      line,
      position,
      id: newId('oli'),
      variant: line.sku ? ctx.variantOf.get(line.sku) : undefined,
      open: line.quantity - (line.cancelledQuantity ?? 0) - (line.refundedQuantity ?? 0),
    }))
    .sort((a, b) => {
      const [x, y] = [variantOfLine(a.line), variantOfLine(b.line)];
      return x < y ? -1 : x > y ? 1 : a.position - b.position;
    });
  // All lines in one statement, each with the claims it is about to make marked on it (the line is new: no one
  // else can have made them), so claimLine need not mark them one by one.
  const claims = (l: (typeof inLockOrder)[number]) => {
    if (!l.variant || l.open <= 0 || !claimable(ctx, l.variant.id, l.line)) return { taken: false, restock: false };
    if (status === 7) return { taken: true, restock: order.restockedOnCancel !== false };
    return { taken: !settled, restock: false };
  };
  if (inLockOrder.length > 0) {
    await tx.insert(orderLines).values(
      inLockOrder.map((l) => {
        const { line } = l;
        const marks = claims(l);
        if (marks.taken) ctx.flaggedAtInsert?.add(`${l.id}:taken`);
        if (marks.restock) ctx.flaggedAtInsert?.add(`${l.id}:restock`);
        return {
          id: l.id,
          accountId: channel.accountId,
          orderId,
          position: l.position,
          externalId: line.externalId,
          sku: line.sku,
          variantId: l.variant?.id ?? null,
          title: line.title,
          quantity: line.quantity,
          unitPrice: line.price,
          discount: line.discount ?? 0,
          tax: line.tax ?? 0,
          fulfilledQty: line.fulfilledQuantity ?? 0,
          cancelledQty: line.cancelledQuantity ?? 0,
          refundedQty: line.refundedQuantity ?? 0,
          stockLocationExternalId: line.stockLocationExternalId ?? null,
          channelClaimed: marks.taken,
          channelRestockClaimed: marks.restock,
        };
      }),
    );
  }
  /** Allocation rows written with the routed ones, in one statement (none of them holds units). */
  const held: NewAllocation[] = [];
  const row = (lineId: string, variantId: string | null, locationId: string | null, quantity: number) => ({
    id: newId('oal'),
    lineId,
    variantId,
    locationId,
    quantity,
    reserved: 0,
  });
  for (const { line, id: lineId, variant, open } of inLockOrder) {
    if (!variant) {
      const reason = `SKU ${line.sku ?? '(none)'} is not in the catalog.`;
      held.push({ ...row(lineId, null, null, open), status: 0, reason });
      ctx.timeline.push({ kind: 'flagged', message: `${lineLabel(line)}: ${reason}`, actor: 'Switchyard' });
      continue;
    }
    if (open <= 0) continue;
    if (status === 7) {
      // First seen cancelled: the channel took the units and (restocking) put them back. Both of its reports
      // are met, in whatever order they come, so neither counts.
      await claimLine(ctx, { id: lineId, variantId: variant.id }, line, -open, order.createdAt, 'taken');
      if (order.restockedOnCancel !== false) {
        const at = order.cancelledAt ?? order.updatedAt;
        await claimLine(ctx, { id: lineId, variantId: variant.id }, line, open, at, 'restock');
      }
      continue;
    }
    // The channel's own movement of these units first: a report it already made is reversed here, so the
    // store that took the sale can cover the line again before it is allocated.
    if (!settled) await claimLine(ctx, { id: lineId, variantId: variant.id }, line, -open, order.createdAt, 'taken');
    if (settled) {
      const at = takenAt ?? store?.id ?? ctx.ours.find((l) => l.enabled && l.ships)?.id ?? null;
      held.push({ ...row(lineId, variant.id, at, open), status: 3, reason: null });
      continue;
    }
    if (order.completedAtStore) {
      await allocateLine(ctx, { id: lineId, variantId: variant.id, label: lineLabel(line) }, open, plan);
      continue;
    }
    // The levels of this line's SKU at every location, locked now (after its claim, before the next SKU's);
    // a batch locked them all at its start, in the same order.
    if (!ctx.batch?.levelsLocked) await lockLevelsFor(tx, channel.accountId, [variant.id], locationIds);
    toRoute.push({ id: lineId, sku: line.sku, title: line.title, variantId: variant.id, quantity: open });
  }
  if (toRoute.length > 0) await routeLines(ctx, order, toRoute, store?.id ?? null, takenAt, held);
  else await insertAllocations(tx, channel.accountId, orderId, held);
}

/**
 * Routing (issue 14) places the order's lines by the merchant's rules, under the locks taken above, reserving in
 * this transaction: a row per location a line's units come from (status 1), or one at 4 (0 when no location could
 * be tried) that flags the order. The decision and its trace are routing's.
 */
async function routeLines(
  ctx: IngestContext,
  order: ProviderOrder,
  lines: RouteLine[],
  pickupLocationId: string | null,
  takenAt: string | null,
  held: NewAllocation[] = [],
) {
  const ship = order.shippingAddress ?? {};
  // A batch reads routing's inputs once (one transaction: the same as each order reading them).
  const batch = ctx.batch;
  if (batch)
    batch.routing ??= routingInputs(
      ctx.tx,
      ctx.channel.accountId,
      [...new Set([...batch.variantOf.values()].map((v) => v.id))].sort(),
    );
  const inputs = batch?.routing ? await batch.routing : undefined;
  const routed = await routeAndReserve(ctx.tx, ctx.channel.accountId, {
    ...inputs,
    orderId: ctx.orderId,
    order: {
      channelId: ctx.channel.id,
      channelName: ctx.channel.name,
      channelType: ctx.channel.type,
      fulfillmentType: order.fulfillmentType,
      pickupLocationId,
      channelLocationId: takenAt,
      country: countryCode(ship.countryCode ?? ship.country_code ?? ship.country ?? null),
      region: ship.provinceCode ?? ship.province ?? null,
      postalCode: ship.zip ?? null,
      total: order.total,
      currency: order.currency || 'USD',
    },
    lines,
    kind: 'initial',
  });
  const unplacedRows = routed.unplaced.map((u) => ({
    id: newId('oal'),
    lineId: u.lineId,
    variantId: u.variantId,
    locationId: null,
    quantity: u.quantity,
    status: u.status,
    reserved: 0,
    reason: u.reason,
  }));
  await insertAllocations(ctx.tx, ctx.channel.accountId, ctx.orderId, [
    ...held,
    ...routed.placements.map((p) => ({
      id: p.key,
      lineId: p.lineId,
      variantId: p.variantId,
      locationId: p.locationId,
      quantity: p.quantity,
      status: 1,
      reserved: p.quantity,
      reason: null,
    })),
    ...unplacedRows,
  ]);
  await linkDecision(
    ctx.tx,
    routed.decisionId,
    unplacedRows.map((r) => r.id),
  );
  for (const p of routed.placements) ctx.variantsTouched.add(p.variantId);
  ctx.timeline.push(...routed.timeline);
}

/** A POS sale complete at its store: its units left that store (consumed), or it is kept and flagged. */
async function allocateLine(
  ctx: IngestContext,
  line: { id: string; variantId: string; label: string },
  quantity: number,
  plan: AllocationPlan,
) {
  const { tx, channel, orderId } = ctx;
  const allocationId = newId('oal');
  const at = plan.candidates[0];
  if (!at) {
    await insertAllocation(ctx, line.id, line.variantId, null, quantity, 0, 0, plan.reason);
    ctx.timeline.push({ kind: 'flagged', message: `${line.label}: ${plan.reason}`, actor: 'Switchyard' });
    return;
  }
  await consumeStock(tx, channel.accountId, {
    variantId: line.variantId,
    locationId: at,
    quantity,
    reserved: 0,
    reference: orderId,
    key: allocationId,
  });
  ctx.variantsTouched.add(line.variantId);
  await insertAllocation(ctx, line.id, line.variantId, at, quantity, 3, 0, null, allocationId);
  ctx.timeline.push({
    kind: 'allocated',
    message: `${quantity} × ${line.label} sold at ${nameOf(ctx, at)}.`,
    actor: channel.name,
  });
  // Other orders' timelines may be written next: the batch's pending entries go first, in the order they came.
  if (ctx.batch) await flushTimeline(ctx.batch);
  await uncoverShortfall(tx, channel.accountId, line.variantId, at, nameOf(ctx, at), orderId);
}

const nameOf = (ctx: IngestContext, locationId: string) =>
  ctx.ours.find((l) => l.id === locationId)?.name ?? 'a location';

async function insertAllocation(
  ctx: IngestContext,
  lineId: string,
  variantId: string | null,
  locationId: string | null,
  quantity: number,
  status: number,
  reserved: number,
  reason: string | null,
  id = newId('oal'),
) {
  await ctx.tx.insert(orderAllocations).values({
    id,
    accountId: ctx.channel.accountId,
    orderId: ctx.orderId,
    lineId,
    variantId,
    locationId,
    quantity,
    status,
    reserved,
    reason,
  });
}

/** Whether claimLine would meet a movement of this line (the channel says where, lists it, and we map there). */
const claimable = (ctx: IngestContext, variantId: string, provider: ProviderOrderLine) =>
  !!provider.stockLocationExternalId && ctx.itemOf.has(variantId) && !!ctx.resolve(provider.stockLocationExternalId);

/**
 * Meets the channel's own movement of a line's units (−q taken with the order, +q put back on a cancel) in the
 * ledger's claims, once per line and kind (the line's flag, in this transaction).
 */
async function claimLine(
  ctx: IngestContext,
  line: { id: string; variantId: string },
  provider: ProviderOrderLine,
  qty: number,
  at: string,
  kind: 'taken' | 'restock',
) {
  const external = provider.stockLocationExternalId;
  const item = ctx.itemOf.get(line.variantId);
  const location = ctx.resolve(external);
  if (!external || !item || !location || qty === 0) return;
  // A line made in this transaction was written with its flag set (createOrder); any other is marked now.
  if (!ctx.flaggedAtInsert?.has(`${line.id}:${kind}`)) {
    const flag = kind === 'taken' ? orderLines.channelClaimed : orderLines.channelRestockClaimed;
    const [marked] = await ctx.tx
      .update(orderLines)
      .set(kind === 'taken' ? { channelClaimed: true } : { channelRestockClaimed: true })
      .where(and(eq(orderLines.id, line.id), eq(flag, false)))
      .returning({ id: orderLines.id });
    if (!marked) return;
  }
  const result = await claimChannelMovement(
    ctx.tx,
    ctx.channel.accountId,
    {
      channelId: ctx.channel.id,
      variantId: line.variantId,
      externalLocationId: external,
      inventoryItemId: item,
      locationId: location.id,
      qty,
      at: new Date(at),
      key: `${line.id}:${kind}`,
      reference: ctx.orderId,
      historical: ctx.historical,
    },
    ctx.batch?.channelLevels.get(channelLevelKey({ variantId: line.variantId, externalLocationId: external })),
  );
  if (result.reversed !== 0) ctx.variantsTouched.add(line.variantId);
}

type OrderRow = typeof orders.$inferSelect;

async function updateOrder(
  ctx: IngestContext & { variantOf: Map<string, { id: string }> },
  existing: OrderRow,
  order: ProviderOrder,
  sameTime: boolean,
): Promise<boolean> {
  const { tx, channel } = ctx;
  const header = headerOf(order);
  const lines = await tx.select().from(orderLines).where(eq(orderLines.orderId, existing.id));
  const byExternal = new Map(lines.map((l) => [l.externalId, l]));
  const wasCancelled = existing.status === 7;
  const cancelNow = order.cancelled && !wasCancelled;
  // Same provider time and nothing that moves stock: a duplicate report.
  if (sameTime && !cancelNow && !newlyFulfilled(order, byExternal)) return false;
  await tx
    .update(orders)
    .set({
      ...header,
      // Our status is ours once the order is here: only a cancel or a fulfilment at the channel moves it.
      status: existing.status,
      cancelledAt: existing.cancelledAt ?? header.cancelledAt,
      cancelReason: existing.cancelReason ?? header.cancelReason,
      updatedAt: new Date(),
    })
    .where(eq(orders.id, existing.id));
  for (const line of order.lines) {
    const ours = byExternal.get(line.externalId);
    if (!ours) continue;
    await tx
      .update(orderLines)
      .set({
        fulfilledQty: Math.max(ours.fulfilledQty, line.fulfilledQuantity ?? 0),
        cancelledQty: Math.max(ours.cancelledQty, line.cancelledQuantity ?? 0),
        refundedQty: Math.max(ours.refundedQty, line.refundedQuantity ?? 0),
      })
      .where(eq(orderLines.id, ours.id));
  }
  // The channel moved its own stock for a line only now (Square: when an order placed unpaid is paid).
  if (!order.cancelled && !wasCancelled) {
    for (const line of order.lines) {
      const ours = byExternal.get(line.externalId);
      if (!ours?.variantId || ours.channelClaimed || !line.stockLocationExternalId) continue;
      await tx
        .update(orderLines)
        .set({ stockLocationExternalId: line.stockLocationExternalId })
        .where(eq(orderLines.id, ours.id));
      const open = ours.quantity - ours.cancelledQty - ours.refundedQty;
      await claimLine(ctx, { id: ours.id, variantId: ours.variantId }, line, -open, order.updatedAt, 'taken');
    }
  }
  if (cancelNow) {
    for (const v of await cancelInTx(tx, channel.accountId, existing, {
      actor: channel.name,
      reason: order.cancelReason ?? null,
    }))
      ctx.variantsTouched.add(v);
    await tx
      .update(orders)
      .set({ status: 7, cancelledAt: header.cancelledAt ?? new Date(), cancelReason: order.cancelReason ?? null })
      .where(eq(orders.id, existing.id));
    ctx.timeline.push({
      kind: 'status',
      message: `Cancelled at ${CHANNEL_LABELS[channel.type]}; reserved units released.`,
      actor: channel.name,
      fromStatus: existing.status,
      toStatus: 7,
    });
    // What the channel puts back: the line's units still open before the cancel. The cancel's own refund, when
    // taken in first (returns), already counts among the refunded units: it is no earlier refund (orders.refunds.ts).
    const cancelledAt = order.cancelledAt ?? order.updatedAt;
    const cancelRefund =
      order.restockedOnCancel === false ? null : await refundedSince(tx, existing.id, new Date(cancelledAt));
    for (const line of order.lines) {
      const ours = byExternal.get(line.externalId);
      if (!ours?.variantId || !ours.channelClaimed || !cancelRefund) continue;
      const refundedBefore = Math.max(0, ours.refundedQty - (cancelRefund.get(ours.id) ?? 0));
      await claimLine(
        ctx,
        { id: ours.id, variantId: ours.variantId },
        line,
        ours.quantity - ours.cancelledQty - refundedBefore,
        cancelledAt,
        'restock',
      );
    }
    return true;
  }
  if (!wasCancelled && newlyFulfilled(order, byExternal)) {
    await fulfilFromChannel(ctx, existing, order, byExternal);
  }
  return true;
}

const newlyFulfilled = (order: ProviderOrder, byExternal: Map<string, { fulfilledQty: number }>) =>
  order.lines.some((l) => (l.fulfilledQuantity ?? 0) > (byExternal.get(l.externalId)?.fulfilledQty ?? 0));

/** Units the channel reports fulfilled since: consumed from the line's open allocations, in order. */
async function fulfilFromChannel(
  ctx: IngestContext,
  existing: OrderRow,
  order: ProviderOrder,
  byExternal: Map<string, typeof orderLines.$inferSelect>,
) {
  const { tx, channel } = ctx;
  let all = true;
  for (const line of order.lines) {
    const ours = byExternal.get(line.externalId);
    if (!ours) continue;
    let units = (line.fulfilledQuantity ?? 0) - ours.fulfilledQty;
    const open = ours.quantity - ours.cancelledQty - ours.refundedQty;
    if ((line.fulfilledQuantity ?? 0) < open) all = false;
    if (units <= 0) continue;
    const allocations = await tx
      .select()
      .from(orderAllocations)
      .where(and(eq(orderAllocations.lineId, ours.id), inArray(orderAllocations.status, [1, 2])))
      .orderBy(orderAllocations.createdAt)
      .for('update');
    for (const a of allocations) {
      if (units <= 0 || !a.locationId || !a.variantId) continue;
      const take = Math.min(units, a.reserved);
      if (take <= 0) continue;
      units -= take;
      await consumeStock(tx, channel.accountId, {
        variantId: a.variantId,
        locationId: a.locationId,
        quantity: take,
        reserved: take,
        reference: existing.id,
        key: `${a.id}:${ours.fulfilledQty + take}`,
      });
      ctx.variantsTouched.add(a.variantId);
      await tx
        .update(orderAllocations)
        .set({ reserved: a.reserved - take, status: a.reserved - take === 0 ? 3 : a.status, updatedAt: new Date() })
        .where(eq(orderAllocations.id, a.id));
    }
  }
  const to: OrderStatus = all ? 3 : 2;
  if (to !== existing.status) {
    await tx.update(orders).set({ status: to }).where(eq(orders.id, existing.id));
    ctx.timeline.push({
      kind: 'status',
      message: `${all ? 'Fulfilled' : 'Partly fulfilled'} at ${CHANNEL_LABELS[channel.type]}.`,
      actor: channel.name,
      fromStatus: existing.status,
      toStatus: to,
    });
  }
}

/**
 * Releases every unit the order holds (its allocations' reservations), in the caller's transaction. The caller
 * sets the status and writes the timeline.
 */
export async function cancelInTx(
  tx: Tx,
  accountId: string,
  order: Pick<OrderRow, 'id'>,
  by: { actor: string; reason: string | null; userId?: string | null },
): Promise<string[]> {
  const held = await tx
    .select()
    .from(orderAllocations)
    .where(and(eq(orderAllocations.orderId, order.id), sql`${orderAllocations.reserved} > 0`))
    .for('update');
  const variantIds: string[] = [];
  for (const a of held) {
    if (!a.variantId || !a.locationId) continue;
    await releaseReservation(tx, accountId, {
      variantId: a.variantId,
      locationId: a.locationId,
      quantity: a.reserved,
      reference: order.id,
      key: `${a.id}:cancel`,
      userId: by.userId ?? null,
    });
    variantIds.push(a.variantId);
  }
  await tx
    .update(orderAllocations)
    .set({ reserved: 0, updatedAt: new Date() })
    .where(and(eq(orderAllocations.orderId, order.id), sql`${orderAllocations.reserved} > 0`));
  return variantIds;
}

/**
 * After a cancel made here was written back: the channel put the units it had taken back on its own stock, and
 * its report of that is met, not counted (each line once; the channel's cancel webhook may have done it first).
 */
export async function claimCancelRestock(services: Services, channel: IngestChannel, orderId: string, at: string) {
  const touched = new Set<string>();
  await services.db.transaction(async (tx) => {
    const lines = await tx
      .select()
      .from(orderLines)
      .where(and(eq(orderLines.orderId, orderId), eq(orderLines.accountId, channel.accountId)));
    const ours = await ourLocations(tx, channel.accountId);
    const provided = lines.map((l) => ({
      externalId: l.externalId,
      sku: l.sku,
      variantExternalId: null,
      title: l.title,
      quantity: l.quantity,
      price: l.unitPrice,
      stockLocationExternalId: l.stockLocationExternalId,
    }));
    const ctx = await soloContext(
      tx,
      channel,
      orderId,
      ours,
      locationResolver(channel.settings, ours),
      provided,
      touched,
    );
    // The cancel's own refund at the channel may have been taken in first (as in updateOrder).
    const cancelRefund = await refundedSince(tx, orderId, new Date(at));
    for (const [i, line] of lines.entries()) {
      if (!line.variantId || !line.channelClaimed) continue;
      const open = line.quantity - line.cancelledQty - Math.max(0, line.refundedQty - (cancelRefund.get(line.id) ?? 0));
      await claimLine(
        ctx,
        { id: line.id, variantId: line.variantId },
        provided[i] as ProviderOrderLine,
        open,
        at,
        'restock',
      );
    }
  });
  if (touched.size > 0)
    await schedulePush(services, await affectedChannels(services.db, channel.accountId, [...touched]));
}

/**
 * A sale at the store took units other orders held there (a POS sale cannot be refused): the newest
 * reservations no longer covered are released and flagged (status 4) for routing again, so reserved never
 * exceeds on hand. Each such order says why on its timeline.
 */
async function uncoverShortfall(
  tx: Tx,
  accountId: string,
  variantId: string,
  locationId: string,
  locationName: string,
  byOrderId: string,
) {
  const [lvl] = await tx
    .select({ onHand: inventoryLevels.onHand, reserved: inventoryLevels.reserved })
    .from(inventoryLevels)
    .where(and(eq(inventoryLevels.variantId, variantId), eq(inventoryLevels.locationId, locationId)));
  let short = lvl ? lvl.reserved - Math.max(lvl.onHand, 0) : 0;
  if (short <= 0) return;
  const held = await tx
    .select()
    .from(orderAllocations)
    .where(
      and(
        eq(orderAllocations.accountId, accountId),
        eq(orderAllocations.variantId, variantId),
        eq(orderAllocations.locationId, locationId),
        eq(orderAllocations.status, 1),
        sql`${orderAllocations.reserved} > 0`,
      ),
    )
    .orderBy(desc(orderAllocations.createdAt), desc(orderAllocations.id))
    .for('update');
  for (const a of held) {
    if (short <= 0) break;
    await releaseReservation(tx, accountId, {
      variantId,
      locationId,
      quantity: a.reserved,
      reference: a.orderId,
      key: `${a.id}:short:${byOrderId}`,
    });
    short -= a.reserved;
    const reason = `A sale at ${locationName} took the units reserved for this line.`;
    await tx
      .update(orderAllocations)
      .set({ status: 4, reserved: 0, reason, updatedAt: new Date() })
      .where(eq(orderAllocations.id, a.id));
    await writeTimeline(tx, accountId, a.orderId, [{ kind: 'flagged', message: reason, actor: 'Switchyard' }]);
    await recomputeFlags(tx, a.orderId);
  }
}
