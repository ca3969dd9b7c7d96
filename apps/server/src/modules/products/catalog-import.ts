// Catalog import (issue 6): reads a channel's products, matches their variants to ours by SKU (an unknown
// SKU becomes a product and variant of ours, a known one is linked), writes the channel's listings,
// takes the channel's stock as the first stock of levels that never had any, maps the channel's locations
// to ours, and hands the rest to the sync engine (dirty marks, push). Every run is a sync record
// (catalog_import) with live progress and per-item failures.
import {
  CHANNEL_LABELS,
  type ChannelSettings,
  DEFAULT_CHANNEL_SETTINGS,
  DEFAULT_FEATURES,
  type LocationMapping,
  type SyncTrigger,
  unmappedStockText,
} from '@switchyard/contracts';
import { and, eq, inArray, ne, sql } from 'drizzle-orm';
import type { Connector, ProviderLocation, ProviderProduct } from '../../connectors/types.ts';
import type { Db, Tx } from '../../db/client.ts';
import { DomainError } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { Services } from '../../services.ts';
import { assertWithinPlan } from '../billing/plan-limits.ts';
import {
  type ChannelRow,
  connectorFor,
  LIVE_STATUSES,
  mergeLocationMap,
  providerFailure,
} from '../channels/channels.service.ts';
import { channels } from '../channels/channels.tables.ts';
import { markDirty } from '../inventory/ledger.ts';
import { schedulePush } from '../inventory/schedule.ts';
import { accountLocations } from '../locations/locations.read.ts';
import { locations } from '../locations/locations.tables.ts';
import { queueOrderImport } from '../orders/orders.import.ts';
import {
  finishSync,
  recordSyncProgress,
  restartSync,
  runningSync,
  type SyncItemFailure,
  setSyncTotal,
  startSync,
} from '../syncs/syncs.records.ts';
import { syncs } from '../syncs/syncs.tables.ts';
import { importStock } from './catalog-import.stock.ts';
import { queueCatalogPublish } from './catalog-publish.ts';
import { listings, products, variants } from './products.tables.ts';

export const CATALOG_IMPORT_JOB = 'catalog.import';
/** Attempts after the first (the connector already retries each call on 429/5xx/timeouts). */
export const CATALOG_IMPORT_RETRIES = 3;

export interface CatalogImportJob {
  syncId: number;
  accountId: string;
  channelId: string;
  /** ISO date or date-time: only products the channel changed since then. */
  syncFrom: string | null;
}

export interface QueueCatalogImportInput {
  accountId: string;
  channelId: string;
  syncFrom?: string | null;
  trigger: SyncTrigger;
  retryOf?: number | null;
}

export const channelSettingsOf = (row: ChannelRow): ChannelSettings => ({
  shipping: { ...DEFAULT_CHANNEL_SETTINGS.shipping, ...row.settings?.shipping },
  product: { ...DEFAULT_CHANNEL_SETTINGS.product, ...row.settings?.product },
  channel: { ...DEFAULT_CHANNEL_SETTINGS.channel, ...row.settings?.channel },
  advanced: { ...DEFAULT_CHANNEL_SETTINGS.advanced, ...row.settings?.advanced },
});

/**
 * The channel a catalog run may work on: the account's, connected, with the catalog feature on. Answers
 * NOT_FOUND for another account's id and INVALID_STATE with what to do otherwise.
 */
export async function catalogChannel(db: Db, accountId: string, channelId: string): Promise<ChannelRow> {
  const [row] = await db
    .select()
    .from(channels)
    .where(and(eq(channels.accountId, accountId), eq(channels.id, channelId)));
  if (!row) throw new DomainError('NOT_FOUND', 'Channel not found');
  if (!row.credentials || !LIVE_STATUSES.includes(row.status as (typeof LIVE_STATUSES)[number])) {
    throw new DomainError('INVALID_STATE', `${row.name} is not connected. Re-authorise it first.`);
  }
  if (!{ ...DEFAULT_FEATURES, ...row.features }.catalog) {
    throw new DomainError(
      'INVALID_STATE',
      `Catalog sync is switched off for ${row.name}. Switch the catalog feature on in the channel's settings.`,
    );
  }
  return row;
}

/**
 * Queues an import of the channel's catalog and answers its sync id. While an import of the channel is
 * already queued or running (and this is not a retry), answers that run's id instead: one import at a
 * time per channel. The syncs screen's retry calls this with `retryOf` (an import always runs whole).
 */
