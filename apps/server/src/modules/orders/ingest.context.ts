// What taking an order in works with (ingest.ts): the channel, the batch of orders one transaction takes in, one
// order's context, and the order's header as the channel reports it.
import type { ChannelSettings, OrderStatus } from '@switchyard/contracts';
import { and, eq, inArray } from 'drizzle-orm';
import type { ProviderOrder, ProviderOrderLine } from '../../connectors/types.ts';
import type { Tx } from '../../db/client.ts';
import { insertRows } from '../../db/insert-rows.ts';
import type { ChannelRow } from '../channels/channels.service.ts';
import type { LockedChannelLevel } from '../inventory/claims.ts';
import type { DeferredLedger } from '../inventory/ledger.deferred.ts';
import { accountLocations } from '../locations/locations.read.ts';
import { listings, products, variants } from '../products/products.tables.ts';
import type { EngineLocation } from '../routing/engine.types.ts';
import {
  type DeferredRouting,
  type ItemFacts,
  type RoutingInputs,
  writeDecisions,
} from '../routing/routing.allocate.ts';
import { engineLocations } from '../routing/routing.service.ts';
import type { OurLocation } from './allocate.ts';
import { orderAllocations, orderLines, type orders } from './orders.tables.ts';
import { type TimelineInput, writeTimelines } from './orders.timeline.ts';

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

export const searchTextOf = (order: ProviderOrder) =>
  [order.name, order.customer?.name, order.customer?.email, ...order.lines.map((l) => l.sku)]
    .filter(Boolean)
    .join(' ')
    .toLowerCase()
    .slice(0, 4000);

export const lineLabel = (line: { sku: string | null; title: string }) => line.sku ?? line.title;

