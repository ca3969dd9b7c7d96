// What the returns module tells the order module about refunds (the order module reads no returns table).
import { and, eq, gte, inArray, isNotNull, sql } from 'drizzle-orm';
import type { Tx } from '../../db/client.ts';
import { returnItems, returns } from './returns.tables.ts';

/**
 * Units of each line of an order refunded by its processed returns; with `since`, only by the returns made at or
 * after it (the channel's time of the return, else ours).
 */
export async function refundedByLine(
  tx: Tx,
  accountId: string,
  orderId: string,
  since?: Date,
): Promise<Map<string, number>> {
  const rows = await tx
    .select({ lineId: returnItems.orderLineId, qty: sql<number>`sum(${returnItems.qty})::int` })
    .from(returnItems)
    .innerJoin(returns, eq(returns.id, returnItems.returnId))
    .where(
      and(
        eq(returns.accountId, accountId),
        eq(returns.orderId, orderId),
        inArray(returns.status, ['FINISHED', 'SKIPPED']),
        isNotNull(returnItems.orderLineId),
        since ? gte(sql`coalesce(${returns.providerCreatedAt}, ${returns.createdAt})`, since) : undefined,
      ),
    )
    .groupBy(returnItems.orderLineId);
  return new Map(rows.map((r) => [r.lineId as string, Number(r.qty)]));
}

/**
 * Units of each line refunded by returns made at or after `at`. A channel's cancel comes with its own refund of the
 * lines it cancels (Shopify's refunds/create, Square's refund); taken in before the cancel, that refund has already
 * raised the lines' refunded quantities, yet its units are the very ones the cancel puts back on the channel's
 * stock (docs/decisions/0008, "Cancels and restocks"). Only refunds from before the cancel left the channel's stock.
 */
export const refundedSince = (tx: Tx, accountId: string, orderId: string, at: Date) =>
  refundedByLine(tx, accountId, orderId, at);
