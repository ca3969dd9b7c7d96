import { eq } from 'drizzle-orm';
import { passesPerKey } from '../../lib/passes.ts';
import type { Services } from '../../services.ts';
import {
  finishEventsAs,
  recordEventError,
  type StoredEvent,
  type TopicFilter,
  takeWaitingEvents,
} from '../channels/channels.intake.ts';
import { connectorFor } from '../channels/channels.service.ts';
import { channels } from '../channels/channels.tables.ts';
import { accountLocations } from '../locations/locations.read.ts';
import { pushedLocations } from './available.ts';
import { applyChannelReports, type ChannelReport } from './inbound.ts';
import { deferWhilePushing } from './schedule.ts';

type EventRow = StoredEvent;

const BC_STOCK_CHANGED = /^store\/channel\/[^/]+\/inventory\/product\/stock_changed$/;
const BC_STOCK_CHANGED_LIKE = 'store/channel/%/inventory/product/stock_changed';
const INVENTORY_TOPICS = ['inventory_levels/update', 'inventory.count.updated', 'store/sku/inventory/updated'];

/** The stock events' topics, for the channels' event passes. */
export const INVENTORY_TOPIC_FILTER: TopicFilter = { in: INVENTORY_TOPICS, like: [BC_STOCK_CHANGED_LIKE] };

export const isInventoryTopic = (topic: string) => INVENTORY_TOPICS.includes(topic) || BC_STOCK_CHANGED.test(topic);

const asRecord = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' ? (v as Record<string, unknown>) : {};
const shopifyGid = (kind: string, id: unknown) => {
  const s = String(id ?? '');
  return s.startsWith('gid://') ? s : `gid://shopify/${kind}/${s}`;
};
const dateOr = (value: unknown, fallback: Date) => {
  const d = typeof value === 'string' || typeof value === 'number' ? new Date(value) : null;
  return d && !Number.isNaN(d.getTime()) ? d : fallback;
};

/**
 * When a Shopify level was so. `updated_at` has whole seconds, and a return made here brings three reports of one
 * level within a second (our push, Shopify's restock on top, our push back), which arrive in any order: read as of
 * one second, a late echo of the first push looked like a change the last push overwrote and was counted (−1).
 * The webhook's `X-Shopify-Triggered-At` (what Shopify says to order deliveries by) has the fraction: taken
 * when it falls in `updated_at`'s second, so it only refines it.
 */
export function shopifyReportTime(updatedAt: Date, triggeredAt: Date | null | undefined): Date {
  if (!triggeredAt || updatedAt.getMilliseconds() !== 0) return updatedAt;
  const t = triggeredAt.getTime();
  return t >= updatedAt.getTime() && t < updatedAt.getTime() + 1000 ? triggeredAt : updatedAt;
}

/** What a Shopify or Square stock event reports (they carry the quantity); null for BigCommerce's thin events. */
export function carriedReports(
  event: Pick<EventRow, 'provider' | 'payload' | 'eventId' | 'occurredAt' | 'receivedAt'>,
): ChannelReport[] | null {
  const received = event.occurredAt ?? event.receivedAt ?? new Date();
  const payload = asRecord(event.payload);
  if (event.provider === 'shopify') {
    if (typeof payload.available !== 'number') return [];
    return [
      {
        inventoryItemId: shopifyGid('InventoryItem', payload.inventory_item_id),
        externalLocationId: shopifyGid('Location', payload.location_id),
        quantity: payload.available,
        at: shopifyReportTime(dateOr(payload.updated_at, received), event.occurredAt),
        key: event.eventId,
      },
    ];
  }
  if (event.provider === 'square') {
    const counts = asRecord(asRecord(payload.data).object).inventory_counts;
    return (Array.isArray(counts) ? counts : [])
      .map(asRecord)
      .filter((c) => c.state === 'IN_STOCK' && typeof c.catalog_object_id === 'string')
      .map((c) => ({
        inventoryItemId: String(c.catalog_object_id),
        externalLocationId: String(c.location_id),
        quantity: Math.trunc(Number(c.quantity)),
        at: dateOr(c.calculated_at, received),
        key: event.eventId,
      }))
      .filter((r) => Number.isFinite(r.quantity));
  }
  return null;
}

/** The (variant, location) levels a BigCommerce stock event names; the location-less one names every mapped one. */
function bigcommercePairs(event: Pick<EventRow, 'payload'>, mappedExternalIds: string[]) {
  const payload = asRecord(event.payload);
  const inventory = asRecord(payload.inventory);
  const variantId = payload.variant_id ?? inventory.variant_id;
  if (variantId === undefined || variantId === null) return [];
  const externalIds = payload.location_id !== undefined ? [String(payload.location_id)] : mappedExternalIds;
  return externalIds.map((locationExternalId) => ({ inventoryItemId: String(variantId), locationExternalId }));
}

