// A web process beside a worker process (`npm run worker`) on one PostgreSQL: a job the web process sends is
// started by the worker at once, not at its next poll. (PGlite belongs to one process: nothing to wake there.)
import { afterAll, describe, expect, it } from 'vitest';
import { memoryLogger } from '../../test/app.ts';
import { createTestDatabase, usingServer } from '../../test/db.ts';
import { type Database, openDatabase } from '../db/client.ts';
import { type JobDefinition, type JobQueue, startQueue } from './queue.ts';

describe.skipIf(!usingServer())('jobs sent from a process that does not work them', () => {
  const open: { queue?: JobQueue; database: Database }[] = [];
  afterAll(async () => {
    for (const { queue, database } of open.reverse()) {
      await queue?.stop({ timeoutMs: 2000 });
      await database.close();
    }
  });

  it('start in the worker process within a fraction of its polling interval', async () => {
    const { logger } = memoryLogger();
    const started: { at: number; sku: string }[] = [];
    const jobs: JobDefinition<{ sku: string }>[] = [
      { name: 'stock.push', handler: async (data) => void started.push({ at: Date.now(), sku: data.sku }) },
    ];
    // The worker's own database handle (its pool) and the web process's, on one database.
    const workerDb = await createTestDatabase();
    open.push({ database: workerDb });
    // A poll every 20 s: a job started sooner than that was woken.
    const worker = await startQueue(workerDb, {
      logger,
      jobs: jobs as JobDefinition<never>[],
      pollingIntervalSeconds: 20,
    });
    (open[0] as { queue?: JobQueue }).queue = worker;
    await worker.work();
    const webDb = await openDatabase({ url: workerDb.connectionString as string, poolMax: 2 });
    const web = await startQueue(webDb, { logger, jobs: jobs as JobDefinition<never>[] });
    open.push({ queue: web, database: webDb });
    // The worker's first poll happens as it starts: let it pass, so only a wake-up can start the next job.
    await new Promise((r) => setTimeout(r, 500));

    for (const sku of ['TEE-RED-M', 'TEE-RED-L']) {
      const sent = Date.now();
      await web.run('stock.push', { sku });
      const end = sent + 10_000;
      while (!started.some((s) => s.sku === sku) && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
      const at = started.find((s) => s.sku === sku)?.at;
      expect(at, `${sku} was not started within 10 s`).toBeDefined();
      expect((at as number) - sent).toBeLessThan(3000);
    }
  });
});
