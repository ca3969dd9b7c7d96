// Orders that came in before their channel's stock did (docs/decisions/0008-a-sale-moves-stock-once.md, "Older
// than our knowledge"). An order taken in while its channel location mapped to none of ours could not claim the
// channel's movement of its units (claimLine needs our location) nor reserve them (nothing there): its lines wait
// unclaimed and unplaced. One taken in once the location was mapped but before its stock came in claimed the
// movement as expected (no first read to find it in) and could not reserve either. When the channel's catalog
// import then gives that level its first stock, the number it seeds was read after the channel took the order, so
// the order's units are already out of it: in the seeding's transaction each such line is claimed as the first
// pull's are, or its expected claim met (the movement reversed, +q on hand), and its waiting allocation routed
// again, reserving the units. Every arrival order then ends as the order pulled after the stock does: our on hand
// is the channel's on hand, the units reserved.
import { CHANNEL_LABELS } from '@switchyard/contracts';
import { and, eq, inArray, isNull, notInArray, sql } from 'drizzle-orm';
import type { Tx } from '../../db/client.ts';
import { claimChannelMovement, claimsInSeed } from '../inventory/claims.ts';
import { accountLocations } from '../locations/locations.read.ts';
import { recordOrderMetrics } from '../metrics/metrics.record.ts';
import { lockLevelsFor } from '../routing/routing.allocate.ts';
import { routeWaitingInTx } from '../routing/routing.reroute.ts';
import type { OurLocation } from './allocate.ts';
import { ourLocations } from './ingest.context.ts';
import { type IngestChannel, locationResolver } from './ingest.ts';
import { orderAllocations, orderLines, orders } from './orders.tables.ts';
import { recomputeFlags, type TimelineInput, writeTimelines } from './orders.timeline.ts';

/** A channel level a catalog import seeds our stock from: the channel's location and item, and our location. */
export interface SeededLevel {
  variantId: string;
  externalLocationId: string;
  locationId: string;
  inventoryItemId: string;
}

/** Orders whose lines are no longer routed: complete, picked up, cancelled, refunded. */
const CLOSED = [3, 5, 7, 8];

const levelKey = (l: { variantId: string | null; externalLocationId: string | null }) =>
  `${l.variantId}|${l.externalLocationId}`;

type OrderRow = typeof orders.$inferSelect;
type LineRow = typeof orderLines.$inferSelect;
type AllocationRow = typeof orderAllocations.$inferSelect;

export interface OrdersAwaitingStock {
  /** Variants of the waiting lines. */
  variantIds: string[];
  /**
   * Locks our levels of these variants, and of those the seeding moves, at every location, in (variant, location)
   * order as every reserve takes them: routing locks them all later in the transaction. Call after the channel's
   * levels are locked, before the seeding's movements.
   */
  lockLevels(seedVariantIds: string[]): Promise<void>;
  /**
   * After the seeding's movements, in their transaction: the waiting lines at the levels it seeded are claimed
   * (reversed on hand) and their waiting allocations routed (reserved). Answers the variants whose stock moved.
   */
  claim(seeded: SeededLevel[]): Promise<string[]>;
}

/**
 * Before a catalog import seeds our stock from these channel levels, in its transaction and before it locks
 * anything: the channel's open orders with open lines there (their claims are looked at once seeded), their order rows
 * locked (by external id, as an order import locks them: orders, then the channel's levels, then ours) and their
 * allocations with them. Null when there are none (the common case: nothing else is locked).
 */
export async function ordersAwaitingStock(
  tx: Tx,
  channel: IngestChannel,
  levels: SeededLevel[],
): Promise<OrdersAwaitingStock | null> {
  if (levels.length === 0) return null;
  const wanted = new Set(levels.map(levelKey));
  const variantIds = [...new Set(levels.map((l) => l.variantId))];
  const externalIds = [...new Set(levels.map((l) => l.externalLocationId))];
  const waitingLines = (orderIds?: string[]) =>
    tx
      .select({ line: orderLines })
      .from(orderLines)
      .innerJoin(orders, eq(orders.id, orderLines.orderId))
      .where(
        and(
          eq(orders.accountId, channel.accountId),
          eq(orders.channelId, channel.id),
          notInArray(orders.status, CLOSED),
          isNull(orders.cancelledAt),
          orderIds ? inArray(orders.id, orderIds) : undefined,
          inArray(orderLines.variantId, variantIds),
          inArray(orderLines.stockLocationExternalId, externalIds),
          sql`${orderLines.quantity} - ${orderLines.cancelledQty} - ${orderLines.refundedQty} > 0`,
        ),
      );
  const seen = (await waitingLines()).filter(({ line }) => wanted.has(levelKey(lineLevel(line))));
  if (seen.length === 0) return null;
  const locked = await tx
    .select()
    .from(orders)
    .where(inArray(orders.id, [...new Set(seen.map(({ line }) => line.orderId))]))
    .orderBy(orders.externalId)
    .for('update');
  // Under the orders' locks: what another import did to them meanwhile (claimed, cancelled) is seen now.
  const lines = (await waitingLines(locked.map((o) => o.id)))
    .map(({ line }) => line)
    .filter((line) => wanted.has(levelKey(lineLevel(line))));
  if (lines.length === 0) return null;
  const allocations = await tx
    .select()
    .from(orderAllocations)
    .where(
      inArray(
        orderAllocations.lineId,
        lines.map((l) => l.id),
      ),
    )
    .orderBy(orderAllocations.id)
    .for('update');
  const lineVariants = [...new Set(lines.map((l) => l.variantId as string))].sort();
  return {
    variantIds: lineVariants,
    async lockLevels(seedVariantIds) {
      const ids = await accountLocations(tx, channel.accountId);
      await lockLevelsFor(
        tx,
        channel.accountId,
        [...new Set([...seedVariantIds, ...lineVariants])].sort(),
        ids.map((l) => l.id),
      );
    },
    claim: (seeded) => claimWaiting(tx, channel, locked, lines, allocations, seeded),
  };
}

