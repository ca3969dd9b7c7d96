// The catalog as the merchant edits it (issue 6): creating and updating products with their variants, and
// the checks those edits make (SKUs unique in the account, variants of the product). The per-channel list is
// in products.list.ts, the product view that explains each channel's number in products.detail.ts, sync now
// and delete in products.bulk.ts; all are importable from here. Importing and publishing catalogs is in
// catalog-import.ts / catalog-publish.ts; stock changes go through inventory/ledger.ts.
import type { ProductDetail, ProductInputParsed } from '@switchyard/contracts';
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Tx } from '../../db/client.ts';
import { DomainError, fromDatabaseError } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { Services } from '../../services.ts';
import { findChannel } from '../channels/channels.service.ts';
import { markDirty, writeOffVariants } from '../inventory/ledger.ts';
import { schedulePush } from '../inventory/schedule.ts';
import { queueProductRefresh } from './catalog-publish.ts';
import { getProduct } from './products.detail.ts';
import { NOT_FOUND, type ParsedCreate, type ParsedUpdate, publish, type Who } from './products.shared.ts';
import { listings, products, variants } from './products.tables.ts';

export { bulkProducts, deleteProduct, syncProduct, syncProducts } from './products.bulk.ts';
export { getProduct } from './products.detail.ts';
export { listBrands, listProducts } from './products.list.ts';
export type { ParsedCreate, ParsedUpdate } from './products.shared.ts';

const skuTaken = (sku: string) => new DomainError('CONFLICT', `SKU "${sku}" is already used by another product.`);

/** CONFLICT naming the first SKU another product of the account already uses. */
async function assertSkusFree(tx: Tx, accountId: string, skus: string[], productId?: string) {
  if (skus.length === 0) return;
  const [taken] = await tx
    .select({ sku: variants.sku })
    .from(variants)
    .where(
      and(
        eq(variants.accountId, accountId),
        inArray(variants.sku, skus),
        productId ? sql`${variants.productId} <> ${productId}` : undefined,
      ),
    )
    .limit(1);
  if (taken) throw skuTaken(taken.sku);
}

/** A unique violation the pre-check could not see (a concurrent create) is still a clear CONFLICT. */
function asConflict(err: unknown): never {
  throw err instanceof DomainError
    ? err
    : (fromDatabaseError(err, 'A SKU of this product is already used by another product.') ?? err);
}

const productValues = (input: ProductInputParsed) => ({
  title: input.title,
  description: input.description,
  brand: input.brand,
  productType: input.productType,
  status: input.status,
  images: input.images,
});

const variantValues = (v: ProductInputParsed['variants'][number], position: number) => ({
  sku: v.sku,
  alu: v.alu,
  barcode: v.barcode,
  title: v.title,
  price: v.price,
  compareAtPrice: v.compareAtPrice,
  position,
});

/**
 * `products.create`: the product and its variants; with a channel, pending listings on it (publishing
 * creates them at the channel and fills their external ids).
 */
export async function createProduct(services: Services, actor: Who, input: ParsedCreate): Promise<ProductDetail> {
  const { db } = services;
  if (input.channelId) await findChannel(db, actor, input.channelId);
  const productId = newId('prd');
  try {
    await db.transaction(async (tx) => {
      await assertSkusFree(
        tx,
        actor.accountId,
        input.variants.map((v) => v.sku),
      );
      await tx.insert(products).values({ id: productId, accountId: actor.accountId, ...productValues(input) });
      const created = await tx
        .insert(variants)
        .values(
          input.variants.map((v, i) => ({
            id: newId('var'),
            accountId: actor.accountId,
            productId,
            ...variantValues(v, i),
          })),
        )
        .returning({ id: variants.id });
      if (input.channelId) {
        await tx.insert(listings).values(
          created.map((v) => ({
            id: newId('lst'),
            accountId: actor.accountId,
            channelId: input.channelId as string,
            variantId: v.id,
            syncStatusCode: 2 as const,
          })),
        );
      }
    });
  } catch (err) {
    asConflict(err);
  }
  if (input.channelId) await publish(services, actor.accountId, input.channelId, [productId], 'change');
  return getProduct(db, actor, productId);
}

async function updateInTx(tx: Tx, actor: Who, input: ParsedUpdate): Promise<string[]> {
  const [locked] = await tx
    .select({ id: products.id })
    .from(products)
    .where(and(eq(products.accountId, actor.accountId), eq(products.id, input.id)))
    .for('update');
  if (!locked) throw new DomainError('NOT_FOUND', NOT_FOUND);
  const existing = await tx
    .select({ id: variants.id, sku: variants.sku })
    .from(variants)
    .where(eq(variants.productId, input.id));
  const existingById = new Map(existing.map((v) => [v.id, v]));
  for (const v of input.variants) {
    if (v.id && !existingById.has(v.id)) {
      throw new DomainError('VALIDATION', `Variant ${v.sku} is not a variant of this product.`);
    }
  }
  await assertSkusFree(
    tx,
    actor.accountId,
    input.variants.map((v) => v.sku),
    input.id,
  );
  const now = new Date();
  await tx
    .update(products)
    .set({ ...productValues(input), updatedAt: now })
    .where(eq(products.id, input.id));
  const kept = new Set(input.variants.flatMap((v) => (v.id ? [v.id] : [])));
  const removed = existing.filter((v) => !kept.has(v.id)).map((v) => v.id);
  if (removed.length > 0) {
    await writeOffVariants(tx, actor.accountId, removed, actor.userId);
    await tx.delete(variants).where(inArray(variants.id, removed));
  }
  // SKUs may move between variants of the product (a swap): park the changed ones first.
  const renamed = input.variants.filter((v) => v.id && existingById.get(v.id)?.sku !== v.sku);
  for (const v of renamed) {
    await tx
      .update(variants)
      .set({ sku: `~moving~${v.id}` })
      .where(eq(variants.id, v.id as string));
  }
  let position = 0;
  for (const v of input.variants) {
    if (v.id) {
      await tx
        .update(variants)
        .set({ ...variantValues(v, position), updatedAt: now })
        .where(eq(variants.id, v.id));
    } else {
      await tx
        .insert(variants)
        .values({ id: newId('var'), accountId: actor.accountId, productId: input.id, ...variantValues(v, position) });
    }
    position++;
  }
  // A changed SKU may fall under other buffers: the channels recompute those variants.
  return renamed.map((v) => v.id as string);
}

/** `products.update`: the product's fields and its variant list (kept by id, new without id, missing deleted). */
export async function updateProduct(services: Services, actor: Who, input: ParsedUpdate): Promise<ProductDetail> {
  const [updated] = await updateProducts(services, actor, [input]);
  return updated as ProductDetail;
}

/** frontend `PUT products`: several products in one transaction (all or none). */
export async function updateProducts(services: Services, actor: Who, inputs: ParsedUpdate[]): Promise<ProductDetail[]> {
  let channelIds: string[] = [];
  try {
    channelIds = await services.db.transaction(async (tx) => {
      const renamed: string[] = [];
      for (const input of inputs) renamed.push(...(await updateInTx(tx, actor, input)));
      return markDirty(tx, actor.accountId, renamed);
    });
  } catch (err) {
    asConflict(err);
  }
  await schedulePush(services, channelIds);
  // The channels that list these products get the edit too (titles, prices, details as their settings say).
  await queueProductRefresh(
    services,
    actor.accountId,
    inputs.map((i) => i.id),
  );
  const out: ProductDetail[] = [];
  for (const input of inputs) out.push(await getProduct(services.db, actor, input.id));
  return out;
}
