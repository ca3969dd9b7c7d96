/**
 * BigCommerce inventory: levels read (page by page, or for given variants and locations) and set as absolute
 * adjustments in batches, a row BigCommerce refuses set aside.
 */

import { DomainError } from '../../lib/errors.ts';
import { ProviderHttpError } from '../http.ts';
import type { InventoryLevel, InventorySet, InventorySetResult } from '../types.ts';
import { type BcClient, providerMessage } from './client.ts';
import * as S from './schemas.ts';

export interface BcInventoryHost {
  readonly client: BcClient;
}

/** The most items one inventory adjustment takes (BigCommerce's documented cap). */
export const MAX_ADJUSTMENT_ITEMS = 2000;
const ITEMS_PAGE = 1000;

export async function getInventoryLevels(
  host: BcInventoryHost,
  input: { cursor: string | null; locationExternalIds?: string[] },
) {
  const page = input.cursor ? Number(input.cursor) : 1;
  if (!Number.isInteger(page) || page < 1) throw new DomainError('VALIDATION', 'The inventory cursor is not a page');
  const res = await host.client.call(S.list(S.InventoryItem), 'GET', '/v3/inventory/items', {
    query: {
      page,
      limit: ITEMS_PAGE,
      'location_id:in': input.locationExternalIds?.length ? input.locationExternalIds.join(',') : undefined,
    },
  });
  const items = res.data.flatMap((item) =>
    item.identity.variant_id === null
      ? []
      : item.locations.map((l) => ({
          inventoryItemId: String(item.identity.variant_id),
          locationExternalId: String(l.location_id),
          available: l.available_to_sell,
        })),
  );
  const pages = res.meta?.pagination?.total_pages ?? page;
  return { items, nextCursor: page < pages ? String(page + 1) : null };
}

/** Levels of given variants at given locations, 250 variants per request. */
export async function readInventory(
  host: BcInventoryHost,
  pairs: { inventoryItemId: string; locationExternalId: string }[],
): Promise<InventoryLevel[]> {
  const wanted = new Set(pairs.map((p) => `${p.inventoryItemId}|${p.locationExternalId}`));
  const variantIds = [...new Set(pairs.map((p) => p.inventoryItemId))].filter((id) => /^\d+$/.test(id));
  const locationIds = [...new Set(pairs.map((p) => p.locationExternalId))].filter((id) => /^\d+$/.test(id));
  const out: InventoryLevel[] = [];
  for (let i = 0; i < variantIds.length; i += 250) {
    let page = 1;
    for (;;) {
      const res = await host.client.call(S.list(S.InventoryItem), 'GET', '/v3/inventory/items', {
        query: {
          page,
          limit: ITEMS_PAGE,
          'variant_id:in': variantIds.slice(i, i + 250).join(','),
          'location_id:in': locationIds.join(','),
        },
      });
      for (const item of res.data) {
        if (item.identity.variant_id === null) continue;
        for (const l of item.locations) {
          const level = {
            inventoryItemId: String(item.identity.variant_id),
            locationExternalId: String(l.location_id),
            available: l.available_to_sell,
          };
          if (wanted.has(`${level.inventoryItemId}|${level.locationExternalId}`)) out.push(level);
        }
      }
      if (page >= (res.meta?.pagination?.total_pages ?? page)) break;
      page += 1;
    }
  }
  return out;
}

/**
 * Absolute adjustments in batches of 2000. BigCommerce has no compare-and-set, so compareQuantity is
 * not checked; an absolute set is idempotent, which makes the transport's retries safe. A batch is all
 * or nothing: a row BigCommerce refuses (named in the 422) is set aside and the rest sent again.
 */
export async function setInventory(host: BcInventoryHost, changes: InventorySet[]): Promise<InventorySetResult> {
  const result: InventorySetResult = { applied: [], failed: [] };
  const valid: InventorySet[] = [];
  for (const change of changes) {
    const variantId = Number(change.inventoryItemId);
    const locationId = Number(change.locationExternalId);
    if (!Number.isInteger(variantId) || !Number.isInteger(locationId)) {
      result.failed.push({ change, reason: 'Not a BigCommerce variant or location id', mismatch: false });
    } else if (!Number.isInteger(change.quantity) || change.quantity < 0) {
      result.failed.push({ change, reason: 'BigCommerce cannot hold a negative quantity', mismatch: false });
    } else {
      valid.push(change);
    }
  }
  for (let i = 0; i < valid.length; i += MAX_ADJUSTMENT_ITEMS) {
    let batch = valid.slice(i, i + MAX_ADJUSTMENT_ITEMS);
    while (batch.length > 0) {
      try {
        await host.client.send('PUT', '/v3/inventory/adjustments/absolute', {
          body: {
            reason: 'Switchyard inventory sync',
            items: batch.map((c) => ({
              location_id: Number(c.locationExternalId),
              variant_id: Number(c.inventoryItemId),
              quantity: c.quantity,
            })),
          },
        });
        result.applied.push(...batch);
        break;
      } catch (err) {
        const status = err instanceof ProviderHttpError ? err.status : null;
        const reason = providerMessage(err);
        const culprit = status === 422 ? culpritOf(reason, batch) : [];
        // A refusal (4xx) did not apply; a 5xx or a lost answer may have.
        const uncertain = status === null || status >= 500;
        if (culprit.length === 0 || culprit.length === batch.length) {
          for (const change of batch) result.failed.push({ change, reason, mismatch: false, uncertain });
          break;
        }
        for (const change of culprit) result.failed.push({ change, reason, mismatch: false });
        batch = batch.filter((c) => !culprit.includes(c));
      }
    }
  }
  return result;
}

/** The rows a 422 names ("… variant_id 106 …", "… sku RE-130 …"). */
function culpritOf(title: string, batch: InventorySet[]): InventorySet[] {
  const variants = [...title.matchAll(/variant_id (\d+)/g)].map((m) => m[1]);
  const locations = [...title.matchAll(/Location with id (\d+)/gi)].map((m) => m[1]);
  return batch.filter((c) => variants.includes(c.inventoryItemId) || locations.includes(c.locationExternalId));
}
