// Taking a channel's order in (webhook, pull, import at connect): stored once per (channel, external id),
// latest wins by the provider's updated_at, and its stock effect made in the same transaction: the channel's
// own movement claimed (inventory/claims.ts), units reserved (or consumed, for a POS sale already complete),
// cancellations released. docs/decisions/0008-a-sale-moves-stock-once.md says why each unit counts once.
import { CHANNEL_LABELS, type ChannelSettings, type OrderStatus } from '@switchyard/contracts';
import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type { ProviderOrder, ProviderOrderLine } from '../../connectors/types.ts';
import type { Tx } from '../../db/client.ts';
import { newId } from '../../lib/ids.ts';
import type { Services } from '../../services.ts';
import type { ChannelRow } from '../channels/channels.service.ts';
import { claimChannelMovement } from '../inventory/claims.ts';
import { inventoryLevels } from '../inventory/inventory.tables.ts';
import { consumeStock, releaseReservation, reserveFirstAvailable } from '../inventory/reservations.ts';
import { schedulePush } from '../inventory/schedule.ts';
import { locations } from '../locations/locations.tables.ts';
import { listings, variants } from '../products/products.tables.ts';
import { type AllocationPlan, defaultAllocation, NO_LOCATION_COVERS, type OurLocation } from './allocate.ts';
import { orderAllocations, orderLines, orders } from './orders.tables.ts';
import { affectedChannels, recomputeFlags, type TimelineInput, writeTimeline } from './orders.timeline.ts';

export type IngestChannel = Pick<ChannelRow, 'id' | 'accountId' | 'type' | 'name' | 'settings'>;
export type IngestOutcome = 'created' | 'updated' | 'unchanged' | 'older';

export interface IngestResult {
  orderId: string;
  outcome: IngestOutcome;
}

/** The status an order arrives in, from what its channel says. */
export function statusFromChannel(order: ProviderOrder): OrderStatus {
  if (order.cancelled) return 7;
  if (order.completedAtStore) return 3;
  const fs = (order.fulfillmentStatus ?? '').toLowerCase();
  if (fs === 'fulfilled' || fs === 'shipped' || fs === 'completed') return 3;
  if (fs === 'partial' || fs === 'partially_fulfilled' || fs === 'partially_shipped') return 2;
  if ((order.financialStatus ?? '').toLowerCase() === 'refunded') return 8;
  return 1;
}

/** Our location a channel's location is: by the channel's location map, else a store id equal to it (Square). */
export function locationResolver(settings: Pick<ChannelSettings, 'channel'>, ours: OurLocation[]) {
  const byStore = new Map(ours.map((l) => [l.storeId, l]));
  const mapped = new Map<string, OurLocation>();
  for (const m of settings.channel?.locationMap ?? []) {
    const location = m.storeId ? byStore.get(m.storeId) : undefined;
    if (location) mapped.set(m.externalLocationId, location);
  }
  return (externalId: string | null | undefined): OurLocation | null =>
    externalId ? (mapped.get(externalId) ?? byStore.get(externalId) ?? null) : null;
}

const searchTextOf = (order: ProviderOrder) =>
  [order.name, order.customer?.name, order.customer?.email, ...order.lines.map((l) => l.sku)]
    .filter(Boolean)
    .join(' ')
    .toLowerCase()
    .slice(0, 4000);

const lineLabel = (line: { sku: string | null; title: string }) => line.sku ?? line.title;

function headerOf(order: ProviderOrder) {
  const addr = (a: Record<string, string | null | undefined> | null | undefined) =>
    a
      ? {
          name: a.name ?? null,
          company: a.company ?? null,
          address1: a.address1 ?? null,
          address2: a.address2 ?? null,
          city: a.city ?? null,
          province: a.province ?? null,
          zip: a.zip ?? null,
          country: a.country ?? a.countryCode ?? a.country_code ?? null,
          phone: a.phone ?? null,
        }
      : null;
  const subtotal = order.subtotal ?? order.lines.reduce((s, l) => s + l.price * l.quantity, 0);
  return {
    number: order.name,
    fulfillmentType: order.fulfillmentType,
    customerName: order.customer?.name ?? null,
    customerEmail: order.customer?.email ?? null,
    customerPhone: order.customer?.phone ?? null,
    shippingAddress: addr(order.shippingAddress),
    billingAddress: addr(order.billingAddress as Record<string, string | null> | null | undefined),
    channelLocationId: order.locationExternalId,
    currency: order.currency || 'USD',
    subtotal,
    shippingTotal: order.shippingTotal ?? 0,
    discountTotal: order.discountTotal ?? 0,
    taxTotal: order.taxTotal ?? 0,
    total: order.total,
    financialStatus: order.financialStatus,
    fulfillmentStatus: order.fulfillmentStatus,
    note: order.note ?? null,
    tags: order.tags ?? [],
    adminUrl: order.adminUrl ?? null,
    itemCount: order.lines.reduce((s, l) => s + l.quantity, 0),
    searchText: searchTextOf(order),
    cancelledAt: order.cancelled ? new Date(order.cancelledAt ?? order.updatedAt) : null,
    cancelReason: order.cancelled ? (order.cancelReason ?? null) : null,
    placedAt: new Date(order.createdAt),
    providerUpdatedAt: new Date(order.updatedAt),
  };
}

