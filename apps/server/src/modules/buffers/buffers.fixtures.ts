// Test code only: a small catalog for buffer tests, written straight into the tables (the catalog import,
// locations and channel onboarding have tests of their own). Used by buffers.db.test.ts and
// buffers.isolation.ts.
import { randomBytes } from 'node:crypto';
import { type ChannelType, DEFAULT_CHANNEL_SETTINGS, DEFAULT_FEATURES } from '@switchyard/contracts';
import type { Db } from '../../db/client.ts';
import { newId } from '../../lib/ids.ts';
import { channels } from '../channels/channels.tables.ts';
import { locations } from '../locations/locations.tables.ts';
import { listings, products, variants } from '../products/products.tables.ts';

const hex = () => randomBytes(5).toString('hex');

/** A channel of the account; `connected` ones hold an installation, as after the consent page. */
export async function insertChannel(
  db: Db,
  accountId: string,
  options: { type?: ChannelType; status?: 'pending' | 'connected'; name?: string } = {},
) {
  const status = options.status ?? 'connected';
  const [row] = await db
    .insert(channels)
    .values({
      id: newId('chn'),
      accountId,
      type: options.type ?? 'shopify',
      name: options.name ?? `Shop ${hex()}`,
      status,
      externalId: status === 'connected' ? `shop-${hex()}` : null,
      connectedAt: status === 'connected' ? new Date() : null,
      features: DEFAULT_FEATURES,
      settings: DEFAULT_CHANNEL_SETTINGS,
    })
    .returning();
  if (!row) throw new Error('no channel');
  return row;
}

export async function insertLocation(db: Db, accountId: string, storeId = `store-${hex()}`) {
  const [row] = await db
    .insert(locations)
    .values({ id: newId('loc'), accountId, name: `Store ${storeId}`, storeId })
    .returning();
  if (!row) throw new Error('no location');
  return row;
}

/** A product with one variant per SKU, listed (with an inventory item) on each of `listedOn`. */
export async function insertVariants(db: Db, accountId: string, skus: string[], listedOn: string[] = []) {
  const productId = newId('prd');
  await db.insert(products).values({ id: productId, accountId, title: `Product ${hex()}` });
  const rows = await db
    .insert(variants)
    .values(skus.map((sku, position) => ({ id: newId('var'), accountId, productId, sku, position })))
    .returning();
  for (const channelId of listedOn) {
    await db.insert(listings).values(
      rows.map((v) => ({
        id: newId('lst'),
        accountId,
        channelId,
        variantId: v.id,
        externalVariantId: `ext-${hex()}`,
        inventoryItemId: `item-${hex()}`,
        syncStatusCode: 1 as const,
      })),
    );
  }
  return rows;
}