export async function queueCatalogImport(services: Services, input: QueueCatalogImportInput): Promise<number> {
  const { db } = services;
  await catalogChannel(db, input.accountId, input.channelId);
  if (!services.queue) throw new DomainError('INVALID_STATE', 'Background jobs are not running. Try again shortly.');
  const syncFrom = input.syncFrom ? new Date(input.syncFrom) : null;
  if (syncFrom && Number.isNaN(syncFrom.getTime())) {
    throw new DomainError('VALIDATION', 'sync_from: Should be an ISO date (2026-11-01) or date-time');
  }
  if (!input.retryOf) {
    const existing = await runningSync(db, input.accountId, input.channelId, 'catalog_import');
    if (existing) return existing;
  }
  const syncId = await startSync(db, {
    accountId: input.accountId,
    channelId: input.channelId,
    type: 'catalog_import',
    trigger: input.trigger,
    status: 'queued',
    retryOf: input.retryOf ?? null,
    options: syncFrom ? { syncFrom: syncFrom.toISOString() } : {},
  });
  const job: CatalogImportJob = {
    syncId,
    accountId: input.accountId,
    channelId: input.channelId,
    syncFrom: syncFrom ? syncFrom.toISOString() : null,
  };
  await services.queue.send(CATALOG_IMPORT_JOB, job);
  return syncId;
}

/** Why a run failed as a whole, in words for the merchant (no provider bodies, no SQL). */
export function failureMessage(row: Pick<ChannelRow, 'type' | 'name'> | null, err: unknown): string {
  if (err instanceof DomainError) return err.message;
  const label = row ? CHANNEL_LABELS[row.type] : 'The channel';
  const status = (err as { status?: number })?.status;
  if (status === 401 || status === 403) return `${label} refused our access to ${row?.name}. Re-authorise the channel.`;
  return `${label} did not answer as expected (${(err as Error)?.name ?? 'error'}).`;
}

/**
 * The `catalog.import` job. A failed attempt is retried from the start (the import is idempotent and the
 * run's counts start over); the last one closes the run as failed and goes to the dead-letter queue.
 */
