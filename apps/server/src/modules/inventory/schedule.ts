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