export function headerOf(order: ProviderOrder) {
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

/** The account's locations in one read: as routing's engine sees them, and as allocation and the location map do. */
export async function batchLocations(tx: Tx, accountId: string) {
  const locations = await engineLocations(tx, accountId);
  const ours: OurLocation[] = locations.map(({ latitude, longitude, ...l }) => ({ ...l, storeId: l.storeId ?? '' }));
  return { locations, ours };
}

/** The account's locations, as allocation and the channel's location map read them. */
export const ourLocations = async (tx: Tx, accountId: string): Promise<OurLocation[]> =>
  (await accountLocations(tx, accountId)).map((l) => ({ ...l, storeId: l.storeId ?? '' }));

/**
 * What the orders of one transaction share: read and locked once at its start, written once at its end.
 * Lock order, as a single import always took it: the orders' rows (by external id), then the channel's levels
 * the lines' claims meet (by variant, then channel location, as the stock pass takes them), then our levels of
 * every variant of the batch at every location (by variant, then location, as every reserve takes them).
 */
export interface Batch {
  tx: Tx;
  channel: IngestChannel;
  ours: OurLocation[];
  resolve: ReturnType<typeof locationResolver>;
  variantOf: Map<string, { id: string }>;
  /** channel listing of each variant: the inventory item the channel keeps its stock against. */
  itemOf: Map<string, string>;
  /** The channel's levels the claims of the batch meet, locked up front (claims.ts lockChannelLevels). */
  channelLevels: Map<string, LockedChannelLevel>;
  /** The account's locations as routing sees them (`ours` is the same read). */
  locations: EngineLocation[];
  /** Brand and product type of each variant the lines name (read with the catalog). */
  facts: Map<string, ItemFacts>;
  /** Routing's inputs (locations, live rules), read once for the batch on first use. */
  routing?: Promise<RoutingInputs>;
  touched: Set<string>;
  /** Timeline entries not written yet: written in one statement, before anything writes another timeline. */
  timeline: { orderId: string; entries: TimelineInput[] }[];
  /** Orders whose flag and rollups are computed again at the end (they changed). */
  changed: Set<string>;
  historical?: boolean;
  /** What the batch's new orders write, kept until its end or until something else needs it written. */
  writes: BatchWrites;
}

/**
 * The rows a batch's new orders make, kept and written together (`settleWrites`): their lines and allocations,
 * and (through routing and the ledger) their decisions, claims, reservations and reversals. Every level they
 * move is locked at the batch's start, so writing later changes no lock and no outcome, only the statements.
 */
export interface BatchWrites {
  ledger: DeferredLedger;
  routing: DeferredRouting;
  lines: (typeof orderLines.$inferInsert)[];
  allocations: (typeof orderAllocations.$inferInsert)[];
}

export function batchWrites(ledger: DeferredLedger): BatchWrites {
  return { ledger, routing: { ledger, decisions: [] }, lines: [], allocations: [] };
}

/**
 * Writes what the batch kept: lines, then allocations (they name the lines), decisions, then the ledger's claims
 * and movements. Before anything reads those rows or moves stock outside the kept ledger; then the ledger's view
 * of the levels is read again when next needed.
 */
export async function settleWrites(batch: Batch) {
  const w = batch.writes;
  await insertRows(batch.tx, orderLines, w.lines.splice(0));
  await insertRows(batch.tx, orderAllocations, w.allocations.splice(0));
  await writeDecisions(batch.tx, w.routing);
  await w.ledger.settle();
}

export interface IngestContext {
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

/** Writes the batch's pending timeline entries (one statement for all its orders). */
export async function flushTimeline(batch: Batch) {
  const pending = batch.timeline.splice(0);
  await writeTimelines(batch.tx, batch.channel.accountId, pending);
}

/** One order's context in a batch (every order taken in is: `ingestOrder` is a batch of one). */
export type BatchContext = IngestContext & { variantOf: Map<string, { id: string }>; batch: Batch };

export function contextFor(batch: Batch, orderId: string): BatchContext {
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
export async function soloContext(
  tx: Tx,
  channel: IngestChannel,
  orderId: string,
  ours: OurLocation[],
  resolve: ReturnType<typeof locationResolver>,
  lines: ProviderOrderLine[],
  touched: Set<string>,
): Promise<IngestContext> {
  const { itemOf } = await catalogOf(tx, channel, lines);
  return { tx, channel, orderId, ours, resolve, itemOf, timeline: [], variantsTouched: touched };
}

/**
 * The catalog some lines name, in one read: our variant of each SKU, the variants (sorted, the order their levels
 * are locked in), the channel's inventory item of each variant it lists, and each variant's brand and product type
 * (routing's item conditions).
 */
export async function catalogOf(tx: Tx, channel: IngestChannel, lines: Pick<ProviderOrderLine, 'sku'>[]) {
  const skus = [...new Set(lines.map((l) => l.sku).filter((s): s is string => !!s))];
  const found = skus.length
    ? await tx
        .select({
          id: variants.id,
          sku: variants.sku,
          brand: products.brand,
          productType: products.productType,
          inventoryItemId: listings.inventoryItemId,
        })
        .from(variants)
        .innerJoin(products, eq(products.id, variants.productId))
        .leftJoin(listings, and(eq(listings.variantId, variants.id), eq(listings.channelId, channel.id)))
        .where(and(eq(variants.accountId, channel.accountId), inArray(variants.sku, skus)))
    : [];
  const variantOf = new Map(found.map((v) => [v.sku, { id: v.id }]));
  const variantIds = [...new Set(found.map((v) => v.id))].sort();
  const itemOf = new Map(
    found.filter((v) => v.inventoryItemId).map((v) => [v.id, v.inventoryItemId as string] as const),
  );
  const facts = new Map<string, ItemFacts>(
    found.map((v) => [v.id, { brand: v.brand, productType: v.productType }] as const),
  );
  return { variantOf, variantIds, itemOf, facts };
}

export const nameOf = (ctx: IngestContext, locationId: string) =>
  ctx.ours.find((l) => l.id === locationId)?.name ?? 'a location';

export type OrderRow = typeof orders.$inferSelect;