export async function runCatalogImport(
  services: Services,
  job: CatalogImportJob,
  meta: { retryCount: number } = { retryCount: CATALOG_IMPORT_RETRIES },
): Promise<void> {
  const { db } = services;
  const [run] = await db.select().from(syncs).where(eq(syncs.id, job.syncId));
  if (!run || run.finishedAt) return;
  await restartSync(db, job.syncId);
  let row: ChannelRow | null = null;
  try {
    row = await catalogChannel(db, job.accountId, job.channelId);
    const connector = connectorFor(services, row);
    const summary = await importCatalog(services, row, connector, job);
    await finishSync(db, job.syncId, { message: summary });
    await db
      .update(channels)
      .set({ lastSyncAt: new Date(), updatedAt: new Date() })
      .where(eq(channels.id, job.channelId));
  } catch (err) {
    // The provider refusing our credentials puts the channel in error (re-authorise): no point retrying.
    const status = (err as { status?: number })?.status;
    const refused = row !== null && (status === 401 || status === 403);
    if (refused && row) await providerFailure(services, row, err);
    const final = refused || err instanceof DomainError || meta.retryCount >= CATALOG_IMPORT_RETRIES;
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
  // The channel's open orders come in once its catalog is here (their SKUs match), then by its cursor.
  if (row.features?.orders) {
    try {
      await queueOrderImport(services, job.channelId, {
        accountId: job.accountId,
        trigger: run.trigger === 'retry' ? 'manual' : run.trigger,
      });
    } catch (err) {
      services.logger.warn({ err, channelId: job.channelId }, 'order import after catalog import not queued');
    }
  }
  const settings = channelSettingsOf(row);
  if (settings.product.publishMissing) {
    try {
      await queueCatalogPublish(services, {
        accountId: job.accountId,
        channelId: job.channelId,
        trigger: run.trigger === 'retry' ? 'manual' : run.trigger,
      });
    } catch (err) {
      services.logger.warn({ err, channelId: job.channelId }, 'publish after import not queued');
    }
  }
}

/** The whole import; answers the run's closing line. */
export async function importCatalog(
  services: Services,
  row: ChannelRow,
  connector: Connector,
  job: Pick<CatalogImportJob, 'syncId' | 'accountId' | 'channelId' | 'syncFrom'>,
): Promise<string> {
  const { db } = services;
  const notes: string[] = [];
  const started = Date.now();
  const phases: Record<string, number> = {};
  const lap = (phase: string) => {
    phases[phase] = Date.now() - started - Object.values(phases).reduce((a, b) => a + b, 0);
  };

  // 1. Locations: Square's become ours; a platform's are mapped to ours by name.
  const providerLocations = await connector.listLocations();
  const { mapped, remapped, unmapped, adopted } = await importLocations(db, row, providerLocations, notes);
  // Said where the merchant looks: the run's line, and the products screen (from the same map).
  if (unmapped > 0) notes.push(`${unmappedStockText(unmapped, CHANNEL_LABELS[row.type])}.`);

  lap('locationsMs');

  // 2. Products, page by page, with live progress.
  const since = job.syncFrom ? new Date(job.syncFrom).getTime() : null;
  const state: PageState = { seenSkus: new Map(), listed: new Set(), created: 0, linked: 0 };
  let total = 0;
  let cursor: string | null = null;
  do {
    const page = await connector.listProducts(cursor);
    cursor = page.nextCursor;
    const wanted = page.items.filter(
      (p) => since === null || p.updatedAt === null || new Date(p.updatedAt).getTime() >= since,
    );
    const count = wanted.reduce((n, p) => n + p.variants.length, 0);
    if (count === 0) continue;
    total += count;
    await setSyncTotal(db, job.syncId, total);
    const outcome = await db.transaction((tx) => importPage(tx, row, wanted, state));
    await recordSyncProgress(db, job.syncId, job.accountId, outcome);
  } while (cursor);

  lap('productsMs');

  // 3. Stock: what the channel holds at the locations that map to ours.
  // A location Square's store just took over holds the stock it came with: Square's numbers seed nothing
  // there (the engine pushes ours to Square instead), so no quantity changes and no stock moves twice.
  const stock = await importStock(db, row, connector, mapped, state.listed, new Set(adopted));
  lap('stockMs');

  // 4. The engine pushes our numbers to the channel (and to the others where stock was seeded).
  const dirty = new Set(stock.channelIds);
  // Channels whose locations were just mapped to new Square stores: their numbers change everywhere.
  for (const channelId of remapped) {
    const listed = await db
      .select({ variantId: listings.variantId })
      .from(listings)
      .where(eq(listings.channelId, channelId));
    for (const id of await markDirty(
      db,
      job.accountId,
      listed.map((l) => l.variantId),
      { channelIds: [channelId] },
    ))
      dirty.add(id);
  }
  for (const id of await markDirty(db, job.accountId, [...state.listed], { channelIds: [job.channelId] }))
    dirty.add(id);
  await schedulePush(services, dirty);
  lap('dirtyMs');
  services.logger.info(
    {
      channelId: row.id,
      syncId: job.syncId,
      variants: total,
      seeded: stock.seeded,
      ...phases,
      stockProviderMs: stock.providerMs,
      stockLedgerMs: stock.applyMs,
    },
    'catalog import done',
  );

  const parts = [
    `${state.created} new variant${state.created === 1 ? '' : 's'}`,
    `${state.linked} linked`,
    `stock of ${stock.levels} level${stock.levels === 1 ? '' : 's'} read, ${stock.seeded} seeded`,
  ];
  return [`Imported ${total} variant${total === 1 ? '' : 's'}: ${parts.join(', ')}.`, ...notes].join(' ');
}

// ------------------------------------------------------------------------------------------- locations

/**
 * Square: every active Square location the account does not have yet becomes a location of ours (its
 * store_id is the Square location id), as far as the plan allows; new Square locations join the channel's
 * location map. Shopify and BigCommerce: an unmapped channel location named like one of ours (case-
 * insensitive) is mapped to it. Answers the channel's location map after that, resolved to our locations.
 */
export async function importLocations(
  db: Db,
  row: ChannelRow,
  providerLocations: ProviderLocation[],
  notes: string[],
): Promise<{ mapped: MappedLocation[]; remapped: string[]; unmapped: number; adopted: string[] }> {
  return db.transaction(async (tx) => {
    const [locked] = await tx.select().from(channels).where(eq(channels.id, row.id)).for('update');
    if (!locked) throw new DomainError('NOT_FOUND', 'Channel not found');
    const settings = channelSettingsOf(locked);
    let map = settings.channel.locationMap;
    const ours = await accountLocations(tx, row.accountId);
    const remapped: string[] = [];
    let adoptedStores: string[] = [];

    if (row.type === 'square') {
      // A Square store the merchant pointed at a location of ours, or one named like a location of ours
      // that is no Square store (made from a Shopify or BigCommerce shop before Square came), is that
      // location: it is mapped, not made again, and keeps its stock.
      map = mergeLocationMap('square', map, providerLocations);
      const adopted = adoptByName(map, providerLocations, ours);
      map = adopted.map;
      adoptedStores = adopted.storeIds;
      if (adopted.count > 0) {
        notes.push(
          `${adopted.count} Square store${adopted.count === 1 ? '' : 's'} matched to your location${adopted.count === 1 ? '' : 's'} by name.`,
        );
      }
      const have = new Set(ours.map((l) => l.storeId));
      const storeOf = new Map(map.map((m) => [m.externalLocationId, m.storeId]));
      const missing = providerLocations.filter((l) => {
        const storeId = storeOf.get(l.externalId);
        return l.active && !(storeId && have.has(storeId)) && !have.has(l.externalId);
      });
      let created = 0;
      for (const l of missing) {
        try {
          await tx.transaction(async (sp) => {
            await assertWithinPlan(sp, row.accountId, 'locations');
            const a = l.address ?? {};
            const [inserted] = await sp
              .insert(locations)
              .values({
                id: newId('loc'),
                accountId: row.accountId,
                name: l.name.slice(0, 100) || l.externalId,
                storeId: l.externalId,
                address: {
                  address1: a.address1 ?? null,
                  city: a.city ?? null,
                  province: a.province ?? null,
                  zip: a.zip ?? null,
                  country: a.country ?? null,
                },
              })
              .onConflictDoNothing()
              .returning();
            if (inserted) {
              ours.push(inserted);
              created++;
            }
          });
        } catch (err) {
          if (!(err instanceof DomainError && err.code === 'PLAN_LIMIT')) throw err;
          notes.push(`${missing.length - created} Square location(s) not added: ${err.message}`);
          break;
        }
      }
      if (created > 0) {
        notes.push(`${created} location${created === 1 ? '' : 's'} added from Square.`);
        remapped.push(...(await remapPlatformChannels(tx, row.accountId, ours)));
      }
      // A store that had no location of ours is the one just made for it (store id = its Square id).
      const made = new Set(ours.map((l) => l.storeId));
      map = map.map((m) =>
        m.storeId && made.has(m.storeId)
          ? m
          : made.has(m.externalLocationId)
            ? { ...m, storeId: m.externalLocationId }
            : m,
      );
    } else {
      const named = mapByName(map, ours);
      map = named.map;
      if (named.mapped > 0)
        notes.push(`${named.mapped} channel location${named.mapped === 1 ? '' : 's'} mapped by name.`);
    }

    if (JSON.stringify(map) !== JSON.stringify(settings.channel.locationMap)) {
      await tx
        .update(channels)
        .set({
          settings: { ...settings, channel: { ...settings.channel, locationMap: map } },
          updatedAt: new Date(),
        })
        .where(eq(channels.id, row.id));
    }
    const byStore = new Map(ours.map((l) => [l.storeId, l]));
    const mapped = map.flatMap((m) => {
      const location = m.storeId ? byStore.get(m.storeId) : undefined;
      return location ? [{ externalLocationId: m.externalLocationId, locationId: location.id, feeds: m.feeds }] : [];
    });
    const active = new Set(providerLocations.filter((l) => l.active).map((l) => l.externalId));
    const unmapped = map.filter(
      (m) => m.feeds && active.has(m.externalLocationId) && !(m.storeId && byStore.has(m.storeId)),
    ).length;
    const adopted = ours.filter((l) => adoptedStores.includes(l.storeId)).map((l) => l.id);
    return { mapped, remapped, unmapped, adopted };
  });
}

/**
 * Square stores whose map names no location of ours take the location of ours with the same name
 * (case-insensitive) whose store id is no Square store's and that no other Square store took.
 */
export function adoptByName(
  map: LocationMapping[],
  squareLocations: ProviderLocation[],
  ours: { name: string; storeId: string }[],
): { map: LocationMapping[]; count: number; storeIds: string[] } {
  const storeIds = new Set(ours.map((l) => l.storeId));
  const squareIds = new Set(squareLocations.map((l) => l.externalId));
  const active = new Set(squareLocations.filter((l) => l.active).map((l) => l.externalId));
  const claimed = new Set(map.flatMap((m) => (m.storeId && storeIds.has(m.storeId) ? [m.storeId] : [])));
  const byName = new Map<string, string>();
  for (const l of ours) {
    const key = l.name.trim().toLowerCase();
    if (!squareIds.has(l.storeId) && !claimed.has(l.storeId) && !byName.has(key)) byName.set(key, l.storeId);
  }
  let count = 0;
  const taken: string[] = [];
  const next = map.map((m): LocationMapping => {
    if ((m.storeId && storeIds.has(m.storeId)) || !active.has(m.externalLocationId)) return m;
    const key = m.externalName.trim().toLowerCase();
    const storeId = byName.get(key);
    if (!storeId) return m;
    byName.delete(key);
    count++;
    taken.push(storeId);
    return { ...m, storeId };
  });
  return { map: next, count, storeIds: taken };
}

/**
 * Maps each unmapped channel location (storeId null) to our location of the same name (case-insensitive),
 * unless that location is already mapped in this channel.
 */
export function mapByName(
  map: LocationMapping[],
  ours: { name: string; storeId: string }[],
): { map: LocationMapping[]; mapped: number } {
  const byName = new Map(ours.map((l) => [l.name.trim().toLowerCase(), l]));
  const taken = new Set(map.map((m) => m.storeId).filter(Boolean));
  let mapped = 0;
  const next = map.map((m): LocationMapping => {
    if (m.storeId !== null) return m;
    const match = byName.get(m.externalName.trim().toLowerCase());
    if (!match || taken.has(match.storeId)) return m;
    taken.add(match.storeId);
    mapped++;
    return { ...m, storeId: match.storeId };
  });
  return { map: next, mapped };
}

/**
 * After Square locations became ours: the account's Shopify and BigCommerce channels map their unmapped
 * locations to them by name too (whatever order the channels were imported in). Answers the channels changed.
 */
async function remapPlatformChannels(tx: Tx, accountId: string, ours: { name: string; storeId: string }[]) {
  const changed: string[] = [];
  const others = await tx
    .select()
    .from(channels)
    .where(and(eq(channels.accountId, accountId), ne(channels.type, 'square')))
    .orderBy(channels.id)
    .for('update');
  for (const other of others) {
    const settings = channelSettingsOf(other);
    const named = mapByName(settings.channel.locationMap, ours);
    if (named.mapped === 0) continue;
    await tx
      .update(channels)
      .set({
        settings: { ...settings, channel: { ...settings.channel, locationMap: named.map } },
        updatedAt: new Date(),
      })
      .where(eq(channels.id, other.id));
    changed.push(other.id);
  }
  return changed;
}

export interface MappedLocation {
  externalLocationId: string;
  locationId: string;
  feeds: boolean;
}

// -------------------------------------------------------------------------------------------- products

interface PageState {
  /** SKU → the channel variant that took it in this run (a second one with the same SKU is not linked). */
  seenSkus: Map<string, string>;
  /** Our variants listed on the channel by this run. */
  listed: Set<string>;
  created: number;
  linked: number;
}

const label = (p: ProviderProduct, v: ProviderProduct['variants'][number]) =>
  v.title && v.title !== 'Default Title' && v.title !== p.title ? `${p.title} / ${v.title}` : p.title;

/**
 * One page of channel products in one transaction: matches by SKU, creates what is unknown (a channel
 * product's new variants join the product of its known ones, if any), and upserts the listings.
 */
export async function importPage(
  tx: Tx,
  row: ChannelRow,
  page: ProviderProduct[],
  state: PageState,
): Promise<{ succeeded: number; failures: SyncItemFailure[] }> {
  const accountId = row.accountId;
  const failures: SyncItemFailure[] = [];
  const usable: { product: ProviderProduct; variant: ProviderProduct['variants'][number]; sku: string }[] = [];
  for (const product of page) {
    for (const variant of product.variants) {
      const sku = variant.sku?.trim() ?? '';
      const payload = {
        externalProductId: product.externalId,
        externalVariantId: variant.externalId,
        inventoryItemId: variant.inventoryItemId,
      };
      if (!sku) {
        failures.push({ label: label(product, variant), error: 'No SKU: cannot match', payload });
        continue;
      }
      const first = state.seenSkus.get(sku);
      if (first !== undefined && first !== variant.externalId) {
        failures.push({
          label: sku,
          error: `SKU ${sku} is on more than one variant in ${row.name}: only the first is linked`,
          payload,
        });
        continue;
      }
      state.seenSkus.set(sku, variant.externalId);
      usable.push({ product, variant, sku });
    }
  }
  if (usable.length === 0) return { succeeded: 0, failures };

  const skus = [...new Set(usable.map((u) => u.sku))];
  const existing = new Map<string, { id: string; productId: string }>();
  for (const v of await tx
    .select({ id: variants.id, productId: variants.productId, sku: variants.sku })
    .from(variants)
    .where(and(eq(variants.accountId, accountId), inArray(variants.sku, skus)))) {
    existing.set(v.sku, v);
  }

  // New products and variants for unknown SKUs.
  const now = new Date();
  const newProducts: (typeof products.$inferInsert)[] = [];
  const newVariants: (typeof variants.$inferInsert)[] = [];
  const byProduct = new Map<ProviderProduct, typeof usable>();
  for (const u of usable) byProduct.set(u.product, [...(byProduct.get(u.product) ?? []), u]);
  for (const [product, items] of byProduct) {
    const unknown = items.filter((u) => !existing.has(u.sku));
    if (unknown.length === 0) continue;
    const known = items.find((u) => existing.has(u.sku));
    let productId = known ? (existing.get(known.sku) as { productId: string }).productId : null;
    if (!productId) {
      productId = newId('prd');
      newProducts.push({
        id: productId,
        accountId,
        title: product.title.slice(0, 500) || unknown[0]?.sku || 'Untitled',
        brand: product.brand,
        productType: product.productType,
        status: product.status,
        images: product.images.slice(0, 50),
        createdAt: now,
        updatedAt: now,
      });
    }
    for (const u of unknown) {
      newVariants.push({
        id: newId('var'),
        accountId,
        productId,
        sku: u.sku,
        barcode: u.variant.barcode || null,
        title: u.variant.title === 'Default Title' ? '' : u.variant.title,
        price: Math.max(0, Math.round(u.variant.price)),
        compareAtPrice: u.variant.compareAtPrice === null ? null : Math.max(0, Math.round(u.variant.compareAtPrice)),
        position: product.variants.indexOf(u.variant),
        createdAt: now,
        updatedAt: now,
      });
    }
  }
  if (newProducts.length) await tx.insert(products).values(newProducts);
  let created = 0;
  if (newVariants.length) {
    const inserted = await tx
      .insert(variants)
      .values(newVariants)
      .onConflictDoNothing({ target: [variants.accountId, variants.sku] })
      .returning({ id: variants.id, productId: variants.productId, sku: variants.sku });
    created = inserted.length;
    for (const v of inserted) existing.set(v.sku, v);
    if (inserted.length < newVariants.length) {
      // Another import created some of these SKUs meanwhile: link to theirs, drop products left empty.
      const lost = newVariants.filter((v) => !existing.has(v.sku)).map((v) => v.sku);
      for (const v of await tx
        .select({ id: variants.id, productId: variants.productId, sku: variants.sku })
        .from(variants)
        .where(and(eq(variants.accountId, accountId), inArray(variants.sku, lost)))) {
        existing.set(v.sku, v);
      }
      const empty = newProducts
        .map((p) => p.id)
        .filter((id) => ![...existing.values()].some((v) => v.productId === id));
      if (empty.length) await tx.delete(products).where(inArray(products.id, empty));
    }
  }

  // Listings: a channel item that moved to another SKU leaves its old listing first.
  const pairs = usable.flatMap((u) => {
    const v = existing.get(u.sku);
    return v ? [{ ...u, variantId: v.id }] : [];
  });
  const items = pairs.map((p) => p.variant.inventoryItemId);
  const stale = await tx
    .select({ id: listings.id, variantId: listings.variantId, item: listings.inventoryItemId })
    .from(listings)
    .where(and(eq(listings.channelId, row.id), inArray(listings.inventoryItemId, items)));
  const wantedItem = new Map(pairs.map((p) => [p.variant.inventoryItemId, p.variantId]));
  const moved = stale.filter((s) => s.item !== null && wantedItem.get(s.item) !== s.variantId).map((s) => s.id);
  if (moved.length) await tx.delete(listings).where(inArray(listings.id, moved));
  await tx
    .insert(listings)
    .values(
      pairs.map((p) => ({
        id: newId('lst'),
        accountId,
        channelId: row.id,
        variantId: p.variantId,
        externalProductId: p.product.externalId,
        externalVariantId: p.variant.externalId,
        inventoryItemId: p.variant.inventoryItemId,
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
  for (const p of pairs) state.listed.add(p.variantId);
  state.created += created;
  state.linked += pairs.length - created;
  return { succeeded: pairs.length, failures };
}