/** The account's locations, as allocation and the channel's location map read them. */
const ourLocations = (tx: Tx, accountId: string): Promise<OurLocation[]> =>
  tx
    .select({
      id: locations.id,
      name: locations.name,
      storeId: locations.storeId,
      enabled: locations.enabled,
      ships: locations.ships,
      pickup: locations.pickup,
      priority: locations.priority,
    })
    .from(locations)
    .where(eq(locations.accountId, accountId));

interface IngestContext {
  tx: Tx;
  channel: IngestChannel;
  orderId: string;
  ours: OurLocation[];
  resolve: ReturnType<typeof locationResolver>;
  /** channel listing of each variant: the inventory item the channel keeps its stock against. */
  itemOf: Map<string, string>;
  timeline: TimelineInput[];
  variantsTouched: Set<string>;
  /** The first pull at connect: the channel's stock we started from has these orders in it. */
  historical?: boolean;
}

/**
 * Takes one channel order in, in one transaction. New: stored with its lines, the channel's own movement of
 * each line claimed, each line allocated (reserved, or consumed for a POS sale already complete, or flagged).
 * Known and newer: its fields and line quantities follow the channel; a cancel at the channel releases and a
 * fulfilment at the channel consumes. Older or the same: nothing changes.
 */
export async function ingestOrder(
  services: Services,
  channel: IngestChannel,
  order: ProviderOrder,
  options: { historical?: boolean } = {},
): Promise<IngestResult> {
  const touched = new Set<string>();
  const result = await services.db.transaction(async (tx) => {
    const header = headerOf(order);
    const id = newId('ord');
    const [inserted] = await tx
      .insert(orders)
      .values({
        id,
        accountId: channel.accountId,
        channelId: channel.id,
        externalId: order.externalId,
        status: statusFromChannel(order),
        ...header,
      })
      .onConflictDoNothing()
      .returning({ id: orders.id });
    const ours = await ourLocations(tx, channel.accountId);
    const resolve = locationResolver(channel.settings, ours);
    if (inserted) {
      const ctx = await contextFor(tx, channel, id, ours, resolve, order.lines, touched);
      ctx.historical = options.historical;
      await createOrder(ctx, order);
      await writeTimeline(tx, channel.accountId, id, ctx.timeline);
      await recomputeFlags(tx, id);
      return { orderId: id, outcome: 'created' as const };
    }
    const [existing] = await tx
      .select()
      .from(orders)
      .where(
        and(
          eq(orders.accountId, channel.accountId),
          eq(orders.channelId, channel.id),
          eq(orders.externalId, order.externalId),
        ),
      )
      .for('update');
    if (!existing) throw new Error('order vanished while being imported');
    const incomingAt = new Date(order.updatedAt).getTime();
    if (incomingAt < existing.providerUpdatedAt.getTime()) return { orderId: existing.id, outcome: 'older' as const };
    const ctx = await contextFor(tx, channel, existing.id, ours, resolve, order.lines, touched);
    const changed = await updateOrder(ctx, existing, order, incomingAt === existing.providerUpdatedAt.getTime());
    await writeTimeline(tx, channel.accountId, existing.id, ctx.timeline);
    if (changed) await recomputeFlags(tx, existing.id);
    return { orderId: existing.id, outcome: changed ? ('updated' as const) : ('unchanged' as const) };
  });
  if (touched.size > 0)
    await schedulePush(services, await affectedChannels(services.db, channel.accountId, [...touched]));
  return result;
}

