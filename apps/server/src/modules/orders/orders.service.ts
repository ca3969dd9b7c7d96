// Orders: the list and detail merchants work from, status changes with the allowed transitions only, notes
// and tags, and cancel (released here at once, written back to the channel by a job).
import {
  CANCELLABLE_STATUSES,
  CHANNEL_LABELS,
  canTransition,
  ORDER_COUNT_CAP,
  ORDER_MESSAGES,
  ORDER_TRANSITIONS,
  type OrderCounts,
  type OrderDetail,
  type OrderList,
  type OrderPatch,
  type OrderStatus,
  type OrderSummary,
  OrdersListInput,
  orderStatusLabel,
} from '@switchyard/contracts';
import { and, asc, desc, eq, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { DomainError } from '../../lib/errors.ts';
import type { Services } from '../../services.ts';
import type { Actor } from '../../trpc/context.ts';
import { users } from '../accounts/accounts.tables.ts';
import { channels } from '../channels/channels.tables.ts';
import { schedulePush } from '../inventory/schedule.ts';
import { locationById } from '../locations/locations.read.ts';
import { locations } from '../locations/locations.tables.ts';
import { recordOrderMetrics } from '../metrics/metrics.record.ts';
import { variants } from '../products/products.tables.ts';
import { cancelInTx } from './ingest.ts';
import { orderAllocations, orderEvents, orderLines, orders } from './orders.tables.ts';
import { affectedChannels, recordWriteBack, writeTimeline } from './orders.timeline.ts';

export const ORDER_CANCEL_JOB = 'orders.cancel-at-channel';

const summaryColumns = {
  row: orders,
  channelName: channels.name,
  channelType: channels.type,
};

type SummaryRow = { row: typeof orders.$inferSelect; channelName: string | null; channelType: string | null };

function toSummary({ row, channelName, channelType }: SummaryRow): OrderSummary {
  return {
    id: row.id,
    channel:
      row.channelId && channelName && channelType
        ? { id: row.channelId, name: channelName, type: channelType as 'shopify' | 'bigcommerce' | 'square' }
        : null,
    externalId: row.externalId,
    number: row.number,
    status: row.status,
    fulfillmentType: row.fulfillmentType,
    customerName: row.customerName,
    customerEmail: row.customerEmail,
    currency: row.currency,
    total: row.total,
    financialStatus: row.financialStatus,
    itemCount: row.itemCount,
    flagged: row.flagged,
    placedAt: row.placedAt,
    updatedAt: row.updatedAt,
  };
}

const SORTS: Record<string, SQL | typeof orders.id> = {
  id: orders.id,
  placed_at: orders.placedAt as unknown as SQL,
  number: orders.number as unknown as SQL,
  total: orders.total as unknown as SQL,
  status: orders.status as unknown as SQL,
  customer: orders.customerName as unknown as SQL,
};

/** The list's filters, shared by list and count (status aside, which count breaks down). */
function filtersOf(actor: Actor, input: ReturnType<typeof OrdersListInput.parse>, withStatus: boolean): SQL[] {
  const where: SQL[] = [eq(orders.accountId, actor.accountId)];
  if (withStatus && input.status !== -1) where.push(eq(orders.status, input.status));
  if (input.channel_id) where.push(eq(orders.channelId, input.channel_id));
  if (input.fulfillment_type) where.push(eq(orders.fulfillmentType, input.fulfillment_type));
  if (input.flagged) where.push(eq(orders.flagged, true));
  const term = input.search?.trim().toLowerCase();
  if (term) {
    const like = `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    where.push(sql`${orders.searchText} like ${like}`);
  }
  return where;
}

/**
 * A page of orders and how many there are. The count stops at `countCap` orders past the page (a merchant with a
 * million orders pages through the first thousands, and counting all of them on every page is what made a page
 * slow): beyond it `total` is a lower bound and `totalCapped` says so.
 */
export async function listOrders(db: Db, actor: Actor, raw: unknown, countCap = ORDER_COUNT_CAP): Promise<OrderList> {
  const input = OrdersListInput.parse(raw ?? {});
  const where = and(...filtersOf(actor, input, true));
  const column = SORTS[input.sort_by] ?? orders.id;
  const direction = input.sort === 'asc' ? asc : desc;
  const countUpTo = input.offset + input.limit + countCap;
  const [rows, [count]] = await Promise.all([
    db
      .select(summaryColumns)
      .from(orders)
      .leftJoin(channels, eq(channels.id, orders.channelId))
      .where(where)
      .orderBy(direction(column), direction(orders.id))
      .limit(input.limit)
      .offset(input.offset),
    db.select({ total: sql<number>`count(*)::int` }).from(
      db
        .select({ one: sql`1` })
        .from(orders)
        .where(where)
        .limit(countUpTo + 1)
        .as('counted'),
    ),
  ]);
  const total = count?.total ?? 0;
  return {
    results: rows.map(toSummary),
    total: Math.min(total, countUpTo),
    totalCapped: total > countUpTo,
    limit: input.limit,
    offset: input.offset,
  };
}

export async function countOrders(db: Db, actor: Actor, raw: unknown): Promise<OrderCounts> {
  const input = OrdersListInput.parse(raw ?? {});
  const rows = await db
    .select({
      status: orders.status,
      count: sql<number>`count(*)::int`,
      flagged: sql<number>`count(*) filter (where ${orders.flagged})::int`,
    })
    .from(orders)
    .where(and(...filtersOf(actor, input, false)))
    .groupBy(orders.status);
  const byStatus: Record<string, number> = {};
  let total = 0;
  let flagged = 0;
  for (const r of rows) {
    byStatus[String(r.status)] = r.count;
    total += r.count;
    flagged += r.flagged;
  }
  return { total, byStatus, flagged };
}

async function loadOrder(db: Db, actor: Actor, id: string) {
  const [found] = await db
    .select(summaryColumns)
    .from(orders)
    .leftJoin(channels, eq(channels.id, orders.channelId))
    .where(and(eq(orders.id, id), eq(orders.accountId, actor.accountId)));
  if (!found) throw new DomainError('NOT_FOUND', ORDER_MESSAGES.notFound);
  return found;
}

export async function getOrder(db: Db, actor: Actor, id: string): Promise<OrderDetail> {
  const found = await loadOrder(db, actor, id);
  const row = found.row;
  const [lines, allocations, timeline, pickup] = await Promise.all([
    db
      .select({ line: orderLines, productId: variants.productId })
      .from(orderLines)
      .leftJoin(variants, eq(variants.id, orderLines.variantId))
      .where(eq(orderLines.orderId, id))
      .orderBy(orderLines.position),
    db
      .select({ a: orderAllocations, name: locations.name, storeId: locations.storeId })
      .from(orderAllocations)
      .leftJoin(locations, eq(locations.id, orderAllocations.locationId))
      .where(eq(orderAllocations.orderId, id))
      .orderBy(orderAllocations.createdAt, orderAllocations.id),
    db.select().from(orderEvents).where(eq(orderEvents.orderId, id)).orderBy(orderEvents.createdAt, orderEvents.id),
    row.pickupLocationId ? locationById(db, actor.accountId, row.pickupLocationId) : Promise.resolve(undefined),
  ]);
  const status = row.status as OrderStatus;
  return {
    ...toSummary(found),
    customerPhone: row.customerPhone,
    shippingAddress: row.shippingAddress ?? null,
    billingAddress: row.billingAddress ?? null,
    pickupLocation: pickup ? { id: pickup.id, name: pickup.name, storeId: pickup.storeId } : null,
    subtotal: row.subtotal,
    shippingTotal: row.shippingTotal,
    discountTotal: row.discountTotal,
    taxTotal: row.taxTotal,
    note: row.note,
    tags: row.tags,
    cancelledAt: row.cancelledAt,
    cancelReason: row.cancelReason,
    channelUrl: row.adminUrl,
    allowedStatuses: [...(ORDER_TRANSITIONS[status] ?? [])],
    cancellable: CANCELLABLE_STATUSES.includes(status),
    lines: lines.map(({ line, productId }) => ({
      id: line.id,
      externalId: line.externalId,
      sku: line.sku,
      variantId: line.variantId,
      productId: productId ?? null,
      title: line.title,
      quantity: line.quantity,
      unitPrice: line.unitPrice,
      discount: line.discount,
      tax: line.tax,
      fulfilledQty: line.fulfilledQty,
      cancelledQty: line.cancelledQty,
      refundedQty: line.refundedQty,
      unknownSku: !line.variantId,
      allocations: allocations
        .filter(({ a }) => a.lineId === line.id)
        .map(({ a, name, storeId }) => ({
          id: a.id,
          locationId: a.locationId,
          locationName: name,
          storeId,
          quantity: a.quantity,
          reserved: a.reserved,
          status: a.status,
          reason: a.reason,
        })),
    })),
    timeline: timeline.map((e) => ({
      id: e.id,
      kind: e.kind,
      message: e.message,
      actor: e.actor,
      fromStatus: e.fromStatus,
      toStatus: e.toStatus,
      outcome: e.outcome,
      createdAt: e.createdAt,
    })),
  };
}

/** How the timeline names a person: their name, else their e-mail. */
export async function actorName(db: Db, actor: Actor): Promise<string> {
  const [user] = await db
    .select({ firstname: users.firstname, lastname: users.lastname, email: users.email })
    .from(users)
    .where(eq(users.id, actor.userId));
  if (!user) return 'Someone';
  return `${user.firstname} ${user.lastname}`.trim() || user.email;
}

/** POST orders/{id}: the merchant's note, tags and shipping address (kept here; the timeline says who). */
export async function updateOrder(
  services: Services,
  actor: Actor,
  id: string,
  patch: OrderPatch,
): Promise<OrderDetail> {
  const { row } = await loadOrder(services.db, actor, id);
  const who = await actorName(services.db, actor);
  const changes: string[] = [];
  const set: Partial<typeof orders.$inferInsert> = { updatedAt: new Date() };
  if (patch.note !== undefined && patch.note !== row.note) {
    set.note = patch.note;
    changes.push('note');
  }
  if (patch.tags !== undefined) {
    set.tags = [...new Set(patch.tags)];
    changes.push('tags');
  }
  if (patch.shipping_address !== undefined) {
    set.shippingAddress = { ...(row.shippingAddress ?? {}), ...patch.shipping_address };
    changes.push('shipping address');
  }
  if (changes.length > 0) {
    await services.db.transaction(async (tx) => {
      await tx
        .update(orders)
        .set(set)
        .where(and(eq(orders.id, id), eq(orders.accountId, actor.accountId)));
      await writeTimeline(tx, actor.accountId, id, [
        { kind: 'updated', message: `Changed the ${changes.join(', ')}.`, actor: who, userId: actor.userId },
      ]);
    });
  }
  return getOrder(services.db, actor, id);
}

/** PUT orders/{id}/status: only the transitions ORDER_TRANSITIONS allows; a refusal names both statuses. */
export async function setOrderStatus(
  services: Services,
  actor: Actor,
  id: string,
  input: { status: number; reason?: string },
): Promise<OrderDetail> {
  const who = await actorName(services.db, actor);
  await services.db.transaction(async (tx) => {
    const [row] = await tx
      .select({ status: orders.status })
      .from(orders)
      .where(and(eq(orders.id, id), eq(orders.accountId, actor.accountId)))
      .for('update');
    if (!row) throw new DomainError('NOT_FOUND', ORDER_MESSAGES.notFound);
    if (row.status === input.status) return;
    if (input.status === 7) {
      throw new DomainError(
        'INVALID_STATE',
        'Cancel the order with Cancel: it releases its stock and tells the channel.',
      );
    }
    if (!canTransition(row.status, input.status)) {
      throw new DomainError('INVALID_STATE', ORDER_MESSAGES.transition(row.status, input.status));
    }
    await tx.update(orders).set({ status: input.status, updatedAt: new Date() }).where(eq(orders.id, id));
    await writeTimeline(tx, actor.accountId, id, [
      {
        kind: 'status',
        message: `Status changed from ${orderStatusLabel(row.status)} to ${orderStatusLabel(input.status)}${input.reason ? `: ${input.reason}` : '.'}`,
        actor: who,
        userId: actor.userId,
        fromStatus: row.status,
        toStatus: input.status,
      },
    ]);
    await recordOrderMetrics(tx, actor.accountId, id);
  });
  return getOrder(services.db, actor, id);
}

/**
 * Cancels here: every reserved unit is released at once (and pushed), the status is Cancelled, and a job
 * writes the cancel back to the channel (its outcome on the timeline; where the provider cannot, the merchant
 * is told to cancel it there).
 */
export async function cancelOrder(
  services: Services,
  actor: Actor,
  id: string,
  input: { reason?: string } = {},
): Promise<OrderDetail> {
  const who = await actorName(services.db, actor);
  const key = `cancel:${id}`;
  const { released, channelId } = await services.db.transaction(async (tx) => {
    const [row] = await tx
      .select()
      .from(orders)
      .where(and(eq(orders.id, id), eq(orders.accountId, actor.accountId)))
      .for('update');
    if (!row) throw new DomainError('NOT_FOUND', ORDER_MESSAGES.notFound);
    if (!CANCELLABLE_STATUSES.includes(row.status as OrderStatus)) {
      throw new DomainError('INVALID_STATE', ORDER_MESSAGES.notCancellable(row.status));
    }
    const variantIds = await cancelInTx(tx, actor.accountId, row, {
      actor: who,
      reason: input.reason ?? null,
      userId: actor.userId,
    });
    await tx
      .update(orders)
      .set({
        status: 7,
        cancelledAt: new Date(),
        cancelReason: input.reason ?? null,
        flagged: false,
        updatedAt: new Date(),
      })
      .where(eq(orders.id, id));
    await writeTimeline(tx, actor.accountId, id, [
      {
        kind: 'status',
        message: `Cancelled${input.reason ? `: ${input.reason}` : ''}; reserved units released.`,
        actor: who,
        userId: actor.userId,
        fromStatus: row.status,
        toStatus: 7,
      },
    ]);
    await recordOrderMetrics(tx, actor.accountId, id);
    if (row.channelId) {
      await recordWriteBack(tx, actor.accountId, id, key, 'Cancel queued for the channel.', 'pending');
    }
    return { released: variantIds, channelId: row.channelId };
  });
  await schedulePush(services, await affectedChannels(services.db, actor.accountId, released));
  if (channelId) {
    await services.queue?.send(ORDER_CANCEL_JOB, { orderId: id, accountId: actor.accountId }, { singletonKey: key });
  }
  return getOrder(services.db, actor, id);
}

export const channelLabel = (type: string) => CHANNEL_LABELS[type as keyof typeof CHANNEL_LABELS] ?? type;
