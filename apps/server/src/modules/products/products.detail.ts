// One product as `products.get` shows it: its variants with stock per location, each channel's number
// explained (available, pushed, pending, what the channel holds), its listings, its latest stock movements
// and the sync runs that touched it.
import type {
  AvailableExplanation,
  ChannelSettings,
  ChannelType,
  ListingDetail,
  ProductDetail,
  ProductSyncSummary,
  ProductVariant,
  StockLevel,
  StockMovement,
} from '@switchyard/contracts';
import { and, desc, eq, inArray, or, type SQL } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.ts';
import { DomainError } from '../../lib/errors.ts';
import { users } from '../accounts/accounts.tables.ts';
import { channels } from '../channels/channels.tables.ts';
import { loadAvailable } from '../inventory/available.ts';
import { believedQty } from '../inventory/inbound.ts';
import { channelStock, inventoryLevels, inventoryMovements } from '../inventory/inventory.tables.ts';
import { accountLocations } from '../locations/locations.read.ts';
import { locations } from '../locations/locations.tables.ts';
import { syncItems, syncs } from '../syncs/syncs.tables.ts';
import { NOT_FOUND, type Who } from './products.shared.ts';
import { listings, products, variants } from './products.tables.ts';

const MOVEMENTS_SHOWN = 50;
const SYNCS_SHOWN = 20;

/** The product of the actor's account; NOT_FOUND when it has none with that id. */
export async function findProduct(db: Db | Tx, actor: Who, id: string) {
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
