// Square's lost sends replayed (ADR 0016): a push's counts go under an idempotency key and are dated by it, so a send
// whose answer was lost goes again as the same request. Square answers what it did the first time, or sets the
// counts now as of then (before the seller's later changes): either way a change the seller made meanwhile counts in
// full. No webhooks are delivered here: the push and the reports are under test.
import type { ChannelDetail } from '@switchyard/contracts';
import type { RunningSandbox } from '@switchyard/sandbox';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../../../test/app.ts';
import { connectSandboxChannel } from '../../../test/channels.ts';
import { createSignedInAccount } from '../../../test/factories.ts';
import { startTestSandbox } from '../../../test/sandbox.ts';
import { newId } from '../../lib/ids.ts';
import { applyChannelReports } from './inbound.ts';
import { channelStock } from './inventory.tables.ts';
import { applyMovements } from './ledger.ts';
import { agreedLevel as agreedFixture, editInShop, linkShop, onHandOf } from './push.fixtures.ts';
import { markPending } from './push.records.ts';
import { REPLAY_WITHIN_MS, sendOptions, sendsInDoubt } from './push.replay.ts';
import { pushChannel } from './push.ts';

let sandbox: RunningSandbox;
let t: Awaited<ReturnType<typeof createTestApp>>;
let tenant: Awaited<ReturnType<typeof createSignedInAccount>>;
let channel: ChannelDetail;

beforeAll(async () => {
  sandbox = await startTestSandbox({ products: 40, seed: 43 });
  t = await createTestApp({ sandboxUrl: sandbox.url });
  tenant = await createSignedInAccount(t.services);
  channel = await connectSandboxChannel(t, tenant, 'square', 'Replay Goods');
  await linkShop(t, tenant, channel, 'square');
  sandbox.ctx.webhooks.hold();
}, 120_000);

afterAll(async () => {
  await t?.close();
  await sandbox?.close();
});

/** A level of the channel whose count Square and we agree on (P, acknowledged), and what a test needs of it. */
async function agreedLevel(index: number) {
  const agreed = await agreedFixture(
    t,
    tenant.accountId,
    channel.id,
    (levels) => levels.filter((l) => l.available >= 3)[index],
    { acknowledged: true },
  );
  const { row, level, pair, p } = agreed;
  /** The seller's change, reported at last: what it moves our on hand by. */
  const reportMoves = async (quantity: number) => {
    const before = await onHandOf(t.services.db, level);
    const report = await applyChannelReports(t.services, row, [
      { ...pair, externalLocationId: pair.locationExternalId, quantity, at: new Date(), key: newId('rep') },
    ]);
    expect(report.changed).toBe(1);
    return (await onHandOf(t.services.db, level)) - before;
  };
  /** A push marks P − 1 pending under a key of its own (as a push of one round does), made `ago` ms back. */
  const sendPending = async (ago = 0) => {
    const made = newId('snd');
    const key = ago ? `snd_${(Date.now() - ago).toString(32).padStart(10, '0')}${made.slice(14)}.1.0` : `${made}.1.0`;
    const set = { ...pair, quantity: p - 1, compareQuantity: null };
    await markPending(t.services, row, [{ row: { ...level, available: p - 1 }, key, set }]);
    return { key, set };
  };
  return { ...agreed, reportMoves, sendPending };
}

