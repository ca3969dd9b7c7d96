// A new order's lines taken in (ingest.ts): the channel's own movement of each line claimed, then the lines routed
// and reserved, or consumed for a POS sale already complete, or flagged.
import { CHANNEL_LABELS, namedAfterType } from '@switchyard/contracts';
import { and, desc, eq, sql } from 'drizzle-orm';
import type { ProviderOrder, ProviderOrderLine } from '../../connectors/types.ts';
import type { Tx } from '../../db/client.ts';
import { newId } from '../../lib/ids.ts';
import { channelLevelKey, claimChannelMovement } from '../inventory/claims.ts';
import { inventoryLevels } from '../inventory/inventory.tables.ts';
import { consumeStock, consumption, releaseReservation } from '../inventory/reservations.ts';
import { countryCode } from '../routing/geo.ts';
import {
  linkDecision,
  type RouteLine,
  reservedAllocation,
  routeAndReserve,
  routingInputs,
} from '../routing/routing.allocate.ts';
import { type AllocationPlan, storePlan } from './allocate.ts';
import {
  type BatchContext,
  flushTimeline,
  type IngestContext,
  lineLabel,
  nameOf,
  settleWrites,
  statusFromChannel,
} from './ingest.context.ts';
import type { NewAllocation } from './orders.allocations.ts';
import { orderAllocations, orderLines } from './orders.tables.ts';
import { recomputeFlags, writeTimeline } from './orders.timeline.ts';