async function contextFor(
  tx: Tx,
  channel: IngestChannel,
  orderId: string,
  ours: OurLocation[],
  resolve: ReturnType<typeof locationResolver>,
  lines: ProviderOrderLine[],
  touched: Set<string>,
): Promise<IngestContext & { variantOf: Map<string, { id: string }> }> {
  const skus = [...new Set(lines.map((l) => l.sku).filter((s): s is string => !!s))];
  const found = skus.length
    ? await tx
        .select({ id: variants.id, sku: variants.sku })
        .from(variants)
        .where(and(eq(variants.accountId, channel.accountId), inArray(variants.sku, skus)))
    : [];
  const variantOf = new Map(found.map((v) => [v.sku, { id: v.id }]));
  const variantIds = found.map((v) => v.id);
  const items = variantIds.length
    ? await tx
        .select({ variantId: listings.variantId, inventoryItemId: listings.inventoryItemId })
        .from(listings)
        .where(and(eq(listings.channelId, channel.id), inArray(listings.variantId, variantIds)))
    : [];
  const itemOf = new Map(
    items.filter((i) => i.inventoryItemId).map((i) => [i.variantId, i.inventoryItemId as string] as const),
  );
  return { tx, channel, orderId, ours, resolve, itemOf, timeline: [], variantsTouched: touched, variantOf };
}

async function createOrder(ctx: IngestContext & { variantOf: Map<string, { id: string }> }, order: ProviderOrder) {
  const { tx, channel, orderId } = ctx;
  const label = CHANNEL_LABELS[channel.type];
  const status = statusFromChannel(order);
  ctx.timeline.push({
    kind: 'imported',
    message: `Imported from ${label} (${channel.name}) as ${status === 7 ? 'cancelled' : 'order'} ${order.name}.`,
    actor: channel.name,
    toStatus: status,
  });
  const store = ctx.resolve(order.locationExternalId);
  if (order.fulfillmentType !== 'ship' && store) {
    await tx.update(orders).set({ pickupLocationId: store.id }).where(eq(orders.id, orderId));
  }
  const taken = order.lines.map((l) => l.stockLocationExternalId).find(Boolean);
  const plan = defaultAllocation(
    {
      fulfillmentType: order.fulfillmentType,
      storeLocationId: store?.id ?? null,
      completedAtStore: !!order.completedAtStore,
      channelLocationId: ctx.resolve(taken)?.id ?? null,
    },
    ctx.ours,
  );
  // Already fulfilled at the channel before we knew it (not a POS sale): its units left before our ledger
  // counted them; recorded, with nothing to reserve.
  const settled = status === 3 && !order.completedAtStore;
  // Lines are taken in the order of their variants: the levels and channel rows they lock are then locked in
  // one order by every import and stock pass, so two orders with the same SKUs cannot deadlock.
  const variantOfLine = (l: ProviderOrderLine) => (l.sku ? (ctx.variantOf.get(l.sku)?.id ?? '') : '');
  const inLockOrder = order.lines
    .map((line, position) => ({ line, position }))
    .sort((a, b) => {
      const [x, y] = [variantOfLine(a.line), variantOfLine(b.line)];
      return x < y ? -1 : x > y ? 1 : a.position - b.position;
    });
  for (const { line, position } of inLockOrder) {
    const variant = line.sku ? ctx.variantOf.get(line.sku) : undefined;
    const lineId = newId('oli');
    await tx.insert(orderLines).values({
      id: lineId,
      accountId: channel.accountId,
      orderId,
      position,
      externalId: line.externalId,
      sku: line.sku,
      variantId: variant?.id ?? null,
      title: line.title,
      quantity: line.quantity,
      unitPrice: line.price,
      discount: line.discount ?? 0,
      tax: line.tax ?? 0,
      fulfilledQty: line.fulfilledQuantity ?? 0,
      cancelledQty: line.cancelledQuantity ?? 0,
      refundedQty: line.refundedQuantity ?? 0,
      stockLocationExternalId: line.stockLocationExternalId ?? null,
    });
    const open = line.quantity - (line.cancelledQuantity ?? 0) - (line.refundedQuantity ?? 0);
    if (!variant) {
      await insertAllocation(ctx, lineId, null, null, open, 0, 0, `SKU ${line.sku ?? '(none)'} is not in the catalog.`);
      ctx.timeline.push({
        kind: 'flagged',
        message: `${lineLabel(line)}: SKU ${line.sku ?? '(none)'} is not in the catalog.`,
        actor: 'Switchyard',
      });
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
      await insertAllocation(ctx, lineId, variant.id, plan.candidates[0] ?? null, open, 3, 0, null);
      continue;
    }
    await allocateLine(ctx, { id: lineId, variantId: variant.id, label: lineLabel(line) }, open, plan, order);
  }
}

