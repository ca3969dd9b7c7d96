// The product list (SPEC §2, `products.list`): one row per variant with its listing on a channel, every
// filter applied in SQL, and the brands the list's filter offers.
import type { ProductListItem, ProductListResult, ProductsFilter } from '@switchyard/contracts';
import { and, count, desc, eq, inArray, isNotNull, or, type SQL, sql } from 'drizzle-orm';
import type { PgSelect } from 'drizzle-orm/pg-core';
import type { Db } from '../../db/client.ts';
import { findChannel } from '../channels/channels.service.ts';
import { inventoryLevels } from '../inventory/inventory.tables.ts';
import { locations } from '../locations/locations.tables.ts';
import type { Who } from './products.shared.ts';
import { listings, products, variants } from './products.tables.ts';

const splitList = (value: string | undefined) =>
  (value ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s.length > 0);

const likeEscape = (term: string) => term.replace(/[\\%_]/g, (c) => `\\${c}`);

const QTY_SQL: Record<ProductsFilter['qtyOperation'], string> = {
  '=': '=',
  '>': '>',
  '<': '<',
  '>=': '>=',
  '<=': '<=',
};

/**
 * On hand and reserved per variant of the account (or of `variantIds`), at one location (a store_id) or
 * summed over all, as a grouped subquery the list joins (one hash join instead of a lookup per row).
 */
function stockTotals(db: Db, accountId: string, storeId: string | undefined, variantIds?: string[]) {
  return db
    .select({
      variantId: inventoryLevels.variantId,
      onHand: sql<number>`sum(${inventoryLevels.onHand})::int`.as('stock_on_hand'),
      reserved: sql<number>`sum(${inventoryLevels.reserved})::int`.as('stock_reserved'),
    })
    .from(inventoryLevels)
    .where(
      and(
        eq(inventoryLevels.accountId, accountId),
        variantIds ? inArray(inventoryLevels.variantId, variantIds) : undefined,
        storeId
          ? inArray(
              inventoryLevels.locationId,
              db
                .select({ id: locations.id })
                .from(locations)
                .where(and(eq(locations.accountId, accountId), eq(locations.storeId, storeId))),
            )
          : undefined,
      ),
    )
    .groupBy(inventoryLevels.variantId)
    .as('stock');
}

/** Variants per product of the account (or of `productIds`); 1 = a simple product. */
function variantCounts(db: Db, accountId: string, productIds?: string[]) {
  return db
    .select({ productId: variants.productId, n: sql<number>`count(*)::int`.as('variant_count') })
    .from(variants)
    .where(and(eq(variants.accountId, accountId), productIds ? inArray(variants.productId, productIds) : undefined))
    .groupBy(variants.productId)
    .as('variant_counts');
}

const statusColumn = sql<number>`coalesce(${listings.syncStatusCode}, 0)`;

/**
 * `products.list`: one row per variant of the account's catalog, with its listing on `channelId` when it has
 * one (a variant not on the channel shows syncStatusCode 0). Every filter of SPEC §2 is applied in SQL.
 * Two steps: the page's variant ids under the filters (stock and variant counts joined only when a filter
 * needs them), then the rows of that page with their numbers.
 */
