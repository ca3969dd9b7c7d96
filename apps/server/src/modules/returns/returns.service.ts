// Returns: the list merchants read (SPEC §2), one return, an order's returns, a return made here from an order's
// detail (restocked at once, its refund written back by a job), and retry.
import {
  CreateReturnInput,
  RETURN_MESSAGES,
  type Return,
  type ReturnList,
  ReturnsListInput,
  refundTotal,
  unitRefund,
} from '@switchyard/contracts';
import { and, desc, eq, inArray, or, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { DomainError } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { Services } from '../../services.ts';
import type { Actor } from '../../trpc/context.ts';
import { channels } from '../channels/channels.tables.ts';
import { schedulePush } from '../inventory/schedule.ts';
import { locationById } from '../locations/locations.read.ts';
import { locations } from '../locations/locations.tables.ts';
import { orderForReturn } from '../orders/orders.refunds.ts';
import { actorName } from '../orders/orders.service.ts';
import { orders } from '../orders/orders.tables.ts';
import { affectedChannels, recordWriteBack } from '../orders/orders.timeline.ts';
import { startSync } from '../syncs/syncs.records.ts';
import { channelLocationOf, formatMoney, processReturnInTx } from './returns.process.ts';
import { returnItems, returns } from './returns.tables.ts';

export const RETURN_REFUND_JOB = 'returns.refund-at-channel';

/** Orders a return can be made here from: their units left the store (shipped, partly shipped, picked up). */
export const RETURNABLE_STATUSES = [2, 3, 5] as const;

type ReturnRow = typeof returns.$inferSelect;

async function withItems(db: Db, rows: { row: ReturnRow; orderNumber: string | null }[]): Promise<Return[]> {
  if (rows.length === 0) return [];
  const items = await db
    .select({ item: returnItems, storeId: locations.storeId, storeName: locations.name })
    .from(returnItems)
    .leftJoin(locations, eq(locations.id, returnItems.locationId))
    .where(
      inArray(
        returnItems.returnId,
        rows.map((r) => r.row.id),
      ),
    )
    .orderBy(returnItems.returnId, returnItems.position);
  return rows.map(({ row, orderNumber }) => ({
    id: row.id,
    external_id: row.externalId,
    channel_id: row.channelId,
    order_external_id: row.orderExternalId,
    order_id: row.orderId,
    order_number: orderNumber,
    status: row.status,
    message: row.message,
    currency: row.currency,
    tax: row.tax,
    adjustment: row.adjustment,
    total: row.total,
    bill_name: row.billName,
    receipt_number: row.receiptNumber,
    source: row.source,
    refund_state: row.refundState ?? null,
    refund_message: row.refundMessage,
    created_at: row.createdAt,
    provider_created_at: row.providerCreatedAt,
    items: items
      .filter((i) => i.item.returnId === row.id)
      .map(({ item, storeId, storeName }) => ({
        id: item.id,
        sku: item.sku,
        qty: item.qty,
        return_store: storeId ?? item.locationExternalId,
        return_store_name: storeName ?? null,
        total: item.total,
        restock: item.restock,
        channel_restocked: item.channelRestocked,
        order_line_id: item.orderLineId,
      })),
  }));
}

const listColumns = { row: returns, orderNumber: orders.number };

/** SPEC §2 / v2 `GET returns`: newest first; external_id finds the return's or its order's id (or number). */
export async function listReturns(db: Db, actor: Pick<Actor, 'accountId'>, raw: unknown): Promise<ReturnList> {
  const input = ReturnsListInput.parse(raw ?? {});
  const where: SQL[] = [eq(returns.accountId, actor.accountId)];
  if (input.channel_id) where.push(eq(returns.channelId, input.channel_id));
  const term = input.external_id?.trim().toLowerCase();
  if (term) {
    const like = `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    where.push(
      or(
        sql`lower(${returns.externalId}) like ${like}`,
        sql`lower(${returns.orderExternalId}) like ${like}`,
        sql`lower(${orders.number}) like ${like}`,
        sql`lower(${returns.receiptNumber}) like ${like}`,
      ) as SQL,
    );
  }
  const filter = and(...where);
  const [rows, [count]] = await Promise.all([
    db
      .select(listColumns)
      .from(returns)
      .leftJoin(orders, eq(orders.id, returns.orderId))
      .where(filter)
      .orderBy(desc(returns.createdAt), desc(returns.id))
      .limit(input.limit)
      .offset(input.offset),
    db
      .select({ total: sql<number>`count(*)::int` })
      .from(returns)
      .leftJoin(orders, eq(orders.id, returns.orderId))
      .where(filter),
  ]);
  return { results: await withItems(db, rows), total: count?.total ?? 0, limit: input.limit, offset: input.offset };
}

export async function getReturn(db: Db, actor: Pick<Actor, 'accountId'>, id: string): Promise<Return> {
  const rows = await db
    .select(listColumns)
    .from(returns)
    .leftJoin(orders, eq(orders.id, returns.orderId))
    .where(and(eq(returns.id, id), eq(returns.accountId, actor.accountId)));
  const [found] = await withItems(db, rows);
  if (!found) throw new DomainError('NOT_FOUND', RETURN_MESSAGES.notFound);
  return found;
}

/** An order's returns, newest first (the order detail's Returns section). */
export async function returnsForOrder(db: Db, actor: Pick<Actor, 'accountId'>, orderId: string): Promise<Return[]> {
  const [order] = await db
    .select({ id: orders.id })
    .from(orders)
    .where(and(eq(orders.id, orderId), eq(orders.accountId, actor.accountId)));
  if (!order) throw new DomainError('NOT_FOUND', RETURN_MESSAGES.orderNotFound);
  const rows = await db
    .select(listColumns)
    .from(returns)
    .leftJoin(orders, eq(orders.id, returns.orderId))
    .where(and(eq(returns.orderId, orderId), eq(returns.accountId, actor.accountId)))
    .orderBy(desc(returns.createdAt), desc(returns.id));
  return withItems(db, rows);
}

/**
 * A return made here from an order's detail: the chosen lines and units back at the return store at once
 * (damaged ones not restocked), the order's lines refunded, and the refund (lines, shipping, adjustment) written
 * back to the channel by the `returns.refund-at-channel` job, shown on /syncs/ as a Refund run.
 */
export async function createReturn(services: Services, actor: Actor, raw: CreateReturnInput): Promise<Return> {
  const input = CreateReturnInput.parse(raw);
  const who = await actorName(services.db, actor);
  const shipping = input.shipping ?? 0;
  const adjustment = input.adjustment ?? 0;
  const chosen = input.lines.filter((l) => Number(l.qty) > 0);
  if (chosen.length === 0) throw new DomainError('VALIDATION', RETURN_MESSAGES.noLines);
  const id = newId('ret');
  const { variantIds, channelId, syncId } = await services.db.transaction(async (tx) => {
    const order = await orderForReturn(tx, actor.accountId, input.order_id, true);
    if (!order) throw new DomainError('NOT_FOUND', RETURN_MESSAGES.orderNotFound);
    if (!(RETURNABLE_STATUSES as readonly number[]).includes(order.status)) {
      throw new DomainError('INVALID_STATE', RETURN_MESSAGES.notReturnable);
    }
    const location = await locationById(tx, actor.accountId, input.location_id);
    if (!location) throw new DomainError('VALIDATION', RETURN_MESSAGES.storeNotFound);
    const [channel] = order.channelId ? await tx.select().from(channels).where(eq(channels.id, order.channelId)) : [];
    const seen = new Set<string>();
    let linesTotal = 0;
    let tax = 0;
    const items = chosen.map((chosenLine, position) => {
      const line = order.lines.find((l) => l.id === chosenLine.line_id);
      if (!line || seen.has(line.id)) throw new DomainError('VALIDATION', RETURN_MESSAGES.lineNotInOrder);
      seen.add(line.id);
      const qty = Number(chosenLine.qty);
      const left = Math.max(line.quantity - line.cancelledQty - line.refundedQty, 0);
      if (qty > left) throw new DomainError('VALIDATION', RETURN_MESSAGES.tooMany(line.sku ?? line.title, left));
      const total = qty * unitRefund(line);
      const itemTax = line.quantity > 0 ? Math.round((line.tax * qty) / line.quantity) : 0;
      linesTotal += total;
      tax += itemTax;
      return {
        id: newId('rti'),
        accountId: actor.accountId,
        returnId: id,
        position,
        orderLineId: line.id,
        lineExternalId: line.externalId,
        sku: line.sku,
        variantId: line.variantId,
        qty,
        locationId: location.id,
        locationExternalId: channel ? channelLocationOf(channel, location.storeId) : null,
        total,
        tax: itemTax,
        restock: chosenLine.restock !== false,
        channelRestocked: false,
      };
    });
    const total = refundTotal(linesTotal, shipping, adjustment);
    if (total < 0) throw new DomainError('VALIDATION', RETURN_MESSAGES.negativeRefund);
    const [refunded] = await tx
      .select({ sum: sql<number>`coalesce(sum(${returns.total}), 0)::int` })
      .from(returns)
      .where(
        and(eq(returns.accountId, actor.accountId), eq(returns.orderId, order.id), sql`${returns.status} <> 'ERROR'`),
      );
    const left = order.total - (refunded?.sum ?? 0);
    if (total > left) {
      throw new DomainError(
        'VALIDATION',
        RETURN_MESSAGES.tooMuchRefund(formatMoney(Math.max(left, 0), order.currency)),
      );
    }
    const now = new Date();
    await tx.insert(returns).values({
      id,
      accountId: actor.accountId,
      channelId: order.channelId,
      externalId: id,
      orderExternalId: order.externalId,
      orderId: order.id,
      status: 'PENDING',
      providerStatus: 'completed',
      currency: order.currency,
      tax,
      adjustment: shipping + adjustment,
      total,
      billName: order.customerName,
      source: 'switchyard',
      refundState: order.channelId ? 'pending' : null,
      refundShipping: shipping,
      refundReason: input.reason ?? null,
      createdBy: actor.userId,
      providerCreatedAt: now,
      providerUpdatedAt: now,
    });
    await tx.insert(returnItems).values(items);
    const processed = await processReturnInTx(tx, actor.accountId, id, { actor: who, userId: actor.userId });
    let sync: number | null = null;
    if (order.channelId) {
      sync = await startSync(tx, {
        accountId: actor.accountId,
        channelId: order.channelId,
        type: 'refund',
        trigger: 'manual',
        status: 'queued',
        total: 1,
        options: { returnId: id, orderId: order.id },
      });
      await recordWriteBack(
        tx,
        actor.accountId,
        order.id,
        `refund:${id}`,
        `Refund of ${formatMoney(total, order.currency)} queued for the channel.`,
        'pending',
      );
    }
    return { variantIds: processed.variantIds, channelId: order.channelId, syncId: sync };
  });
  if (variantIds.length) await schedulePush(services, await affectedChannels(services.db, actor.accountId, variantIds));
  if (channelId) await queueRefund(services, { returnId: id, accountId: actor.accountId, syncId });
  return getReturn(services.db, actor, id);
}

export async function queueRefund(
  services: Services,
  data: { returnId: string; accountId: string; syncId: number | null },
): Promise<void> {
  await services.queue?.send(RETURN_REFUND_JOB, data, { singletonKey: `refund:${data.returnId}:${data.syncId ?? 0}` });
}

/**
 * Retry: a return in ERROR is processed again (after the merchant added the SKU or mapped the store); a return
 * whose refund failed at the channel has it written back again (the same idempotency key: never twice).
 */
export async function retryReturn(services: Services, actor: Actor, id: string): Promise<Return> {
  const who = await actorName(services.db, actor);
  const { variantIds, refund } = await services.db.transaction(async (tx) => {
    const [row] = await tx
      .select()
      .from(returns)
      .where(and(eq(returns.id, id), eq(returns.accountId, actor.accountId)))
      .for('update');
    if (!row) throw new DomainError('NOT_FOUND', RETURN_MESSAGES.notFound);
    if (row.status === 'ERROR') {
      const processed = await processReturnInTx(tx, actor.accountId, id, { actor: who, userId: actor.userId });
      return { variantIds: processed.variantIds, refund: null };
    }
    if (row.refundState === 'failed' && row.channelId) {
      const [previous] = await tx
        .execute<{ id: number }>(
          sql`select id from syncs where account_id = ${actor.accountId} and type = 'refund' and options ->> 'returnId' = ${id} order by id desc limit 1`,
        )
        .then((r) => (r as unknown as { rows?: { id: number }[] }).rows ?? (r as unknown as { id: number }[]));
      const syncId = await startSync(tx, {
        accountId: actor.accountId,
        channelId: row.channelId,
        type: 'refund',
        trigger: 'retry',
        status: 'queued',
        total: 1,
        retryOf: previous?.id ?? null,
        options: { returnId: id, orderId: row.orderId },
      });
      await tx
        .update(returns)
        .set({ refundState: 'pending', refundMessage: null, updatedAt: new Date() })
        .where(eq(returns.id, id));
      return { variantIds: [], refund: { returnId: id, accountId: actor.accountId, syncId } };
    }
    throw new DomainError('INVALID_STATE', RETURN_MESSAGES.notRetryable);
  });
  if (variantIds.length) await schedulePush(services, await affectedChannels(services.db, actor.accountId, variantIds));
  if (refund) await queueRefund(services, refund);
  return getReturn(services.db, actor, id);
}
