/**
 * The Square catalog: items (with their variations and category, our product type) listed, created and
 * updated through batch upserts.
 */

import { randomUUID } from 'node:crypto';
import { DomainError } from '../../lib/errors.ts';
import type { Page, ProductInput, ProviderProduct } from '../types.ts';
import { asDomainError, merchantCurrency, type SquareContext } from './context.ts';
import { type CatalogObject, mapProduct } from './mapping.ts';

async function loadCategories(ctx: SquareContext) {
  if (ctx.categoriesLoaded) return;
  let cursor: string | undefined;
  do {
    const res = await ctx.client.call<{ objects?: CatalogObject[]; cursor?: string }>(
      'GET',
      `/v2/catalog/list?types=CATEGORY${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    for (const c of res.objects ?? []) ctx.categories.set(c.id, String(c.category_data?.name ?? ''));
    cursor = res.cursor;
  } while (cursor);
  ctx.categoriesLoaded = true;
}

async function readItem(ctx: SquareContext, id: string): Promise<CatalogObject> {
  try {
    const { object } = await ctx.client.call<{ object: CatalogObject }>(
      'GET',
      `/v2/catalog/object/${encodeURIComponent(id)}`,
    );
    if (object.type !== 'ITEM') throw new DomainError('NOT_FOUND', `Square object ${id} is not an item.`);
    return object;
  } catch (err) {
    return asDomainError(err, `find item ${id}`);
  }
}

/** Finds the category for a product type, creating it in the same upsert when it does not exist. */
async function categoryFor(
  ctx: SquareContext,
  productType: string | null | undefined,
  objects: Record<string, unknown>[],
) {
  if (!productType) return undefined;
  await loadCategories(ctx);
  for (const [id, name] of ctx.categories) if (name.toLowerCase() === productType.toLowerCase()) return id;
  const temp = '#category';
  objects.push({ type: 'CATEGORY', id: temp, category_data: { name: productType } });
  return temp;
}

async function upsert(ctx: SquareContext, objects: Record<string, unknown>[], what: string): Promise<CatalogObject> {
  try {
    const res = await ctx.client.call<{
      objects?: CatalogObject[];
      id_mappings?: { client_object_id: string; object_id: string }[];
      errors?: { detail?: string }[];
    }>('POST', '/v2/catalog/batch-upsert', { idempotency_key: randomUUID(), batches: [{ objects }] });
    if (res.errors?.length)
      throw new DomainError('VALIDATION', `Square could not ${what}: ${res.errors[0]?.detail ?? ''}`);
    for (const m of res.id_mappings ?? []) {
      if (m.client_object_id === '#category') {
        const category = res.objects?.find((o) => o.id === m.object_id);
        ctx.categories.set(m.object_id, String(category?.category_data?.name ?? ''));
      }
    }
    const item = res.objects?.find((o) => o.type === 'ITEM');
    if (!item) throw new DomainError('UPSTREAM_FAILED', `Square did not return the item after trying to ${what}.`);
    for (const v of item.item_data?.variations ?? [])
      ctx.skus.set(v.id, (v.item_variation_data?.sku as string | undefined) ?? null);
    return item;
  } catch (err) {
    return asDomainError(err, what);
  }
}

function variationObject(
  itemId: string,
  variant: ProductInput['variants'][number],
  price: number,
  currencyCode: string,
  existing?: CatalogObject,
) {
  return {
    type: 'ITEM_VARIATION',
    id: existing?.id ?? `#variation-${variant.sku}`,
    ...(existing ? { version: existing.version } : {}),
    item_variation_data: {
      ...existing?.item_variation_data,
      item_id: itemId,
      name: variant.title ?? existing?.item_variation_data?.name ?? 'Regular',
      sku: variant.sku,
      upc: variant.barcode ?? undefined,
      pricing_type: 'FIXED_PRICING',
      price_money: { amount: price, currency: currencyCode },
      track_inventory: true,
    },
  };
}

export async function listProducts(ctx: SquareContext, cursor: string | null): Promise<Page<ProviderProduct>> {
  await loadCategories(ctx);
  const res = await ctx.client.call<{ objects?: CatalogObject[]; cursor?: string }>(
    'GET',
    `/v2/catalog/list?types=ITEM${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
  );
  const items = (res.objects ?? []).filter((o) => o.type === 'ITEM');
  // A category created since we last looked: read the categories again.
  const referenced = items.flatMap((o) => (o.item_data?.categories ?? []).map((c) => c.id));
  if (referenced.some((id) => !ctx.categories.has(id))) {
    ctx.categoriesLoaded = false;
    await loadCategories(ctx);
  }
  for (const item of items) {
    for (const v of item.item_data?.variations ?? [])
      ctx.skus.set(v.id, (v.item_variation_data?.sku as string | undefined) ?? null);
  }
  return { items: items.map((o) => mapProduct(o, ctx.categories)), nextCursor: res.cursor ?? null };
}

export async function createProduct(ctx: SquareContext, input: ProductInput): Promise<ProviderProduct> {
  const currencyCode = await merchantCurrency(ctx);
  const objects: Record<string, unknown>[] = [];
  const categoryId = await categoryFor(ctx, input.productType, objects);
  objects.push({
    type: 'ITEM',
    id: '#item',
    item_data: {
      name: input.title,
      ...(input.description ? { description: input.description } : {}),
      ...(categoryId ? { categories: [{ id: categoryId }], reporting_category: { id: categoryId } } : {}),
      variations: input.variants.map((v) => variationObject('#item', v, v.price, currencyCode)),
    },
  });
  return mapProduct(await upsert(ctx, objects, `create ${input.title}`), ctx.categories);
}

export async function updateProduct(
  ctx: SquareContext,
  externalId: string,
  input: Partial<ProductInput>,
): Promise<ProviderProduct> {
  const current = await readItem(ctx, externalId);
  const currencyCode = await merchantCurrency(ctx);
  const objects: Record<string, unknown>[] = [];
  const categoryId = input.productType !== undefined ? await categoryFor(ctx, input.productType, objects) : undefined;
  const existing = current.item_data?.variations ?? [];
  // Square replaces an item's variation list with the one sent, so every variation kept is sent.
  const variations = input.variants
    ? [
        ...input.variants.map((v) => {
          const match = existing.find((e) => e.item_variation_data?.sku === v.sku);
          return variationObject(current.id, v, v.price, currencyCode, match);
        }),
        ...existing
          .filter((e) => !input.variants?.some((v) => v.sku === e.item_variation_data?.sku))
          .map((e) => ({ type: e.type, id: e.id, version: e.version, item_variation_data: e.item_variation_data })),
      ]
    : existing.map((e) => ({
        type: e.type,
        id: e.id,
        version: e.version,
        item_variation_data: e.item_variation_data,
      }));
  objects.push({
    type: 'ITEM',
    id: current.id,
    version: current.version,
    item_data: {
      ...current.item_data,
      ...(input.title !== undefined ? { name: input.title } : {}),
      ...(input.description !== undefined ? { description: input.description ?? '' } : {}),
      ...(categoryId ? { categories: [{ id: categoryId }], reporting_category: { id: categoryId } } : {}),
      variations,
    },
  });
  return mapProduct(await upsert(ctx, objects, `update ${externalId}`), ctx.categories);
}
