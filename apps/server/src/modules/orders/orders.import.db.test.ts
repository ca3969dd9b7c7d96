// The first pull at connect (issue 13): once a channel's catalog is in, its open orders of the last 60 days
// come in and reserve; POS sales already complete stay out. The units a channel had taken out of its own stock
// for those orders are put back on hand only where that channel's import gave us our first stock (Square here);
// a level first read from another channel (the POS counts what is on the shelf) is only reserved.

import type { ChannelDetail } from '@switchyard/contracts';
import type { RunningSandbox } from '@switchyard/sandbox';
import { and, eq, isNotNull } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp } from '../../../test/app.ts';
import { connectSandboxChannel } from '../../../test/channels.ts';
import { createSignedInAccount } from '../../../test/factories.ts';
import { startTestSandbox } from '../../../test/sandbox.ts';
import { trpcOver } from '../../../test/trpc.ts';
import { startJobs } from '../../bootstrap.ts';
import type { ProviderOrder } from '../../connectors/types.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import { connectorFor } from '../channels/channels.service.ts';
import { channels } from '../channels/channels.tables.ts';
import { inventoryLevels } from '../inventory/inventory.tables.ts';
import { CATALOG_IMPORT_JOB } from '../products/catalog-import.ts';
import { importReturns } from '../returns/returns.import.ts';
import { syncs } from '../syncs/syncs.tables.ts';
import { invariantViolations } from './orders.fixtures.ts';
import { importOrders, ORDER_IMPORT_JOB } from './orders.import.ts';
import { orderImportCursors, orders } from './orders.tables.ts';

let sandbox: RunningSandbox;
let t: Awaited<ReturnType<typeof createTestApp>>;
let queue: JobQueue | undefined;
let tenant: Awaited<ReturnType<typeof createSignedInAccount>>;

beforeAll(async () => {
  sandbox = await startTestSandbox({ products: 6, shopifyPlan: 'plus' });
  t = await createTestApp({ sandboxUrl: sandbox.url });
  queue = await startJobs(t.services, { work: true });
  tenant = await createSignedInAccount(t.services);
});
afterAll(async () => {
  await queue?.stop({ timeoutMs: 2000 });
  await t?.close();
  await sandbox?.close();
});

/**
 * Polls `check` until it answers. Each round wakes the import workers: the catalog import and the order pull it
 * queues when it ends are sent without waking them, so each would wait for the worker's next poll (a second)
 * otherwise. The workers still take the jobs from the queue as in production; only the wait for their poll goes.
 */