describe('Square: a send whose answer was lost', () => {
  it('is replayed with its key and answered from the first call: a count the seller added on top counts in full', async () => {
    const { level, p, connector, held, stock, reportMoves, sendPending } = await agreedLevel(0);
    // Square sets P − 1, and the process dies before the answer is recorded (its webhook is lost with it).
    const { key, set } = await sendPending();
    await connector.setInventory([set], sendOptions(key));
    // The seller then receives 3 at the store: Square holds P + 2, +2 against P and +3 against P − 1.
    await editInShop(sandbox.url, 'square', channel.externalId as string, level, 3);
    expect(await held()).toBe(p + 2);

    // A process starts; its first push of the channel sends the lost call again: Square answers it set P − 1.
    sendsInDoubt(channel.id);
    await pushChannel(t.services, channel.id, 'retry');
    expect(await stock()).toMatchObject({ pushedQty: p - 1, pendingQty: null, pendingKey: null });
    expect(await held()).toBe(p + 2);
    expect(await reportMoves(p + 2)).toBe(3);
  });

  it('is sent late as of when it was made, so the seller change it never saw stays on top and counts in full', async () => {
    const { level, p, held, stock, reportMoves, sendPending } = await agreedLevel(1);
    // The push marks P − 1 pending and dies before the call goes out; the seller then receives 3: Square holds P + 3.
    await sendPending();
    await editInShop(sandbox.url, 'square', channel.externalId as string, level, 3);
    expect(await held()).toBe(p + 3);

    // Replayed, the count lands as of before the seller's change: Square holds P − 1 + 3.
    sendsInDoubt(channel.id);
    await pushChannel(t.services, channel.id, 'retry');
    expect(await stock()).toMatchObject({ pushedQty: p - 1, pendingQty: null, pendingKey: null });
    expect(await held()).toBe(p + 2);
    expect(await reportMoves(p + 2)).toBe(3);
  });

  it('is not replayed a day later (Square refuses counts dated so far back): its outcome is left to the reports', async () => {
    const { p, held, stock, sendPending } = await agreedLevel(2);
    await sendPending(REPLAY_WITHIN_MS + 60_000);
    sendsInDoubt(channel.id);
    await pushChannel(t.services, channel.id, 'retry');
    // Not sent (a refused count would leave its error on the level and the listing).
    expect(await stock()).toMatchObject({ pushedQty: p, pendingQty: null, pendingKey: null, lastError: null });
    expect(await held()).toBe(p);
  });

  it('is left of unknown outcome, not failed, when Square knows its key with other counts', async () => {
    const { p, connector, held, stock, sendPending } = await agreedLevel(3);
    // The key went out with P − 1; what is marked pending under it now says P − 2 (a batch recorded in part).
    const { key, set } = await sendPending();
    await connector.setInventory([set], sendOptions(key));
    await t.services.db
      .update(channelStock)
      .set({ pendingQty: p - 2 })
      .where(and(eq(channelStock.channelId, channel.id), eq(channelStock.pendingKey, key)));
    sendsInDoubt(channel.id);
    await pushChannel(t.services, channel.id, 'retry');
    // Square refused the key (IDEMPOTENCY_KEY_REUSED): no error on the level, the mark cleared, nothing set.
    expect(await stock()).toMatchObject({ pushedQty: p, pendingQty: null, pendingKey: null, lastError: null });
    expect(await held()).toBe(p - 1);
  });

  it('answered with a 5xx stays pending under its key and is replayed: a count the seller made meanwhile counts in full', async () => {
    const { level, p, held, stock, reportMoves } = await agreedLevel(4);
    // We sell one unit here; Square answers the push's count of P − 1 with 500s, every retry too.
    await t.services.db.transaction((tx) =>
      applyMovements(tx, tenant.accountId, [
        { variantId: level.variantId, locationId: level.locationId, delta: -1, reason: 'adjustment', source: 'manual' },
      ]),
    );
    const faults = `${sandbox.url}/_control/square/${channel.externalId}/faults`;
    await fetch(faults, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"rate5xx":1}' });
    try {
      await expect(pushChannel(t.services, channel.id, 'change')).rejects.toThrow(/could not be sent/);
    } finally {
      await fetch(faults, { method: 'DELETE' });
    }
    // It may have landed: still pending, with its key (a 500 from the simulator did not set it).
    expect(await stock()).toMatchObject({ pushedQty: p, pendingQty: p - 1, pendingKey: expect.any(String) });
    expect((await stock())?.lastError).toBeTruthy();
    // The seller receives 3 at the store meanwhile: Square holds P + 3.
    await editInShop(sandbox.url, 'square', channel.externalId as string, level, 3);
    expect(await held()).toBe(p + 3);

    // The retried push sends it again under its key, dated when it was first made: under the seller's 3.
    await pushChannel(t.services, channel.id, 'retry');
    expect(await stock()).toMatchObject({ pushedQty: p - 1, pendingQty: null, pendingKey: null });
    expect(await held()).toBe(p + 2);
    expect(await reportMoves(p + 2)).toBe(3);
  });
});