export async function createOrder(ctx: BatchContext, order: ProviderOrder) {
  const { channel, orderId } = ctx;
  const label = CHANNEL_LABELS[channel.type];
  const status = statusFromChannel(order);
  ctx.timeline.push({
    kind: 'imported',
    message: `Imported from ${namedAfterType(channel.name, channel.type) ? label : `${label} (${channel.name})`} as ${status === 7 ? 'cancelled' : 'order'} ${order.name}.`,
    actor: channel.name,
    toStatus: status,
  });
  // The pickup store was set with the order's row (takeInBatch).
  const store = ctx.resolve(order.locationExternalId);
  const taken = order.lines.map((l) => l.stockLocationExternalId).find(Boolean);
  const takenAt = ctx.resolve(taken)?.id ?? null;
  // A POS sale complete at its store is sold there; every other line is routed (issue 14) once all are in.
  const plan = storePlan(store?.id ?? null, ctx.ours);
  const toRoute: RouteLine[] = [];
  // Already fulfilled at the channel before we knew it (not a POS sale): its units left before our ledger
  // counted them; recorded, with nothing to reserve.
  const settled = status === 3 && !order.completedAtStore;
  // Lines are taken in the order of their variants: the levels and channel rows they lock are then locked in
  // one order by every import and stock pass, so two orders with the same SKUs cannot deadlock.
  const variantOfLine = (l: ProviderOrderLine) => (l.sku ? (ctx.variantOf.get(l.sku)?.id ?? '') : '');
  const inLockOrder = order.lines
    .map((line, position) => ({
      line,
      position,
      id: newId('oli'),
      variant: line.sku ? ctx.variantOf.get(line.sku) : undefined,
      open: line.quantity - (line.cancelledQuantity ?? 0) - (line.refundedQuantity ?? 0),
    }))
    .sort((a, b) => {
      const [x, y] = [variantOfLine(a.line), variantOfLine(b.line)];
      return x < y ? -1 : x > y ? 1 : a.position - b.position;
    });
  // All lines in one statement, each with the claims it is about to make marked on it (the line is new: no one
  // else can have made them), so claimLine need not mark them one by one.
  const claims = (l: (typeof inLockOrder)[number]) => {
    if (!l.variant || l.open <= 0 || !claimable(ctx, l.variant.id, l.line)) return { taken: false, restock: false };
    if (status === 7) return { taken: true, restock: order.restockedOnCancel !== false };
    return { taken: !settled, restock: false };
  };
  if (inLockOrder.length > 0) {
    const lineRows = inLockOrder.map((l) => {
      const { line } = l;
      const marks = claims(l);
      if (marks.taken) ctx.flaggedAtInsert?.add(`${l.id}:taken`);
      if (marks.restock) ctx.flaggedAtInsert?.add(`${l.id}:restock`);
      return {
        id: l.id,
        accountId: channel.accountId,
        orderId,
        position: l.position,
        externalId: line.externalId,
        sku: line.sku,
        variantId: l.variant?.id ?? null,
        title: line.title,
        quantity: line.quantity,
        unitPrice: line.price,
        discount: line.discount ?? 0,
        tax: line.tax ?? 0,
        fulfilledQty: line.fulfilledQuantity ?? 0,
        cancelledQty: line.cancelledQuantity ?? 0,
        refundedQty: line.refundedQuantity ?? 0,
        stockLocationExternalId: line.stockLocationExternalId ?? null,
        channelClaimed: marks.taken,
        channelRestockClaimed: marks.restock,
      };
    });
    // The batch writes its new orders' lines together (ingest.context.ts settleWrites).
    ctx.batch.writes.lines.push(...lineRows);
  }
  /** Allocation rows written with the routed ones, in one statement (none of them holds units). */
  const held: NewAllocation[] = [];
  const row = (lineId: string, variantId: string | null, locationId: string | null, quantity: number) => ({
    id: newId('oal'),
    lineId,
    variantId,
    locationId,
    quantity,
    reserved: 0,
  });
  for (const { line, id: lineId, variant, open } of inLockOrder) {
    if (!variant) {
      const reason = `SKU ${line.sku ?? '(none)'} is not in the catalog.`;
      held.push({ ...row(lineId, null, null, open), status: 0, reason });
      ctx.timeline.push({ kind: 'flagged', message: `${lineLabel(line)}: ${reason}`, actor: 'Switchyard' });
      continue;
    }
    if (open <= 0) continue;
    if (status === 7) {
      // First seen cancelled: the channel took the units and (restocking) put them back. Both of its reports
      // are met, in whatever order they come, so neither counts.
      await claimLine(ctx, { id: lineId, variantId: variant.id }, line, -open, order.createdAt, 'taken');
      if (order.restockedOnCancel !== false) {
        const at = order.cancelledAt ?? order.updatedAt;
        await claimLine(ctx, { id: lineId, variantId: variant.id }, line, open, at, 'restock');
      }
      continue;
    }
    // The channel's own movement of these units first: a report it already made is reversed here, so the
    // store that took the sale can cover the line again before it is allocated.
    if (!settled) await claimLine(ctx, { id: lineId, variantId: variant.id }, line, -open, order.createdAt, 'taken');
    if (settled) {
      const at = takenAt ?? store?.id ?? ctx.ours.find((l) => l.enabled && l.ships)?.id ?? null;
      held.push({ ...row(lineId, variant.id, at, open), status: 3, reason: null });
      continue;
    }
    if (order.completedAtStore) {
      await allocateLine(ctx, { id: lineId, variantId: variant.id, label: lineLabel(line) }, open, plan);
      continue;
    }
    // The levels of this line's SKU at every location were locked at the batch's start (takeInBatch).
    toRoute.push({ id: lineId, sku: line.sku, title: line.title, variantId: variant.id, quantity: open });
  }
  if (toRoute.length > 0) await routeLines(ctx, order, toRoute, store?.id ?? null, takenAt, held);
  else keepAllocations(ctx, held);
}

/** The order's allocation rows, kept with the batch's writes (written with its lines, at settleWrites). */
function keepAllocations(ctx: BatchContext, rows: NewAllocation[]) {
  ctx.batch.writes.allocations.push(
    ...rows.map((r) => ({ ...r, accountId: ctx.channel.accountId, orderId: ctx.orderId })),
  );
}

/**
 * Routing (issue 14) places the order's lines by the merchant's rules, under the locks taken above, reserving in
 * this transaction: a row per location a line's units come from (status 1), or one at 4 (0 when no location could
 * be tried) that flags the order. The decision and its trace are routing's.
 */
