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

  const snapshot = (await (await fetch(`${sandbox.url}/_control/square/${square.externalId}`)).json()) as {
    stock: Record<string, Record<string, number>>;
  };
  const squareUnits = Object.values(snapshot.stock)
    .flatMap((byLocation) => Object.values(byLocation))
    .reduce((sum, q) => sum + Math.max(0, q), 0);
  const [sums] = rowsOf<{ levels: number; moves: number; stocked: number }>(
    await t.services.db.execute(sql`
      select (select coalesce(sum(on_hand), 0)::int from inventory_levels where account_id = ${owner.accountId}) as levels,
             (select coalesce(sum(delta), 0)::int from inventory_movements where account_id = ${owner.accountId}) as moves,
             (select count(*)::int from inventory_levels where account_id = ${owner.accountId} and on_hand > 0) as stocked`),
  );
  expect(sums?.stocked).toBeGreaterThan(500);
  expect(sums?.levels).toBe(sums?.moves);
  expect(sums?.levels).toBe(squareUnits);
});
