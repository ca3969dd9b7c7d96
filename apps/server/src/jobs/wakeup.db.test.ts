// A job sent is started at once, not at its workers' next poll: in the same process, and (PostgreSQL) from a web
// process beside a worker process (`npm run worker`). PGlite belongs to one process: nothing to wake across there.
import { afterAll, describe, expect, it } from 'vitest';
import { memoryLogger } from '../../test/app.ts';
import { createTestDatabase, usingServer } from '../../test/db.ts';
import { type Database, openDatabase } from '../db/client.ts';
import { type JobDefinition, type JobQueue, startQueue } from './queue.ts';

const startedWithin = async (started: { at: number; sku: string }[], sku: string, sent: number) => {
  const end = sent + 10_000;
  while (!started.some((s) => s.sku === sku) && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
  const at = started.find((s) => s.sku === sku)?.at;
  expect(at, `${sku} was not started within 10 s`).toBeDefined();
  return (at as number) - sent;
};

/** One job type whose handler records when each job (by its sku) started. */
const recordingJob = (name: string) => {
  const started: { at: number; sku: string }[] = [];
  const jobs: JobDefinition<{ sku: string }>[] = [
    { name, handler: async (data) => void started.push({ at: Date.now(), sku: data.sku }) },
  ];
  return { started, jobs: jobs as JobDefinition<never>[] };
};

describe('a job sent in the process that works it', () => {
  it('starts within a fraction of the polling interval', async () => {
    const { logger } = memoryLogger();
    const { started, jobs } = recordingJob('mail.send');
    const database = await createTestDatabase();
    const queue = await startQueue(database, {
      logger,
      jobs,
      pollingIntervalSeconds: 20,
    });
    try {
      await queue.work();
      await new Promise((r) => setTimeout(r, 500));
      for (const sku of ['A', 'B']) {
        const sent = Date.now();
        await queue.send('mail.send', { sku });
        expect(await startedWithin(started, sku, sent)).toBeLessThan(3000);
      }
    } finally {
      await queue.stop({ timeoutMs: 2000 });
      await database.close();
    }
  });
});

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
    const { started, jobs } = recordingJob('stock.push');
    // The worker's own database handle (its pool) and the web process's, on one database.
    const workerDb = await createTestDatabase();
    open.push({ database: workerDb });
    // A poll every 20 s: a job started sooner than that was woken.
    const worker = await startQueue(workerDb, {
      logger,
      jobs,
      pollingIntervalSeconds: 20,
    });
    (open[0] as { queue?: JobQueue }).queue = worker;
    await worker.work();
    const webDb = await openDatabase({ url: workerDb.connectionString as string, poolMax: 2 });
    const web = await startQueue(webDb, { logger, jobs });
    open.push({ queue: web, database: webDb });
    // The worker's first poll happens as it starts: let it pass, so only a wake-up can start the next job.
    await new Promise((r) => setTimeout(r, 500));

    for (const sku of ['TEE-RED-M', 'TEE-RED-L']) {
      const sent = Date.now();
      // One through `run` (a webhook's job), one through `send`.
      if (sku === 'TEE-RED-M') await web.run('stock.push', { sku });
      else await web.send('stock.push', { sku });
      expect(await startedWithin(started, sku, sent)).toBeLessThan(3000);
    }

    // The worker's listening connection dies (a server restart, a proxy's idle cut): it listens again.
    const killed = await webDb.executeSql(
      `select pg_terminate_backend(pid) from pg_stat_activity
       where datname = current_database() and query ilike 'listen switchyard_jobs%'`,
    );
    expect(killed.rows).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 2500));
    const sent = Date.now();
    await web.send('stock.push', { sku: 'TEE-RED-XL' });
    expect(await startedWithin(started, 'TEE-RED-XL', sent)).toBeLessThan(3000);
  });
});
