// The catalog as the merchant edits it (issue 6): products with their variants, the per-channel list, and
// the product view that explains each channel's number. Importing and publishing catalogs is in
// catalog-import.ts / catalog-publish.ts; stock changes go through inventory/ledger.ts.
import type {
  AvailableExplanation,
  ChannelSettings,
  ChannelType,
  ListingDetail,
  ProductCreateInput,
  ProductDetail,
  ProductInputParsed,
  ProductListItem,
  ProductListResult,
  ProductSyncSummary,
  ProductsBulkResult,
  ProductsFilter,
  ProductUpdateInput,
  ProductVariant,
  StockLevel,
  StockMovement,
} from '@switchyard/contracts';
import { and, count, desc, eq, inArray, isNotNull, isNull, or, type SQL, sql } from 'drizzle-orm';
import type { PgSelect } from 'drizzle-orm/pg-core';
import type { z } from 'zod';
import type { Db, Tx } from '../../db/client.ts';
import { DomainError, fromDatabaseError } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { Services } from '../../services.ts';
import type { Actor } from '../../trpc/context.ts';
import { users } from '../accounts/accounts.tables.ts';
import { findChannel } from '../channels/channels.service.ts';
import { channels } from '../channels/channels.tables.ts';
import { loadAvailable } from '../inventory/available.ts';
import { believedQty } from '../inventory/inbound.ts';
import { channelStock, inventoryLevels, inventoryMovements } from '../inventory/inventory.tables.ts';
import { markDirty, writeOffVariants } from '../inventory/ledger.ts';
import { schedulePush } from '../inventory/schedule.ts';
import { accountLocations } from '../locations/locations.read.ts';
import { locations } from '../locations/locations.tables.ts';
import { syncItems, syncs } from '../syncs/syncs.tables.ts';
import { queueCatalogPublish, queueProductRefresh } from './catalog-publish.ts';
import { listings, products, variants } from './products.tables.ts';

/** Who acts: the account, and the user when there is one (recorded on the movements a change makes). */
type Who = Pick<Actor, 'accountId'> & Partial<Pick<Actor, 'userId'>>;
export type ParsedCreate = z.output<typeof ProductCreateInput>;
export type ParsedUpdate = z.output<typeof ProductUpdateInput>;

const NOT_FOUND = 'Product not found';
const MOVEMENTS_SHOWN = 50;
const SYNCS_SHOWN = 20;

// ------------------------------------------------------------------------------------------------- list

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

// ----------------------------------------------------------------------------------------------- detail

async function findProduct(db: Db | Tx, actor: Who, id: string) {
  const [row] = await db
    .select()
    .from(products)
    .where(and(eq(products.accountId, actor.accountId), eq(products.id, id)));
  if (!row) throw new DomainError('NOT_FOUND', NOT_FOUND);
  return row;
}

