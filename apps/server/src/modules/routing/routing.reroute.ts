// A store says no (rejected, 5; or short, 4), or a person moves a line by hand. Each is one transaction: the
// allocation row locked first (two rejections of one line at once: the second waits, then finds the line moved
// and is refused), then the SKU's levels at every location, then release, route again without the stores that
// said no (or reserve at the chosen one), and the timeline. What cannot be placed stays flagged.
import {
  type AllocationList,
  type AllocationRow,
  type AllocationUpdateResult,
  type DecisionTrace,
  ListAllocationsInput,
  type ReassignAllocationInput,
  ReassignAllocationInput as ReassignSchema,
  type RejectAllocationInput,
  RejectAllocationInput as RejectSchema,
  ROUTING_MESSAGES,
  type UpdateLocationOrderItemInput,
  UpdateLocationOrderItemInput as UpdateSchema,
} from '@switchyard/contracts';
import { and, eq } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.ts';
import { DomainError } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { Services } from '../../services.ts';
import type { Actor } from '../../trpc/context.ts';
import { channels } from '../channels/channels.tables.ts';
import { lockAvailable, releaseReservation, reserveFirstAvailable } from '../inventory/reservations.ts';
import { schedulePush } from '../inventory/schedule.ts';
import { locationById } from '../locations/locations.read.ts';
import { recordOrderMetrics } from '../metrics/metrics.record.ts';
import {
  type AllocationRecord,
  allocationRows,
  insertAllocations,
  lockAllocation,
  updateAllocation,
} from '../orders/orders.allocations.ts';
import { actorName } from '../orders/orders.service.ts';
import { type orderLines, orders } from '../orders/orders.tables.ts';
import { affectedChannels, recomputeFlags, type TimelineInput, writeTimeline } from '../orders/orders.timeline.ts';
import type { EngineLocation, EngineOrder } from './engine.types.ts';
import { countryCode, distanceKm, placePostalCode } from './geo.ts';
import { routeAndReserve, setDecisionAllocations } from './routing.allocate.ts';
import { liveRuleSet } from './routing.rules.ts';
import { engineLocations, orderDecisions } from './routing.service.ts';
import { routingDecisions } from './routing.tables.ts';

type OrderRow = typeof orders.$inferSelect;
type LineRow = typeof orderLines.$inferSelect;

/** Orders whose lines are no longer routed: complete, picked up, cancelled, refunded. */
const CLOSED = new Set([3, 5, 7, 8]);

export async function listAllocations(db: Db, actor: Pick<Actor, 'accountId'>, raw: unknown): Promise<AllocationList> {
  const input = ListAllocationsInput.parse(raw ?? {});
  // An order or location of another account answers as one that does not exist.
  if (input.order_id) {
    const [o] = await db
      .select({ id: orders.id })
      .from(orders)
      .where(and(eq(orders.accountId, actor.accountId), eq(orders.id, input.order_id)));
    if (!o) throw new DomainError('NOT_FOUND', ROUTING_MESSAGES.orderNotFound);
  }
  if (input.location_id) {
    const l = await locationById(db, actor.accountId, input.location_id);
    if (!l) throw new DomainError('NOT_FOUND', 'Location not found');
  }
  const { rows, total } = await allocationRows(db, actor.accountId, {
    orderId: input.order_id,
    locationId: input.location_id,
    status: input.status,
    limit: input.limit,
    offset: input.offset,
  });
  return { results: rows, total, limit: input.limit, offset: input.offset };
}

export async function getAllocation(db: Db, actor: Pick<Actor, 'accountId'>, id: string): Promise<AllocationRow> {
  const { rows } = await allocationRows(db, actor.accountId, { id, limit: 1 });
  const row = rows[0];
  if (!row) throw new DomainError('NOT_FOUND', ROUTING_MESSAGES.allocationNotFound);
  return row;
}

