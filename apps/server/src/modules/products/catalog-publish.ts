// Catalog publish (issue 6): creates on a channel the products of our catalog it does not list yet (and
// adds a listed product's missing variants to it there), as the channel's product settings say: title
// template, price rule, which fields are written. Runs after an import when publishMissing is on, on
// demand, and for products created on a channel's screen (their listings wait in status 2, pending).
import type { ProductSettings, SyncTrigger } from '@switchyard/contracts';
import { and, eq, inArray, isNotNull, notInArray, sql } from 'drizzle-orm';
import { publicUrl } from '../../config.ts';
import type { Connector, ProductInput, ProviderProduct } from '../../connectors/types.ts';
import type { Db } from '../../db/client.ts';
import { DomainError } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { Services } from '../../services.ts';
import { type ChannelRow, connectorFor, LIVE_STATUSES, providerFailure } from '../channels/channels.service.ts';
import { channels } from '../channels/channels.tables.ts';
import { markDirty } from '../inventory/ledger.ts';
import { schedulePush } from '../inventory/schedule.ts';
import {
  finishSync,
  recordSyncProgress,
  restartSync,
  runningSync,
  type SyncItemFailure,
  setSyncTotal,
  startSync,
} from '../syncs/syncs.records.ts';
import { syncItems, syncs } from '../syncs/syncs.tables.ts';
import { catalogChannel, channelSettingsOf, failureMessage } from './catalog-import.ts';
import { listings, products, variants } from './products.tables.ts';

export const CATALOG_PUBLISH_JOB = 'catalog.publish';
export const CATALOG_PUBLISH_RETRIES = 3;

export interface CatalogPublishJob {
  syncId: number;
  accountId: string;
  channelId: string;
  /** Only these products (a retry, or products just created); null: every product the channel lacks. */
  productIds: string[] | null;
  /**
   * Also send what changed of products the channel lists already (title, brand, type, description, images,
   * prices, barcodes, as its product settings say): after a product is edited here.
   */
  refresh?: boolean;
}

export interface QueueCatalogPublishInput {
  accountId: string;
  channelId: string;
  trigger: SyncTrigger;
  /** A run whose failed items to publish again (their payload names the product). */
  retryOf?: number | null;
  productIds?: string[] | null;
  refresh?: boolean;
}

/**
 * Queues publishing to the channel and answers the sync id. With `retryOf`, publishes the products of
 * that run's failed items; with `productIds`, those products; otherwise every product the channel does
 * not list. A whole-catalog publish already queued or running is answered instead of a second one.
 */
export async function queueCatalogPublish(services: Services, input: QueueCatalogPublishInput): Promise<number> {
  const { db } = services;
  await catalogChannel(db, input.accountId, input.channelId);
  if (!services.queue) throw new DomainError('INVALID_STATE', 'Background jobs are not running. Try again shortly.');
  let productIds = input.productIds ?? null;
  let refresh = input.refresh === true;
  if (input.retryOf) {
    const failed = await db
      .select({ payload: syncItems.payload, options: syncs.options })
      .from(syncItems)
      .innerJoin(syncs, eq(syncs.id, syncItems.syncId))
      .where(
        and(
          eq(syncItems.syncId, input.retryOf),
          eq(syncItems.accountId, input.accountId),
          eq(syncs.channelId, input.channelId),
        ),
      );
    productIds = [
      ...new Set(failed.map((f) => f.payload.productId).filter((id): id is string => typeof id === 'string')),
      ...(productIds ?? []),
    ];
    if (productIds.length === 0) throw new DomainError('INVALID_STATE', 'That run has no failed products to publish.');
    // A retried refresh (after an edit) refreshes again, not only publishes what is missing.
    refresh ||= failed.some((f) => f.options.refresh === true);
  }
  if (!productIds && !input.retryOf) {
    const existing = await runningSync(db, input.accountId, input.channelId, 'catalog_publish');
    if (existing) return existing;
  }
  const syncId = await startSync(db, {
    accountId: input.accountId,
    channelId: input.channelId,
    type: 'catalog_publish',
    trigger: input.trigger,
    status: 'queued',
    retryOf: input.retryOf ?? null,
    options: {
      ...(productIds ? { productIds: productIds.slice(0, 1000) } : {}),
      ...(refresh ? { refresh: true } : {}),
    },
  });
  const job: CatalogPublishJob = {
    syncId,
    accountId: input.accountId,
    channelId: input.channelId,
    productIds,
    ...(refresh ? { refresh: true } : {}),
  };
  await services.queue.send(CATALOG_PUBLISH_JOB, job);
  return syncId;
}

