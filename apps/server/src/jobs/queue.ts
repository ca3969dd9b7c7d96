import PgBoss from 'pg-boss';
import type { Logger } from 'pino';
import type { Database } from '../db/client.ts';

/**
 * A job type: its handler and how it is retried. Every job type gets a dead-letter queue
 * `<name>.dead`: a job that has used up its retries lands there, with its data and last error,
 * and nothing is dropped (DESIGN.md §4).
 */
export interface JobDefinition<T extends object = object> {
  name: string;
  handler: (data: T, meta: { id: string; retryCount: number }) => Promise<void>;
  /** Attempts after the first. */
  retryLimit?: number;
  /** Seconds before the first retry; doubled (with jitter) on each next one when retryBackoff is on. */
  retryDelaySeconds?: number;
  retryBackoff?: boolean;
  expireInSeconds?: number;
  /** How many jobs of this type one process runs at once. */
  concurrency?: number;
  /**
   * pg-boss queue policy. `short`: at most one job per singletonKey waits at a time (a send while one waits is
   * dropped, as the waiting one will see what the send was for); one may run meanwhile. Default `standard`.
   */
  policy?: 'standard' | 'short';
}

export const deadLetterName = (name: string) => `${name}.dead`;

export interface JobQueue {
  readonly boss: PgBoss;
  send<T extends object>(name: string, data: T, options?: PgBoss.SendOptions): Promise<string | null>;
  /** Starts the workers of every registered job type in this process. */
  work(): Promise<void>;
  /**
   * Wakes this process's idle workers of a job type to fetch now instead of at their next poll (a no-op
   * where the process does not work that type). For latency-critical jobs sent from this process.
   */
  notify(name: string): void;
  stop(options?: { timeoutMs?: number }): Promise<void>;
}

export interface QueueOptions {
  logger: Logger;
  jobs: JobDefinition<never>[];
  pollingIntervalSeconds?: number;
}

export async function startQueue(database: Database, options: QueueOptions): Promise<JobQueue> {
  const { logger, jobs } = options;
  const boss =
    database.kind === 'postgres' && database.connectionString
      ? new PgBoss({ connectionString: database.connectionString, max: 4 })
      : new PgBoss({ db: { executeSql: (text, values) => database.executeSql(text, values) } });
  boss.on('error', (err) => logger.error({ err }, 'job queue error'));
  await boss.start();

  for (const job of jobs) {
    const dead = deadLetterName(job.name);
    await boss.createQueue(dead, { name: dead, retentionDays: 30 });
    await boss.createQueue(job.name, {
      name: job.name,
      policy: job.policy ?? 'standard',
      deadLetter: dead,
      retryLimit: job.retryLimit ?? 5,
      retryDelay: job.retryDelaySeconds ?? 5,
      retryBackoff: job.retryBackoff ?? true,
      expireInSeconds: job.expireInSeconds ?? 15 * 60,
    });
  }

  const pollingIntervalSeconds = options.pollingIntervalSeconds ?? 1;
  const workerIds = new Map<string, string[]>();
  return {
    boss,
    send: (name, data, sendOptions = {}) => boss.send(name, data, sendOptions),
    async work() {
      for (const job of jobs) {
        const handler = job.handler as JobDefinition['handler'];
        const concurrency = job.concurrency ?? 1;
        for (let i = 0; i < concurrency; i++) {
          let workerId = '';
          workerId = await boss.work<object>(
            job.name,
            { pollingIntervalSeconds, batchSize: 1, includeMetadata: true },
            async ([item]) => {
              if (!item) return;
              // A worker that found a job looks for the next one at once: pg-boss otherwise waits out the
              // polling interval after each job, and a backlog drains at one job per worker per second.
              boss.notifyWorker(workerId);
              const log = logger.child({ job: job.name, jobId: item.id });
              const meta = { id: item.id, retryCount: item.retryCount };
              try {
                await handler(item.data, meta);
              } catch (err) {
                log.warn({ err }, 'job failed; it will be retried or dead-lettered');
                throw err;
              }
            },
          );
          workerIds.set(job.name, [...(workerIds.get(job.name) ?? []), workerId]);
        }
      }
    },
    notify(name) {
      for (const id of workerIds.get(name) ?? []) boss.notifyWorker(id);
    },
    async stop({ timeoutMs = 20_000 } = {}) {
      // graceful: running handlers finish (up to the timeout); close: false because the database
      // belongs to the app, which closes it after the queue.
      await boss.stop({ graceful: true, close: database.kind === 'postgres', timeout: timeoutMs, wait: true });
    },
  };
}