/** The order as the engine sees it (its channel, destination, value). */
async function engineOrderOf(tx: Tx, order: OrderRow): Promise<Omit<EngineOrder, 'lines'>> {
  const [channel] = order.channelId
    ? await tx
        .select({ name: channels.name, type: channels.type })
        .from(channels)
        .where(eq(channels.id, order.channelId))
    : [];
  const ship = order.shippingAddress ?? {};
  return {
    channelId: order.channelId,
    channelName: channel?.name ?? null,
    channelType: channel?.type ?? null,
    fulfillmentType: order.fulfillmentType,
    pickupLocationId: order.pickupLocationId,
    channelLocationId: null,
    country: countryCode(ship.country ?? null),
    region: ship.province ?? null,
    postalCode: ship.zip ?? null,
    total: order.total,
    currency: order.currency,
  };
}

/** Every store that said no to this line before (earlier re-routes' left-out locations). */
async function earlierRefusals(tx: Tx, accountId: string, orderId: string, lineId: string): Promise<string[]> {
  const rows = await tx
    .select({ trace: routingDecisions.trace })
    .from(routingDecisions)
    .where(
      and(
        eq(routingDecisions.accountId, accountId),
        eq(routingDecisions.orderId, orderId),
        eq(routingDecisions.kind, 'reroute'),
      ),
    );
  const out = new Set<string>();
  for (const r of rows)
    if (r.trace.lines.some((l) => l.lineId === lineId)) for (const id of r.trace.withoutLocationIds) out.add(id);
  return [...out];
}

interface Locked {
  allocation: AllocationRecord;
  line: LineRow;
  order: OrderRow;
  locations: EngineLocation[];
}

/** The allocation row, then its SKU's levels everywhere (variant, then location): the lock order of a reserve. */
async function lockForChange(tx: Tx, accountId: string, allocationId: string): Promise<Locked> {
  const found = await lockAllocation(tx, accountId, allocationId);
  if (!found) throw new DomainError('NOT_FOUND', ROUTING_MESSAGES.allocationNotFound);
  if (CLOSED.has(found.order.status)) throw new DomainError('INVALID_STATE', ROUTING_MESSAGES.orderClosed);
  const locations = await engineLocations(tx, accountId);
  if (found.allocation.variantId)
    await lockAvailable(
      tx,
      accountId,
      [found.allocation.variantId],
      locations.map((l) => l.id),
    );
  return { ...found, locations };
}

async function resultOf(
  db: Db,
  actor: Pick<Actor, 'accountId'>,
  orderId: string,
  lineId: string,
  decisionId: string | null,
): Promise<AllocationUpdateResult> {
  const { rows } = await allocationRows(db, actor.accountId, { orderId, lineId });
  const decisions = decisionId ? await orderDecisions(db, actor, orderId) : null;
  return {
    orderId,
    allocations: rows,
    decision: decisions?.decisions.find((d) => d.id === decisionId) ?? null,
    flagged: rows.some((r) => r.status === 0 || r.status === 4 || r.status === 5),
  };
}

/**
 * A store rejects an allocated line (5) or reports it short (4), with a reason: its units are released there and
 * the line is routed again by the rules without that store (nor any store that said no to it before),
 * automatically, in the same transaction. What cannot be placed stays at 5 / 4 and flags the order.
 */