async function allocateLine(
  ctx: IngestContext,
  line: { id: string; variantId: string; label: string },
  quantity: number,
  plan: AllocationPlan,
  order: ProviderOrder,
) {
  const { tx, channel, orderId } = ctx;
  const allocationId = newId('oal');
  if (order.completedAtStore) {
    const at = plan.candidates[0];
    if (!at) {
      await insertAllocation(ctx, line.id, line.variantId, null, quantity, 0, 0, plan.reason);
      ctx.timeline.push({ kind: 'flagged', message: `${line.label}: ${plan.reason}`, actor: 'Switchyard' });
      return;
    }
    await consumeStock(tx, channel.accountId, {
      variantId: line.variantId,
      locationId: at,
      quantity,
      reserved: 0,
      reference: orderId,
      key: allocationId,
    });
    ctx.variantsTouched.add(line.variantId);
    await insertAllocation(ctx, line.id, line.variantId, at, quantity, 3, 0, null, allocationId);
    ctx.timeline.push({
      kind: 'allocated',
      message: `${quantity} × ${line.label} sold at ${nameOf(ctx, at)}.`,
      actor: channel.name,
    });
    await uncoverShortfall(tx, channel.accountId, line.variantId, at, nameOf(ctx, at), orderId);
    return;
  }
  const reserved = await reserveFirstAvailable(tx, channel.accountId, {
    variantId: line.variantId,
    candidates: plan.candidates,
    quantity,
    reference: orderId,
    key: allocationId,
  });
  if (!reserved.locationId) {
    const reason = plan.reason ?? NO_LOCATION_COVERS;
    await insertAllocation(
      ctx,
      line.id,
      line.variantId,
      null,
      quantity,
      plan.candidates.length ? 4 : 0,
      0,
      reason,
      allocationId,
    );
    ctx.timeline.push({ kind: 'flagged', message: `${line.label}: ${reason}`, actor: 'Switchyard' });
    return;
  }
  ctx.variantsTouched.add(line.variantId);
  await insertAllocation(ctx, line.id, line.variantId, reserved.locationId, quantity, 1, quantity, null, allocationId);
  ctx.timeline.push({
    kind: 'allocated',
    message: `${quantity} × ${line.label} reserved at ${nameOf(ctx, reserved.locationId)}.`,
    actor: 'Switchyard',
  });
}

const nameOf = (ctx: IngestContext, locationId: string) =>
  ctx.ours.find((l) => l.id === locationId)?.name ?? 'a location';

async function insertAllocation(
  ctx: IngestContext,
  lineId: string,
  variantId: string | null,
  locationId: string | null,
  quantity: number,
  status: number,
  reserved: number,
  reason: string | null,
  id = newId('oal'),
) {
  await ctx.tx.insert(orderAllocations).values({
    id,
    accountId: ctx.channel.accountId,
    orderId: ctx.orderId,
    lineId,
    variantId,
    locationId,
    quantity,
    status,
    reserved,
    reason,
  });
}

/**
 * Meets the channel's own movement of a line's units (−q taken with the order, +q put back on a cancel) in the
 * ledger's claims, once per line and kind (the line's flag, in this transaction).
 */
async function claimLine(
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
  const flag = kind === 'taken' ? orderLines.channelClaimed : orderLines.channelRestockClaimed;
  const [marked] = await ctx.tx
    .update(orderLines)
    .set(kind === 'taken' ? { channelClaimed: true } : { channelRestockClaimed: true })
    .where(and(eq(orderLines.id, line.id), eq(flag, false)))
    .returning({ id: orderLines.id });
  if (!marked) return;
  const result = await claimChannelMovement(ctx.tx, ctx.channel.accountId, {
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
  });
  if (result.reversed !== 0) ctx.variantsTouched.add(line.variantId);
}

type OrderRow = typeof orders.$inferSelect;

