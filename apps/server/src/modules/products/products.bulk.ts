// Sync now and delete (`products.bulk` on a selection, and the one-product routes): dirty marks and pushes
// for the listings on live channels, publishing for those not yet at their channel, and deleting products
// with their stock written off in the ledger.
import type { ProductDetail, ProductsBulkResult } from '@switchyard/contracts';
import { and, eq, inArray, isNotNull, isNull } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { DomainError } from '../../lib/errors.ts';
import type { Services } from '../../services.ts';
import { findChannel } from '../channels/channels.service.ts';
import { loadAvailable } from '../inventory/available.ts';
import { believedQty } from '../inventory/inbound.ts';
import { markDirty, writeOffVariants } from '../inventory/ledger.ts';
import { schedulePush } from '../inventory/schedule.ts';
import { findProduct, getProduct } from './products.detail.ts';
import { NOT_FOUND, publish, type Who } from './products.shared.ts';
import { listings, products, variants } from './products.tables.ts';

/**
 * Deletes products of the actor's account (ids of another are skipped) with their variants, listings and
 * levels; the stock they held is written off in the ledger first, which keeps their history. Channels keep
 * their own copies. Answers the ids deleted.
 */
async function deleteProducts(db: Db, actor: Who, ids: string[]) {
  if (ids.length === 0) return [];
  return db.transaction(async (tx) => {
    const own = and(eq(products.accountId, actor.accountId), inArray(products.id, ids));
    const held = await tx
      .select({ id: variants.id })
      .from(variants)
      .innerJoin(products, eq(products.id, variants.productId))
      .where(own);
    await writeOffVariants(
      tx,
      actor.accountId,
      held.map((v) => v.id),
      actor.userId,
    );
    return (await tx.delete(products).where(own).returning({ id: products.id })).map((d) => d.id);
  });
}

/** `products.delete`: the product, its variants, their listings and stock (channels keep their own copies). */
export async function deleteProduct(db: Db, actor: Who, id: string): Promise<{ id: string }> {
  const deleted = await deleteProducts(db, actor, [id]);
  if (deleted.length === 0) throw new DomainError('NOT_FOUND', NOT_FOUND);
  return { id };
}

/**
 * Sync now: marks the products' listings dirty on their live channels (or one channel) and queues those
 * channels' pushes; the listings show pending until the push settles them. Answers the product ids found.
 */
export async function syncProducts(
  services: Services,
  actor: Who,
  productIds: string[],
  channelId?: string,
): Promise<string[]> {
  const { db } = services;
  if (channelId) await findChannel(db, actor, channelId);
  const { found, marked, unpublished } = await db.transaction(async (tx) => {
    const rows = await tx
      .select({ id: variants.id, productId: variants.productId })
      .from(variants)
      .where(and(eq(variants.accountId, actor.accountId), inArray(variants.productId, productIds)));
    const variantIds = rows.map((r) => r.id);
    const found = [...new Set(rows.map((r) => r.productId))];
    const marked = await markDirty(tx, actor.accountId, variantIds, channelId ? { channelIds: [channelId] } : {});
    // A listing whose number the push will send shows pending until the push settles it; one whose channel
    // already holds our number (as the push would find: nothing to send) is synced now.
    if (marked.length > 0) {
      const rows = await loadAvailable(tx, actor.accountId, { variantIds, channelIds: marked, pushableOnly: true });
      const state = new Map<string, { channelId: string; variantId: string; moving: boolean }>();
      for (const r of rows) {
        const key = `${r.channelId}|${r.variantId}`;
        const moving = r.pendingQty !== null || believedQty(r) !== r.available;
        const known = state.get(key);
        state.set(key, { channelId: r.channelId, variantId: r.variantId, moving: moving || (known?.moving ?? false) });
      }
      const now = new Date();
      for (const channel of marked) {
        for (const moving of [true, false]) {
          const ids = [...state.values()]
            .filter((v) => v.channelId === channel && v.moving === moving)
            .map((v) => v.variantId);
          if (ids.length === 0) continue;
          await tx
            .update(listings)
            .set(
              moving
                ? { syncStatusCode: 2, updatedAt: now }
                : { syncStatusCode: 1, lastError: null, lastSyncedAt: now, updatedAt: now },
            )
            .where(
              and(
                eq(listings.accountId, actor.accountId),
                eq(listings.channelId, channel),
                inArray(listings.variantId, ids),
                isNotNull(listings.inventoryItemId),
              ),
            );
        }
      }
    }
    // Listings made here and not yet at the channel (no channel ids): publishing creates them there.
    const unpublished = await tx
      .select({ channelId: listings.channelId, productId: variants.productId })
      .from(listings)
      .innerJoin(variants, eq(variants.id, listings.variantId))
      .where(
        and(
          eq(listings.accountId, actor.accountId),
          inArray(listings.variantId, variantIds),
          channelId ? eq(listings.channelId, channelId) : undefined,
          isNull(listings.inventoryItemId),
        ),
      );
    return { found, marked, unpublished };
  });
  await schedulePush(services, marked);
  const byChannel = new Map<string, Set<string>>();
  for (const u of unpublished) byChannel.set(u.channelId, (byChannel.get(u.channelId) ?? new Set()).add(u.productId));
  for (const [channel, ids] of byChannel) await publish(services, actor.accountId, channel, [...ids], 'manual');
  return found;
}

export async function syncProduct(
  services: Services,
  actor: Who,
  id: string,
  channelId?: string,
): Promise<ProductDetail> {
  await findProduct(services.db, actor, id);
  await syncProducts(services, actor, [id], channelId);
  return getProduct(services.db, actor, id);
}

/** `products.bulk`: sync or delete the selected products (ids of another account are skipped). */
export async function bulkProducts(
  services: Services,
  actor: Who,
  input: { action: 'sync' | 'delete'; ids: string[]; channelId?: string },
): Promise<ProductsBulkResult> {
  const ids = [...new Set(input.ids)];
  if (input.action === 'delete') {
    const deleted = await deleteProducts(services.db, actor, ids);
    return { action: 'delete', count: deleted.length, ids: deleted };
  }
  const found = await syncProducts(services, actor, ids, input.channelId);
  return { action: 'sync', count: found.length, ids: found };
}
