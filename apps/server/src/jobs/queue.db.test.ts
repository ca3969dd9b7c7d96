import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { memoryLogger } from '../../test/app.ts';
import { createTestDatabase, usingServer } from '../../test/db.ts';
import { type Database, openDatabase } from '../db/client.ts';
import { deadLetterName, type JobDefinition, startQueue } from './queue.ts';

const until = async (check: () => boolean | Promise<boolean>, timeoutMs = 30_000) => {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 100));
  }
};

describe('job queue', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  // On a server the same holds by construction (the jobs are rows in it); the embedded engine is the one
  // whose files must carry them across a restart.
  it.skipIf(usingServer())('does a job sent before a stop after a restart on the same data', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sy-jobs-'));
    dirs.push(dataDir);
    const { logger } = memoryLogger();
    const done: { sku: string }[] = [];
    const jobs: JobDefinition<{ sku: string }>[] = [
      { name: 'stock.push', handler: async (data) => void done.push(data) },
    ];

    const first = await openDatabase({ dataDir });
    await first.migrate();
    const queue1 = await startQueue(first, { logger, jobs: jobs as JobDefinition<never>[] });
    const id = await queue1.send('stock.push', { sku: 'TEE-RED-M' });
    expect(id).toBeTruthy();
    await queue1.stop();
    await first.close();
    expect(done).toEqual([]);

    const second = await openDatabase({ dataDir });
    const queue2 = await startQueue(second, {
      logger,
      jobs: jobs as JobDefinition<never>[],
      pollingIntervalSeconds: 0.5,
    });
    await queue2.work();
    await until(() => done.length === 1);
    expect(done).toEqual([{ sku: 'TEE-RED-M' }]);
    await until(async () => (await queue2.boss.getJobById('stock.push', id as string))?.state === 'completed');
    await queue2.stop();
    await second.close();
  });

  it('retries a failing job with growing delays, then dead-letters it with its data and says so once', async () => {
    const database: Database = await createTestDatabase();
    const { logger, lines } = memoryLogger();
    const attempts: number[] = [];
    const deadLetters: { name: string; data: unknown; error: string; afterAttempts: number }[] = [];
    const job: JobDefinition<{ order: string }> = {
      name: 'orders.import',
      retryLimit: 2,
      retryDelaySeconds: 1,
      retryBackoff: true,
      handler: async () => {
        attempts.push(Date.now());
        throw new Error('channel answered 503');
      },
    };
    const queue = await startQueue(database, {
      logger,
      jobs: [job as JobDefinition<never>],
      pollingIntervalSeconds: 0.5,
      // The notifications hook: told of the last failure only.
      onDeadLetter: async (name, data, error) => {
        deadLetters.push({ name, data, error: (error as Error).message, afterAttempts: attempts.length });
      },
    });
    const id = (await queue.send('orders.import', { order: '#1001' })) as string;
    await queue.work();

    await until(async () => (await queue.boss.getJobById('orders.import', id))?.state === 'failed', 45_000);
    expect(attempts).toHaveLength(3);
    const failed = await queue.boss.getJobById('orders.import', id);
    expect(failed).toMatchObject({ state: 'failed', retryCount: 2 });
    // Each retry waited at least the configured delay.
    const gaps = attempts.slice(1).map((at, i) => at - (attempts[i] ?? at));
    expect(gaps.every((gap) => gap >= 900)).toBe(true);
    // And the delay grew: with backoff the second retry waits at least two seconds (one without).
    expect(gaps[1]).toBeGreaterThanOrEqual(1900);

    const [dead] = await queue.boss.fetch<{ order: string }>(deadLetterName('orders.import'));
    expect(dead?.data).toEqual({ order: '#1001' });
    expect(deadLetters).toEqual([
      { name: 'orders.import', data: { order: '#1001' }, error: 'channel answered 503', afterAttempts: 3 },
    ]);
    expect(lines.filter((l) => l.msg?.toString().startsWith('job failed'))).toHaveLength(3);

    await queue.stop();
    await database.close();
  });

  it('runs a type this process works at once, in process; a run that fails is queued and retried', {
    timeout: 180_000,
  }, async () => {
    const database: Database = await createTestDatabase();
    const { logger } = memoryLogger();
    const seen: { channelId: string; id: string }[] = [];
    const job: JobDefinition<{ channelId: string }> = {
      name: 'channels.stock-events',
      retryLimit: 2,
      retryDelaySeconds: 1,
      handler: async ({ channelId }, meta) => {
        seen.push({ channelId, id: meta.id });
        if (seen.length === 1) throw new Error('channel answered 503');
      },
    };
    const queue = await startQueue(database, {
      logger,
      jobs: [job as JobDefinition<never>],
      pollingIntervalSeconds: 0.5,
    });
    await queue.work();
    await queue.run('channels.stock-events', { channelId: 'ch_1' }, { singletonKey: 'ch_1' });
    // Started before `run` answered, without a job; its failure became a job, which a worker then ran.
    expect(seen).toEqual([{ channelId: 'ch_1', id: 'in-process' }]);
    // The failed run is queued without waking the worker: wake it rather than wait for its next poll.
    await until(() => {
      queue.notify('channels.stock-events');
      return seen.length === 2;
    });
    expect(seen[1]).toMatchObject({ channelId: 'ch_1', id: expect.not.stringMatching(/^in-process$/) });
    await queue.stop();
    await database.close();
  });
});
