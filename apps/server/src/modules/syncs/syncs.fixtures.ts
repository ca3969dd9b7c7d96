// Rows for the syncs and exports tests, written straight into the tables (the tests are about reading
// runs and stock, not about connecting channels or importing catalogs). Test code only.
import { randomBytes } from 'node:crypto';
import { type ChannelType, DEFAULT_CHANNEL_SETTINGS, DEFAULT_FEATURES } from '@switchyard/contracts';
import type { Db } from '../../db/client.ts';
import { newId } from '../../lib/ids.ts';
import { channels } from '../channels/channels.tables.ts';
import { listings, products, variants } from '../products/products.tables.ts';

export const uniqueText = (label: string) => `${label}-${randomBytes(5).toString('hex')}`;

/** A connected channel with stock sync on (with stand-in credentials: nothing here calls the provider). */
export async function insertChannel(db: Db, accountId: string, type: ChannelType = 'shopify', name?: string) {
  const id = newId('chn');
  await db.insert(channels).values({
    id,
    accountId,
    type,
    name: name ?? uniqueText(type),
    status: 'connected',
    externalId: uniqueText('shop'),
    credentials: 'sealed-credentials-stand-in',
    features: DEFAULT_FEATURES,
    settings: DEFAULT_CHANNEL_SETTINGS,
    connectedAt: new Date(),
  });
  return { id };
}

export interface VariantSpec {
  sku: string;
  alu?: string | null;
  barcode?: string | null;
  title?: string;
  price?: number;
}

/** One product with the given variants; answers their ids by SKU. */
export async function insertProduct(
  db: Db,
  accountId: string,
  product: { title: string; brand?: string | null; productType?: string | null },
  specs: VariantSpec[],
) {
  const productId = newId('prd');
  await db.insert(products).values({ id: productId, accountId, ...product });
  const rows = specs.map((v, i) => ({
    id: newId('var'),
    accountId,
    productId,
    sku: v.sku,
    alu: v.alu ?? null,
    barcode: v.barcode ?? null,
    title: v.title ?? '',
    price: v.price ?? 0,
    position: i,
  }));
  for (let i = 0; i < rows.length; i += 1000) await db.insert(variants).values(rows.slice(i, i + 1000));
  return { productId, variantIds: Object.fromEntries(rows.map((r) => [r.sku, r.id])) as Record<string, string> };
}

/** Lists a variant on a channel with a stock item there (what markDirty needs). */
export async function insertListing(db: Db, accountId: string, channelId: string, variantId: string) {
  await db.insert(listings).values({
    id: newId('lst'),
    accountId,
    channelId,
    variantId,
    externalVariantId: uniqueText('ext'),
    inventoryItemId: uniqueText('item'),
    syncStatusCode: 1,
  });
}