async function routeLines(
  ctx: BatchContext,
  order: ProviderOrder,
  lines: RouteLine[],
  pickupLocationId: string | null,
  takenAt: string | null,
  held: NewAllocation[] = [],
) {
  const ship = order.shippingAddress ?? {};
  // A batch reads routing's inputs once (one transaction: the same as each order reading them).
  const batch = ctx.batch;
  batch.routing ??= routingInputs(
    ctx.tx,
    ctx.channel.accountId,
    [...new Set([...batch.variantOf.values()].map((v) => v.id))].sort(),
    { locations: batch.locations, facts: batch.facts },
  );
  const inputs = await batch.routing;
  const routed = await routeAndReserve(ctx.tx, ctx.channel.accountId, {
    ...inputs,
    orderId: ctx.orderId,
    order: {
      channelId: ctx.channel.id,
      channelName: ctx.channel.name,
      channelType: ctx.channel.type,
      fulfillmentType: order.fulfillmentType,
      pickupLocationId,
      channelLocationId: takenAt,
      country: countryCode(ship.countryCode ?? ship.country_code ?? ship.country ?? null),
      region: ship.provinceCode ?? ship.province ?? null,
      postalCode: ship.zip ?? null,
      total: order.total,
      currency: order.currency || 'USD',
    },
    lines,
    kind: 'initial',
    deferred: batch.writes.routing,
  });
  const unplacedRows = routed.unplaced.map((u) => ({
    id: newId('oal'),
    lineId: u.lineId,
    variantId: u.variantId,
    locationId: null,
    quantity: u.quantity,
    status: u.status,
    reserved: 0,
    reason: u.reason,
  }));
  keepAllocations(ctx, [...held, ...routed.placements.map((p) => reservedAllocation(p)), ...unplacedRows]);
  await linkDecision(
    ctx.tx,
    routed.decisionId,
    unplacedRows.map((r) => r.id),
    batch.writes.routing,
  );
  for (const p of routed.placements) ctx.variantsTouched.add(p.variantId);
  ctx.timeline.push(...routed.timeline);
}

/**
 * A POS sale complete at its store: its units left that store (consumed), or it is kept and flagged. Both are kept
 * with the batch's writes. Only a sale that took units other orders held there writes what is kept, and then
 * releases those orders' reservations (`uncoverShortfall`).
 */
async function allocateLine(
  ctx: BatchContext,
  line: { id: string; variantId: string; label: string },
  quantity: number,
  plan: AllocationPlan,
) {
  const { channel, orderId } = ctx;
  const allocation = { id: newId('oal'), lineId: line.id, variantId: line.variantId, quantity, reserved: 0 };
  const at = plan.candidates[0];
  if (!at) {
    keepAllocations(ctx, [{ ...allocation, locationId: null, status: 0, reason: plan.reason }]);
    ctx.timeline.push({ kind: 'flagged', message: `${line.label}: ${plan.reason}`, actor: 'Switchyard' });
    return;
  }
  const consumed = {
    variantId: line.variantId,
    locationId: at,
    quantity,
    reserved: 0,
    reference: orderId,
    key: allocation.id,
  };
  // The store is one of ours and the variant one of the batch's: its level is locked, and the sale kept.
  const ledger = ctx.batch.writes.ledger;
  const kept = ledger.holds(line.variantId, at);
  if (kept) ledger.move(consumption(consumed));
  else {
    await settleWrites(ctx.batch);
    await consumeStock(ctx.tx, channel.accountId, consumed);
  }
  ctx.variantsTouched.add(line.variantId);
  keepAllocations(ctx, [{ ...allocation, locationId: at, status: 3, reason: null }]);
  ctx.timeline.push({
    kind: 'allocated',
    message: `${quantity} × ${line.label} sold at ${nameOf(ctx, at)}.`,
    actor: channel.name,
  });
  // What the store can cover after the sale: below nothing, the sale took units other orders held there.
  if (kept && ((await ledger.available()).get(`${line.variantId}|${at}`) ?? 0) >= 0) return;
  await settleWrites(ctx.batch);
  // Other orders' timelines may be written next: the batch's pending entries go first, in the order they came.
  await flushTimeline(ctx.batch);
  await uncoverShortfall(ctx.tx, channel.accountId, line.variantId, at, nameOf(ctx, at), orderId);
}

/** Whether claimLine would meet a movement of this line (the channel says where, lists it, and we map there). */
export const claimable = (ctx: IngestContext, variantId: string, provider: ProviderOrderLine) =>
  !!provider.stockLocationExternalId && ctx.itemOf.has(variantId) && !!ctx.resolve(provider.stockLocationExternalId);

