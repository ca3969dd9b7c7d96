// Returns against the Shopify simulator over real HTTP, through the real connector.
// - A return made here is refunded at the channel once: the write-back job asks with the return's id as
//   idempotency key, so a crash between the channel's refund and our commit (the job run again with our row as it
//   was before) finds the same refund instead of making a second.
// - A return made in Shopify's admin with its Returns API (returned, one unit restocked at a store and one not,
//   refunded, closed) is one return here, and its restock counts once, whatever reaches us first: its webhooks
//   (through a relay that holds some back), the stock report of Shopify's own restock, or the pull.
import { type ChannelSettings, DEFAULT_CHANNEL_SETTINGS } from '@switchyard/contracts';
import type { RunningSandbox } from '@switchyard/sandbox';
import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../../../test/app.ts';
import { connectSandboxChannel } from '../../../test/channels.ts';
import { createSignedInAccount } from '../../../test/factories.ts';
import { type Relayed, startHoldingRelay } from '../../../test/relay.ts';
import { startTestSandbox } from '../../../test/sandbox.ts';
import { startJobs } from '../../bootstrap.ts';
import type { ProviderReturn } from '../../connectors/types.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import { newId } from '../../lib/ids.ts';
import type { Actor } from '../../trpc/context.ts';
import { connectorFor } from '../channels/channels.service.ts';
import { channels, webhookEvents } from '../channels/channels.tables.ts';
import { inventoryDirty, inventoryLevels, inventoryMovements } from '../inventory/inventory.tables.ts';
import { applyMovements } from '../inventory/ledger.ts';
import { schedulePush } from '../inventory/schedule.ts';
import { locations } from '../locations/locations.tables.ts';
import { ingestOrder } from '../orders/ingest.ts';
import { orderEvents, orderLines, orders } from '../orders/orders.tables.ts';
import { listings, products, variants } from '../products/products.tables.ts';
import { syncs } from '../syncs/syncs.tables.ts';
import { importReturns } from './returns.import.ts';
import { refundAtChannel } from './returns.refund.ts';
import { createReturn } from './returns.service.ts';
import { returnItems, returns } from './returns.tables.ts';

let sandbox: RunningSandbox;
let relay: Awaited<ReturnType<typeof startHoldingRelay>>;
let t: Awaited<ReturnType<typeof createTestApp>>;
let queue: JobQueue | undefined;
// A fresh database and its migrations: over a minute on PGlite when the machine is loaded (as CI's can be).
beforeAll(async () => {
  sandbox = await startTestSandbox({ products: 4, shopifyPlan: 'plus' });
  relay = await startHoldingRelay();
  t = await createTestApp({ sandboxUrl: sandbox.url, env: { PUBLIC_URL: relay.url } });
  relay.attach(t.app);
}, 120_000);
afterAll(async () => {
  await queue?.stop({ timeoutMs: 2000 });
  await t?.close();
  await relay?.close();
  await sandbox?.close();
});

