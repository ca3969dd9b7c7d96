import type { SyncTrigger } from '@switchyard/contracts';
import type { Services } from '../../services.ts';

/** The per-channel push job (inventory/push.ts): sends what the channel's dirty set holds. */
export const INVENTORY_PUSH_JOB = 'inventory.push';

/**
 * Starts a push for each channel after the transaction that marked it dirty committed. In a process that runs
 * the push workers it starts here at once (push.run.ts runPush: one at a time per channel, a request while one runs
 * makes it go round once more), with no job written or fetched: under a stream of orders that was three pg-boss
 * statements per request, most of them for a push already under way. A run that fails is queued as a job and
 * retried; a process that dies mid-push leaves its marks, which start-up pushes (pushLeftovers). Elsewhere the
 * push is queued as a job and this process's workers woken.
 */
export async function schedulePush(
  services: Services,
  channelIds: Iterable<string>,
  trigger: SyncTrigger = 'change',
): Promise<void> {
  for (const channelId of new Set(channelIds)) {
    await services.queue?.run(INVENTORY_PUSH_JOB, { channelId, trigger }, { singletonKey: `push:${channelId}` });
  }
}

/**
 * Stock events are taken per channel, many in one pass (inbound.ts processInventoryEvents): one job per
 * channel waits at a time (pg-boss `short` policy), whatever the number of events (a full push to BigCommerce
 * brings one thin webhook per level back).
 */
export const CHANNEL_STOCK_EVENTS_JOB = 'channels.stock-events';

/**
 * Starts the pass over a channel's waiting stock events: at once in this process when it takes stock events
 * (they are stored, and stock changes are latency-critical), else as a job; a pass already waiting makes this
 * a no-op.
 */
export async function queueStockEvents(services: Services, channelId: string): Promise<void> {
  await services.queue?.run(CHANNEL_STOCK_EVENTS_JOB, { channelId }, { singletonKey: channelId });
}

// ------------------------------------------------------------------- pushes running in this process

/** Channels being pushed in this process, since when. */
const pushing = new Map<string, number>();
/** Channels whose stock events waited for their push to end. */
const deferred = new Set<string>();
/** A push running longer than this (a stream of changes keeps it going) no longer holds its events back. */
const DEFER_AT_MOST_MS = 30_000;

export function pushStarted(channelId: string) {
  pushing.set(channelId, Date.now());
}

/** The push ended: the channel's stock events that waited for it are queued. */
export async function pushEnded(services: Services, channelId: string) {
  pushing.delete(channelId);
  if (deferred.delete(channelId)) await queueStockEvents(services, channelId);
}

/**
 * While this process pushes a channel, the channel's stock events wait for the push to end (most are echoes
 * of it, and reading them back, BigCommerce's one API call per 250 variants, would compete with it). True
 * when they should wait: the push's end queues them.
 */
export function deferWhilePushing(channelId: string): boolean {
  const since = pushing.get(channelId);
  if (since === undefined || Date.now() - since > DEFER_AT_MOST_MS) return false;
  deferred.add(channelId);
  return true;
}