export async function rejectAllocation(
  services: Services,
  actor: Actor,
  raw: RejectAllocationInput,
): Promise<AllocationUpdateResult> {
  const input = RejectSchema.parse(raw);
  const who = await actorName(services.db, actor);
  const touched = new Set<string>();
  const out = await services.db.transaction(async (tx) => {
    const { allocation: a, line, order, locations } = await lockForChange(tx, actor.accountId, input.allocationId);
    if (input.locationId && a.locationId !== input.locationId)
      throw new DomainError('INVALID_STATE', ROUTING_MESSAGES.movedMeanwhile);
    if (a.status !== 1 || !a.locationId || !a.variantId)
      throw new DomainError('INVALID_STATE', ROUTING_MESSAGES.notAllocated);
    const store = locations.find((l) => l.id === a.locationId)?.name ?? 'The store';
    const label = line.sku ?? line.title;
    const stamp = newId('rej');
    await releaseReservation(tx, actor.accountId, {
      variantId: a.variantId,
      locationId: a.locationId,
      quantity: a.reserved,
      reference: order.id,
      key: `${a.id}:${stamp}`,
      userId: actor.userId,
    });
    touched.add(a.variantId);
    await updateAllocation(tx, a.id, { status: input.status, reserved: 0, reason: input.reason });
    const said = input.status === 5 ? 'rejected' : 'reported short';
    const timeline = [
      {
        kind: 'flagged' as const,
        message: `${store} ${said} ${a.quantity} × ${label}: ${input.reason}`,
        actor: who,
        userId: actor.userId,
      },
    ];
    const without = [...new Set([...(await earlierRefusals(tx, actor.accountId, order.id, line.id)), a.locationId])];
    const routed = await routeAndReserve(tx, actor.accountId, {
      orderId: order.id,
      order: await engineOrderOf(tx, order),
      lines: [{ id: line.id, sku: line.sku, title: line.title, variantId: a.variantId, quantity: a.quantity }],
      kind: 'reroute',
      actor: who,
      userId: actor.userId,
      without,
      locations,
    });
    const ids: string[] = [a.id];
    const [first, ...rest] = routed.placements;
    if (first) {
      // The row follows the line to its new store; further stores (a split) get rows of their own.
      await updateAllocation(tx, a.id, {
        locationId: first.locationId,
        quantity: first.quantity,
        status: 1,
        reserved: first.quantity,
        reason: `Routed again after ${store} ${said} it: ${input.reason}`.slice(0, 1000),
      });
      await insertAllocations(
        tx,
        actor.accountId,
        order.id,
        rest.map((p) => ({
          id: p.key,
          lineId: line.id,
          variantId: p.variantId,
          locationId: p.locationId,
          quantity: p.quantity,
          status: 1,
          reserved: p.quantity,
          reason: null,
        })),
      );
      ids.push(...rest.map((p) => p.key));
    } else {
      await updateAllocation(tx, a.id, {
        reason: `${input.reason} — ${routed.unplaced[0]?.reason ?? 'no other store can take it'}`.slice(0, 1000),
      });
    }
    await setDecisionAllocations(tx, routed.decisionId, ids);
    await writeTimeline(tx, actor.accountId, order.id, [
      ...timeline,
      ...routed.timeline.map((t) => ({ ...t, actor: 'Switchyard', userId: null })),
    ]);
    await recomputeFlags(tx, order.id);
    // The dashboard's sales by location follow where the order's units now are (issue 17).
    await recordOrderMetrics(tx, actor.accountId, order.id);
    return { orderId: order.id, lineId: line.id, decisionId: routed.decisionId };
  });
  await schedulePush(services, await affectedChannels(services.db, actor.accountId, [...touched]));
  return resultOf(services.db, actor, out.orderId, out.lineId, out.decisionId);
}

/**
 * A person moves a line (allocated, or waiting at 0, 4 or 5) to a location of their choosing, checked against
 * what it has available under the lock; the old store's units are released in the same transaction.
 */
