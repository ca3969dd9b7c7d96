// Available to sell (DESIGN §3, issue 6): the one computation used by the push, reconciliation and the
// product view. For channel C, channel location X mapped to our location L, and variant V:
//   available = max(0, on_hand(V, L) − reserved(V, L) − buffer(V.sku, L.store_id, C) − C.advanced.safetyStock)
// A channel location is pushed only when it feeds the channel and its storeId names one of our locations;
// a disabled location pushes 0.
import type { ChannelSettings } from '@switchyard/contracts';
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.ts';
import { inList } from '../../db/rows.ts';
import { buffers } from '../buffers/buffers.tables.ts';
import { channels } from '../channels/channels.tables.ts';
import { accountLocations } from '../locations/locations.read.ts';
import { listings, variants } from '../products/products.tables.ts';
import { channelStock, inventoryLevels } from './inventory.tables.ts';

// ------------------------------------------------------------------------------------------------ pure

/** One channel of a dense computation: which of our locations each of its pushed locations reads. */
export interface AvailableChannel {
  /** Units held back on every SKU and location (advanced.safetyStock). */
  safetyStock: number;
  /**
   * For each channel location pushed, the index of our location in the level matrices, or −1 when it maps
   * to a disabled location (pushes 0).
   */
  locationIndex: Int32Array;
  /**
   * Dynamic buffers as parallel arrays: variant index, channel-location index (into locationIndex), qty.
   * Optional; a (variant, location) pair should appear at most once (a later one wins).
   */
  bufferVariant?: Int32Array;
  bufferLocation?: Int32Array;
  bufferQty?: Int32Array;
}

export interface AvailableInput {
  variantCount: number;
  locationCount: number;
  /** on_hand and reserved, row-major [variant * locationCount + location]. */
  onHand: Int32Array;
  reserved: Int32Array;
  channels: AvailableChannel[];
}

/**
 * Dense, allocation-light computation: for each channel, an Int32Array laid out
 * [variant * channelLocations + channelLocation] holding the quantity to push.
 * 100,000 variants × 20 locations × 5 channels is a few tens of milliseconds.
 */
export function computeAvailable(input: AvailableInput): Int32Array[] {
  const { variantCount, locationCount, onHand, reserved } = input;
  // net = on_hand − reserved once per level, shared by every channel.
  const cells = variantCount * locationCount;
  const net = new Int32Array(cells);
  for (let i = 0; i < cells; i++) net[i] = (onHand[i] as number) - (reserved[i] as number);
  const out: Int32Array[] = [];
  for (const channel of input.channels) {
    const map = channel.locationIndex;
    const width = map.length;
    const safety = channel.safetyStock | 0;
    const result = new Int32Array(variantCount * width);
    for (let c = 0; c < width; c++) {
      const l = map[c] as number;
      if (l < 0) continue; // a disabled location: 0
      let src = l;
      let dst = c;
      for (let v = 0; v < variantCount; v++) {
        const a = (net[src] as number) - safety;
        result[dst] = a > 0 ? a : 0;
        src += locationCount;
        dst += width;
      }
    }
    const bv = channel.bufferVariant;
    const bl = channel.bufferLocation;
    const bq = channel.bufferQty;
    if (bv && bl && bq) {
      for (let b = 0; b < bv.length; b++) {
        const v = bv[b] as number;
        const c = bl[b] as number;
        const l = map[c] as number;
        if (l < 0) continue;
        const a = (net[v * locationCount + l] as number) - safety - (bq[b] as number);
        result[v * width + c] = a > 0 ? a : 0;
      }
    }
    out.push(result);
  }
  return out;
}

/** The formula for one cell, for code that handles a handful of numbers (webhooks, tests). */
export const availableOf = (onHand: number, reserved: number, buffer: number, safetyStock: number, enabled = true) =>
  enabled ? Math.max(0, onHand - reserved - buffer - safetyStock) : 0;

// --------------------------------------------------------------------------------------- from the db

