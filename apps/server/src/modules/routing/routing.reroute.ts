// A store says no (rejected, 5; or short, 4), or a person moves a line by hand. Each is one transaction: the
// allocation row locked first (two rejections of one line at once: the second waits, then finds the line moved
// and is refused), then the SKU's levels at every location, then release, route again without the stores that
// said no (or reserve at the chosen one), and the timeline. What cannot be placed stays flagged.
// The reads of allocations are in routing.allocations.ts, what a change starts from (the lock, the order as the
// engine sees it) in routing.reroute.inputs.ts, waiting lines routed again in routing.waiting.ts.
import {
  type AllocationUpdateResult,
  type DecisionTrace,
  type ReassignAllocationInput,
  ReassignAllocationInput as ReassignSchema,
  type RejectAllocationInput,
  RejectAllocationInput as RejectSchema,
  ROUTING_MESSAGES,
  type UpdateLocationOrderItemInput,
  UpdateLocationOrderItemInput as UpdateSchema,
} from '@switchyard/contracts';
import { DomainError } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { Services } from '../../services.ts';
import type { Actor } from '../../trpc/context.ts';
import { lockAvailable, releaseReservation, reserveFirstAvailable } from '../inventory/reservations.ts';
import { schedulePush } from '../inventory/schedule.ts';
import { recordOrderMetrics } from '../metrics/metrics.record.ts';
import { updateAllocation } from '../orders/orders.allocations.ts';
import { actorName } from '../orders/orders.service.ts';
import { affectedChannels, recomputeFlags, writeTimeline } from '../orders/orders.timeline.ts';
import { distanceKm, placePostalCode } from './geo.ts';
import { placeAllocation, routeAndReserve, setDecisionAllocations } from './routing.allocate.ts';
import { resultOf } from './routing.allocations.ts';
import { earlierRefusals, engineOrderOf, lockForChange } from './routing.reroute.inputs.ts';
import { liveRuleSet } from './routing.rules.ts';
import { routingDecisions } from './routing.tables.ts';

// Moved out of this file; still imported from here by the router, the REST routes and other modules.
export { getAllocation, listAllocations } from './routing.allocations.ts';
export { routeWaitingInTx } from './routing.waiting.ts';

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
    if (routed.placements.length > 0) {
      // The row follows the line to its new store; further stores (a split) get rows of their own.
      ids.push(
        ...(await placeAllocation(
          tx,
          actor.accountId,
          order.id,
          { id: a.id, lineId: line.id },
          routed.placements,
          `Routed again after ${store} ${said} it: ${input.reason}`,
        )),
      );
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