export async function listProducts(
  db: Db,
  actor: Who,
  input: { channelId: string; currentPage: number; sizePerPage: number; filter: ProductsFilter },
): Promise<ProductListResult> {
  await findChannel(db, actor, input.channelId);
  const { filter } = input;
  const where: (SQL | undefined)[] = [eq(variants.accountId, actor.accountId)];

  if (filter.syncStatusCode !== undefined) where.push(sql`${statusColumn} = ${filter.syncStatusCode}`);
  if (filter.sync === 'true') where.push(sql`${statusColumn} <> 0`);
  if (filter.sync === 'false') where.push(sql`${statusColumn} = 0`);
  const skus = splitList(filter.skus);
  if (skus.length > 0) {
    const field = filter.skuOrAlu === 'alu' ? variants.alu : variants.sku;
    where.push(inArray(sql`lower(${field})`, skus));
  }
  const brands = splitList(filter.brands);
  if (brands.length > 0) where.push(inArray(sql`lower(${products.brand})`, brands));
  if (filter.search) {
    const like = `%${likeEscape(filter.search)}%`;
    where.push(
      or(
        sql`${products.title} ilike ${like}`,
        sql`${variants.title} ilike ${like}`,
        sql`${variants.sku} ilike ${like}`,
        sql`${variants.alu} ilike ${like}`,
        sql`${variants.barcode} ilike ${like}`,
      ),
    );
  }
  if (filter.sale === 'true') where.push(sql`${variants.compareAtPrice} > ${variants.price}`);
  if (filter.sale === 'false') {
    where.push(sql`(${variants.compareAtPrice} is null or ${variants.compareAtPrice} <= ${variants.price})`);
  }
  const counts = filter.type === 'both' ? null : variantCounts(db, actor.accountId);
  if (counts) where.push(sql`coalesce(${counts.n}, 1) ${sql.raw(filter.type === 'simple' ? '=' : '>')} 1`);
  const stock = filter.qty === undefined ? null : stockTotals(db, actor.accountId, filter.location);
  if (stock) {
    where.push(sql`coalesce(${stock.onHand}, 0) ${sql.raw(QTY_SQL[filter.qtyOperation])} ${filter.qty}`);
  }

  const listingJoin = and(eq(listings.variantId, variants.id), eq(listings.channelId, input.channelId));
  // The selections are explicit, so the joins a filter adds do not change the rows' type.
  const filtered = <T extends PgSelect>(query: T): T => {
    let q: PgSelect = query.innerJoin(products, eq(products.id, variants.productId)).leftJoin(listings, listingJoin);
    if (stock) q = q.leftJoin(stock, eq(stock.variantId, variants.id));
    if (counts) q = q.leftJoin(counts, eq(counts.productId, variants.productId));
    return q.where(and(...where)) as T;
  };
  const [counted] = await filtered(db.select({ n: count() }).from(variants).$dynamic());
  const pageIds = (
    await filtered(db.select({ id: variants.id }).from(variants).$dynamic())
      .orderBy(desc(products.createdAt), desc(products.id), variants.position, variants.id)
      .limit(input.sizePerPage)
      .offset((input.currentPage - 1) * input.sizePerPage)
  ).map((r) => r.id);

  const pagination = { total: counted?.n ?? 0, limit: input.sizePerPage, currentPage: input.currentPage };
  if (pageIds.length === 0) return { results: [], pagination };

  const pageStock = stockTotals(db, actor.accountId, filter.location, pageIds);
  const rows = await db
    .select({
      variant: variants,
      product: {
        title: products.title,
        brand: products.brand,
        productType: products.productType,
        status: products.status,
        images: products.images,
        updatedAt: products.updatedAt,
      },
      listing: {
        id: listings.id,
        channelId: listings.channelId,
        externalProductId: listings.externalProductId,
        externalVariantId: listings.externalVariantId,
        inventoryItemId: listings.inventoryItemId,
        syncStatusCode: listings.syncStatusCode,
        lastError: listings.lastError,
        lastSyncedAt: listings.lastSyncedAt,
      },
      onHand: sql<number>`coalesce(${pageStock.onHand}, 0)`.mapWith(Number),
      reserved: sql<number>`coalesce(${pageStock.reserved}, 0)`.mapWith(Number),
    })
    .from(variants)
    .innerJoin(products, eq(products.id, variants.productId))
    .leftJoin(listings, listingJoin)
    .leftJoin(pageStock, eq(pageStock.variantId, variants.id))
    .where(and(eq(variants.accountId, actor.accountId), inArray(variants.id, pageIds)));
  const productIds = [...new Set(rows.map((r) => r.variant.productId))];
  const pageCounts = variantCounts(db, actor.accountId, productIds);
  const countOf = new Map(
    (await db.select({ productId: pageCounts.productId, n: pageCounts.n }).from(pageCounts)).map((c) => [
      c.productId,
      Number(c.n),
    ]),
  );
  const byId = new Map(rows.map((r) => [r.variant.id, r]));

  const results: ProductListItem[] = pageIds.flatMap((id) => {
    const r = byId.get(id);
    if (!r) return [];
    return [
      {
        id: r.variant.id,
        productId: r.variant.productId,
        title: r.product.title,
        variantTitle: r.variant.title,
        sku: r.variant.sku,
        alu: r.variant.alu,
        barcode: r.variant.barcode,
        brand: r.product.brand,
        productType: r.product.productType,
        status: r.product.status,
        image: r.product.images[0] ?? null,
        price: r.variant.price,
        compareAtPrice: r.variant.compareAtPrice,
        variantCount: countOf.get(r.variant.productId) ?? 1,
        onHand: r.onHand,
        reserved: r.reserved,
        syncStatusCode: r.listing?.syncStatusCode ?? 0,
        listing: r.listing?.id ? (r.listing as ProductListItem['listing']) : null,
        updatedAt: r.variant.updatedAt > r.product.updatedAt ? r.variant.updatedAt : r.product.updatedAt,
      },
    ];
  });
  return { results, pagination };
}

/** `products.brands`: the distinct brands of the catalog, for the list's filter. */
export async function listBrands(db: Db, actor: Who): Promise<string[]> {
  const rows = await db
    .selectDistinct({ brand: products.brand })
    .from(products)
    .where(and(eq(products.accountId, actor.accountId), isNotNull(products.brand), sql`${products.brand} <> ''`))
    .orderBy(products.brand);
  return rows.map((r) => r.brand as string);
}