async function updateOrder(
  ctx: IngestContext & { variantOf: Map<string, { id: string }> },
  existing: OrderRow,
  order: ProviderOrder,
  sameTime: boolean,
): Promise<boolean> {
  const { tx, channel } = ctx;
  const header = headerOf(order);
  const lines = await tx.select().from(orderLines).where(eq(orderLines.orderId, existing.id));
  const byExternal = new Map(lines.map((l) => [l.externalId, l]));
  const wasCancelled = existing.status === 7;
  const cancelNow = order.cancelled && !wasCancelled;
  // Same provider time and nothing that moves stock: a duplicate report.
  if (sameTime && !cancelNow && !newlyFulfilled(order, byExternal)) return false;
  await tx
    .update(orders)
    .set({
      ...header,
      // Our status is ours once the order is here: only a cancel or a fulfilment at the channel moves it.
      status: existing.status,
      cancelledAt: existing.cancelledAt ?? header.cancelledAt,
      cancelReason: existing.cancelReason ?? header.cancelReason,
      updatedAt: new Date(),
    })
    .where(eq(orders.id, existing.id));
  for (const line of order.lines) {
    const ours = byExternal.get(line.externalId);
    if (!ours) continue;
    await tx
      .update(orderLines)
      .set({
        fulfilledQty: Math.max(ours.fulfilledQty, line.fulfilledQuantity ?? 0),
        cancelledQty: Math.max(ours.cancelledQty, line.cancelledQuantity ?? 0),
        refundedQty: Math.max(ours.refundedQty, line.refundedQuantity ?? 0),
      })
      .where(eq(orderLines.id, ours.id));
  }
  // The channel moved its own stock for a line only now (Square: when an order placed unpaid is paid).
  if (!order.cancelled && !wasCancelled) {
    for (const line of order.lines) {
      const ours = byExternal.get(line.externalId);
      if (!ours?.variantId || ours.channelClaimed || !line.stockLocationExternalId) continue;
      await tx
        .update(orderLines)
        .set({ stockLocationExternalId: line.stockLocationExternalId })
        .where(eq(orderLines.id, ours.id));
      const open = ours.quantity - ours.cancelledQty - ours.refundedQty;
      await claimLine(ctx, { id: ours.id, variantId: ours.variantId }, line, -open, order.updatedAt, 'taken');
    }
  }
  if (cancelNow) {
    for (const v of await cancelInTx(tx, channel.accountId, existing, {
      actor: channel.name,
      reason: order.cancelReason ?? null,
    }))
      ctx.variantsTouched.add(v);
    await tx
      .update(orders)
      .set({ status: 7, cancelledAt: header.cancelledAt ?? new Date(), cancelReason: order.cancelReason ?? null })
      .where(eq(orders.id, existing.id));
    ctx.timeline.push({
      kind: 'status',
      message: `Cancelled at ${CHANNEL_LABELS[channel.type]}; reserved units released.`,
      actor: channel.name,
      fromStatus: existing.status,
      toStatus: 7,
    });
    for (const line of order.lines) {
      const ours = byExternal.get(line.externalId);
      if (!ours?.variantId || !ours.channelClaimed || order.restockedOnCancel === false) continue;
      await claimLine(
        ctx,
        { id: ours.id, variantId: ours.variantId },
        line,
        ours.quantity - ours.cancelledQty - ours.refundedQty,
        order.cancelledAt ?? order.updatedAt,
        'restock',
      );
    }
    return true;
  }
  if (!wasCancelled && newlyFulfilled(order, byExternal)) {
    await fulfilFromChannel(ctx, existing, order, byExternal);
  }
  return true;
}

const newlyFulfilled = (order: ProviderOrder, byExternal: Map<string, { fulfilledQty: number }>) =>
  order.lines.some((l) => (l.fulfilledQuantity ?? 0) > (byExternal.get(l.externalId)?.fulfilledQty ?? 0));