/** The `catalog.publish` job; a failed attempt starts over with what is still unpublished. */
export async function runCatalogPublish(
  services: Services,
  job: CatalogPublishJob,
  meta: { retryCount: number } = { retryCount: CATALOG_PUBLISH_RETRIES },
): Promise<void> {
  const { db } = services;
  const [run] = await db.select().from(syncs).where(eq(syncs.id, job.syncId));
  if (!run || run.finishedAt) return;
  await restartSync(db, job.syncId);
  let row: ChannelRow | null = null;
  try {
    row = await catalogChannel(db, job.accountId, job.channelId);
    const summary = await publishCatalog(services, row, connectorFor(services, row), job);
    await finishSync(db, job.syncId, { message: summary });
  } catch (err) {
    // The provider refusing our credentials puts the channel in error (re-authorise): no point retrying.
    const status = (err as { status?: number })?.status;
    const refused = row !== null && (status === 401 || status === 403);
    if (refused && row) await providerFailure(services, row, err);
    const final = refused || err instanceof DomainError || meta.retryCount >= CATALOG_PUBLISH_RETRIES;
    const message = failureMessage(row, err);
    if (final) {
      await finishSync(db, job.syncId, { error: message });
      if (refused || err instanceof DomainError) return;
    } else {
      await db
        .update(syncs)
        .set({ message: `Attempt ${meta.retryCount + 1} failed: ${message} Retrying.`, updatedAt: new Date() })
        .where(eq(syncs.id, job.syncId));
    }
    throw err;
  }
}

// ------------------------------------------------------------------------------------ what is sent

/** The title template with {title}, {brand} and {variant} replaced, and what they leave dangling tidied. */
export function applyTitleTemplate(template: string, values: { title: string; brand: string | null; variant: string }) {
  const out = template
    .replace(/\{title\}/g, values.title)
    .replace(/\{brand\}/g, values.brand ?? '')
    .replace(/\{variant\}/g, values.variant)
    .replace(/\s+/g, ' ')
    .replace(/^[\s\-–—|/:,]+|[\s\-–—|/:,]+$/g, '')
    .trim();
  return out || values.title;
}

/** The price rule on a price in minor units: none, percent (+10 = 10 % more) or amount (minor units). */
export function applyPriceRule(price: number, rule: ProductSettings['priceRule']): number {
  const adjusted =
    rule.kind === 'percent'
      ? Math.round((price * (100 + rule.value)) / 100)
      : rule.kind === 'amount'
        ? price + rule.value
        : price;
  return Math.max(0, adjusted);
}

export interface PublishProduct {
  id: string;
  title: string;
  description: string;
  brand: string | null;
  productType: string | null;
  images: string[];
  variants: {
    id: string;
    sku: string;
    title: string;
    barcode: string | null;
    price: number;
    compareAtPrice: number | null;
  }[];
}

/**
 * What the channel is sent for a product, per its product settings. A product cannot exist at a channel
 * without a title and prices, so with those fields off the channel gets ours unchanged (no template, no
 * rule); description, images and barcode are left out when off.
 */
export function productInputFor(
  product: PublishProduct,
  settings: ProductSettings,
  imageBase: string | null,
): ProductInput {
  const single = product.variants.length === 1 ? (product.variants[0]?.title ?? '') : '';
  const price = (p: number) => (settings.syncFields.price ? applyPriceRule(p, settings.priceRule) : p);
  const images = product.images.flatMap((url) =>
    /^https?:\/\//.test(url) ? [url] : url.startsWith('/') && imageBase ? [`${imageBase}${url}`] : [],
  );
  return {
    title: settings.syncFields.title
      ? applyTitleTemplate(settings.titleTemplate, { title: product.title, brand: product.brand, variant: single })
      : product.title,
    brand: product.brand,
    productType: product.productType,
    ...(settings.syncFields.description ? { description: product.description } : {}),
    ...(settings.syncFields.images ? { images } : {}),
    variants: product.variants.map((v) => ({
      sku: v.sku,
      title: v.title,
      price: price(v.price),
      compareAtPrice: v.compareAtPrice === null ? null : price(v.compareAtPrice),
      ...(settings.syncFields.barcode ? { barcode: v.barcode } : {}),
    })),
  };
}