/** A channel location we push to, resolved to our location. */
export interface PushedLocation {
  externalLocationId: string;
  locationId: string;
  storeId: string;
  enabled: boolean;
}

/**
 * The channel locations that are pushed: feeding, and mapped (storeId) to one of our locations. Pure over
 * the channel's settings and the account's locations.
 */
export function pushedLocations(
  settings: Pick<ChannelSettings, 'channel'>,
  ours: { id: string; storeId: string; enabled: boolean }[],
): PushedLocation[] {
  const byStore = new Map(ours.map((l) => [l.storeId, l]));
  const result: PushedLocation[] = [];
  for (const m of settings.channel?.locationMap ?? []) {
    if (!m.feeds || !m.storeId) continue;
    const location = byStore.get(m.storeId);
    if (!location) continue;
    result.push({
      externalLocationId: m.externalLocationId,
      locationId: location.id,
      storeId: location.storeId,
      enabled: location.enabled,
    });
  }
  return result;
}

export interface AvailableRow {
  channelId: string;
  variantId: string;
  sku: string;
  externalLocationId: string;
  locationId: string;
  storeId: string;
  locationEnabled: boolean;
  inventoryItemId: string;
  onHand: number;
  reserved: number;
  buffer: number;
  safetyStock: number;
  available: number;
  /** What we know the channel holds (channel_stock), for the product view and the push's diff. */
  pushedQty: number | null;
  pushedAt: Date | null;
  pendingQty: number | null;
  channelQty: number | null;
  channelQtyAt: Date | null;
  channelQtySeenAt: Date | null;
}

export interface LoadAvailableOptions {
  variantIds?: string[];
  channelIds?: string[];
  /** Only live channels (connected or error) with the inventory feature on: what the push uses. Default false. */
  pushableOnly?: boolean;
  /**
   * The channels, as the caller has just read them (the push reads its channel first): not read again. Only
   * those of `channelIds` (and pushable, with `pushableOnly`) are used.
   */
  channels?: Pick<typeof channels.$inferSelect, 'id' | 'accountId' | 'status' | 'features' | 'settings'>[];
}

const CHUNK = 2000;

interface JoinedRow {
  channel_id: string;
  variant_id: string;
  inventory_item_id: string;
  sku: string;
  external_location_id: string;
  location_id: string;
  store_id: string;
  enabled: boolean;
  on_hand: number | null;
  reserved: number | null;
  buffer: number | null;
  pushed_qty: number | null;
  pushed_at: Date | string | null;
  pending_qty: number | null;
  channel_qty: number | null;
  channel_qty_at: Date | string | null;
  channel_qty_seen_at: Date | string | null;
}

/** A timestamp as the driver hands it back (a Date, or its text on drivers that do not parse it). */
const asDate = (value: Date | string | null) =>
  value === null ? null : value instanceof Date ? value : new Date(value);

/**
 * Available quantities for the listings of the account (optionally of some variants and/or channels), one
 * row per (channel, variant, pushed channel location). The product view shows them; the push diffs them.
 */