async function until<T>(what: string, check: () => Promise<T | undefined | false>, ms = 40_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    queue?.notify(CATALOG_IMPORT_JOB);
    queue?.notify(ORDER_IMPORT_JOB);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Imports the channel's catalog and waits for the order pull it queues when it ends. */
async function importCatalogAndOrders(channel: ChannelDetail) {
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/v1/channels/${channel.id}/actions/catalog-sync`,
    headers: tenant.headers,
    payload: {},
  });
  expect(res.statusCode, res.body).toBe(202);
  const syncId = res.json<{ sync_id: number }>().sync_id;
  await until('the catalog import', async () => {
    const [run] = await t.services.db.select().from(syncs).where(eq(syncs.id, syncId));
    return run?.finishedAt ? run : undefined;
  });
  await until('the first order pull', async () => {
    const [cursor] = await t.services.db
      .select()
      .from(orderImportCursors)
      .where(and(eq(orderImportCursors.channelId, channel.id), isNotNull(orderImportCursors.since)));
    return cursor;
  });
}

/** The channel's orders as its connector reads them: the open ones, and the POS sales already complete. */
async function channelOrders(channel: ChannelDetail) {
  const [row] = await t.services.db.select().from(channels).where(eq(channels.id, channel.id));
  const connector = connectorFor(t.services, row as never);
  const all: ProviderOrder[] = [];
  for (let cursor: string | null = null, first = true; first || cursor; first = false) {
    const page = await connector.listOrders({ cursor, since: new Date(Date.now() - 59 * 86_400_000).toISOString() });
    all.push(...page.items);
    cursor = page.nextCursor;
  }
  const done = (o: (typeof all)[number]) =>
    o.cancelled || o.completedAtStore || ['fulfilled', 'completed'].includes((o.fulfillmentStatus ?? '').toLowerCase());
  return { open: all.filter((o) => !done(o)), closed: all.filter(done) };
}

const levels = async () => {
  const rows = await t.services.db
    .select()
    .from(inventoryLevels)
    .where(eq(inventoryLevels.accountId, tenant.accountId));
  return new Map(rows.map((r) => [`${r.variantId}|${r.locationId}`, r]));
};

const ours = async (externalIds: string[]) =>
  (await t.services.db.select().from(orders).where(eq(orders.accountId, tenant.accountId))).filter((o) =>
    externalIds.includes(o.externalId),
  );

describe('the first order pull at connect', () => {
  it('imports the open orders once the catalog is in, puts back what the seeding channel took, and reserves', async () => {
    const square = await connectSandboxChannel(t, tenant, 'square', 'Pull Square');
    const shopify = await connectSandboxChannel(t, tenant, 'shopify', 'pull-shop');
    const squareOrders = await channelOrders(square);
    expect(squareOrders.open.length).toBeGreaterThan(0);
    expect(squareOrders.closed.length).toBeGreaterThan(0);

    await importCatalogAndOrders(square);
    const imported = await ours(squareOrders.open.map((o) => o.externalId));
    expect(imported.map((o) => o.externalId).sort()).toEqual(squareOrders.open.map((o) => o.externalId).sort());
    expect(imported.every((o) => o.status === 1)).toBe(true);
    expect(await ours(squareOrders.closed.map((o) => o.externalId))).toEqual([]);
    // Square's stock we started from had those orders' units taken out (IN_STOCK → SOLD when paid): they are
    // back on hand and reserved, so what Square offers is unchanged.
    const afterSquare = await levels();
    const reserved = [...afterSquare.values()].reduce((s, l) => s + l.reserved, 0);
    const units = squareOrders.open.reduce(
      (s, o) => s + o.lines.filter((l) => l.stockLocationExternalId).reduce((n, l) => n + l.quantity, 0),
      0,
    );
    expect(reserved).toBe(units);
    expect(await invariantViolations(t.services, tenant.accountId)).toEqual([]);

    // The pull shows on /syncs as an Order import run, with the orders it took in.
    const runs = async () =>
      t.services.db
        .select()
        .from(syncs)
        .where(and(eq(syncs.channelId, square.id), eq(syncs.type, 'order_import')))
        .orderBy(syncs.id);
    const [first] = await until('the order import run to finish', async () => {
      const rows = await runs();
      return rows[0]?.finishedAt ? rows : undefined;
    });
    expect(first).toMatchObject({ status: 'succeeded', succeeded: squareOrders.open.length, failed: 0 });
    expect(first?.message).toBe(`${squareOrders.open.length} new and 0 changed orders taken in.`);
    // A periodic pull that finds nothing new leaves no row; "Import orders now" is a run of its own.
    await importOrders(t.services, square.id);
    expect(await runs()).toHaveLength(1);
    const now = await trpcOver(t.app, tenant.headers).mutation<{ syncId: number }>('orders.importNow', {
      channelId: square.id,
    });
    expect(now.data?.syncId, JSON.stringify(now.error)).toBeGreaterThan(first?.id ?? 0);
    const second = await until('the manual pull to finish', async () => {
      const rows = await runs();
      return rows[1]?.finishedAt ? rows[1] : undefined;
    });
    expect(second).toMatchObject({ trigger: 'manual', status: 'succeeded' });
    expect(second.message).toMatch(/^No new or changed orders \(\d+ read\)\.$|orders? taken in\.$/);

    // Shopify's stock was never our first read: its open orders reserve, and on hand stays as the POS counts it.
    const shopifyOrders = await channelOrders(shopify);
    expect(shopifyOrders.open.length).toBeGreaterThan(0);
    await importCatalogAndOrders(shopify);
    const fromShopify = await ours(shopifyOrders.open.map((o) => o.externalId));
    expect(fromShopify).toHaveLength(shopifyOrders.open.length);
    const afterShopify = await levels();
    for (const [key, level] of afterSquare) expect(afterShopify.get(key)?.onHand, key).toBe(level.onHand);
    const reservedNow = [...afterShopify.values()].reduce((s, l) => s + l.reserved, 0);
    expect(reservedNow).toBeGreaterThan(reserved);
    expect(await invariantViolations(t.services, tenant.accountId)).toEqual([]);

    // An order placed at the channel since: the next pull takes it in; the pull after that reads it again (pulls
    // overlap their last seconds) and, holding it as it is, takes nothing in. Each order such a pull read used to
    // be taken in anew, a transaction each.
    const control = `${sandbox.url}/_control/square/${square.externalId}`;
    const snap = (await (await fetch(control)).json()) as {
      stock: Record<string, Record<string, number>>;
      locations: { id: string }[];
    };
    const location = snap.locations[0]?.id as string;
    const sku = Object.keys(snap.stock).find((k) => (snap.stock[k]?.[location] ?? 0) > 0) as string;
    const placed = await fetch(`${control}/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ lines: [{ sku, quantity: 1 }], location, fulfillmentType: 'pickup' }),
    });
    expect(placed.status).toBe(200);
    const transactions = vi.spyOn(t.services.db, 'transaction');
    expect(await importOrders(t.services, square.id)).toMatchObject({ created: 1, updated: 0 });
    expect(transactions).toHaveBeenCalledTimes(1);
    transactions.mockClear();
    const again = await importOrders(t.services, square.id);
    expect(again).toMatchObject({ created: 0, updated: 0 });
    expect(again.seen).toBeGreaterThan(0);
    expect(transactions).not.toHaveBeenCalled();
    transactions.mockRestore();
    expect(await invariantViolations(t.services, tenant.accountId)).toEqual([]);

    // A POS sale returned at the register: the returns pull takes the return in, and the pull after it, which
    // lists it again, takes nothing in. Each return a pull listed used to be taken in anew, a transaction each.
    const post = (path: string, body: unknown) =>
      fetch(`${control}/${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    // The channel's first returns pull, now: a channel that has had none is due at the next minute's sweep, whose
    // pull, falling between the return and ours below, took the return in first (ours then found it held).
    await importReturns(t.services, square.id);
    const sale = await post('orders', { lines: [{ sku, quantity: 1 }], location });
    expect(sale.status).toBe(200);
    const saleId = ((await sale.json()) as { orderId: string }).orderId;
    expect((await post(`orders/${saleId}/return`, { lines: [{ sku, quantity: 1 }] })).status).toBe(200);
    await importOrders(t.services, square.id);
    // The card refund settles 200 ms after the return (the simulator's timer), which changes the return.
    await new Promise((r) => setTimeout(r, 1000));
    expect(await importReturns(t.services, square.id)).toMatchObject({ created: 1 });
    const returnTransactions = vi.spyOn(t.services.db, 'transaction');
    const listedAgain = await importReturns(t.services, square.id);
    expect(listedAgain).toMatchObject({ created: 0, updated: 0 });
    expect(listedAgain.seen).toBeGreaterThan(0);
    expect(returnTransactions).not.toHaveBeenCalled();
    returnTransactions.mockRestore();
  });
});