export async function reassignAllocation(
  services: Services,
  actor: Actor,
  raw: ReassignAllocationInput,
): Promise<AllocationUpdateResult> {
  const input = ReassignSchema.parse(raw);
  const who = await actorName(services.db, actor);
  const touched = new Set<string>();
  const out = await services.db.transaction(async (tx) => {
    const { allocation: a, line, order, locations } = await lockForChange(tx, actor.accountId, input.allocationId);
    if (![0, 1, 4, 5].includes(a.status)) throw new DomainError('INVALID_STATE', ROUTING_MESSAGES.notMovable);
    const target = locations.find((l) => l.id === input.locationId);
    if (!target) throw new DomainError('NOT_FOUND', 'Location not found');
    if (!a.variantId) throw new DomainError('VALIDATION', ROUTING_MESSAGES.unknownSku(line.sku ?? line.title));
    if (a.status === 1 && a.locationId === target.id)
      throw new DomainError('INVALID_STATE', ROUTING_MESSAGES.sameLocation);
    if (!target.enabled) throw new DomainError('INVALID_STATE', ROUTING_MESSAGES.locationDisabled(target.name));
    const available = await lockAvailable(tx, actor.accountId, [a.variantId], [target.id]);
    const has = available.get(`${a.variantId}|${target.id}`) ?? 0;
    if (has < a.quantity)
      throw new DomainError(
        'INSUFFICIENT_STOCK',
        ROUTING_MESSAGES.notEnoughStock(target.name, Math.max(has, 0), a.quantity),
      );
    const stamp = newId('mov');
    const from = a.locationId ? (locations.find((l) => l.id === a.locationId)?.name ?? 'a location') : null;
    if (a.status === 1 && a.locationId && a.reserved > 0) {
      await releaseReservation(tx, actor.accountId, {
        variantId: a.variantId,
        locationId: a.locationId,
        quantity: a.reserved,
        reference: order.id,
        key: `${a.id}:${stamp}`,
        userId: actor.userId,
      });
    }
    const reserved = await reserveFirstAvailable(tx, actor.accountId, {
      variantId: a.variantId,
      candidates: [target.id],
      quantity: a.quantity,
      reference: order.id,
      key: `${a.id}:${stamp}`,
      userId: actor.userId,
    });
    if (reserved.locationId !== target.id)
      throw new DomainError(
        'INSUFFICIENT_STOCK',
        ROUTING_MESSAGES.notEnoughStock(target.name, Math.max(has, 0), a.quantity),
      );
    touched.add(a.variantId);
    const label = line.sku ?? line.title;
    const why = input.reason ? `: ${input.reason}` : '.';
    const message = `${who} moved ${a.quantity} × ${label} ${from ? `from ${from} ` : ''}to ${target.name}${why}`;
    await updateAllocation(tx, a.id, {
      locationId: target.id,
      status: 1,
      reserved: a.quantity,
      reason: message.slice(0, 1000),
    });
    const decisionId = newId('rdc');
    const engineOrder = await engineOrderOf(tx, order);
    const dest = placePostalCode(engineOrder.postalCode, engineOrder.country);
    const d =
      dest.point && target.latitude !== null && target.longitude !== null
        ? distanceKm(dest.point, { latitude: target.latitude, longitude: target.longitude })
        : null;
    const live = await liveRuleSet(tx, actor.accountId);
    const trace: DecisionTrace = {
      ruleSetVersion: live.version,
      fulfillmentType: order.fulfillmentType,
      destination: {
        country: engineOrder.country,
        region: engineOrder.region,
        postalCode: engineOrder.postalCode,
        latitude: dest.point?.latitude ?? null,
        longitude: dest.point?.longitude ?? null,
        located: !!dest.point,
        note: dest.note,
      },
      lines: [
        {
          lineId: line.id,
          sku: line.sku,
          quantity: a.quantity,
          ruleId: null,
          ruleName: null,
          rules: [],
          candidates: [
            {
              locationId: target.id,
              name: target.name,
              available: has,
              distanceKm: d,
              rank: 1,
              taken: a.quantity,
              rejected: null,
              detail: `Chosen by ${who}, with ${has} available.`,
            },
          ],
          chosen: [{ locationId: target.id, name: target.name, quantity: a.quantity }],
          unplaced: 0,
          outcome: 'allocated',
          explanation: message,
        },
      ],
      shipments: 1,
      summary: `Moved by hand by ${who}; the rules were not asked.`,
      withoutLocationIds: [],
    };
    await tx.insert(routingDecisions).values({
      id: decisionId,
      accountId: actor.accountId,
      orderId: order.id,
      kind: 'reassign',
      ruleSetVersion: live.version,
      allocationIds: [a.id],
      actor: who,
      userId: actor.userId,
      trace,
    });
    await writeTimeline(tx, actor.accountId, order.id, [
      { kind: 'allocated', message, actor: who, userId: actor.userId },
    ]);
    await recomputeFlags(tx, order.id);
    await recordOrderMetrics(tx, actor.accountId, order.id);
    return { orderId: order.id, lineId: line.id, decisionId };
  });
  await schedulePush(services, await affectedChannels(services.db, actor.accountId, [...touched]));
  return resultOf(services.db, actor, out.orderId, out.lineId, out.decisionId);
}

