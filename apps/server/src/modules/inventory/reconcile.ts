// Reconciliation (DESIGN §4): read what each channel holds, take in the changes its webhooks missed (reason
// 'reconcile'), and push what differs from our available. Every channel is looked at every
// advanced.reconcileEveryMinutes; a job each minute picks the channels that are due.
import type { SyncTrigger } from '@switchyard/contracts';
import { eq, sql } from 'drizzle-orm';
import { DomainError } from '../../lib/errors.ts';
import type { Services } from '../../services.ts';
import type { Actor } from '../../trpc/context.ts';
import { connectorFor, findChannel, providerFailure } from '../channels/channels.service.ts';
import { channels } from '../channels/channels.tables.ts';
import { accountLocations } from '../locations/locations.read.ts';
import { finishSync, recordSyncProgress, setSyncTotal, startSync } from '../syncs/syncs.records.ts';
import { syncs } from '../syncs/syncs.tables.ts';
import { loadAvailable, pushedLocations } from './available.ts';
import { applyChannelReports, believedQty, type ChannelReport } from './inbound.ts';
import { markDirty, rowsOf } from './ledger.ts';
import { pushLeftovers } from './push.run.ts';
import { schedulePush } from './schedule.ts';

export const INVENTORY_RECONCILE_JOB = 'inventory.reconcile';
export const INVENTORY_RECONCILE_DUE_JOB = 'inventory.reconcile-due';

export interface ReconcileOutcome {
  syncId: number;
  /** Levels read from the channel that we sync. */
  compared: number;
  /** Channel changes the webhooks had missed, taken into the ledger. */
  drifted: number;
  /** Variants marked for a push because the channel's number differs from our available. */
  repushed: number;
}

/** Reads the channel's levels, takes in missed changes, and queues a push of what differs. */
export async function reconcileChannel(
  services: Services,
  channelId: string,
  trigger: SyncTrigger = 'schedule',
): Promise<ReconcileOutcome | null> {
  const [channel] = await services.db.select().from(channels).where(eq(channels.id, channelId));
  if (!channel || !['connected', 'error'].includes(channel.status) || !channel.credentials) return null;
  if (!channel.features?.inventory) return null;
  const ours = await accountLocations(services.db, channel.accountId);
  const mapped = pushedLocations(channel.settings, ours);
  const syncId = await startSync(services.db, { accountId: channel.accountId, channelId, type: 'reconcile', trigger });
  const outcome: ReconcileOutcome = { syncId, compared: 0, drifted: 0, repushed: 0 };
  try {
    if (mapped.length === 0) {
      await finishSync(services.db, syncId, { message: 'No channel location is mapped to one of ours.' });
      return outcome;
    }
    const connector = connectorFor(services, channel);
    // What the channel holds now, for the items we sync.
    const held = new Map<string, number>();
    let cursor: string | null = null;
    const readAt = new Date();
    const wanted = new Set(mapped.map((m) => m.externalLocationId));
    try {
      do {
        const page = await connector.getInventoryLevels({
          cursor,
          locationExternalIds: mapped.map((m) => m.externalLocationId),
        });
        for (const l of page.items)
          if (wanted.has(l.locationExternalId)) held.set(`${l.inventoryItemId}|${l.locationExternalId}`, l.available);
        cursor = page.nextCursor;
      } while (cursor);
    } catch (err) {
      throw await providerFailure(services, channel, err);
    }

    // Compare with what we believe it holds: a difference is a change made there that we missed.
    const rows = await loadAvailable(services.db, channel.accountId, { channelIds: [channelId], pushableOnly: true });
    await setSyncTotal(services.db, syncId, rows.length);
    const reports: ChannelReport[] = [];
    for (const row of rows) {
      const now = held.get(`${row.inventoryItemId}|${row.externalLocationId}`);
      if (now === undefined) continue;
      outcome.compared += 1;
      if (row.pendingQty !== null) continue; // a push is in flight: its answer will tell
      const believed = believedQty(row);
      if (believed === null || believed !== now) {
        reports.push({
          inventoryItemId: row.inventoryItemId,
          externalLocationId: row.externalLocationId,
          quantity: now,
          at: readAt,
          key: `reconcile-${syncId}`,
        });
      }
    }
    for (let i = 0; i < reports.length; i += 500) {
      const result = await applyChannelReports(services, channel, reports.slice(i, i + 500), 'reconcile');
      outcome.drifted += result.changed;
    }
    // Anything whose channel number now differs from our available is pushed.
    const after = await loadAvailable(services.db, channel.accountId, { channelIds: [channelId], pushableOnly: true });
    const differ = new Set<string>();
    for (const row of after) {
      const now = held.get(`${row.inventoryItemId}|${row.externalLocationId}`);
      const current = now ?? believedQty(row);
      if (current !== row.available) differ.add(row.variantId);
    }
    if (differ.size > 0) {
      const marked = await markDirty(services.db, channel.accountId, [...differ], { channelIds: [channelId] });
      await schedulePush(services, marked);
    }
    outcome.repushed = differ.size;
    await recordSyncProgress(services.db, syncId, channel.accountId, { succeeded: rows.length });
    await finishSync(services.db, syncId, {
      message: `${outcome.compared} levels compared, ${outcome.drifted} changes taken in, ${outcome.repushed} variants pushed again`,
    });
    return outcome;
  } catch (err) {
    await finishSync(services.db, syncId, {
      error: err instanceof Error ? err.message : 'Reconciliation failed',
    });
    throw err;
  }
}

/** The channels whose reconciliation is due: live, inventory on, last one older than their interval. */
export async function dueChannels(services: Services, now = new Date()): Promise<string[]> {
  const rows = await services.db.execute(sql`
    select c.id from ${channels} c
    where c.status in ('connected', 'error') and c.credentials is not null
      and (c.features ->> 'inventory')::boolean
      and coalesce((
        select max(s.started_at) from ${syncs} s where s.channel_id = c.id and s.type = 'reconcile'
      ), c.connected_at, '-infinity'::timestamptz)
        <= ${now}::timestamptz - make_interval(mins => coalesce((c.settings -> 'advanced' ->> 'reconcileEveryMinutes')::int, 15))`);
  return rowsOf<{ id: string }>(rows).map((r) => r.id);
}

/** The minute job: queues a reconciliation for each due channel. */
export async function queueDueReconciliations(services: Services): Promise<number> {
  // Safety net: marks left for over a minute (a push job lost with its worker) are pushed again.
  await pushLeftovers(services, 60);
  const due = await dueChannels(services);
  for (const channelId of due) {
    await services.queue?.send(
      INVENTORY_RECONCILE_JOB,
      { channelId, trigger: 'schedule' },
      { singletonKey: `reconcile:${channelId}`, singletonSeconds: 60 },
    );
  }
  return due.length;
}

/** For the routes: reconcile the actor's channel now. */
export async function startReconcile(services: Services, actor: Pick<Actor, 'accountId'>, channelId: string) {
  const channel = await findChannel(services.db, actor, channelId);
  if (!['connected', 'error'].includes(channel.status) || !channel.credentials)
    throw new DomainError('INVALID_STATE', `${channel.name} is not connected. Re-authorise it first.`);
  if (!channel.features?.inventory)
    throw new DomainError('INVALID_STATE', `Inventory sync is off for ${channel.name}. Turn it on first.`);
  await services.queue?.send(INVENTORY_RECONCILE_JOB, { channelId: channel.id, trigger: 'manual' });
  return { channelId: channel.id, queued: true };
}
