// The push engine against the simulators over real HTTP: a full push goes out in the provider's largest
// batches (the fewest calls its limit has to carry), arrives whole, and leaves what the channel acknowledged
// recorded. No webhooks are delivered here: the push alone is under test.
import type { ChannelDetail } from '@switchyard/contracts';
import type { RunningSandbox } from '@switchyard/sandbox';
import { and, eq, isNotNull, isNull, sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp } from '../../../test/app.ts';
import { connectSandboxChannel } from '../../../test/channels.ts';
import { usingServer } from '../../../test/db.ts';
import { createSignedInAccount } from '../../../test/factories.ts';
import { startTestSandbox } from '../../../test/sandbox.ts';
import { SHOPIFY_INVENTORY_BATCH, ShopifyConnector } from '../../connectors/shopify/connector.ts';
import { connectorFor } from '../channels/channels.service.ts';
import { channels } from '../channels/channels.tables.ts';
import { listings } from '../products/products.tables.ts';
import { syncs } from '../syncs/syncs.tables.ts';
import { loadAvailable } from './available.ts';
import { carriedReports } from './inbound.events.ts';
import { applyChannelReports } from './inbound.ts';
import { channelStock, inventoryDirty, inventoryLevels, inventoryMovements } from './inventory.tables.ts';
import { applyMovements } from './ledger.ts';
import {
  agreedLevel,
  editInShop,
  linkShop,
  onHandOf as onHandOfLevel,
  settingsOf as settingsOfChannel,
} from './push.fixtures.ts';
import { clearPending, markPending, recordApplied } from './push.records.ts';
import { sendsInDoubt } from './push.replay.ts';
import { pushAll, runPush } from './push.run.ts';
import { PUSH_IN_FLIGHT, pushChannel } from './push.ts';

type TestApp = Awaited<ReturnType<typeof createTestApp>>;
type Tenant = Awaited<ReturnType<typeof createSignedInAccount>>;

let sandbox: RunningSandbox;
let t: TestApp;
let tenant: Tenant;
const ch: Partial<Record<'shopify' | 'bigcommerce', ChannelDetail>> = {};
const shopName = { shopify: 'push-engine-shop', bigcommerce: 'pushengine7' };
const tail = (id: string) => id.split('/').pop() as string;

const control = async (path: string) => {
  const res = await fetch(`${sandbox.url}/_control/${path}`);
  if (res.status >= 300) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as { stock: Record<string, Record<string, number>> };
};

const settingsOf = (id: string) => settingsOfChannel(t.services.db, id);
const onHandOf = (level: { variantId: string; locationId: string }) => onHandOfLevel(t.services.db, level);
/** A merchant's change of a level in the Shopify shop (its webhook not taken in: none is delivered here). */
const editInShopify = (level: { sku: string; externalLocationId: string }, delta: number) =>
  editInShop(sandbox.url, 'shopify', shopName.shopify, level, delta);

/** Levels where the shop holds something other than what we compute for it. */
async function differences(p: 'shopify' | 'bigcommerce') {
  const channel = ch[p] as ChannelDetail;
  const rows = await loadAvailable(t.services.db, tenant.accountId, { channelIds: [channel.id] });
  const snap = await control(`${p}/${shopName[p]}`);
  const skuOf = (sku: string) => sku.slice(p.length + 1);
  let differ = 0;
  for (const r of rows) {
    const stock = snap.stock[skuOf(r.sku)] ?? {};
    const there = stock[r.externalLocationId] ?? stock[tail(r.externalLocationId)];
    if (there !== r.available) differ += 1;
  }
  return { differ, levels: rows.length };
}

/** The run a push answered, as /syncs shows it, and the channel's last sync time. */
async function runOf(syncId: number | undefined) {
  const [run] = await t.services.db
    .select()
    .from(syncs)
    .where(eq(syncs.id, syncId ?? 0));
  const [channel] = await t.services.db
    .select({ lastSyncAt: channels.lastSyncAt })
    .from(channels)
    .where(eq(channels.id, run?.channelId ?? ''));
  return { ...run, channelSyncedAt: channel?.lastSyncAt };
}

