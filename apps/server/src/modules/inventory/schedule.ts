import type { SyncTrigger } from '@switchyard/contracts';
import type { Services } from '../../services.ts';

/** The per-channel push job (inventory/push.ts): sends what the channel's dirty set holds. */
export const INVENTORY_PUSH_JOB = 'inventory.push';

/**
 * Queues a push for each channel after the transaction that marked it dirty committed, and wakes this
 * process's push workers so it starts now rather than at their next poll. A push takes every mark made up
 * to its start, so extra jobs for one channel find nothing and are cheap; pushes of one channel run one at
 * a time in a process (push.ts runPush).
 */
export async function schedulePush(
  services: Services,
  channelIds: Iterable<string>,
  trigger: SyncTrigger = 'change',
): Promise<void> {
  let sent = false;
  for (const channelId of new Set(channelIds)) {
    await services.queue?.send(INVENTORY_PUSH_JOB, { channelId, trigger }, { singletonKey: `push:${channelId}` });
    sent = true;
  }
  if (sent) services.queue?.notify?.(INVENTORY_PUSH_JOB);
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