const lineLevel = (line: LineRow) => ({ variantId: line.variantId, externalLocationId: line.stockLocationExternalId });

async function claimWaiting(
  tx: Tx,
  channel: IngestChannel,
  lockedOrders: OrderRow[],
  lines: LineRow[],
  allocations: AllocationRow[],
  seeded: SeededLevel[],
): Promise<string[]> {
  const levelOf = new Map(seeded.map((l) => [levelKey(l), l]));
  const atSeeded = lines.filter((l) => levelOf.has(levelKey(lineLevel(l))));
  if (atSeeded.length === 0) return [];
  const ours: OurLocation[] = await ourLocations(tx, channel.accountId);
  const resolve = locationResolver(channel.settings, ours);
  const nameOf = (id: string) => ours.find((l) => l.id === id)?.name ?? 'a location';
  const label = CHANNEL_LABELS[channel.type];
  const touched = new Set<string>();
  const timeline: { orderId: string; entries: TimelineInput[] }[] = [];
  const changed: string[] = [];
  for (const order of lockedOrders) {
    // Lines in the order of their variants, as an import takes them.
    const mine = atSeeded
      .filter((l) => l.orderId === order.id)
      .sort((a, b) => ((a.variantId ?? '') < (b.variantId ?? '') ? -1 : a.variantId === b.variantId ? 0 : 1));
    if (mine.length === 0) continue;
    const entries: TimelineInput[] = [];
    const claimed: { line: LineRow; level: SeededLevel }[] = [];
    for (const line of mine) {
      const level = levelOf.get(levelKey(lineLevel(line))) as SeededLevel;
      const units = `${line.sku ?? line.title}`;
      const back = (n: number) =>
        `${label}'s stock at ${nameOf(level.locationId)} came in without the ${n} × ${units} it had set aside for this order: counted back on hand for it.`;
      if (line.channelClaimed) {
        // Claimed when the location was mapped but had no stock yet: the claim waits for a report the number
        // just seeded already has in it.
        const met = await claimsInSeed(tx, channel.accountId, { channelId: channel.id, ...level }, [
          `${line.id}:taken`,
        ]);
        const reversed = met.reduce((n, m) => n + m.reversed, 0);
        if (reversed === 0) continue;
        touched.add(level.variantId);
        claimed.push({ line, level });
        entries.push({ kind: 'updated', message: back(reversed), actor: 'Switchyard' });
        continue;
      }
      const [marked] = await tx
        .update(orderLines)
        .set({ channelClaimed: true })
        .where(and(eq(orderLines.id, line.id), eq(orderLines.channelClaimed, false)))
        .returning({ id: orderLines.id });
      if (!marked) continue;
      const open = line.quantity - line.cancelledQty - line.refundedQty;
      // The channel took these units before the stock just seeded was read: as for an order of the first pull.
      const result = await claimChannelMovement(tx, channel.accountId, {
        channelId: channel.id,
        variantId: level.variantId,
        externalLocationId: level.externalLocationId,
        inventoryItemId: level.inventoryItemId,
        locationId: level.locationId,
        qty: -open,
        at: order.placedAt,
        key: `${line.id}:taken`,
        reference: order.id,
        historical: true,
      });
      if (result.reversed !== 0) touched.add(level.variantId);
      claimed.push({ line, level });
      entries.push({
        kind: 'updated',
        message:
          result.reversed !== 0
            ? back(result.reversed)
            : `${label}'s stock at ${nameOf(level.locationId)} came in; its report of the ${open} × ${units} set aside for this order is awaited.`,
        actor: 'Switchyard',
      });
    }
    if (claimed.length === 0) continue;
    // A pickup whose store was not ours when it came in (the import sets it when it is).
    const store = resolve(order.channelLocationId);
    let row = order;
    if (order.fulfillmentType !== 'ship' && !order.pickupLocationId && store) {
      await tx.update(orders).set({ pickupLocationId: store.id }).where(eq(orders.id, order.id));
      row = { ...order, pickupLocationId: store.id };
    }
    const claimedIds = new Set(claimed.map((c) => c.line.id));
    const lineOf = new Map(claimed.map((c) => [c.line.id, c.line]));
    const routed = await routeWaitingInTx(
      tx,
      channel.accountId,
      row,
      allocations
        .filter((a) => claimedIds.has(a.lineId))
        .map((allocation) => ({ allocation, line: lineOf.get(allocation.lineId) as LineRow })),
      {
        reason: `Routed when ${label}'s stock came in.`,
        channelLocationId: claimed[0]?.level.locationId ?? null,
      },
    );
    for (const v of routed.touched) touched.add(v);
    entries.push(...routed.timeline);
    timeline.push({ orderId: order.id, entries });
    changed.push(order.id);
  }
  if (changed.length > 0) {
    await writeTimelines(tx, channel.accountId, timeline);
    await recomputeFlags(tx, changed);
    await recordOrderMetrics(tx, channel.accountId, changed);
  }
  return [...touched];
}
