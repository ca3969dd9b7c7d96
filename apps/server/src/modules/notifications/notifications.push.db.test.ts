// The stock notifications where they are raised: a real push to the Shopify simulator over HTTP. A level the
// push takes to 0 is "out of stock", one it takes to the low-stock threshold is "low"; the same levels pushed
// again say nothing new.
import type { ChannelDetail, ChannelSettings, NotificationList } from '@switchyard/contracts';
import type { RunningSandbox } from '@switchyard/sandbox';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../../../test/app.ts';
import { connectSandboxChannel } from '../../../test/channels.ts';
import { createSignedInAccount } from '../../../test/factories.ts';
import { startTestSandbox } from '../../../test/sandbox.ts';
import { trpcOver } from '../../../test/trpc.ts';
import { newId } from '../../lib/ids.ts';
import { connectorFor } from '../channels/channels.service.ts';
import { channels } from '../channels/channels.tables.ts';
import { inventoryLevels } from '../inventory/inventory.tables.ts';
import { pushAll } from '../inventory/push.run.ts';
import { pushChannel } from '../inventory/push.ts';
import { locations } from '../locations/locations.tables.ts';
import { listings, products, variants } from '../products/products.tables.ts';

type TestApp = Awaited<ReturnType<typeof createTestApp>>;

let sandbox: RunningSandbox;
let t: TestApp;
let tenant: Awaited<ReturnType<typeof createSignedInAccount>>;
let channel: ChannelDetail;
/** On hand per SKU, the same at every location. */
const onHandOf = new Map<string, number>();

async function settingsOf(id: string): Promise<ChannelSettings> {
  const [row] = await t.services.db.select().from(channels).where(eq(channels.id, id));
  return row?.settings as ChannelSettings;
}

/** Our catalog from the shop, every channel location one of ours, on hand 2, 8, 14, 2, 8, … by variant. */
async function linkShop() {
  const settings = await settingsOf(channel.id);
  const ours = settings.channel.locationMap.map((m, i) => ({
    id: newId('loc'),
    accountId: tenant.accountId,
    storeId: `S${i + 1}`,
    name: `Store ${m.externalName}`,
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
    for (const product of page.items) {
      const productId = newId('prd');
      await t.services.db.insert(products).values({ id: productId, accountId: tenant.accountId, title: product.title });
      for (const v of product.variants) {
        if (!v.sku) continue;
        const variantId = newId('var');
        const onHand = [2, 8, 14][n % 3] as number;
        onHandOf.set(v.sku, onHand);
        await t.services.db
          .insert(variants)
          .values({ id: variantId, accountId: tenant.accountId, productId, sku: v.sku, title: v.title });
        await t.services.db.insert(listings).values({
          id: newId('lst'),
          accountId: tenant.accountId,
          channelId: channel.id,
          variantId,
          externalProductId: product.externalId,
          externalVariantId: v.externalId,
          inventoryItemId: v.inventoryItemId,
        });
        await t.services.db
          .insert(inventoryLevels)
          .values(ours.map((l) => ({ accountId: tenant.accountId, variantId, locationId: l.id, onHand })));
        n += 1;
      }
    }
    cursor = page.nextCursor;
  } while (cursor);
}

async function setSafetyStock(safetyStock: number) {
  const settings = await settingsOf(channel.id);
  settings.advanced = { ...settings.advanced, safetyStock };
  await t.services.db.update(channels).set({ settings }).where(eq(channels.id, channel.id));
}

async function push() {
  await pushAll(t.services, tenant.accountId, channel.id);
  return pushChannel(t.services, channel.id, 'manual');
}

const feed = async () =>
  (await trpcOver(t.app, tenant.headers).query<NotificationList>('notifications.list', { limit: 200 }))
    .data as NotificationList;

beforeAll(async () => {
  sandbox = await startTestSandbox({ products: 6, seed: 17 });
  t = await createTestApp({ sandboxUrl: sandbox.url });
  tenant = await createSignedInAccount(t.services);
  channel = await connectSandboxChannel(t, tenant, 'shopify', 'notify-push-shop');
  await linkShop();
}, 120_000);

afterAll(async () => {
  await t?.close();
  await sandbox?.close();
});

describe('stock notifications from the push', () => {
  it('tells of SKUs a push sells out or takes to the low-stock threshold, once', async () => {
    await push();
    // The first push only sets what the channel had: no transition it can tell.
    expect((await feed()).total).toBe(0);

    // A safety stock of 3 (threshold 5): 2 → 0 is out of stock, 8 → 5 is low, 14 → 11 is neither.
    await setSafetyStock(3);
    const second = await push();
    expect(second?.sent).toBeGreaterThan(0);
    const list = await feed();
    const expected = (onHand: number) => [...onHandOf].filter(([, n]) => n === onHand).map(([sku]) => sku);
    const titles = list.results.map((n) => n.title).sort();
    expect(titles).toEqual(
      [
        ...expected(2).map((sku) => `${sku} is out of stock on ${channel.name}`),
        ...expected(8).map((sku) => `${sku} is low on ${channel.name}`),
      ].sort(),
    );
    const sold = expected(2)[0] as string;
    const out = list.results.find((n) => n.title.startsWith(`${sold} `));
    expect(out?.link).toBe(`/products/${channel.id}?filter=${encodeURIComponent(JSON.stringify({ search: sold }))}`);
    // Every location of the push in one notification, by name, in their store ids' order (S1, S2).
    const [s1, s2] = (await settingsOf(channel.id)).channel.locationMap.map((m) => `Store ${m.externalName}`);
    expect(out?.body).toMatch(new RegExp(`^Available to sell fell to 0 at ${s1} \\(2 → 0\\), ${s2} \\(2 → 0\\)`));

    // The same levels pushed again (a full push): nothing new, nothing counted twice.
    await push();
    const again = await feed();
    expect(again.total).toBe(list.total);
    expect(again.results.every((n) => n.count === 1)).toBe(true);
  });
});