export async function loadAvailable(
  db: Db | Tx,
  accountId: string,
  options: LoadAvailableOptions = {},
): Promise<AvailableRow[]> {
  if (options.variantIds && options.variantIds.length === 0) return [];
  if (options.channelIds && options.channelIds.length === 0) return [];
  const pushable = (c: { status: string; features: { inventory?: boolean } | null }) =>
    ['connected', 'error'].includes(c.status) && !!c.features?.inventory;
  const channelRows = options.channels
    ? options.channels.filter(
        (c) =>
          c.accountId === accountId &&
          (!options.channelIds || options.channelIds.includes(c.id)) &&
          (!options.pushableOnly || pushable(c)),
      )
    : await db
        .select({
          id: channels.id,
          status: channels.status,
          features: channels.features,
          settings: channels.settings,
        })
        .from(channels)
        .where(
          and(
            eq(channels.accountId, accountId),
            options.channelIds ? inArray(channels.id, options.channelIds) : undefined,
            options.pushableOnly
              ? sql`${channels.status} in ('connected', 'error') and (${channels.features} ->> 'inventory')::boolean`
              : undefined,
          ),
        );
  if (channelRows.length === 0) return [];
  const ours = await accountLocations(db, accountId);
  const mapped = new Map(channelRows.map((c) => [c.id, pushedLocations(c.settings, ours)]));
  const channelIds = channelRows.filter((c) => (mapped.get(c.id)?.length ?? 0) > 0).map((c) => c.id);
  if (channelIds.length === 0) return [];
  const settingsOf = new Map(channelRows.map((c) => [c.id, c.settings]));

  const variantChunks: (string[] | undefined)[] = [];
  if (options.variantIds) {
    const unique = [...new Set(options.variantIds)];
    for (let i = 0; i < unique.length; i += CHUNK) variantChunks.push(unique.slice(i, i + CHUNK));
  } else variantChunks.push(undefined);

  // Every pushed channel location, as one jsonb parameter the query joins each listing with.
  const mapping = channelIds.flatMap((channelId) =>
    (mapped.get(channelId) ?? []).map((at, order) => ({
      c: channelId,
      e: at.externalLocationId,
      l: at.locationId,
      s: at.storeId,
      on: at.enabled,
      o: order,
    })),
  );
  const rows: AvailableRow[] = [];
  for (const chunk of variantChunks) {
    // One statement per chunk: each listing × each of its channel's pushed locations, with the level, the
    // dynamic buffer and what we know the channel holds (all three unique per row, so no row repeats).
    const result = await db.execute(sql`
      select l.channel_id, l.variant_id, l.inventory_item_id, v.sku, m.e as external_location_id,
        m.l as location_id, m.s as store_id, m.on as enabled,
        il.on_hand, il.reserved, b.qty as buffer,
        cs.pushed_qty, cs.pushed_at, cs.pending_qty, cs.channel_qty, cs.channel_qty_at, cs.channel_qty_seen_at
      from ${listings} l
      join ${variants} v on v.id = l.variant_id
      join jsonb_to_recordset(${JSON.stringify(mapping)}::jsonb)
        as m(c text, e text, l text, s text, "on" boolean, o int) on m.c = l.channel_id
      left join ${inventoryLevels} il on il.variant_id = l.variant_id and il.location_id = m.l
      left join ${buffers} b on b.account_id = ${accountId} and b.channel_id = l.channel_id and b.sku = v.sku
        and b.location_external_id = m.s
      left join ${channelStock} cs on cs.channel_id = l.channel_id and cs.variant_id = l.variant_id
        and cs.external_location_id = m.e
      where l.account_id = ${accountId} and l.inventory_item_id is not null
        and ${inList(sql`l.channel_id`, channelIds)}
        ${chunk ? sql`and ${inList(sql`l.variant_id`, chunk)}` : sql``}
      order by l.channel_id, l.variant_id, m.o`);
    const joined = ((result as { rows?: JoinedRow[] }).rows ?? result) as JoinedRow[];
    for (const r of joined) {
      const safetyStock = settingsOf.get(r.channel_id)?.advanced?.safetyStock ?? 0;
      const onHand = r.on_hand ?? 0;
      const reserved = r.reserved ?? 0;
      const buffer = r.buffer ?? 0;
      rows.push({
        channelId: r.channel_id,
        variantId: r.variant_id,
        sku: r.sku,
        externalLocationId: r.external_location_id,
        locationId: r.location_id,
        storeId: r.store_id,
        locationEnabled: r.enabled,
        inventoryItemId: r.inventory_item_id,
        onHand,
        reserved,
        buffer,
        safetyStock,
        available: availableOf(onHand, reserved, buffer, safetyStock, r.enabled),
        pushedQty: r.pushed_qty,
        pushedAt: asDate(r.pushed_at),
        pendingQty: r.pending_qty,
        channelQty: r.channel_qty,
        channelQtyAt: asDate(r.channel_qty_at),
        channelQtySeenAt: asDate(r.channel_qty_seen_at),
      });
    }
  }
  return rows;
}