/** Units the channel reports fulfilled since: consumed from the line's open allocations, in order. */
async function fulfilFromChannel(
  ctx: IngestContext,
  existing: OrderRow,
  order: ProviderOrder,
  byExternal: Map<string, typeof orderLines.$inferSelect>,
) {
  const { tx, channel } = ctx;
  let all = true;
  for (const line of order.lines) {
    const ours = byExternal.get(line.externalId);
    if (!ours) continue;
    let units = (line.fulfilledQuantity ?? 0) - ours.fulfilledQty;
    const open = ours.quantity - ours.cancelledQty - ours.refundedQty;
    if ((line.fulfilledQuantity ?? 0) < open) all = false;
    if (units <= 0) continue;
    const allocations = await tx
      .select()
      .from(orderAllocations)
      .where(and(eq(orderAllocations.lineId, ours.id), inArray(orderAllocations.status, [1, 2])))
      .orderBy(orderAllocations.createdAt)
      .for('update');
    for (const a of allocations) {
      if (units <= 0 || !a.locationId || !a.variantId) continue;
      const take = Math.min(units, a.reserved);
      if (take <= 0) continue;
      units -= take;
      await consumeStock(tx, channel.accountId, {
        variantId: a.variantId,
        locationId: a.locationId,
        quantity: take,
        reserved: take,
        reference: existing.id,
        key: `${a.id}:${ours.fulfilledQty + take}`,
      });
      ctx.variantsTouched.add(a.variantId);
      await tx
        .update(orderAllocations)
        .set({ reserved: a.reserved - take, status: a.reserved - take === 0 ? 3 : a.status, updatedAt: new Date() })
        .where(eq(orderAllocations.id, a.id));
    }
  }
  const to: OrderStatus = all ? 3 : 2;
  if (to !== existing.status) {
    await tx.update(orders).set({ status: to }).where(eq(orders.id, existing.id));
    ctx.timeline.push({
      kind: 'status',
      message: `${all ? 'Fulfilled' : 'Partly fulfilled'} at ${CHANNEL_LABELS[channel.type]}.`,
      actor: channel.name,
      fromStatus: existing.status,
      toStatus: to,
    });
  }
}

/**
 * Releases every unit the order holds (its allocations' reservations), in the caller's transaction. The caller
 * sets the status and writes the timeline.
 */
export async function cancelInTx(
  tx: Tx,
  accountId: string,
  order: Pick<OrderRow, 'id'>,
  by: { actor: string; reason: string | null; userId?: string | null },
): Promise<string[]> {
  const held = await tx
    .select()
    .from(orderAllocations)
    .where(and(eq(orderAllocations.orderId, order.id), sql`${orderAllocations.reserved} > 0`))
    .for('update');
  const variantIds: string[] = [];
  for (const a of held) {
    if (!a.variantId || !a.locationId) continue;
    await releaseReservation(tx, accountId, {
      variantId: a.variantId,
      locationId: a.locationId,
      quantity: a.reserved,
      reference: order.id,
      key: `${a.id}:cancel`,
      userId: by.userId ?? null,
    });
    variantIds.push(a.variantId);
  }
  await tx
    .update(orderAllocations)
    .set({ reserved: 0, updatedAt: new Date() })
    .where(and(eq(orderAllocations.orderId, order.id), sql`${orderAllocations.reserved} > 0`));
  return variantIds;
}

/**
 * After a cancel made here was written back: the channel put the units it had taken back on its own stock, and
 * its report of that is met, not counted (each line once; the channel's cancel webhook may have done it first).
 */
export async function claimCancelRestock(services: Services, channel: IngestChannel, orderId: string, at: string) {
  const touched = new Set<string>();
  await services.db.transaction(async (tx) => {
    const lines = await tx
      .select()
      .from(orderLines)
      .where(and(eq(orderLines.orderId, orderId), eq(orderLines.accountId, channel.accountId)));
    const ours = await ourLocations(tx, channel.accountId);
    const provided = lines.map((l) => ({
      externalId: l.externalId,
      sku: l.sku,
      variantExternalId: null,
      title: l.title,
      quantity: l.quantity,
      price: l.unitPrice,
      stockLocationExternalId: l.stockLocationExternalId,
    }));
    const ctx = await contextFor(
      tx,
      channel,
      orderId,
      ours,
      locationResolver(channel.settings, ours),
      provided,
      touched,
    );
    for (const [i, line] of lines.entries()) {
      if (!line.variantId || !line.channelClaimed) continue;
      const open = line.quantity - line.cancelledQty - line.refundedQty;
      await claimLine(
        ctx,
        { id: line.id, variantId: line.variantId },
        provided[i] as ProviderOrderLine,
        open,
        at,
        'restock',
      );
    }
  });
  if (touched.size > 0)
    await schedulePush(services, await affectedChannels(services.db, channel.accountId, [...touched]));
}

/**
 * A sale at the store took units other orders held there (a POS sale cannot be refused): the newest
 * reservations no longer covered are released and flagged (status 4) for routing again, so reserved never
 * exceeds on hand. Each such order says why on its timeline.
 */
async function uncoverShortfall(
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