const withoutTitle = ({ title: _title, ...rest }: ProductInput): Partial<ProductInput> => rest;

/**
 * After products were edited here: a refresh publish on every live channel (catalog feature on) that lists
 * any of them, so their titles, prices and details follow. Answers the sync ids queued.
 */
export async function queueProductRefresh(services: Services, accountId: string, productIds: string[]) {
  if (productIds.length === 0 || !services.queue) return [];
  const rows = await services.db
    .selectDistinct({ channelId: listings.channelId })
    .from(listings)
    .innerJoin(variants, eq(variants.id, listings.variantId))
    .innerJoin(channels, eq(channels.id, listings.channelId))
    .where(
      and(
        eq(listings.accountId, accountId),
        inArray(variants.productId, productIds),
        isNotNull(listings.externalProductId),
        inArray(channels.status, [...LIVE_STATUSES]),
        isNotNull(channels.credentials),
        sql`coalesce((${channels.features} ->> 'catalog')::boolean, true)`,
      ),
    );
  const queued: number[] = [];
  for (const { channelId } of rows) {
    // The edit is saved already: a channel that cannot take a run now (it just went offline, say) is logged and
    // skipped, not made the edit's failure; its next catalog sync or publish brings it up to date.
    try {
      queued.push(
        await queueCatalogPublish(services, { accountId, channelId, trigger: 'change', productIds, refresh: true }),
      );
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      services.logger.warn({ accountId, channelId, err: err.message }, 'catalog: product refresh not queued');
    }
  }
  return queued;
}

// ------------------------------------------------------------------------------------------- the run

/** Our active products with variants the channel does not list (no listing, or one not yet published). */
export async function unpublished(
  db: Db,
  accountId: string,
  channelId: string,
  productIds: string[] | null,
  /** Every active variant of the products, listed or not (a refresh after an edit). */
  includeListed = false,
): Promise<(PublishProduct & { externalProductId: string | null })[]> {
  const rows = await db
    .select({
      product: products,
      variant: {
        id: variants.id,
        sku: variants.sku,
        title: variants.title,
        barcode: variants.barcode,
        price: variants.price,
        compareAtPrice: variants.compareAtPrice,
      },
    })
    .from(variants)
    .innerJoin(products, eq(products.id, variants.productId))
    .where(
      and(
        eq(variants.accountId, accountId),
        eq(products.status, 'active'),
        productIds ? inArray(products.id, productIds.length ? productIds : ['']) : undefined,
        includeListed
          ? undefined
          : sql`not exists (select 1 from ${listings} l where l.channel_id = ${channelId} and l.variant_id = ${variants.id} and l.external_variant_id is not null)`,
      ),
    )
    .orderBy(products.createdAt, products.id, variants.position, variants.id);
  const byProduct = new Map<string, PublishProduct & { externalProductId: string | null }>();
  for (const r of rows) {
    let p = byProduct.get(r.product.id);
    if (!p) {
      p = {
        id: r.product.id,
        title: r.product.title,
        description: r.product.description,
        brand: r.product.brand,
        productType: r.product.productType,
        images: r.product.images,
        variants: [],
        externalProductId: null,
      };
      byProduct.set(p.id, p);
    }
    p.variants.push(r.variant);
  }
  if (byProduct.size === 0) return [];
  // A product some of whose variants the channel lists already: the missing ones are added to it there.
  const ids = [...byProduct.keys()];
  for (let i = 0; i < ids.length; i += 5000) {
    const listed = await db
      .select({ productId: variants.productId, externalProductId: listings.externalProductId })
      .from(listings)
      .innerJoin(variants, eq(variants.id, listings.variantId))
      .where(
        and(
          eq(listings.channelId, channelId),
          isNotNull(listings.externalProductId),
          isNotNull(listings.externalVariantId),
          inArray(variants.productId, ids.slice(i, i + 5000)),
        ),
      );
    for (const l of listed) {
      const p = byProduct.get(l.productId);
      if (p && !p.externalProductId) p.externalProductId = l.externalProductId;
    }
  }
  return [...byProduct.values()];
}

