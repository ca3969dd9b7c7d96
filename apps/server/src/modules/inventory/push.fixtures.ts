// What the push tests set up against the simulators: a shop's catalog linked as ours (push.db.test.ts,
// push.square.db.test.ts), a level the shop and we agree on, a merchant's change of a level in the shop, and our on
// hand of a level.
import type { ChannelDetail, ChannelSettings } from '@switchyard/contracts';
import { and, eq } from 'drizzle-orm';
import { expect } from 'vitest';
import type { createTestApp } from '../../../test/app.ts';
import type { createSignedInAccount } from '../../../test/factories.ts';
import type { Db } from '../../db/client.ts';
import { newId } from '../../lib/ids.ts';
import { connectorFor } from '../channels/channels.service.ts';
import { channels } from '../channels/channels.tables.ts';
import { locations } from '../locations/locations.tables.ts';
import { listings, products, variants } from '../products/products.tables.ts';
import { type AvailableRow, loadAvailable } from './available.ts';
import { channelStock, inventoryLevels } from './inventory.tables.ts';
import { pushAll } from './push.run.ts';
import { pushChannel } from './push.ts';

type TestApp = Awaited<ReturnType<typeof createTestApp>>;
type Tenant = Awaited<ReturnType<typeof createSignedInAccount>>;
export type ShopProvider = 'shopify' | 'bigcommerce' | 'square';

const tail = (id: string) => id.split('/').pop() as string;

export async function settingsOf(db: Db, id: string): Promise<ChannelSettings> {
  const [row] = await db.select().from(channels).where(eq(channels.id, id));
  return row?.settings as ChannelSettings;
}

/**
 * A merchant's change of a level in the shop (its webhook not taken in: the push tests hold them). `shop`: the
 * control name of the shop (Square's: its merchant id). Our SKUs are the shop's with the provider in front.
 */
export async function editInShop(
  sandboxUrl: string,
  p: ShopProvider,
  shop: string,
  level: { sku: string; externalLocationId: string },
  delta: number,
) {
  const res = await fetch(`${sandboxUrl}/_control/${p}/${shop}/stock`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ sku: level.sku.slice(p.length + 1), location: level.externalLocationId, delta }),
  });
  expect(res.status, await res.clone().text()).toBe(200);
}

/** Our on hand of a level. */
export async function onHandOf(db: Db, level: { variantId: string; locationId: string }) {
  const [row] = await db
    .select({ onHand: inventoryLevels.onHand })
    .from(inventoryLevels)
    .where(and(eq(inventoryLevels.variantId, level.variantId), eq(inventoryLevels.locationId, level.locationId)));
  return row?.onHand ?? 0;
}

/**
 * Our catalog from the shop (a variant per SKU, ours with the provider in front), every channel location one of ours
 * (named "{provider} {the shop's name}"), on hand `onHand(n)` for the n-th variant at every location (7 + n % 5).
 * Answers our on hand per SKU.
 */
export async function linkShop(
  t: TestApp,
  tenant: Tenant,
  channel: ChannelDetail,
  p: ShopProvider,
  onHand: (n: number) => number = (n) => 7 + (n % 5),
): Promise<Map<string, number>> {
  const onHandBySku = new Map<string, number>();
  const settings = await settingsOf(t.services.db, channel.id);
  const ours = settings.channel.locationMap.map((m) => ({
    id: newId('loc'),
    accountId: tenant.accountId,
    storeId: `${p}-${tail(m.externalLocationId)}`,
    name: `${p} ${m.externalName}`,
  }));
  await t.services.db.insert(locations).values(ours);
  settings.channel.locationMap = settings.channel.locationMap.map((m, i) => ({
    ...m,
    storeId: ours[i]?.storeId as string,
    feeds: true,
  }));
  await t.services.db.update(channels).set({ settings }).where(eq(channels.id, channel.id));
  const [row] = await t.services.db.select().from(channels).where(eq(channels.id, channel.id));
  const connector = connectorFor(t.services, row as never);
  let cursor: string | null = null;
  let n = 0;
  do {
    const page = await connector.listProducts(cursor);
    // A page's rows in one statement per table.
    const rows = {
      products: [] as (typeof products.$inferInsert)[],
      variants: [] as (typeof variants.$inferInsert)[],
      listings: [] as (typeof listings.$inferInsert)[],
      levels: [] as (typeof inventoryLevels.$inferInsert)[],
    };
    for (const product of page.items) {
      const productId = newId('prd');
      rows.products.push({ id: productId, accountId: tenant.accountId, title: product.title });
      for (const v of product.variants) {
        const variantId = newId('var');
        const sku = `${p}-${v.sku}`;
        onHandBySku.set(sku, onHand(n));
        rows.variants.push({
          id: variantId,
          accountId: tenant.accountId,
          productId,
          sku,
          title: v.title,
        });
        rows.listings.push({
          id: newId('lst'),
          accountId: tenant.accountId,
          channelId: channel.id,
          variantId,
          externalProductId: product.externalId,
          externalVariantId: v.externalId,
          inventoryItemId: v.inventoryItemId,
        });
        rows.levels.push(
          ...ours.map((l) => ({ accountId: tenant.accountId, variantId, locationId: l.id, onHand: onHand(n) })),
        );
        n += 1;
      }
    }
    if (rows.products.length) await t.services.db.insert(products).values(rows.products);
    if (rows.variants.length) {
      await t.services.db.insert(variants).values(rows.variants);
      await t.services.db.insert(listings).values(rows.listings);
      await t.services.db.insert(inventoryLevels).values(rows.levels);
    }
    cursor = page.nextCursor;
  } while (cursor);
  return onHandBySku;
}

/**
 * A level of the channel whose count the shop and we agree on (P) once every level has been pushed: `pick` chooses
 * it among the channel's levels. `acknowledged`: our row records P as acknowledged a moment ago and no report since
 * (what a settled push leaves). With the channel's row and connector, the level's pair at the shop, what the shop
 * holds, and our channel_stock row.
 */
export async function agreedLevel(
  t: TestApp,
  accountId: string,
  channelId: string,
  pick: (levels: AvailableRow[]) => AvailableRow | undefined,
  options: { acknowledged?: boolean } = {},
) {
  const [row] = await t.services.db.select().from(channels).where(eq(channels.id, channelId));
  await pushAll(t.services, accountId, channelId);
  await pushChannel(t.services, channelId, 'manual');
  const level = pick(await loadAvailable(t.services.db, accountId, { channelIds: [channelId] }));
  if (!level || !row) throw new Error('no level');
  const pair = { inventoryItemId: level.inventoryItemId, locationExternalId: level.externalLocationId };
  const connector = connectorFor(t.services, row as never);
  const where = and(
    eq(channelStock.channelId, channelId),
    eq(channelStock.variantId, level.variantId),
    eq(channelStock.externalLocationId, level.externalLocationId),
  );
  const p = level.available;
  const held = async () => (await connector.readInventory([pair]))[0]?.available;
  expect(await held()).toBe(p);
  if (options.acknowledged) {
    await t.services.db
      .update(channelStock)
      .set({ pushedQty: p, pushedAt: new Date(Date.now() - 2000), channelQty: null, channelQtyAt: null })
      .where(where);
  }
  const stock = async () => (await t.services.db.select().from(channelStock).where(where))[0];
  return { row, level, pair, connector, where, p, held, stock };
}