/**
 * Lines of one order waiting unplaced (status 0 or 4, holding nothing) routed again by the rules, in the caller's
 * transaction: the caller locked the order's row and the lines' levels at every location (variant, then location)
 * before anything else it locks there. Each waiting row follows its line's first placement (a split gets rows of
 * its own); what still cannot be placed stays waiting with the engine's reason. Stores that said no to a line
 * before are left out, as in `rejectAllocation`. Answers the variants reserved and the timeline entries; the
 * caller writes the timeline and the order's flags.
 */
export async function routeWaitingInTx(
  tx: Tx,
  accountId: string,
  order: OrderRow,
  waiting: { allocation: AllocationRecord; line: LineRow }[],
  options: { reason: string; channelLocationId?: string | null },
): Promise<{ touched: string[]; timeline: TimelineInput[] }> {
  // One waiting row per line is routed (the engine's line is the order's line; a second row of a line waits on).
  const seen = new Set<string>();
  const rows = waiting.filter(({ allocation: a }) => {
    if (!((a.status === 0 || a.status === 4) && a.reserved === 0 && a.variantId && a.quantity > 0)) return false;
    if (seen.has(a.lineId)) return false;
    seen.add(a.lineId);
    return true;
  });
  if (rows.length === 0) return { touched: [], timeline: [] };
  const without = new Set<string>();
  for (const { line } of rows)
    for (const id of await earlierRefusals(tx, accountId, order.id, line.id)) without.add(id);
  const routed = await routeAndReserve(tx, accountId, {
    orderId: order.id,
    order: { ...(await engineOrderOf(tx, order)), channelLocationId: options.channelLocationId ?? null },
    lines: rows.map(({ allocation: a, line }) => ({
      id: line.id,
      sku: line.sku,
      title: line.title,
      variantId: a.variantId as string,
      quantity: a.quantity,
    })),
    kind: 'reroute',
    without: [...without],
  });
  const ids: string[] = [];
  const touched = new Set<string>();
  for (const { allocation: a } of rows) {
    ids.push(a.id);
    const [first, ...rest] = routed.placements.filter((p) => p.lineId === a.lineId);
    if (!first) {
      const unplaced = routed.unplaced.find((u) => u.lineId === a.lineId);
      if (unplaced) await updateAllocation(tx, a.id, { status: unplaced.status, reason: unplaced.reason });
      continue;
    }
    touched.add(a.variantId as string);
    await updateAllocation(tx, a.id, {
      locationId: first.locationId,
      quantity: first.quantity,
      status: 1,
      reserved: first.quantity,
      reason: options.reason.slice(0, 1000),
    });
    await insertAllocations(
      tx,
      accountId,
      order.id,
      rest.map((p) => ({
        id: p.key,
        lineId: a.lineId,
        variantId: p.variantId,
        locationId: p.locationId,
        quantity: p.quantity,
        status: 1,
        reserved: p.quantity,
        reason: null,
      })),
    );
    ids.push(...rest.map((p) => p.key));
  }
  await setDecisionAllocations(tx, routed.decisionId, ids);
  return { touched: [...touched], timeline: routed.timeline };
}

/** SPEC §7 frontend `shipping/updateLocationOrderItem`: reassign, reject or short, over the same service. */
export async function updateLocationOrderItem(
  services: Services,
  actor: Actor,
  raw: UpdateLocationOrderItemInput,
): Promise<AllocationUpdateResult> {
  const input = UpdateSchema.parse(raw);
  if (input.action === 'reassign')
    return reassignAllocation(services, actor, {
      allocationId: input.id,
      locationId: input.location_id,
      reason: input.reason,
    });
  return rejectAllocation(services, actor, {
    allocationId: input.id,
    status: input.action === 'reject' ? 5 : 4,
    reason: input.reason,
    locationId: input.location_id,
  });
}
