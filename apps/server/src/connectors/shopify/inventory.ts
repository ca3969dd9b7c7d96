/**
 * Shopify inventory: levels read page by page (per location) or by item/location pair, and set with
 * inventorySetQuantities (compare-and-set where the change carries a compareQuantity).
 */

import { byLevel } from '../inventory-order.ts';
import type { InventoryLevel, InventorySet, InventorySetResult, Page, ProviderLocation } from '../types.ts';
import { SHOPIFY_IDEMPOTENT_VERSION } from './client.ts';
import {
  batches,
  type Connection,
  decodeCursor,
  describe,
  encodeCursor,
  type ShopifyHost,
  type UserError,
} from './graphql.ts';
import { SET_QUANTITIES_MUTATION, SET_QUANTITIES_ONCE_MUTATION } from './inventory-queries.ts';

type InventoryHost = ShopifyHost & { listLocations(): Promise<ProviderLocation[]> };

/** Shopify takes at most 250 rows in one inventorySetQuantities. */
export const SHOPIFY_INVENTORY_BATCH = 250;

// Page sizes are chosen so each query's requested cost stays under Shopify's 1,000-point single-query cap.
const LEVELS_PAGE = 250;
const READBACK_BATCH = 100;

/**
 * Levels page by location (each location's levels with `available`), so one page is one cheap query.
 * The cursor carries the locations still to read and the position inside the current one.
 */
export async function getInventoryLevels(
  host: InventoryHost,
  input: {
    cursor: string | null;
    locationExternalIds?: string[];
  },
): Promise<Page<InventoryLevel>> {
  let state: { locations: string[]; index: number; after: string | null };
  if (input.cursor) state = decodeCursor(input.cursor);
  else {
    const locations =
      input.locationExternalIds ?? (await host.listLocations()).filter((l) => l.active).map((l) => l.externalId);
    state = { locations, index: 0, after: null };
  }
  const locationId = state.locations[state.index];
  if (!locationId) return { items: [], nextCursor: null };
  const data = await host.client.request<{
    location: {
      inventoryLevels: Connection<{ item: { id: string }; quantities: { name: string; quantity: number }[] }>;
    } | null;
  }>(
    `query($id: ID!, $after: String) { location(id: $id) { inventoryLevels(first: ${LEVELS_PAGE}, after: $after) {
      nodes { item { id } quantities(names: ["available"]) { name quantity } } pageInfo { hasNextPage endCursor } } } }`,
    { id: locationId, after: state.after },
    753,
  );
  const levels = data.location?.inventoryLevels;
  const items: InventoryLevel[] = (levels?.nodes ?? []).map((n) => ({
    inventoryItemId: n.item.id,
    locationExternalId: locationId,
    available: n.quantities.find((q) => q.name === 'available')?.quantity ?? 0,
  }));
  const next = levels?.pageInfo.hasNextPage
    ? { ...state, after: levels.pageInfo.endCursor }
    : { ...state, index: state.index + 1, after: null };
  return { items, nextCursor: next.index < next.locations.length ? encodeCursor(next) : null };
}

/**
 * inventorySetQuantities in batches of 250 ("available", reason "correction"). Rows with a
 * compareQuantity go in compare-and-set batches, the others with ignoreCompareQuantity. Shopify applies
 * a batch all or nothing: rows it names in userErrors are set aside (a stale compareQuantity is a
 * mismatch: someone else changed the level) and the rest is resent. Only when an attempt of the call may
 * have been applied before it failed (a timeout, a dropped connection, a 5xx) can a stale row be our own
 * change landing: then a read-back that shows the quantity we wanted counts it applied.
 */
export async function setInventory(
  host: InventoryHost,
  changes: InventorySet[],
  idempotencyKey?: string,
): Promise<InventorySetResult> {
  const result: InventorySetResult = { applied: [], failed: [] };
  // With a key, in one stable order: a repeat must ask exactly what the first call asked.
  const ordered = idempotencyKey ? [...changes].sort(byLevel) : changes;
  const guarded = ordered.filter((c) => c.compareQuantity != null);
  const unguarded = ordered.filter((c) => c.compareQuantity == null);
  for (const [g, group] of [guarded, unguarded].entries())
    for (const [b, batch] of batches(group, SHOPIFY_INVENTORY_BATCH).entries())
      await setBatch(host, batch, result, idempotencyKey ? `${idempotencyKey}.${g}.${b}` : undefined);
  return result;
}

/** A stale compare-and-set row: the level held something other than the quantity compared with. */
const STALE = new Set(['COMPARE_QUANTITY_STALE', 'CHANGE_FROM_QUANTITY_STALE']);