/** `products.get`: the product, its variants with stock, channel explanations and listings, movements, syncs. */
export async function getProduct(db: Db, actor: Who, id: string): Promise<ProductDetail> {
  const product = await findProduct(db, actor, id);
  const variantRows = await db
    .select()
    .from(variants)
    .where(and(eq(variants.accountId, actor.accountId), eq(variants.productId, id)))
    .orderBy(variants.position, variants.id);
  const variantIds = variantRows.map((v) => v.id);
  const ourLocations = await accountLocations(db, actor.accountId, ['priority', 'storeId']);
  const locationById = new Map(ourLocations.map((l) => [l.id, l]));
  const accountChannels = await db
    .select({ id: channels.id, name: channels.name, type: channels.type, settings: channels.settings })
    .from(channels)
    .where(eq(channels.accountId, actor.accountId));
  const channelById = new Map(accountChannels.map((c) => [c.id, c]));

  const levels =
    variantIds.length === 0
      ? []
      : await db
          .select()
          .from(inventoryLevels)
          .where(and(eq(inventoryLevels.accountId, actor.accountId), inArray(inventoryLevels.variantId, variantIds)));
  const levelOf = new Map(levels.map((l) => [`${l.variantId}|${l.locationId}`, l]));
  const listingRows =
    variantIds.length === 0
      ? []
      : await db
          .select()
          .from(listings)
          .where(and(eq(listings.accountId, actor.accountId), inArray(listings.variantId, variantIds)))
          .orderBy(listings.createdAt);
  const available = variantIds.length === 0 ? [] : await loadAvailable(db, actor.accountId, { variantIds });
  const stockRows =
    variantIds.length === 0
      ? []
      : await db
          .select({
            channelId: channelStock.channelId,
            variantId: channelStock.variantId,
            externalLocationId: channelStock.externalLocationId,
            pendingAt: channelStock.pendingAt,
            lastError: channelStock.lastError,
          })
          .from(channelStock)
          .where(and(eq(channelStock.accountId, actor.accountId), inArray(channelStock.variantId, variantIds)));
  const stockOf = new Map(stockRows.map((s) => [`${s.channelId}|${s.variantId}|${s.externalLocationId}`, s]));

  const externalName = (settings: ChannelSettings | undefined, externalLocationId: string) =>
    settings?.channel?.locationMap?.find((m) => m.externalLocationId === externalLocationId)?.externalName ?? null;

  const variantsOut: ProductVariant[] = variantRows.map((v) => {
    const stock: StockLevel[] = ourLocations.map((l) => {
      const level = levelOf.get(`${v.id}|${l.id}`);
      return {
        locationId: l.id,
        locationName: l.name,
        storeId: l.storeId,
        enabled: l.enabled,
        onHand: level?.onHand ?? 0,
        reserved: level?.reserved ?? 0,
        updatedAt: level?.updatedAt ?? null,
      };
    });
    const explained: AvailableExplanation[] = available
      .filter((a) => a.variantId === v.id)
      .map((a) => {
        const channel = channelById.get(a.channelId);
        const known = stockOf.get(`${a.channelId}|${a.variantId}|${a.externalLocationId}`);
        const location = locationById.get(a.locationId);
        return {
          channelId: a.channelId,
          channelName: channel?.name ?? '',
          channelType: (channel?.type ?? 'shopify') as ChannelType,
          externalLocationId: a.externalLocationId,
          externalLocationName: externalName(channel?.settings, a.externalLocationId),
          locationId: a.locationId,
          locationName: location?.name ?? null,
          storeId: a.storeId,
          onHand: a.onHand,
          reserved: a.reserved,
          buffer: a.buffer,
          safetyStock: a.safetyStock,
          available: a.available,
          pushedQty: a.pushedQty,
          pushedAt: a.pushedAt,
          pendingQty: a.pendingQty,
          pendingAt: a.pendingQty === null ? null : (known?.pendingAt ?? null),
          acknowledgedAt: a.pushedQty === null ? null : a.pushedAt,
          channelQty: a.channelQty,
          channelQtyAt: a.channelQtyAt,
          inSync: a.pendingQty === null && believedQty(a) === a.available,
          lastError: known?.lastError ?? null,
        };
      });
    const listed: ListingDetail[] = listingRows
      .filter((l) => l.variantId === v.id)
      .map((l) => ({
        id: l.id,
        channelId: l.channelId,
        channelName: channelById.get(l.channelId)?.name ?? '',
        channelType: (channelById.get(l.channelId)?.type ?? 'shopify') as ChannelType,
        externalProductId: l.externalProductId,
        externalVariantId: l.externalVariantId,
        inventoryItemId: l.inventoryItemId,
        syncStatusCode: l.syncStatusCode,
        lastError: l.lastError,
        lastSyncedAt: l.lastSyncedAt,
      }));
    return {
      id: v.id,
      sku: v.sku,
      alu: v.alu,
      barcode: v.barcode,
      title: v.title,
      price: v.price,
      compareAtPrice: v.compareAtPrice,
      position: v.position,
      stock,
      available: explained,
      listings: listed,
    };
  });

  return {
    id: product.id,
    title: product.title,
    description: product.description,
    brand: product.brand,
    productType: product.productType,
    status: product.status,
    images: product.images,
    createdAt: product.createdAt,
    updatedAt: product.updatedAt,
    variants: variantsOut,
    movements: await recentMovements(db, actor, variantIds),
    syncs: await recentSyncs(db, actor, variantIds, [...new Set(listingRows.map((l) => l.channelId))]),
  };
}