const control = async <T>(path: string, body?: unknown): Promise<T> => {
  const res = await fetch(`${sandbox.url}/_control/${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`control ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
};

/** A SKU and a location of a snapshot that hold at least `units` available. */
function stocked(
  snap: { locations: { id: string; name: string }[]; stock: Record<string, Record<string, number>> },
  units: number,
): { sku: string; where: { id: string; name: string } } {
  for (const where of snap.locations)
    for (const [sku, levels] of Object.entries(snap.stock)) if ((levels[where.id] ?? 0) >= units) return { sku, where };
  throw new Error(`no SKU has ${units} units at any location of the seeded shop`);
}

describe('a refund written back to Shopify', () => {
  it('is made once across a crash between the refund at Shopify and our commit', { timeout: 60_000 }, async () => {
    const tenant = await createSignedInAccount(t.services);
    const shop = `returns-crash-${Date.now().toString(36)}`;
    const snap = await control<{
      locations: { id: string; name: string }[];
      stock: Record<string, Record<string, number>>;
    }>(`shopify/${shop}/reset`, { products: 4 });
    const channel = await connectSandboxChannel(t, tenant, 'shopify', shop);
    const [row] = await t.services.db.select().from(channels).where(eq(channels.id, channel.id));
    if (!row) throw new Error('no channel');
    const connector = connectorFor(t.services, row);
    // The shop's seed comes from its name (a new one each run), and one seeded level in seven or so holds fewer than
    // the two units ordered below: take a SKU and a location that hold them.
    const { sku, where } = stocked(snap, 2);
    const { orderId: externalId } = await control<{ orderId: string }>(`shopify/${shop}/orders`, {
      lines: [{ sku, quantity: 2 }],
      location: where.id,
      customer: { name: 'Grace Hopper', email: 'grace@example.com' },
    });
    const order = await connector.getOrder?.(externalId);
    if (!order) throw new Error('the order is not at Shopify');
    // Shipped at Shopify (as its fulfilment would report it): the order is ours, Fulfilled.
    const { orderId } = await ingestOrder(
      t.services,
      { ...row, settings: { ...DEFAULT_CHANNEL_SETTINGS, ...(row.settings ?? {}) } },
      {
        ...order,
        fulfillmentStatus: 'fulfilled',
        lines: order.lines.map((l) => ({ ...l, fulfilledQuantity: l.quantity })),
      },
    );
    const [line] = await t.services.db.select().from(orderLines).where(eq(orderLines.orderId, orderId));
    const locationId = newId('loc');
    await t.services.db
      .insert(locations)
      .values({ id: locationId, accountId: tenant.accountId, name: where.name, storeId: `S-${where.id}` });
    const actor: Actor = {
      sessionId: 'test',
      userId: 'test',
      accountId: tenant.accountId,
      authorizationLevel: 'user',
      superUserRole: null,
    };
    // Damaged: not restocked (the SKU is not in this account's catalog); the refund is what is tested.
    const made = await createReturn(t.services, actor, {
      order_id: orderId,
      location_id: locationId,
      lines: [{ line_id: line?.id as string, qty: 1, restock: false }],
    });
    expect(made).toMatchObject({ status: 'SKIPPED', refund_state: 'pending' });
    const [run] = await t.services.db.select().from(syncs).where(eq(syncs.accountId, tenant.accountId));
    const job = { returnId: made.id, accountId: tenant.accountId, syncId: run?.id ?? null };

    await refundAtChannel(t.services, job, false);
    const [first] = await t.services.db.select().from(returns).where(eq(returns.id, made.id));
    expect(first).toMatchObject({ refundState: 'ok' });
    expect(first?.externalId).not.toBe(made.id);

    // The crash: our commit never happened. The job runs again with the row as it was.
    await t.services.db
      .update(returns)
      .set({ refundState: 'pending', externalId: made.id })
      .where(eq(returns.id, made.id));
    await refundAtChannel(t.services, job, false);
    const [again] = await t.services.db.select().from(returns).where(eq(returns.id, made.id));
    expect(again).toMatchObject({ refundState: 'ok', externalId: first?.externalId });

    // Shopify holds one refund of this order, of one unit.
    const page = await connector.listReturns({ cursor: null, since: new Date(Date.now() - 3_600_000).toISOString() });
    const ofOrder = page.items.filter((r: ProviderReturn) => r.orderExternalId === externalId);
    expect(ofOrder).toHaveLength(1);
    expect(ofOrder[0]?.items.reduce((s, i) => s + i.quantity, 0)).toBe(1);
    const [done] = await t.services.db
      .select()
      .from(syncs)
      .where(eq(syncs.id, run?.id as number));
    expect(done).toMatchObject({ type: 'refund', status: 'succeeded' });
    const timeline = await t.services.db.select().from(orderEvents).where(eq(orderEvents.orderId, orderId));
    expect(timeline.filter((e) => e.kind === 'write_back').map((e) => e.outcome)).toEqual(['ok']);
  });
});

const until = async (what: string, check: () => Promise<boolean>, timeoutMs = 30_000) => {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

/**
 * Every webhook of the channel delivered (or held) and processed, nothing left to push to it. (The crash test's
 * channel is left out: its webhooks came before the job queue ran, and wait.)
 */
async function quiet(channelId: string) {
  await control('deliveries/settle', {});
  await until(
    'webhooks processed and pushes done',
    async () => {
      const [open] = await t.services.db
        .select({ n: sql<number>`count(*)::int` })
        .from(webhookEvents)
        .where(and(eq(webhookEvents.channelId, channelId), isNull(webhookEvents.processedAt)));
      const [dirty] = await t.services.db
        .select({ n: sql<number>`count(*)::int` })
        .from(inventoryDirty)
        .where(eq(inventoryDirty.channelId, channelId));
      return open?.n === 0 && dirty?.n === 0;
    },
    60_000,
  );
  await control('deliveries/settle', {});
}

describe("a return made in Shopify's admin (its Returns API)", () => {
  const SHOP = 'returns-api-shop';
  const OPENING = 20;
  const RETURN_TOPICS = new Set([
    'returns/approve',
    'returns/close',
    'reverse_fulfillment_orders/dispose',
    'refunds/create',
  ]);
  const ofShop = (r: Relayed) => r.headers['x-shopify-shop-domain'] === `${SHOP}.myshopify.com`;
  let tenant: Awaited<ReturnType<typeof createSignedInAccount>>;
  let channelId: string;
  /** Our two stores, and the Shopify location feeding each. */
  const ours: { id: string; storeId: string; name: string }[] = [];
  const shopLocation: string[] = [];
  const variantOf = new Map<string, string>();
  let skus: string[] = [];
  const tail = (id: string) => id.split('/').pop() as string;
  const shopStock = async (sku: string, i: number) => {
    const snap = await control<{ stock: Record<string, Record<string, number>> }>(`shopify/${SHOP}`);
    return snap.stock[sku]?.[shopLocation[i] as string];
  };
  const level = async (sku: string, i: number) => {
    const [row] = await t.services.db
      .select({ onHand: inventoryLevels.onHand, reserved: inventoryLevels.reserved })
      .from(inventoryLevels)
      .where(
        and(
          eq(inventoryLevels.variantId, variantOf.get(sku) as string),
          eq(inventoryLevels.locationId, ours[i]?.id as string),
        ),
      );
    return row ?? { onHand: 0, reserved: 0 };
  };
  const lastMovement = async () => {
    const [row] = await t.services.db
      .select({ id: sql<number>`coalesce(max(${inventoryMovements.id}), 0)::int` })
      .from(inventoryMovements);
    return row?.id ?? 0;
  };
  /** On hand moved at each of our stores for a SKU since `mark`. */
  const movedSince = async (mark: number, sku: string) => {
    const rows = await t.services.db
      .select({
        locationId: inventoryMovements.locationId,
        delta: sql<number>`coalesce(sum(${inventoryMovements.delta}), 0)::int`,
      })
      .from(inventoryMovements)
      .where(and(eq(inventoryMovements.variantId, variantOf.get(sku) as string), gt(inventoryMovements.id, mark)))
      .groupBy(inventoryMovements.locationId);
    return ours.map((l) => rows.find((r) => r.locationId === l.id)?.delta ?? 0);
  };

  beforeAll(async () => {
    queue = await startJobs(t.services, { work: true });
    tenant = await createSignedInAccount(t.services);
    channelId = (await connectSandboxChannel(t, tenant, 'shopify', SHOP)).id;
    const [row] = await t.services.db.select().from(channels).where(eq(channels.id, channelId));
    const settings = row?.settings as ChannelSettings;
    for (const [i, m] of settings.channel.locationMap.slice(0, 2).entries()) {
      ours.push({ id: newId('loc'), storeId: `S-${i}-${tail(m.externalLocationId)}`, name: m.externalName });
      shopLocation.push(m.externalLocationId);
    }
    await t.services.db
      .insert(locations)
      .values(ours.map((l, i) => ({ ...l, accountId: tenant.accountId, priority: i, pickup: true })));
    settings.channel.locationMap = settings.channel.locationMap.map((m, i) => ({
      ...m,
      storeId: i < 2 ? (ours[i]?.storeId as string) : null,
      feeds: i < 2,
    }));
    await t.services.db.update(channels).set({ settings }).where(eq(channels.id, channelId));
    // Our catalog and listings from the shop (matched by SKU), as a catalog import would leave them.
    const connector = connectorFor(t.services, { ...(row as typeof channels.$inferSelect), settings });
    let cursor: string | null = null;
    do {
      const page = await connector.listProducts(cursor);
      for (const product of page.items) {
        const productId = newId('prd');
        await t.services.db
          .insert(products)
          .values({ id: productId, accountId: tenant.accountId, title: product.title });
        for (const v of product.variants) {
          if (!v.sku) continue;
          const variantId = newId('var');
          await t.services.db
            .insert(variants)
            .values({ id: variantId, accountId: tenant.accountId, productId, sku: v.sku, title: v.title });
          variantOf.set(v.sku, variantId);
          await t.services.db.insert(listings).values({
            id: newId('lst'),
            accountId: tenant.accountId,
            channelId,
            variantId,
            externalProductId: product.externalId,
            externalVariantId: v.externalId,
            inventoryItemId: v.inventoryItemId,
          });
        }
      }
      cursor = page.nextCursor;
    } while (cursor);
    skus = [...variantOf.keys()].sort();
    // Opening stock: OPENING of each SKU at both stores, pushed to Shopify.
    await t.services.db.transaction((tx) =>
      applyMovements(
        tx,
        tenant.accountId,
        skus.flatMap((sku) =>
          ours.map((l) => ({
            variantId: variantOf.get(sku) as string,
            locationId: l.id,
            setTo: OPENING,
            reason: 'import' as const,
            source: 'test',
          })),
        ),
      ),
    );
    await schedulePush(t.services, [channelId]);
    await until(
      'the opening push',
      async () => {
        for (const sku of skus.slice(0, 3))
          for (const i of [0, 1]) if ((await shopStock(sku, i)) !== OPENING) return false;
        return true;
      },
      60_000,
    );
    await quiet(channelId);
  }, 180_000);

  /** A web order of two units of `sku` placed and shipped at Shopify, ours and fulfilled. */
  async function shippedOrder(sku: string) {
    const { orderId } = await control<{ orderId: string }>(`shopify/${SHOP}/orders`, {
      lines: [{ sku, quantity: 2 }],
      location: shopLocation[0],
      customer: { name: 'Ada Lovelace', email: 'ada@example.com' },
    });
    const ourOrder = async () =>
      (
        await t.services.db
          .select({ id: orders.id, status: orders.status })
          .from(orders)
          .where(and(eq(orders.channelId, channelId), eq(orders.externalId, orderId)))
      )[0];
    await until('the order is ours', async () => !!(await ourOrder()));
    const [row] = await t.services.db.select().from(channels).where(eq(channels.id, channelId));
    const connector = connectorFor(t.services, row as typeof channels.$inferSelect);
    const order = await connector.getOrder?.(orderId);
    if (!order) throw new Error('the order is not at Shopify');
    await connector.createFulfillment({
      orderExternalId: orderId,
      lines: order.lines.map((l) => ({ lineExternalId: l.externalId, quantity: l.quantity })),
    });
    await until('the order is fulfilled here', async () => (await ourOrder())?.status === 3);
    await quiet(channelId);
    return { orderExternalId: orderId, lineExternalId: order.lines[0]?.externalId as string, name: order.name };
  }

  const CASES: { name: string; hold: (r: Relayed) => boolean; arrive: () => Promise<void> }[] = [
    {
      name: 'its webhooks before the stock report of its restock',
      hold: (r) => r.topic === 'inventory_levels/update',
      arrive: async () => {
        await until('the return is in', async () => (await returnsOf()).some((r) => r.status === 'FINISHED'));
        expect((await relay.release()).every((status) => status === 200)).toBe(true);
      },
    },
    {
      name: "the stock report first, then the refund, the return's own webhooks last",
      hold: (r) => RETURN_TOPICS.has(r.topic),
      arrive: async () => {
        await quiet(channelId);
        expect(await relay.release((r) => r.topic === 'refunds/create')).toEqual([200]);
        await quiet(channelId);
        expect(await relay.release()).toEqual([200, 200, 200]);
      },
    },
    {
      name: 'the pull first, then its webhooks',
      hold: (r) => RETURN_TOPICS.has(r.topic),
      arrive: async () => {
        await quiet(channelId);
        await importReturns(t.services, channelId);
        expect(await relay.release()).toEqual([200, 200, 200, 200]);
      },
    },
  ];
  let current = '';
  const returnsOf = () =>
    t.services.db
      .select()
      .from(returns)
      .where(and(eq(returns.accountId, tenant.accountId), eq(returns.orderExternalId, current)));

  for (const [n, c] of CASES.entries())
    it(`is one return, restocked once at its store: ${c.name}`, { timeout: 120_000 }, async () => {
      const sku = skus[n] as string;
      const order = await shippedOrder(sku);
      current = order.orderExternalId;
      const mark = await lastMovement();
      const [ourBefore, shopBefore] = [await level(sku, 1), await shopStock(sku, 1)];
      relay.hold((r) => ofShop(r) && c.hold(r));
      // The merchant's Return in Shopify's admin: one unit back on sale at the second store, one damaged;
      // refunded; closed.
      const made = await control<{ returnId: string; refundId: string }>(
        `shopify/${SHOP}/orders/${encodeURIComponent(order.orderExternalId)}/return`,
        {
          flow: 'return',
          lines: [
            { lineId: order.lineExternalId, quantity: 1 },
            { lineId: order.lineExternalId, quantity: 1, restock: false },
          ],
          location: shopLocation[1],
        },
      );
      expect(await shopStock(sku, 1)).toBe((shopBefore ?? 0) + 1);
      await c.arrive();
      relay.hold(null);
      await quiet(channelId);

      // Once in our stock at the store (however Shopify's report of its restock met it), and once at Shopify.
      expect(await movedSince(mark, sku)).toEqual([0, 1]);
      expect(await level(sku, 1)).toEqual({ onHand: ourBefore.onHand + 1, reserved: ourBefore.reserved });
      expect(await shopStock(sku, 1)).toBe((shopBefore ?? 0) + 1);

      const rows = await returnsOf();
      expect(rows).toHaveLength(1);
      const shopOrder = await control<{ total_refunded: string }>(
        `shopify/${SHOP}/orders/${encodeURIComponent(order.orderExternalId)}`,
      );
      expect(rows[0]).toMatchObject({
        externalId: made.returnId,
        status: 'FINISHED',
        receiptNumber: `${order.name}-R1`,
        total: Math.round(Number(shopOrder.total_refunded) * 100),
        source: 'channel',
      });
      const items = await t.services.db
        .select()
        .from(returnItems)
        .where(eq(returnItems.returnId, rows[0]?.id as string))
        .orderBy(returnItems.position);
      expect(items).toEqual([
        expect.objectContaining({
          qty: 1,
          restock: true,
          channelRestocked: true,
          locationId: ours[1]?.id,
          restocked: 1,
        }),
        expect.objectContaining({ qty: 1, restock: false, restocked: 0 }),
      ]);
    });
});
