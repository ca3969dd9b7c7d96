// Running pushes (DESIGN §4; ADR 0013): one at a time per channel and at most three at once in a process, as the
// `inventory.push` job or started in process by schedulePush; a full push of a channel (pushAll); and what a crash
// or a lost job left dirty (pushLeftovers). The push itself is push.ts.
import type { SyncTrigger } from '@switchyard/contracts';
import { and, eq, sql } from 'drizzle-orm';
import { DomainError } from '../../lib/errors.ts';
import { turns } from '../../lib/passes.ts';
import type { Services } from '../../services.ts';
import type { Actor } from '../../trpc/context.ts';
import { findChannel } from '../channels/channels.service.ts';
import { channels } from '../channels/channels.tables.ts';
import { listings } from '../products/products.tables.ts';
import { inventoryDirty } from './inventory.tables.ts';
import { rowsOf } from './ledger.ts';
import { mayReplay } from './push.replay.ts';
import { isLive, pushChannel } from './push.ts';
import { INVENTORY_PUSH_JOB, pushEnded, pushStarted, schedulePush } from './schedule.ts';

interface Running {
  again: boolean;
  trigger: SyncTrigger;
  done: Promise<void>;
}
const running = new Map<string, Running>();
/** How soon a push that found its channel being pushed by another process tries again. */
const BUSY_RETRY_SECONDS = 2;
/**
 * Pushes of different channels running at once in this process (as many as the job's workers): each holds a
 * connection for its lock while it uses another, so unbounded pushes could take the whole pool. Requests for a
 * channel waiting for its turn join its push.
 */
const pushTurn = turns(3);

/**
 * Runs the push for a channel in this process, one at a time per channel: a request while one runs makes
 * it go round once more (its marks are newer than the running push's start). Errors propagate to the
 * caller of the run that started it (the job), so the queue retries; a request that joined it resolves.
 */
export function runPush(services: Services, channelId: string, trigger: SyncTrigger = 'change'): Promise<void> {
  const current = running.get(channelId);
  if (current) {
    current.again = true;
    // The run that started the push answers for a failure (it is retried, and the marks it did not clear stay):
    // a request that joined it is done either way. Each joiner failing too sent a retry job and a warning of its
    // own: 617 of them at once when a stream of orders met a stop or an outage (bench/README.md).
    return current.done.catch(() => undefined);
  }
  const state: Running = { again: false, trigger, done: Promise.resolve() };
  running.set(channelId, state);
  state.done = (async () => {
    // The channel's stock events wait for its push to end. For the first push of the channel in this process (or
    // the first after one failed) they wait from the request on: its start replays sends whose answers were lost,
    // and at start-up the events waiting are queued right after this; they are read once the channel's answers are
    // in. Otherwise from its start (events that come while it waits for its turn are taken in meanwhile).
    const replaying = mayReplay(channelId);
    if (replaying) pushStarted(channelId);
    const turnDone = await pushTurn();
    // Workers in other processes (on a shared PostgreSQL) push the same channels: one at a time across them.
    // A push that finds the channel busy elsewhere is queued again shortly; the marks it would have taken wait.
    const release = await services.database.exclusive(`inventory.push:${channelId}`).catch(async (err) => {
      running.delete(channelId);
      turnDone();
      await pushEnded(services, channelId);
      throw err;
    });
    if (!release) {
      running.delete(channelId);
      turnDone();
      await pushEnded(services, channelId);
      await services.queue?.send(
        INVENTORY_PUSH_JOB,
        { channelId, trigger },
        { singletonKey: `push:${channelId}`, startAfter: BUSY_RETRY_SECONDS },
      );
      return;
    }
    if (!replaying) pushStarted(channelId);
    try {
      let round = 0;
      do {
        state.again = false;
        await pushChannel(services, channelId, round === 0 ? trigger : 'change');
        round += 1;
      } while (state.again);
    } finally {
      running.delete(channelId);
      try {
        await release();
      } finally {
        turnDone();
      }
      await pushEnded(services, channelId);
    }
  })();
  return state.done;
}

/** The `inventory.push` job handler. A retried job is a retry run. */
export function pushJobHandler(services: Services) {
  return async (data: { channelId: string; trigger?: SyncTrigger }, meta: { retryCount: number }) => {
    await runPush(services, data.channelId, meta.retryCount > 0 ? 'retry' : (data.trigger ?? 'change'));
  };
}

/**
 * `pushAll`: every listing of the channel is marked dirty and a push queued (a full push). Answers the
 * number of variants marked.
 */
export async function pushAll(
  services: Services,
  accountId: string,
  channelId: string,
  trigger: SyncTrigger = 'manual',
): Promise<{ channelId: string; variants: number }> {
  const [channel] = await services.db
    .select()
    .from(channels)
    .where(and(eq(channels.id, channelId), eq(channels.accountId, accountId)));
  if (!channel) throw new DomainError('NOT_FOUND', 'Channel not found.');
  if (!isLive(channel))
    throw new DomainError('INVALID_STATE', `${channel.name} is not connected. Re-authorise it first.`);
  if (!channel.features?.inventory)
    throw new DomainError('INVALID_STATE', `Inventory sync is off for ${channel.name}. Turn it on first.`);
  const result = await services.db.execute(sql`
    insert into ${inventoryDirty} (account_id, channel_id, variant_id, marked_at)
    select ${listings.accountId}, ${listings.channelId}, ${listings.variantId}, clock_timestamp()
    from ${listings}
    where ${listings.accountId} = ${accountId} and ${listings.channelId} = ${channelId}
      and ${listings.inventoryItemId} is not null
    on conflict (channel_id, variant_id) do update set marked_at = excluded.marked_at
    returning variant_id`);
  const variants = rowsOf<{ variant_id: string }>(result).length;
  if (variants > 0) await schedulePush(services, [channelId], trigger);
  return { channelId, variants };
}

/** For the routes: the actor's channel, then pushAll. */
export async function startFullPush(services: Services, actor: Pick<Actor, 'accountId'>, channelId: string) {
  const channel = await findChannel(services.db, actor, channelId);
  return pushAll(services, channel.accountId, channel.id, 'manual');
}

/**
 * Queues a push for every channel that still has dirty marks older than `olderThanSeconds` (0: any): at
 * start-up after a crash, and each minute as a safety net for a push whose job was lost. Answers the
 * channels queued.
 */
export async function pushLeftovers(services: Services, olderThanSeconds = 0): Promise<string[]> {
  const rows = await services.db.execute(sql`
    select distinct d.channel_id from ${inventoryDirty} d join ${channels} c on c.id = d.channel_id
    where d.marked_at <= clock_timestamp() - make_interval(secs => ${olderThanSeconds})
      and c.status in ('connected', 'error') and c.credentials is not null
      and (c.features ->> 'inventory')::boolean`);
  const ids = rowsOf<{ channel_id: string }>(rows).map((r) => r.channel_id);
  if (ids.length > 0) await schedulePush(services, ids, 'retry');
  return ids;
}