async function recentMovements(db: Db, actor: Who, variantIds: string[]): Promise<StockMovement[]> {
  if (variantIds.length === 0) return [];
  const rows = await db
    .select({
      m: inventoryMovements,
      sku: variants.sku,
      locationName: locations.name,
      userEmail: users.email,
    })
    .from(inventoryMovements)
    .innerJoin(variants, eq(variants.id, inventoryMovements.variantId))
    .innerJoin(locations, eq(locations.id, inventoryMovements.locationId))
    .leftJoin(users, and(eq(users.id, inventoryMovements.userId), eq(users.accountId, actor.accountId)))
    .where(and(eq(inventoryMovements.accountId, actor.accountId), inArray(inventoryMovements.variantId, variantIds)))
    .orderBy(desc(inventoryMovements.id))
    .limit(MOVEMENTS_SHOWN);
  return rows.map(({ m, sku, locationName, userEmail }) => ({
    id: m.id,
    variantId: m.variantId,
    sku,
    locationId: m.locationId,
    locationName,
    delta: m.delta,
    reservedDelta: m.reservedDelta,
    onHandAfter: m.onHandAfter,
    reason: m.reason,
    source: m.source,
    reference: m.reference,
    userId: m.userId,
    userEmail: userEmail ?? null,
    createdAt: m.createdAt,
  }));
}

/** Runs in which one of the variants failed, and the latest runs on the channels it is listed on. */
async function recentSyncs(
  db: Db,
  actor: Who,
  variantIds: string[],
  channelIds: string[],
): Promise<ProductSyncSummary[]> {
  const itemErrors = new Map<number, string>();
  if (variantIds.length > 0) {
    const items = await db
      .select({ syncId: syncItems.syncId, error: syncItems.error })
      .from(syncItems)
      .where(and(eq(syncItems.accountId, actor.accountId), inArray(syncItems.variantId, variantIds)))
      .orderBy(desc(syncItems.id))
      .limit(SYNCS_SHOWN * 5);
    for (const i of items) if (!itemErrors.has(i.syncId)) itemErrors.set(i.syncId, i.error);
  }
  const touching: SQL[] = [];
  if (itemErrors.size > 0) touching.push(inArray(syncs.id, [...itemErrors.keys()]));
  if (channelIds.length > 0) touching.push(inArray(syncs.channelId, channelIds));
  if (touching.length === 0) return [];
  const rows = await db
    .select({ s: syncs, channelName: channels.name })
    .from(syncs)
    .leftJoin(channels, eq(channels.id, syncs.channelId))
    .where(and(eq(syncs.accountId, actor.accountId), or(...touching)))
    .orderBy(desc(syncs.id))
    .limit(SYNCS_SHOWN);
  return rows.map(({ s, channelName }) => ({
    id: s.id,
    type: s.type,
    status: s.status,
    trigger: s.trigger,
    channelId: s.channelId,
    channelName: channelName ?? null,
    total: s.total,
    processed: s.processed,
    failed: s.failed,
    message: s.message,
    itemError: itemErrors.get(s.id) ?? null,
    createdAt: s.createdAt,
    finishedAt: s.finishedAt,
  }));
}

// ------------------------------------------------------------------------------------------------ write

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

/**
 * Queues publishing of products whose listings on the channel wait without channel ids. A channel that
 * cannot publish now (not connected, catalog feature off, jobs not running) leaves them pending: the
 * product is saved either way, and the next publish or import picks them up.
 */
async function publish(
  services: Services,
  accountId: string,
  channelId: string,
  productIds: string[],
  trigger: 'change' | 'manual',
) {
  try {
    await queueCatalogPublish(services, { accountId, channelId, trigger, productIds });
  } catch (err) {
    services.logger.warn(
      { channelId, err: err instanceof DomainError ? err.message : String(err) },
      'products: publish not queued; listings stay pending',
    );
  }
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