/**
 * Meets the channel's own movement of a line's units (−q taken with the order, +q put back on a cancel) in the
 * ledger's claims, once per line and kind (the line's flag, in this transaction).
 */
export async function claimLine(
  ctx: IngestContext,
  line: { id: string; variantId: string },
  provider: ProviderOrderLine,
  qty: number,
  at: string,
  kind: 'taken' | 'restock',
) {
  const external = provider.stockLocationExternalId;
  const item = ctx.itemOf.get(line.variantId);
  const location = ctx.resolve(external);
  if (!external || !item || !location || qty === 0) return;
  // A line made in this transaction was written with its flag set (createOrder); any other is marked now.
  const fresh = !!ctx.flaggedAtInsert?.has(`${line.id}:${kind}`);
  const locked = ctx.batch?.channelLevels.get(
    channelLevelKey({ variantId: line.variantId, externalLocationId: external }),
  );
  // A fresh line's claim against a level the batch locked is kept with the batch's writes; anything else is
  // written now, after what the batch kept (it may move a level the kept ledger holds).
  const deferred = fresh && locked ? ctx.batch?.writes?.ledger : undefined;
  if (!deferred && ctx.batch) await settleWrites(ctx.batch);
  if (!fresh) {
    const flag = kind === 'taken' ? orderLines.channelClaimed : orderLines.channelRestockClaimed;
    const [marked] = await ctx.tx
      .update(orderLines)
      .set(kind === 'taken' ? { channelClaimed: true } : { channelRestockClaimed: true })
      .where(and(eq(orderLines.id, line.id), eq(flag, false)))
      .returning({ id: orderLines.id });
    if (!marked) return;
  }
  const result = await claimChannelMovement(
    ctx.tx,
    ctx.channel.accountId,
    {
      channelId: ctx.channel.id,
      variantId: line.variantId,
      externalLocationId: external,
      inventoryItemId: item,
      locationId: location.id,
      qty,
      at: new Date(at),
      key: `${line.id}:${kind}`,
      reference: ctx.orderId,
      historical: ctx.historical,
    },
    locked,
    deferred,
  );
  if (result.reversed !== 0) ctx.variantsTouched.add(line.variantId);
}

/**
 * A sale at the store took units other orders held there (a POS sale cannot be refused): the newest
 * reservations no longer covered are released and flagged (status 4) for routing again, so reserved never
 * exceeds on hand. Each such order says why on its timeline.
 */
export async function uncoverShortfall(
  tx: Tx,
  accountId: string,
  variantId: string,
  locationId: string,
  locationName: string,
  byOrderId: string,
) {
  const [lvl] = await tx
    .select({ onHand: inventoryLevels.onHand, reserved: inventoryLevels.reserved })
    .from(inventoryLevels)
    .where(and(eq(inventoryLevels.variantId, variantId), eq(inventoryLevels.locationId, locationId)));
  let short = lvl ? lvl.reserved - Math.max(lvl.onHand, 0) : 0;
  if (short <= 0) return;
  const held = await tx
    .select()
    .from(orderAllocations)
    .where(
      and(
        eq(orderAllocations.accountId, accountId),
        eq(orderAllocations.variantId, variantId),
        eq(orderAllocations.locationId, locationId),
        eq(orderAllocations.status, 1),
        sql`${orderAllocations.reserved} > 0`,
      ),
    )
    .orderBy(desc(orderAllocations.createdAt), desc(orderAllocations.id))
    .for('update');
  for (const a of held) {
    if (short <= 0) break;
    await releaseReservation(tx, accountId, {
      variantId,
      locationId,
      quantity: a.reserved,
      reference: a.orderId,
      key: `${a.id}:short:${byOrderId}`,
    });
    short -= a.reserved;
    const reason = `A sale at ${locationName} took the units reserved for this line.`;
    await tx
      .update(orderAllocations)
      .set({ status: 4, reserved: 0, reason, updatedAt: new Date() })
      .where(eq(orderAllocations.id, a.id));
    await writeTimeline(tx, accountId, a.orderId, [{ kind: 'flagged', message: reason, actor: 'Switchyard' }]);
    await recomputeFlags(tx, a.orderId);
  }
}
