import pg from 'pg';
import PgBoss from 'pg-boss';
import type { Logger } from 'pino';
import type { Database } from '../db/client.ts';
import { inLane, type Lane } from '../lib/lanes.ts';

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
  /**
   * The lane of the provider calls the job makes (lib/lanes.ts): `background` for bulk reads that catch up
   * (imports, reconciliation), which give way to everything else on a shop's request budget. Default
   * `foreground`, also for a job started from a background one.
   */
  lane?: Lane;
}

export const deadLetterName = (name: string) => `${name}.dead`;

export interface JobQueue {
  readonly boss: PgBoss;
  /** Queues a job; the workers of its type look for it at once (unless it is to start later), here or elsewhere. */
  send<T extends object>(name: string, data: T, options?: PgBoss.SendOptions): Promise<string | null>;
  /** Starts the workers of every registered job type in this process. */
  work(): Promise<void>;
  /**
   * Runs a job of a type this process works at once, in this process, without the round trip through the
   * queue: for latency-critical work whose input is already stored (a webhook's event row), so the request
   * that stored it answers sooner. A run that fails is sent as a job (retried and dead-lettered as any). Where
   * this process does not work the type (a web-only process), or it is stopping, the job is sent.
   */
  run<T extends object>(name: string, data: T, options?: PgBoss.SendOptions): Promise<void>;
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
  /** Told when a job fails its last retry (it then lands in its dead-letter queue): notifications. */
  onDeadLetter?: (jobName: string, data: unknown, error: unknown) => Promise<void>;
}

export async function startQueue(database: Database, options: QueueOptions): Promise<JobQueue> {
  const { logger, jobs } = options;
  const boss =
    database.kind === 'postgres' && database.connectionString
      ? // pg-boss hands its options to its pg.Pool: its fetch, run every poll and wake-up, is prepared once too,
        // and planned once: on its partitioned job table PostgreSQL would otherwise plan each fetch again for its
        // queue (a custom plan looks cheaper than the generic one, which prunes partitions when it runs), some
        // forty times a second with every worker polling, while an idle server does nothing else.
        new PgBoss({
          connectionString: database.connectionString,
          max: 4,
          ...database.poolOptions,
          ...(database.poolOptions?.Client ? { options: '-c plan_cache_mode=force_generic_plan' } : {}),
        } as PgBoss.ConstructorOptions)
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
  /** Runs started here by `run`, awaited by `stop`. */
  const running = new Map<Promise<void>, string>();
  let stopping = false;
  const send = (name: string, data: object, sendOptions: PgBoss.SendOptions = {}) => boss.send(name, data, sendOptions);
  const wakeUp = crossProcessWakeUp(database, logger);
  const notify = (name: string) => {
    const ids = workerIds.get(name);
    if (ids) for (const id of ids) boss.notifyWorker(id);
    // Not worked here (a web-only process): the processes that work it are woken through the database.
    else wakeUp.tell(name);
  };
  return {
    boss,
    // A job sent is looked for at once by the workers of its type, here or (woken) in another process: not at
    // their next poll, a second later (a Stripe event, a mail, an import asked for on a page).
    async send(name, data, sendOptions = {}) {
      const id = await send(name, data, sendOptions);
      if (id && !sendOptions.startAfter) notify(name);
      return id;
    },
    async run(name, data, sendOptions = {}) {
      const job = jobs.find((j) => j.name === name);
      if (!job || stopping || !workerIds.has(name)) {
        await send(name, data, sendOptions);
        notify(name);
        return;
      }
      const handler = job.handler as JobDefinition['handler'];
      const started = (async () => {
        try {
          await inLane(job.lane ?? 'foreground', () => handler(data, { id: 'in-process', retryCount: 0 }));
        } catch (err) {
          logger.warn({ err, job: name }, 'in-process run failed; queued to be retried');
          await send(name, data, sendOptions).catch((sendErr: unknown) =>
            logger.error({ err: sendErr, job: name }, 'a failed in-process run could not be queued'),
          );
        }
      })();
      running.set(started, name);
      void started.finally(() => running.delete(started));
    },
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
                await inLane(job.lane ?? 'foreground', () => handler(item.data, meta));
              } catch (err) {
                log.warn({ err }, 'job failed; it will be retried or dead-lettered');
                if (item.retryCount >= (job.retryLimit ?? 5) && options.onDeadLetter) {
                  await options
                    .onDeadLetter(job.name, item.data, err)
                    .catch((notifyErr: unknown) => log.error({ err: notifyErr }, 'dead letter not notified'));
                }
                throw err;
              }
            },
          );
          workerIds.set(job.name, [...(workerIds.get(job.name) ?? []), workerId]);
        }
      }
      // Told by another process that it sent a job of a type worked here: its workers look now, not at their poll.
      await wakeUp.listen((name) => {
        for (const id of workerIds.get(name) ?? []) boss.notifyWorker(id);
      });
    },
    notify,
    async stop({ timeoutMs = 20_000 } = {}) {
      // Runs started here finish first (a failed one is still sent as a job meanwhile).
      stopping = true;
      let late = false;
      const timer = new Promise((resolve) =>
        setTimeout(() => {
          late = true;
          resolve(undefined);
        }, timeoutMs).unref(),
      );
      await Promise.race([Promise.allSettled([...running.keys()]), timer]);
      if (late)
        logger.warn({ runs: [...running.values()] }, 'runs still going at the stop; their work is left to a restart');
      // graceful: running handlers finish (up to the timeout); close: false because the database
      // belongs to the app, which closes it after the queue.
      await wakeUp.close();
      await boss.stop({ graceful: true, close: database.kind === 'postgres', timeout: timeoutMs, wait: true });
    },
  };
}