/** Publishes product by product, writing each one's listings at once; answers the run's closing line. */
export async function publishCatalog(
  services: Services,
  row: ChannelRow,
  connector: Connector,
  job: Pick<CatalogPublishJob, 'syncId' | 'accountId' | 'channelId' | 'productIds' | 'refresh'>,
): Promise<string> {
  const { db } = services;
  const settings = channelSettingsOf(row).product;
  const todo = await unpublished(db, job.accountId, job.channelId, job.productIds, job.refresh === true);
  const total = todo.reduce((n, p) => n + p.variants.length, 0);
  await setSyncTotal(db, job.syncId, total);
  const imageBase = services.config.PUBLIC_URL ? publicUrl(services.config) : null;
  const published: string[] = [];
  let createdProducts = 0;
  for (const product of todo) {
    const input = productInputFor(product, settings, imageBase);
    let failures: SyncItemFailure[] = [];
    let succeeded = 0;
    try {
      // A listed product gets its missing variants, and on a refresh its details as the settings say (a
      // title the settings do not write stays the channel's own).
      const result: ProviderProduct = product.externalProductId
        ? await connector.updateProduct(
            product.externalProductId,
            job.refresh ? (settings.syncFields.title ? input : withoutTitle(input)) : { variants: input.variants },
          )
        : await connector.createProduct(input);
      if (!product.externalProductId) createdProducts++;
      const bySku = new Map(result.variants.filter((v) => v.sku).map((v) => [v.sku as string, v]));
      const now = new Date();
      const matched = product.variants.flatMap((v) => {
        const at = bySku.get(v.sku);
        return at ? [{ v, at }] : [];
      });
      if (matched.length) {
        await db.transaction(async (tx) => {
          // The channel's item can only be listed once: a stale listing of it (another variant) goes.
          await tx.delete(listings).where(
            and(
              eq(listings.channelId, row.id),
              inArray(
                listings.inventoryItemId,
                matched.map((m) => m.at.inventoryItemId),
              ),
              notInArray(
                listings.variantId,
                matched.map((m) => m.v.id),
              ),
            ),
          );
          await tx
            .insert(listings)
            .values(
              matched.map(({ v, at }) => ({
                id: newId('lst'),
                accountId: job.accountId,
                channelId: row.id,
                variantId: v.id,
                externalProductId: result.externalId,
                externalVariantId: at.externalId,
                inventoryItemId: at.inventoryItemId,
                syncStatusCode: 1 as const,
                lastSyncedAt: now,
                createdAt: now,
                updatedAt: now,
              })),
            )
            .onConflictDoUpdate({
              target: [listings.channelId, listings.variantId],
              set: {
                externalProductId: sql`excluded.external_product_id`,
                externalVariantId: sql`excluded.external_variant_id`,
                inventoryItemId: sql`excluded.inventory_item_id`,
                syncStatusCode: 1,
                lastError: null,
                lastSyncedAt: now,
                updatedAt: now,
              },
            });
        });
      }
      succeeded = matched.length;
      published.push(...matched.map((m) => m.v.id));
      failures = product.variants
        .filter((v) => !bySku.has(v.sku))
        .map((v) => ({
          label: v.sku,
          variantId: v.id,
          error: `${row.name} did not keep this variant when the product was published`,
          payload: { productId: product.id },
        }));
    } catch (err) {
      const message = failureMessage(row, err);
      failures = product.variants.map((v) => ({
        label: `${v.sku} (${product.title})`,
        variantId: v.id,
        error: message,
        payload: { productId: product.id },
      }));
      // Listings waiting for this publish (created on the channel's screen) show the error.
      await db
        .update(listings)
        .set({ syncStatusCode: 3, lastError: message.slice(0, 1000), updatedAt: new Date() })
        .where(
          and(
            eq(listings.channelId, row.id),
            inArray(
              listings.variantId,
              product.variants.map((v) => v.id),
            ),
          ),
        );
      if (!(err instanceof DomainError) && (err as { status?: number })?.status === 401) throw err;
    }
    await recordSyncProgress(db, job.syncId, job.accountId, { succeeded, failures });
  }
  // The new listings get our stock.
  if (published.length) {
    await schedulePush(services, await markDirty(db, job.accountId, published, { channelIds: [row.id] }));
  }
  const n = published.length;
  if (job.refresh)
    return `Updated ${n} variant${n === 1 ? '' : 's'} at ${row.name} (${createdProducts} new product${createdProducts === 1 ? '' : 's'}).`;
  return `Published ${n} variant${n === 1 ? '' : 's'} (${createdProducts} new product${createdProducts === 1 ? '' : 's'}) to ${row.name}.`;
}