async function setBatch(host: InventoryHost, batch: InventorySet[], result: InventorySetResult, key?: string) {
  let pending = batch;
  const stale: InventorySet[] = [];
  let uncertain = false;
  // Each request of the batch (the rows a refusal left are sent again) has a key of its own.
  for (let attempt = 0; pending.length > 0; attempt++) {
    const compare = pending[0]?.compareQuantity != null;
    const rows = pending.map((c) => ({
      inventoryItemId: c.inventoryItemId,
      locationId: c.locationExternalId,
      quantity: c.quantity,
      ...(key
        ? { changeFromQuantity: compare ? c.compareQuantity : null }
        : compare
          ? { compareQuantity: c.compareQuantity }
          : {}),
    }));
    const input = {
      name: 'available',
      reason: 'correction',
      referenceDocumentUri: 'gid://switchyard/InventorySync/set',
      ...(key ? {} : { ignoreCompareQuantity: !compare }),
      quantities: rows,
    };
    const data = await host.client.request<{
      inventorySetQuantities: { userErrors: UserError[] } | null;
    }>(
      key ? SET_QUANTITIES_ONCE_MUTATION : SET_QUANTITIES_MUTATION,
      key ? { input, key: `${key}.${attempt}` } : { input },
      10,
      undefined,
      () => {
        uncertain = true;
      },
      key ? SHOPIFY_IDEMPOTENT_VERSION : undefined,
    );
    const errors = data.inventorySetQuantities?.userErrors ?? [];
    if (errors.length === 0) {
      result.applied.push(...pending);
      break;
    }
    const rejected = new Map<number, UserError>();
    for (const e of errors) {
      const index = e.field?.[0] === 'input' && e.field[1] === 'quantities' ? Number(e.field[2]) : Number.NaN;
      if (Number.isInteger(index) && pending[index]) rejected.set(index, e);
    }
    if (rejected.size === 0) {
      // An error about the whole request (name, reason): nothing in this batch can go through.
      for (const change of pending) result.failed.push({ change, reason: describe(errors), mismatch: false });
      break;
    }
    for (const [index, e] of rejected) {
      const change = pending[index] as InventorySet;
      if (e.code && STALE.has(e.code)) stale.push(change);
      else result.failed.push({ change, reason: `${e.code ?? 'ERROR'}: ${e.message}`, mismatch: false });
    }
    pending = pending.filter((_, i) => !rejected.has(i));
  }
  if (stale.length > 0) {
    // A retried call that Shopify had applied before the connection dropped reads as stale: check. A call
    // answered at its first attempt was not applied before, so the level holding our quantity is then
    // someone else's change that happens to equal it (the caller takes it in as one).
    const at = new Date();
    const current = await readAvailable(host, stale);
    for (const change of stale) {
      const now = current.get(`${change.inventoryItemId}|${change.locationExternalId}`);
      if (uncertain && now === change.quantity) result.applied.push(change);
      else
        result.failed.push({
          change,
          reason: `Shopify holds ${now ?? 'an unknown quantity'}, not ${change.compareQuantity}`,
          mismatch: true,
          // What it holds, for the caller to take in without reading it again (a full push's stale batch is
          // 200-odd levels: 600 points of a 1,000-point bucket per read).
          ...(now === undefined ? {} : { held: { available: now, at } }),
        });
    }
  }
}

export async function readInventory(
  host: InventoryHost,
  pairs: { inventoryItemId: string; locationExternalId: string }[],
): Promise<InventoryLevel[]> {
  const current = await readAvailable(
    host,
    pairs.map((p) => ({ ...p, quantity: 0 })),
  );
  return pairs.flatMap((p) => {
    const available = current.get(`${p.inventoryItemId}|${p.locationExternalId}`);
    return available === undefined ? [] : [{ ...p, available }];
  });
}

/** `available` of item/location pairs, many per query through aliases. */
async function readAvailable(host: InventoryHost, pairs: InventorySet[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const chunk of batches(pairs, READBACK_BATCH)) {
    const variables: Record<string, string> = {};
    const defs: string[] = [];
    const fields = chunk.map((c, i) => {
      variables[`i${i}`] = c.inventoryItemId;
      variables[`l${i}`] = c.locationExternalId;
      defs.push(`$i${i}: ID!, $l${i}: ID!`);
      return `r${i}: inventoryItem(id: $i${i}) { inventoryLevel(locationId: $l${i}) { quantities(names: ["available"]) { quantity } } }`;
    });
    const data = await host.client.request<
      Record<string, { inventoryLevel: { quantities: { quantity: number }[] } | null } | null>
    >(`query(${defs.join(', ')}) { ${fields.join(' ')} }`, variables, chunk.length * 3);
    chunk.forEach((c, i) => {
      const q = data[`r${i}`]?.inventoryLevel?.quantities[0]?.quantity;
      if (q !== undefined) out.set(`${c.inventoryItemId}|${c.locationExternalId}`, q);
    });
  }
  return out;
}
