/**
 * Square inventory: IN_STOCK counts read (page by page, or for given variation/location pairs) and set as
 * PHYSICAL_COUNT changes in batches.
 */

import { randomUUID } from 'node:crypto';
import { ProviderHttpError } from '../http.ts';
import { byLevel } from '../inventory-order.ts';
import type { InventoryLevel, InventorySet, InventorySetOptions, InventorySetResult, Page } from '../types.ts';
import { describeSquareError, squareErrors } from './client.ts';
import type { SquareContext } from './context.ts';

/** BatchChangeInventory takes at most 100 changes per request. */
export const SQUARE_INVENTORY_BATCH = 100;

/**
 * One batch of changes. With `key`, each request's idempotency key derives from it (the rows a refusal left are sent
 * again under a key of their own) and every count is dated `at`: a repeat asks exactly what the first call asked.
 * Without, each request has a random key and is dated when it goes.
 */
async function sendInventoryBatch(
  ctx: SquareContext,
  batch: InventorySet[],
  result: InventorySetResult,
  key?: { key: string; at: string },
) {
  let pending = batch;
  for (let attempt = 0; pending.length > 0; attempt++) {
    const occurredAt = key?.at ?? new Date().toISOString();
    try {
      await ctx.client.call('POST', '/v2/inventory/changes/batch-create', {
        idempotency_key: key ? `${key.key}.${attempt}` : randomUUID(),
        ignore_unchanged_counts: true,
        changes: pending.map((c) => ({
          type: 'PHYSICAL_COUNT',
          physical_count: {
            catalog_object_id: c.inventoryItemId,
            location_id: c.locationExternalId,
            state: 'IN_STOCK',
            quantity: String(Math.max(0, Math.trunc(c.quantity))),
            occurred_at: occurredAt,
          },
        })),
      });
      result.applied.push(...pending);
      return;
    } catch (err) {
      // A batch is all or nothing. When Square names the bad change, set it aside and send the rest.
      const field = squareErrors(err)[0]?.field ?? '';
      const index = /^changes\[(\d+)\]/.exec(field)?.[1];
      const bad = index === undefined ? undefined : pending[Number(index)];
      if (err instanceof ProviderHttpError && err.status === 400 && bad) {
        result.failed.push({ change: bad, reason: describeSquareError(err), mismatch: false });
        pending = pending.filter((c) => c !== bad);
        continue;
      }
      if (err instanceof ProviderHttpError && err.status !== 401) {
        // A refusal (4xx) did not apply; a 5xx may have.
        const uncertain = (err.status ?? 500) >= 500;
        for (const change of pending)
          result.failed.push({ change, reason: describeSquareError(err), mismatch: false, uncertain });
        ctx.logger.warn(
          { provider: ctx.client.label, status: err.status, changes: pending.length },
          'square inventory batch failed',
        );
        return;
      }
      throw err;
    }
  }
}

export async function getInventoryLevels(
  ctx: SquareContext,
  { cursor, locationExternalIds }: { cursor: string | null; locationExternalIds?: string[] },
): Promise<Page<InventoryLevel>> {
  const res = await ctx.client.call<{
    counts?: { catalog_object_id: string; location_id: string; state: string; quantity: string }[];
    cursor?: string;
  }>('POST', '/v2/inventory/counts/batch-retrieve', {
    states: ['IN_STOCK'],
    limit: 1000,
    ...(locationExternalIds?.length ? { location_ids: locationExternalIds } : {}),
    ...(cursor ? { cursor } : {}),
  });
  return {
    items: (res.counts ?? [])
      .filter((c) => c.state === 'IN_STOCK')
      .map((c) => ({
        inventoryItemId: c.catalog_object_id,
        locationExternalId: c.location_id,
        // Square counts are decimals; we sell whole units.
        available: Math.trunc(Number(c.quantity)),
      })),
    nextCursor: res.cursor ?? null,
  };
}

export async function readInventory(
  ctx: SquareContext,
  pairs: { inventoryItemId: string; locationExternalId: string }[],
): Promise<InventoryLevel[]> {
  const wanted = new Set(pairs.map((p) => `${p.inventoryItemId}|${p.locationExternalId}`));
  const objectIds = [...new Set(pairs.map((p) => p.inventoryItemId))];
  const locationIds = [...new Set(pairs.map((p) => p.locationExternalId))];
  const out: InventoryLevel[] = [];
  for (let i = 0; i < objectIds.length; i += 1000) {
    let cursor: string | undefined;
    do {
      const res = await ctx.client.call<{
        counts?: { catalog_object_id: string; location_id: string; state: string; quantity: string }[];
        cursor?: string;
      }>('POST', '/v2/inventory/counts/batch-retrieve', {
        catalog_object_ids: objectIds.slice(i, i + 1000),
        location_ids: locationIds,
        states: ['IN_STOCK'],
        limit: 1000,
        ...(cursor ? { cursor } : {}),
      });
      for (const c of res.counts ?? []) {
        if (c.state !== 'IN_STOCK' || !wanted.has(`${c.catalog_object_id}|${c.location_id}`)) continue;
        out.push({
          inventoryItemId: c.catalog_object_id,
          locationExternalId: c.location_id,
          available: Math.trunc(Number(c.quantity)),
        });
      }
      cursor = res.cursor;
    } while (cursor);
  }
  // A variation Square holds no count for at a location it sells at holds 0.
  const seen = new Set(out.map((l) => `${l.inventoryItemId}|${l.locationExternalId}`));
  for (const p of pairs) {
    if (!seen.has(`${p.inventoryItemId}|${p.locationExternalId}`)) out.push({ ...p, available: 0 });
  }
  return out;
}

/**
 * PHYSICAL_COUNT changes (state IN_STOCK), 100 per request, each request with its own idempotency key
 * (so a retried request is applied once). Square has no compare-and-set: a count is ordered with
 * the seller's own changes by occurred_at, so compareQuantity is not checked. With `idempotencyKey`, the changes go
 * in one stable order, keyed from it and dated `at` (Connector.setInventory): sent again after its answer was lost,
 * Square answers what it did the first time, or sets the counts now as of then, before the seller's later changes.
 */
export async function setInventory(
  ctx: SquareContext,
  changes: InventorySet[],
  options: InventorySetOptions = {},
): Promise<InventorySetResult> {
  const result: InventorySetResult = { applied: [], failed: [] };
  const { idempotencyKey } = options;
  const ordered = idempotencyKey ? [...changes].sort(byLevel) : changes;
  const at = (options.at ?? new Date()).toISOString();
  for (let i = 0, b = 0; i < ordered.length; i += SQUARE_INVENTORY_BATCH, b++) {
    const batch = ordered.slice(i, i + SQUARE_INVENTORY_BATCH);
    await sendInventoryBatch(ctx, batch, result, idempotencyKey ? { key: `${idempotencyKey}.${b}`, at } : undefined);
  }
  return result;
}