const INVENTORY_BATCH = 500;
/**
 * Per channel, one pass at a time in this process (a burst of calls costs at most two); a job whose event an
 * earlier pass took finds it done.
 */
const inventoryPasses = passesPerKey<Services>(async (services, channelId) => {
  // A pass queued before a push of the channel started waits for that push as well (its end queues the pass
  // again): taken while the push is in flight, a report made after the push landed was read against what we
  // believed before it, and counted the push's own change.
  while (!deferWhilePushing(channelId) && (await drainInventoryEvents(services, channelId)) === INVENTORY_BATCH) {}
});

/**
 * Processes the channel's waiting stock events together, oldest first, 500 at a time until none wait: the
 * reports of a batch are applied in one transaction (BigCommerce's levels read in one go), so a burst of
 * webhooks costs a pass per 500 instead of one each. Every event of a batch is marked processed with the
 * batch's outcome. While this process pushes the channel, they wait for the push to end (schedule.ts).
 */
export async function processInventoryEvents(services: Services, channelId: string): Promise<void> {
  if (deferWhilePushing(channelId)) return;
  return inventoryPasses(services, channelId);
}

/**
 * Per BigCommerce channel seen by a pass: its store's read budget (Connector.readBudget). Its webhooks name a
 * level without the quantity, so a pass reads them back; with the store's window running low, the next pass
 * waits behind pushes and order reads and then reads every event that came meanwhile at once. One read per
 * echo of our own pushes otherwise ran the window dry under a steady stream of orders, and pushes waited for
 * its reset (the order bench's 20 s tail).
 */
const readBudgets = new Map<string, () => Promise<void>>();

/** One batch; answers the number of events it took. */
async function drainInventoryEvents(services: Services, channelId: string): Promise<number> {
  const budget = readBudgets.get(channelId);
  if (budget) {
    await budget();
    // A push that started while this pass waited holds its events back as well (its end queues the pass).
    if (deferWhilePushing(channelId)) return 0;
  }
  const { found, events } = await takeWaitingEvents(services, channelId, INVENTORY_TOPIC_FILTER, INVENTORY_BATCH);
  if (events.length === 0) return found;
  const ids = events.map((e) => e.id);
  const finish = (outcome: string) => finishEventsAs(services, ids, outcome);
  try {
    const [channel] = await services.db.select().from(channels).where(eq(channels.id, channelId));
    if (!channel || !['connected', 'error'].includes(channel.status)) {
      await finish('channel was not connected');
      return found;
    }
    if (!channel.features?.inventory) {
      await finish('inventory sync is off for this channel');
      return found;
    }
    let reports: ChannelReport[] = [];
    if (channel.type === 'bigcommerce') {
      const mapped = pushedLocations(channel.settings, await accountLocations(services.db, channel.accountId)).map(
        (m) => m.externalLocationId,
      );
      // One read of every level the events name; the key of each is the newest event naming it.
      const pairs = new Map<string, { inventoryItemId: string; locationExternalId: string; key: string }>();
      for (const event of events)
        for (const pair of bigcommercePairs(event, mapped))
          pairs.set(`${pair.inventoryItemId}|${pair.locationExternalId}`, { ...pair, key: event.eventId });
      if (pairs.size > 0) {
        const readAt = new Date();
        const keys = new Map([...pairs.values()].map((p) => [`${p.inventoryItemId}|${p.locationExternalId}`, p.key]));
        const connector = connectorFor(services, channel);
        if (connector.readBudget) readBudgets.set(channel.id, () => connector.readBudget?.() ?? Promise.resolve());
        const levels = await connector.readInventory(
          [...pairs.values()].map(({ inventoryItemId, locationExternalId }) => ({
            inventoryItemId,
            locationExternalId,
          })),
        );
        reports = levels.map((l) => ({
          inventoryItemId: l.inventoryItemId,
          externalLocationId: l.locationExternalId,
          quantity: l.available,
          at: readAt,
          key: keys.get(`${l.inventoryItemId}|${l.locationExternalId}`) ?? `read:${readAt.toISOString()}`,
        }));
      }
    } else {
      for (const event of events) reports.push(...(carriedReports(event) ?? []));
    }
    if (reports.length === 0) {
      await finish('no stock in the event');
      return found;
    }
    const result = await applyChannelReports(services, channel, reports, 'channel');
    const of = events.length > 1 ? ` (one pass over ${events.length} events)` : '';
    await finish(`stock: ${result.changed} changed, ${result.unchanged} unchanged, ${result.ignored} ignored${of}`);
    return found;
  } catch (err) {
    await recordEventError(services, ids, err);
    throw err;
  }
}