/** Variants of a channel marked dirty (waiting for a push). */
async function dirtyCount(channelId: string) {
  const [row] = await t.services.db
    .select({ n: sql<number>`count(*)::int` })
    .from(inventoryDirty)
    .where(eq(inventoryDirty.channelId, channelId));
  return row?.n ?? 0;
}

/**
 * From now until the answered function is called, Shopify answers every call with a 503: the client retries each
 * call 5 times with full-jitter backoff (a random wait up to 250 ms · 2^attempt, up to 7.75 s in all) and then
 * gives up. The jitter is pinned at a fifth of its range: a call still takes 1.55 s to give up, long after the
 * push has PUSH_IN_FLIGHT batches out and the next round read ahead (what these tests are about), but the test
 * does not sit out up to 8 s of random waits.
 */
async function shopifyFailing(): Promise<() => Promise<void>> {
  const put = await fetch(`${sandbox.url}/_control/shopify/${shopName.shopify}/faults`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ rate5xx: 1 }),
  });
  expect(put.status).toBeLessThan(300);
  const jitter = vi.spyOn(Math, 'random').mockReturnValue(0.2);
  return async () => {
    jitter.mockRestore();
    await fetch(`${sandbox.url}/_control/shopify/${shopName.shopify}/faults`, { method: 'DELETE' });
  };
}

async function setSafetyStock(id: string, safetyStock: number) {
  const settings = await settingsOf(id);
  settings.advanced = { ...settings.advanced, safetyStock };
  await t.services.db.update(channels).set({ settings }).where(eq(channels.id, id));
}

beforeAll(async () => {
  sandbox = await startTestSandbox({ products: 180, seed: 41, shopifyPlan: 'plus' });
  t = await createTestApp({ sandboxUrl: sandbox.url });
  tenant = await createSignedInAccount(t.services);
  for (const p of ['shopify', 'bigcommerce'] as const) {
    ch[p] = await connectSandboxChannel(t, tenant, p, shopName[p]);
    await linkShop(t, tenant, ch[p] as ChannelDetail, p);
  }
  // No webhooks reach us here: the sandbox holds them (an outage of the providers' webhook systems) instead of
  // trying, five times each, to deliver one per level pushed to an app that does not listen.
  sandbox.ctx.webhooks.hold();
}, 120_000);

afterAll(async () => {
  await t?.close();
  await sandbox?.close();
});

