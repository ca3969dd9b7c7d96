// Sends of unknown outcome, replayed (ADR 0016). A push marks each level it sends pending, with the idempotency key of
// the provider request that carries it where the provider takes one (Shopify 2026-01 @idempotent, Square's
// idempotency_key; Square dates its counts, and a send is dated by its key). When the answer is lost (the process
// died mid-push, or the call failed in a way that may have landed), the channel may or may not hold what we sent,
// and a change made there meanwhile (a merchant's edit of that level) reads as either of two quantities. Before a
// channel's next push, in the first push of a process and after a push that failed, every such send goes again,
// with its key and exactly what it asked: the provider answers with what it did the first time (or does it now),
// and the answer is recorded like any other. Then what the channel reports is read against what it really holds.
import { and, eq, isNotNull } from 'drizzle-orm';
import type { InventorySet, InventorySetOptions } from '../../connectors/types.ts';
import { idTime } from '../../lib/ids.ts';
import type { Services } from '../../services.ts';
import { type ChannelRow, connectorFor } from '../channels/channels.service.ts';
import { channelStock } from './inventory.tables.ts';
import { clearPending, recordApplied, recordFailed, takeInMismatches } from './push.records.ts';

/**
 * A send older than this is not replayed: Square refuses a count dated more than 24 hours back, and a provider keeps
 * a key only for a while. Such a send stays one of unknown outcome, settled from what the channel reports.
 */
export const REPLAY_WITHIN_MS = 23 * 3_600_000;

/** A provider's refusal of a key it knows with other arguments (Shopify's IDEMPOTENCY_KEY_PARAMETER_MISMATCH, Square's
 * IDEMPOTENCY_KEY_REUSED). */
const KEY_REFUSED = /IDEMPOTENCY_KEY/;

/** What a keyed send passes its connector: the key, and when the send was first made (a key is an id, `snd_…`). */
export function sendOptions(key: string | null | undefined): InventorySetOptions {
  if (!key) return {};
  const at = idTime(key);
  return at ? { idempotencyKey: key, at } : { idempotencyKey: key };
}

/** Channels whose lost sends this process has replayed (or found none of) since it started or a push failed. */
const settled = new Set<string>();

/** The channel's next push may replay lost sends: its first in this process, or its first after one failed. */
export function mayReplay(channelId: string): boolean {
  return !settled.has(channelId);
}

/** A push of the channel failed in this process: the sends it left pending are replayed by the next one. */
export function sendsInDoubt(channelId: string) {
  settled.delete(channelId);
}

/**
 * Replays the channel's keyed sends still pending (none in flight: the caller holds the channel's push). Answers
 * how many levels were sent again. Throws when the provider cannot be reached (the push is retried).
 */
export async function replayLostSends(services: Services, channel: ChannelRow): Promise<number> {
  if (settled.has(channel.id)) return 0;
  const connector = connectorFor(services, channel);
  if (!connector.idempotentInventory) {
    settled.add(channel.id);
    return 0;
  }
  const rows = await services.db
    .select({
      variantId: channelStock.variantId,
      externalLocationId: channelStock.externalLocationId,
      inventoryItemId: channelStock.inventoryItemId,
      quantity: channelStock.pendingQty,
      compare: channelStock.pendingCompare,
      key: channelStock.pendingKey,
    })
    .from(channelStock)
    .where(and(eq(channelStock.channelId, channel.id), isNotNull(channelStock.pendingKey)));
  const byKey = new Map<string, typeof rows>();
  for (const row of rows) {
    if (row.key === null || row.quantity === null) continue;
    const group = byKey.get(row.key);
    if (group) group.push(row);
    else byKey.set(row.key, [row]);
  }
  let sent = 0;
  /** A replay failed in a way that may have landed (a 5xx): it stays pending with its key, for the next push. */
  let inDoubt = false;
  for (const [key, group] of byKey) {
    const sets = group.map((r) => ({
      inventoryItemId: r.inventoryItemId,
      locationExternalId: r.externalLocationId,
      quantity: r.quantity as number,
      compareQuantity: r.compare,
    }));
    const levelOf = new Map<InventorySet, (typeof group)[number]>(
      sets.map((s, i) => [s, group[i] as (typeof group)[number]]),
    );
    const level = (set: InventorySet) => {
      const r = levelOf.get(set) as (typeof group)[number];
      return { variantId: r.variantId, externalLocationId: r.externalLocationId, available: set.quantity };
    };
    /** The send (or these of its changes) stays of unknown outcome: its pending marks are cleared as without a key. */
    const unreplayed = async (reason: string, changes: InventorySet[] = sets) => {
      services.logger.warn({ channelId: channel.id, key, err: reason }, 'a lost send could not be replayed');
      await clearPending(
        services,
        channel,
        changes.map((c) => level(c)),
      );
    };
    const options = sendOptions(key);
    if (options.at && Date.now() - options.at.getTime() > REPLAY_WITHIN_MS) {
      await unreplayed(`sent ${options.at.toISOString()}, too long ago to replay`);
      continue;
    }
    let result: Awaited<ReturnType<typeof connector.setInventory>>;
    try {
      result = await connector.setInventory(sets, options);
    } catch (err) {
      // The provider no longer knows the key with these rows (part of the batch was recorded before the process
      // died, or the key expired): the send stays one of unknown outcome, as without a key.
      if (!(err instanceof Error) || !KEY_REFUSED.test(err.message)) throw err;
      await unreplayed(err.message);
      continue;
    }
    sent += sets.length;
    await recordApplied(services, channel, result.applied.map(level));
    const mismatched = result.failed.filter((f) => f.mismatch);
    // A key refused as a request's answer (Square answers a reused key with other changes as a 400): not a failure of
    // the level, a send that stays of unknown outcome, as a refusal thrown above.
    const keyRefused = result.failed.filter((f) => !f.mismatch && KEY_REFUSED.test(f.reason));
    if (keyRefused.length)
      await unreplayed(
        keyRefused[0]?.reason ?? '',
        keyRefused.map((f) => f.change),
      );
    const failed = result.failed.filter((f) => !f.mismatch && !KEY_REFUSED.test(f.reason));
    if (failed.some((f) => f.uncertain)) inDoubt = true;
    await recordFailed(
      services,
      channel,
      failed.map((f) => ({ row: level(f.change), reason: f.reason, uncertain: f.uncertain === true })),
    );
    if (mismatched.length)
      await takeInMismatches(
        services,
        channel,
        connector,
        mismatched.map((m) => ({
          inventoryItemId: m.change.inventoryItemId,
          locationExternalId: m.change.locationExternalId,
          held: m.held,
        })),
        `cas-replay-${key}`,
      );
  }
  if (sent > 0) services.logger.info({ channelId: channel.id, levels: sent }, 'sends of unknown outcome replayed');
  if (!inDoubt) settled.add(channel.id);
  return sent;
}