/** The channel a process sending a job tells the processes that work it on (PostgreSQL LISTEN/NOTIFY). */
const WAKE_CHANNEL = 'switchyard_jobs';

/**
 * Wakes the workers of other processes (a web process beside `npm run worker`) when a job is sent, so a webhook's
 * job starts in milliseconds rather than at the worker's next poll (a second). PostgreSQL only: PGlite belongs to
 * one process. Polling stays the fallback: a lost notification or listener costs latency, never a job.
 */
function crossProcessWakeUp(database: Database, logger: Logger) {
  const url = database.kind === 'postgres' ? database.connectionString : undefined;
  let client: pg.Client | null = null;
  let closed = false;
  return {
    tell(name: string) {
      if (!url) return;
      database
        .executeSql('select pg_notify($1, $2)', [WAKE_CHANNEL, name])
        .catch((err: unknown) => logger.warn({ err, job: name }, 'could not wake the workers of another process'));
    },
    async listen(onJob: (name: string) => void) {
      if (!url) return;
      // A listener that dies, or cannot be made, is tried again a second later; the workers poll meanwhile.
      const later = () => {
        if (!closed) setTimeout(() => void connect(), 1000).unref();
      };
      const connect = async (): Promise<void> => {
        const c = new pg.Client({ connectionString: url });
        // Once per client, whether its connect failed or it died later.
        let given = false;
        const giveUp = () => {
          if (given) return;
          given = true;
          void c.end().catch(() => undefined);
          if (client === c) client = null;
          later();
        };
        c.on('notification', (msg) => {
          if (msg.channel === WAKE_CHANNEL && msg.payload) onJob(msg.payload);
        });
        c.on('error', (err) => {
          logger.warn({ err }, 'job wake-up listener lost; listening again');
          giveUp();
        });
        try {
          await c.connect();
          await c.query(`listen ${WAKE_CHANNEL}`);
        } catch (err) {
          logger.warn({ err }, 'job wake-up listener could not listen; trying again');
          giveUp();
          return;
        }
        if (closed) await c.end().catch(() => undefined);
        else client = c;
      };
      await connect();
    },
    async close() {
      closed = true;
      await client?.end().catch(() => undefined);
      client = null;
    },
  };
}