describe('full push', () => {
  it('reaches Shopify in 250-level batches, the fewest calls, and records what Shopify acknowledged', async () => {
    const channel = ch.shopify as ChannelDetail;
    await pushAll(t.services, tenant.accountId, channel.id);
    const first = await pushChannel(t.services, channel.id, 'manual');
    expect(first?.sent).toBeGreaterThan(2 * SHOPIFY_INVENTORY_BATCH);
    // Nothing believed yet: every level is set without compare-and-set, in full batches but the last.
    expect(first?.calls).toBe(Math.ceil((first?.sent ?? 0) / SHOPIFY_INVENTORY_BATCH));
    expect(await differences('shopify')).toMatchObject({ differ: 0 });
    // One round, every level acknowledged: its run on /syncs is written once, at its end, with its counts.
    const run = await runOf(first?.syncId);
    expect(run).toMatchObject({
      type: 'inventory_push',
      trigger: 'manual',
      status: 'succeeded',
      total: (first?.sent ?? 0) + (first?.unchanged ?? 0),
      processed: (first?.sent ?? 0) + (first?.unchanged ?? 0),
      failed: 0,
      message: `${first?.sent} sent, ${first?.unchanged} already right`,
    });
    expect(run.startedAt?.getTime()).toBeLessThanOrEqual(run.finishedAt?.getTime() ?? 0);
    expect(run.channelSyncedAt?.getTime()).toBe(run.finishedAt?.getTime());

    // Every level changes (one unit of safety stock): now all with compare-and-set, still the fewest calls.
    await setSafetyStock(channel.id, 1);
    await pushAll(t.services, tenant.accountId, channel.id);
    const second = await pushChannel(t.services, channel.id, 'manual');
    expect(second?.sent).toBe(first?.sent);
    expect(second?.mismatched).toBe(0);
    expect(second?.calls).toBe(Math.ceil((second?.sent ?? 0) / SHOPIFY_INVENTORY_BATCH));
    expect(await differences('shopify')).toMatchObject({ differ: 0 });

    // Acknowledged: pushed quantities recorded, nothing left pending or dirty, the listings synced.
    const stock = await t.services.db.select().from(channelStock).where(eq(channelStock.channelId, channel.id));
    expect(stock.length).toBe(second?.sent);
    expect(stock.filter((s) => s.pendingQty !== null || s.pushedQty === null)).toEqual([]);
    const dirty = await t.services.db.select().from(inventoryDirty).where(eq(inventoryDirty.channelId, channel.id));
    expect(dirty).toEqual([]);
    const [unsynced] = await t.services.db
      .select({ n: sql<number>`count(*)::int` })
      .from(listings)
      .where(and(eq(listings.channelId, channel.id), sql`${listings.syncStatusCode} <> 1`));
    expect(unsynced?.n).toBe(0);
  });

  it('carries batches across rounds: many small rounds still make the fewest calls', async () => {
    const channel = ch.shopify as ChannelDetail;
    await setSafetyStock(channel.id, 3);
    await pushAll(t.services, tenant.accountId, channel.id);
    // About 30 rounds, each read while the last one's batches are on the wire.
    const outcome = await pushChannel(t.services, channel.id, 'manual', { roundVariants: 13 });
    expect(outcome?.sent).toBeGreaterThan(PUSH_IN_FLIGHT * SHOPIFY_INVENTORY_BATCH);
    expect(outcome?.calls).toBe(Math.ceil((outcome?.sent ?? 0) / SHOPIFY_INVENTORY_BATCH));
    expect(await differences('shopify')).toMatchObject({ differ: 0 });
    // Opened at its second round (a push to watch), counted as it went, closed once.
    expect(await runOf(outcome?.syncId)).toMatchObject({
      status: 'succeeded',
      total: (outcome?.sent ?? 0) + (outcome?.unchanged ?? 0),
      processed: (outcome?.sent ?? 0) + (outcome?.unchanged ?? 0),
      succeeded: (outcome?.sent ?? 0) + (outcome?.unchanged ?? 0),
      message: `${outcome?.sent} sent, ${outcome?.unchanged} already right`,
    });
    const [left] = await t.services.db
      .select({ n: sql<number>`count(*)::int` })
      .from(channelStock)
      .where(and(eq(channelStock.channelId, channel.id), isNotNull(channelStock.pendingQty)));
    expect(left?.n).toBe(0);
  });

  it('stops when Shopify keeps failing: everything stays dirty, and levels never sent are not left pending', async () => {
    const channel = ch.shopify as ChannelDetail;
    await setSafetyStock(channel.id, 4);
    await pushAll(t.services, tenant.accountId, channel.id);
    const recover = await shopifyFailing();
    try {
      // Small rounds: one is being read ahead when the push stops.
      await expect(pushChannel(t.services, channel.id, 'manual', { roundVariants: 40 })).rejects.toThrow();
    } finally {
      await recover();
    }
    const [listed] = await t.services.db
      .select({ n: sql<number>`count(*)::int` })
      .from(listings)
      .where(eq(listings.channelId, channel.id));
    const dirty = await dirtyCount(channel.id);
    expect(dirty).toBe(listed?.n);
    // The calls that failed may have landed (their levels stay pending); no more than those were sent, out of
    // more levels than fit in them.
    const [levels] = await t.services.db
      .select({ n: sql<number>`count(*)::int` })
      .from(channelStock)
      .where(eq(channelStock.channelId, channel.id));
    expect(levels?.n).toBeGreaterThan(PUSH_IN_FLIGHT * SHOPIFY_INVENTORY_BATCH);
    const [pending] = await t.services.db
      .select({ n: sql<number>`count(*)::int` })
      .from(channelStock)
      .where(and(eq(channelStock.channelId, channel.id), isNotNull(channelStock.pendingQty)));
    expect(pending?.n).toBeGreaterThan(0);
    expect(pending?.n).toBeLessThanOrEqual(PUSH_IN_FLIGHT * SHOPIFY_INVENTORY_BATCH);

    // The failed push is on /syncs, failed, with why.
    const [failedRun] = await t.services.db
      .select()
      .from(syncs)
      .where(and(eq(syncs.channelId, channel.id), eq(syncs.type, 'inventory_push')))
      .orderBy(sql`${syncs.id} desc`)
      .limit(1);
    expect(failedRun?.status).toBe('failed');
    expect(failedRun?.message).toBeTruthy();
    expect(failedRun?.finishedAt).not.toBeNull();

    // Once Shopify answers again, the next run sends it all.
    const retried = await pushChannel(t.services, channel.id, 'retry');
    expect(retried?.failed).toBe(0);
    expect(await differences('shopify')).toMatchObject({ differ: 0 });
  }, 60_000);

  it('answers a failed push to the run that started it; requests that joined it resolve', async () => {
    const channel = ch.shopify as ChannelDetail;
    // Numbers Shopify does not hold yet, so the push has something to send.
    await setSafetyStock(channel.id, 3);
    await pushAll(t.services, tenant.accountId, channel.id);
    const recover = await shopifyFailing();
    try {
      const started = runPush(t.services, channel.id, 'manual');
      // Three more requests while it runs (three orders' reservations, say): they join it.
      const joined = [
        runPush(t.services, channel.id),
        runPush(t.services, channel.id),
        runPush(t.services, channel.id),
      ];
      await expect(started).rejects.toThrow();
      expect(await Promise.allSettled(joined)).toEqual(joined.map(() => ({ status: 'fulfilled', value: undefined })));
    } finally {
      await recover();
    }
    // The marks stay for the retry of the run that started it.
    const dirty = await dirtyCount(channel.id);
    expect(dirty).toBeGreaterThan(0);
    await setSafetyStock(channel.id, 4);
    await pushChannel(t.services, channel.id, 'retry');
  });

  it('takes a lost answer whose send landed for that send, even after a later push stopped before that level', async () => {
    const channel = ch.shopify as ChannelDetail;
    const [row] = await t.services.db.select().from(channels).where(eq(channels.id, channel.id));
    const [level] = await loadAvailable(t.services.db, tenant.accountId, { channelIds: [channel.id] });
    if (!level || !row) throw new Error('no level to push');
    const where = and(
      eq(channelStock.channelId, channel.id),
      eq(channelStock.variantId, level.variantId),
      eq(channelStock.externalLocationId, level.externalLocationId),
    );
    const shopifyHolds = async () => {
      const [held] = await connectorFor(t.services, row as never).readInventory([
        { inventoryItemId: level.inventoryItemId, locationExternalId: level.externalLocationId },
      ]);
      return held?.available;
    };
    expect(await shopifyHolds()).toBe(level.available);
    const movementsBefore = (await t.services.db.select().from(inventoryMovements)).length;

    // A push sends P + 5 and its answer is lost (the process died): Shopify applied it.
    await markPending(t.services, row, [{ row: { ...level, available: level.available + 5 } }]);
    const [sent] = await t.services.db.select().from(channelStock).where(where);
    await connectorFor(t.services, row as never).setInventory([
      {
        inventoryItemId: level.inventoryItemId,
        locationExternalId: level.externalLocationId,
        quantity: level.available + 5,
        compareQuantity: null,
      },
    ]);
    // The next push marks P + 6 for this level and stops before sending it.
    await markPending(t.services, row, [{ row: { ...level, available: level.available + 6 } }]);
    await clearPending(t.services, row, [{ ...level, available: level.available + 6 }]);
    const [after] = await t.services.db.select().from(channelStock).where(where);
    expect(after).toMatchObject({ pendingQty: null, sentQtys: [level.available + 5], pendingAt: sent?.pendingAt });

    // Shopify's report of P + 5 comes in late: that send landing, not a change made in Shopify.
    const report = await applyChannelReports(t.services, row, [
      {
        inventoryItemId: level.inventoryItemId,
        externalLocationId: level.externalLocationId,
        quantity: level.available + 5,
        at: new Date(),
        key: 'late-landing',
      },
    ]);
    expect(report).toMatchObject({ changed: 0, unchanged: 1 });
    expect((await t.services.db.select().from(inventoryMovements)).length).toBe(movementsBefore);
    const [landed] = await t.services.db.select().from(channelStock).where(where);
    expect(landed?.pushedQty).toBe(level.available + 5);

    // The level is pushed back to what Shopify should sell, compare-and-set against what it now holds.
    const outcome = await pushChannel(t.services, channel.id, 'change');
    expect(outcome).toMatchObject({ sent: 1, mismatched: 0, failed: 0 });
    expect(await shopifyHolds()).toBe(level.available);
  });

  it('replays a send whose answer was lost before reading an edit made on top of it: the edit counts in full', async () => {
    const channel = ch.shopify as ChannelDetail;
    // What Shopify holds is acknowledged: P.
    const { row, level, pair, connector, where, p } = await agreedLevel(t, tenant.accountId, channel.id, (l) => l[3], {
      acknowledged: true,
    });
    const before = await onHandOf(level);

    // A push sends P − 1 (compared with P) under its key; Shopify sets it, and the process dies before the answer
    // is recorded (its webhook is lost with it).
    const set = { ...pair, quantity: p - 1, compareQuantity: p };
    await markPending(t.services, row, [{ row: { ...level, available: p - 1 }, key: 'snd_lost.0.0', set }]);
    await connector.setInventory([set], { idempotencyKey: 'snd_lost.0.0' });
    // The merchant then adds 3 in Shopify: it holds P + 2, which reads as +2 against P and +3 against P − 1.
    await editInShopify(level, 3);
    expect((await connector.readInventory([pair]))[0]?.available).toBe(p + 2);

    // A process starts, and its first push of the channel sends the lost call again with its key: Shopify answers
    // that it set P − 1 (and sets nothing now).
    sendsInDoubt(channel.id);
    await pushChannel(t.services, channel.id, 'retry');
    expect((await t.services.db.select().from(channelStock).where(where))[0]).toMatchObject({
      pushedQty: p - 1,
      pendingQty: null,
      pendingKey: null,
    });
    expect((await connector.readInventory([pair]))[0]?.available).toBe(p + 2);

    // The edit's report, taken in after: the merchant's 3 units, once.
    const report = await applyChannelReports(t.services, row, [
      {
        inventoryItemId: pair.inventoryItemId,
        externalLocationId: pair.locationExternalId,
        quantity: p + 2,
        at: new Date(),
        key: 'edit-on-lost-send',
      },
    ]);
    expect(report.changed).toBe(1);
    expect((await onHandOf(level)) - before).toBe(3);
  });

  it('takes in an edit its compare-and-set ran into once, from the read that found it, and sends again', async () => {
    const channel = ch.shopify as ChannelDetail;
    const { level, pair, connector, p } = await agreedLevel(t, tenant.accountId, channel.id, (l) => l[5]);
    const before = await onHandOf(level);
    // The merchant adds 2 in Shopify (its webhook not in yet); we take one unit off here.
    await editInShopify(level, 2);
    await t.services.db.transaction((tx) =>
      applyMovements(tx, tenant.accountId, [
        { variantId: level.variantId, locationId: level.locationId, delta: -1, reason: 'adjustment', source: 'manual' },
      ]),
    );
    // Our push compares with P and runs into P + 2: Shopify's level is read once (by the connector, for the
    // mismatch) and taken in as the merchant's +2.
    const reads = vi.spyOn(ShopifyConnector.prototype, 'readInventory');
    try {
      const outcome = await pushChannel(t.services, channel.id, 'change');
      expect(outcome).toMatchObject({ mismatched: 1, failed: 0 });
      expect(reads).not.toHaveBeenCalled();
    } finally {
      reads.mockRestore();
    }
    expect((await onHandOf(level)) - before).toBe(1);
    // The next push sends what Shopify should sell now (P + 1), compared with what it holds.
    const next = await pushChannel(t.services, channel.id, 'change');
    expect(next).toMatchObject({ sent: 1, mismatched: 0 });
    expect((await connector.readInventory([pair]))[0]?.available).toBe(p + 1);
  });

  it('counts two Shopify edits stamped in the second of our acknowledged push each once, and its late echo not', async () => {
    const channel = ch.shopify as ChannelDetail;
    const [row] = await t.services.db.select().from(channels).where(eq(channels.id, channel.id));
    const [level] = await loadAvailable(t.services.db, tenant.accountId, { channelIds: [channel.id] });
    if (!level || !row) throw new Error('no level');
    // Our push of P was acknowledged at .500 of the last second; two sales followed in Shopify, both stamped
    // with that whole second, and are taken in now.
    const second = Math.floor(Date.now() / 1000) * 1000 - 1000;
    await t.services.db
      .update(channelStock)
      .set({ pushedQty: level.available, pushedAt: new Date(second + 500), channelQty: null, channelQtyAt: null })
      .where(
        and(
          eq(channelStock.channelId, channel.id),
          eq(channelStock.variantId, level.variantId),
          eq(channelStock.externalLocationId, level.externalLocationId),
        ),
      );
    const movementsBefore = (await t.services.db.select().from(inventoryMovements)).length;
    for (const [n, key] of [
      [1, 'same-second-1'],
      [2, 'same-second-2'],
    ] as const)
      await applyChannelReports(t.services, row, [
        {
          inventoryItemId: level.inventoryItemId,
          externalLocationId: level.externalLocationId,
          quantity: level.available - n,
          at: new Date(second),
          key,
        },
      ]);
    // The webhook of our own set of P, stamped with that second too, comes in after them: still only our push.
    const echo = await applyChannelReports(t.services, row, [
      {
        inventoryItemId: level.inventoryItemId,
        externalLocationId: level.externalLocationId,
        quantity: level.available,
        at: new Date(second),
        key: 'same-second-echo',
      },
    ]);
    expect(echo.changed).toBe(0);
    const added = (await t.services.db.select().from(inventoryMovements)).slice(movementsBefore);
    expect(added.map((m) => m.delta)).toEqual([-1, -1]);
  });

  it('orders Shopify reports of one second by their trigger time: a late echo of an earlier push is not counted', async () => {
    const channel = ch.shopify as ChannelDetail;
    const [row] = await t.services.db.select().from(channels).where(eq(channels.id, channel.id));
    const [level] = await loadAvailable(t.services.db, tenant.accountId, { channelIds: [channel.id] });
    if (!level || !row) throw new Error('no level');
    const x = level.available;
    // As a return made here goes: our push of x acknowledged at .600 of second S, then Shopify's own +1 at .826
    // (its restock), reported with `updated_at` S and `X-Shopify-Triggered-At` S.826.
    const second = Math.floor(Date.now() / 1000) * 1000 - 2000;
    const acknowledged = {
      pushedQty: x,
      pushedAt: new Date(second + 600),
      pendingQty: null,
      pendingAt: new Date(second + 550),
      sentQtys: [x],
      channelQty: null,
      channelQtyAt: null,
      channelQtySeenAt: null,
    };
    await t.services.db
      .insert(channelStock)
      .values({
        accountId: tenant.accountId,
        channelId: channel.id,
        variantId: level.variantId,
        externalLocationId: level.externalLocationId,
        locationId: level.locationId,
        inventoryItemId: level.inventoryItemId,
        ...acknowledged,
      })
      .onConflictDoUpdate({
        target: [channelStock.channelId, channelStock.variantId, channelStock.externalLocationId],
        set: acknowledged,
      });
    const webhook = (quantity: number, triggeredMs: number, key: string) =>
      carriedReports({
        provider: 'shopify',
        eventId: key,
        payload: {
          inventory_item_id: Number(tail(level.inventoryItemId)),
          location_id: Number(tail(level.externalLocationId)),
          available: quantity,
          updated_at: new Date(second).toISOString().replace('.000Z', 'Z'),
        },
        occurredAt: new Date(second + triggeredMs),
        receivedAt: new Date(),
      }) ?? [];
    const onHand = async () =>
      (
        await t.services.db
          .select({ onHand: inventoryLevels.onHand })
          .from(inventoryLevels)
          .where(and(eq(inventoryLevels.variantId, level.variantId), eq(inventoryLevels.locationId, level.locationId)))
      )[0]?.onHand;
    const start = await onHand();
    // Shopify holds what our push set and its restock added.
    const res = await fetch(`${sandbox.url}/_control/shopify/${shopName.shopify}/stock`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        sku: level.sku.slice('shopify-'.length),
        location: level.externalLocationId,
        quantity: x + 1,
      }),
    });
    expect(res.ok).toBe(true);
    expect((await applyChannelReports(t.services, row, webhook(x + 1, 826, 'restock-on-top'))).changed).toBe(1);
    // Here the return's claim met that +1 and our next push set Shopify back; in this test a unit leaves our
    // store instead, so that our next push (a second or more later) sets Shopify to x again.
    await t.services.db.transaction((tx) =>
      applyMovements(tx, tenant.accountId, [
        { variantId: level.variantId, locationId: level.locationId, delta: -1, reason: 'adjustment', source: 'manual' },
      ]),
    );
    await pushChannel(t.services, channel.id, 'manual');
    // The webhook of the first push comes in only now. Read as of second S, against what we knew before the last
    // push, it looked like a change that push overwrote, and was counted (−1). It was made before that push, which
    // compared and set, was sent (so it is in that push's number), and by its trigger time (.581) it is older than
    // Shopify's last report: it changes nothing.
    const late = await applyChannelReports(t.services, row, webhook(x, 581, 'late-echo'));
    expect(late.changed).toBe(0);
    expect(await onHand()).toBe(start);
  });

  it('reaches BigCommerce in one 2,000-item adjustment when the push fits in one', async () => {
    const channel = ch.bigcommerce as ChannelDetail;
    await pushAll(t.services, tenant.accountId, channel.id);
    const outcome = await pushChannel(t.services, channel.id, 'manual');
    expect(outcome?.sent).toBeGreaterThan(0);
    expect(outcome?.sent).toBeLessThanOrEqual(2000);
    expect(outcome?.calls).toBe(1);
    expect(await differences('bigcommerce')).toMatchObject({ differ: 0 });
    const pending = await t.services.db
      .select({ n: sql<number>`count(*)::int` })
      .from(channelStock)
      .where(and(eq(channelStock.channelId, channel.id), isNotNull(channelStock.pendingQty)));
    expect(pending[0]?.n).toBe(0);
    const recorded = await t.services.db
      .select({ n: sql<number>`count(*)::int` })
      .from(channelStock)
      .where(and(eq(channelStock.channelId, channel.id), isNull(channelStock.pushedQty)));
    expect(recorded[0]?.n).toBe(0);
  });

  it.runIf(usingServer())(
    'acknowledges levels in the order a stock pass locks them, so the two never wait on each other',
    async () => {
      const channel = ch.shopify as ChannelDetail;
      const [row] = await t.services.db.select().from(channels).where(eq(channels.id, channel.id));
      if (!row) throw new Error('no channel');
      await pushAll(t.services, tenant.accountId, channel.id);
      await pushChannel(t.services, channel.id, 'manual');
      // Two levels in the order PostgreSQL sorts them, as a stock pass locks them (inbound.ts).
      const [a, b] = await t.services.db
        .select()
        .from(channelStock)
        .where(eq(channelStock.channelId, channel.id))
        .orderBy(channelStock.variantId, channelStock.externalLocationId)
        .limit(2);
      if (!a || !b) throw new Error('no levels');
      const lock = (level: typeof a) =>
        pass.query(
          'select 1 from channel_stock where channel_id = $1 and variant_id = $2 and external_location_id = $3 for update',
          [channel.id, level.variantId, level.externalLocationId],
        );
      const pass = new pg.Client({ connectionString: t.services.database.connectionString as string });
      await pass.connect();
      try {
        // A stock pass holds the first level; the push's answer names the second, then the first.
        await pass.query('begin');
        await lock(a);
        const acknowledged = recordApplied(t.services, row, [
          { variantId: b.variantId, externalLocationId: b.externalLocationId, available: 7 },
          { variantId: a.variantId, externalLocationId: a.externalLocationId, available: 6 },
        ]);
        await new Promise((resolve) => setTimeout(resolve, 300));
        // The pass goes on to the second level: free, as the acknowledgement waits for the first before taking it.
        await lock(b);
        await pass.query('commit');
        await acknowledged;
      } finally {
        await pass.end();
      }
      const after = await t.services.db
        .select()
        .from(channelStock)
        .where(eq(channelStock.channelId, channel.id))
        .orderBy(channelStock.variantId, channelStock.externalLocationId)
        .limit(2);
      expect(after.map((l) => l.pushedQty)).toEqual([6, 7]);
    },
  );
});
