// A demo-size catalog (the sandbox default: 150 products, 4 stores) through the import: more than one bulk
// round of the ledger (500 levels each), and every seeded level equal to the sum of its movements.
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestApp } from '../../../test/app.ts';
import { connectSandboxChannel } from '../../../test/channels.ts';
import { createSignedInAccount } from '../../../test/factories.ts';
import { startTestSandbox } from '../../../test/sandbox.ts';
import { startJobs } from '../../bootstrap.ts';
import { rowsOf } from '../inventory/ledger.ts';
import { syncs } from '../syncs/syncs.tables.ts';
import { queueCatalogImport } from './catalog-import.ts';

let sandbox: Awaited<ReturnType<typeof startTestSandbox>>;
let t: Awaited<ReturnType<typeof createTestApp>>;
let queue: Awaited<ReturnType<typeof startJobs>>;

beforeAll(async () => {
  sandbox = await startTestSandbox();
  t = await createTestApp({ sandboxUrl: sandbox.url });
  queue = await startJobs(t.services, { work: true });
});
afterAll(async () => {
  await queue?.stop({ timeoutMs: 1000 });
  await t?.close();
  await sandbox?.close();
});

it('imports a demo-size Square catalog with every level equal to its movements', { timeout: 120_000 }, async () => {
  const owner = await createSignedInAccount(t.services);
  const square = await connectSandboxChannel(t, owner, 'square', 'Demo Size Stores');
  const id = await queueCatalogImport(t.services, {
    accountId: owner.accountId,
    channelId: square.id,
    trigger: 'manual',
  });
  let run: typeof syncs.$inferSelect | undefined;
  for (const end = Date.now() + 100_000; Date.now() < end; await new Promise((r) => setTimeout(r, 250))) {
    [run] = await t.services.db.select().from(syncs).where(eq(syncs.id, id));
    if (run?.finishedAt) break;
  }
  expect(run, JSON.stringify(run)).toMatchObject({ status: 'succeeded', failed: 0 });
  // The import queues the channel's order import, whose reservations are pushed to Square: all of it settles first
  // (an order run finished, no run open, no level waiting for a push).
  const settled = async () => {
    const [state] = rowsOf<{ orders: number; open: number; dirty: number }>(
      await t.services.db.execute(sql`
        select (select count(*)::int from syncs where account_id = ${owner.accountId} and type = 'order_import'
                  and finished_at is not null) as orders,
               (select count(*)::int from syncs where account_id = ${owner.accountId} and finished_at is null) as open,
               (select count(*)::int from inventory_dirty where account_id = ${owner.accountId}) as dirty`),
    );
    return state?.orders === 1 && state.open === 0 && state.dirty === 0;
  };
  for (const end = Date.now() + 60_000; !(await settled()); await new Promise((r) => setTimeout(r, 100)))
    if (Date.now() > end) throw new Error('the order import and its pushes did not settle within 60 s');

  const snapshot = (await (await fetch(`${sandbox.url}/_control/square/${square.externalId}`)).json()) as {
    stock: Record<string, Record<string, number>>;
  };
  const squareUnits = Object.values(snapshot.stock)
    .flatMap((byLocation) => Object.values(byLocation))
    .reduce((sum, q) => sum + Math.max(0, q), 0);
  const [sums] = rowsOf<{ levels: number; moves: number; stocked: number; available: number }>(
    await t.services.db.execute(sql`
      select (select coalesce(sum(on_hand), 0)::int from inventory_levels where account_id = ${owner.accountId}) as levels,
             (select coalesce(sum(delta), 0)::int from inventory_movements where account_id = ${owner.accountId}) as moves,
             (select count(*)::int from inventory_levels where account_id = ${owner.accountId} and on_hand > 0) as stocked,
             (select coalesce(sum(greatest(on_hand - reserved, 0)), 0)::int from inventory_levels
               where account_id = ${owner.accountId}) as available`),
  );
  expect(sums?.stocked).toBeGreaterThan(500);
  expect(sums?.levels).toBe(sums?.moves);
  // Square offers what we have less what its open orders hold (no buffers here).
  expect(sums?.available).toBe(squareUnits);
});
