// The stock notifications where they are raised: a real push to the Shopify simulator over HTTP. A level the
// push takes to 0 is "out of stock", one it takes to the low-stock threshold is "low"; the same levels pushed
// again say nothing new.
import type { ChannelDetail, NotificationList } from '@switchyard/contracts';
import type { RunningSandbox } from '@switchyard/sandbox';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../../../test/app.ts';
import { connectSandboxChannel } from '../../../test/channels.ts';
import { createSignedInAccount } from '../../../test/factories.ts';
import { startTestSandbox } from '../../../test/sandbox.ts';
import { trpcOver } from '../../../test/trpc.ts';
import { channels } from '../channels/channels.tables.ts';
import { linkShop, settingsOf } from '../inventory/push.fixtures.ts';
import { pushAll } from '../inventory/push.run.ts';
import { pushChannel } from '../inventory/push.ts';

type TestApp = Awaited<ReturnType<typeof createTestApp>>;

let sandbox: RunningSandbox;
let t: TestApp;
let tenant: Awaited<ReturnType<typeof createSignedInAccount>>;
let channel: ChannelDetail;
/** On hand per SKU, the same at every location: 2, 8, 14, 2, 8, … by variant. */
let onHandOf: Map<string, number>;

async function setSafetyStock(safetyStock: number) {
  const settings = await settingsOf(t.services.db, channel.id);
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
  onHandOf = await linkShop(t, tenant, channel, 'shopify', (n) => [2, 8, 14][n % 3] as number);
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
    // Every location of the push in one notification, by name, in their store ids' order.
    const [s1, s2] = (await settingsOf(t.services.db, channel.id)).channel.locationMap
      .sort((a, b) => (a.storeId as string).localeCompare(b.storeId as string))
      .map((m) => `shopify ${m.externalName}`);
    expect(out?.body).toMatch(new RegExp(`^Available to sell fell to 0 at ${s1} \\(2 → 0\\), ${s2} \\(2 → 0\\)`));

    // The same levels pushed again (a full push): nothing new, nothing counted twice.
    await push();
    const again = await feed();
    expect(again.total).toBe(list.total);
    expect(again.results.every((n) => n.count === 1)).toBe(true);
  });
});
