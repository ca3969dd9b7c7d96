// Taking a channel's return or refund in (webhook, pull): stored once per (channel, external id), latest wins by
// the provider's updated_at, and processed in the same transaction, so a redelivered or reordered report makes
// one return and one restock. A refund we wrote back ourselves is that return, not another one.
import { and, eq, ne } from 'drizzle-orm';
import type { ProviderReturn } from '../../connectors/types.ts';
import { DomainError } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { Services } from '../../services.ts';
import type { ChannelRow } from '../channels/channels.service.ts';
import { schedulePush } from '../inventory/schedule.ts';
import { recordReturnMetrics } from '../metrics/metrics.returns.ts';
import { notifyReturnCreated } from '../notifications/notifications.producers.ts';
import { affectedChannels } from '../orders/orders.timeline.ts';
import { claimRestock, processReturnInTx } from './returns.process.ts';
import { returnItems, returns } from './returns.tables.ts';

export type ReturnChannel = Pick<ChannelRow, 'id' | 'accountId' | 'type' | 'name'>;
export type ReturnIngestOutcome = 'created' | 'updated' | 'unchanged' | 'older';

/**
 * A refund of ours is being written back to this channel's order and its id there is not known yet: the
 * channel's report of it must wait (the job that takes it is retried), or it would be taken for another refund.
 */
export class RefundInFlight extends DomainError {
  constructor(returnId: string) {
    super('CONFLICT', `A refund made here (${returnId}) is being written back to this order; taken after it.`);
  }
}

const headerOf = (ret: ProviderReturn) => ({
  orderExternalId: ret.orderExternalId,
  providerStatus: ret.status,
  currency: ret.currency || 'USD',
  tax: ret.tax,
  adjustment: ret.adjustment,
  total: ret.total,
  billName: ret.billName,
  receiptNumber: ret.receiptNumber,
  providerCreatedAt: new Date(ret.createdAt),
  providerUpdatedAt: new Date(ret.updatedAt),
});

const itemsOf = (accountId: string, returnId: string, ret: ProviderReturn) =>
  ret.items.map((item, position) => ({
    id: newId('rti'),
    accountId,
    returnId,
    position,
    lineExternalId: item.lineExternalId,
    sku: item.sku,
    qty: item.quantity,
    locationExternalId: item.locationExternalId,
    total: item.total,
    restock: item.restock,
    channelRestocked: item.channelRestocked,
  }));

export async function ingestReturn(
  services: Services,
  channel: ReturnChannel,
  ret: ProviderReturn,
): Promise<{ returnId: string; outcome: ReturnIngestOutcome }> {
  let variantIds: string[] = [];
  const result = await services.db.transaction(async (tx) => {
    const id = newId('ret');
    const header = headerOf(ret);
    // Ours, on its way: a refund made here for this order, not yet answered by the channel.
    if (ret.orderExternalId) {
      const [inFlight] = await tx
        .select({ id: returns.id })
        .from(returns)
        .where(
          and(
            eq(returns.accountId, channel.accountId),
            eq(returns.channelId, channel.id),
            eq(returns.orderExternalId, ret.orderExternalId),
            eq(returns.refundState, 'pending'),
            ne(returns.externalId, ret.externalId),
          ),
        )
        .limit(1);
      if (inFlight) throw new RefundInFlight(inFlight.id);
    }
    const [inserted] = await tx
      .insert(returns)
      .values({
        id,
        accountId: channel.accountId,
        channelId: channel.id,
        externalId: ret.externalId,
        status: 'PENDING',
        source: 'channel',
        ...header,
      })
      .onConflictDoNothing()
      .returning({ id: returns.id });
    const by = { actor: channel.name };
    if (inserted) {
      if (ret.items.length) await tx.insert(returnItems).values(itemsOf(channel.accountId, id, ret));
      variantIds = (await processReturnInTx(tx, channel.accountId, id, by)).variantIds;
      await notifyReturnCreated(tx, channel.accountId, {
        id,
        externalId: ret.externalId,
        receiptNumber: ret.receiptNumber,
        channelName: channel.name,
      });
      return { returnId: id, outcome: 'created' as const };
    }
    const [existing] = await tx
      .select()
      .from(returns)
      .where(
        and(
          eq(returns.accountId, channel.accountId),
          eq(returns.channelId, channel.id),
          eq(returns.externalId, ret.externalId),
        ),
      )
      .for('update');
    if (!existing) throw new Error('return vanished while being imported');
    const incoming = header.providerUpdatedAt.getTime();
    const known = existing.providerUpdatedAt?.getTime() ?? 0;
    if (incoming < known) return { returnId: existing.id, outcome: 'older' as const };
    if (incoming === known && existing.providerStatus === ret.status) {
      return { returnId: existing.id, outcome: 'unchanged' as const };
    }
    const done = existing.status === 'FINISHED' || existing.status === 'SKIPPED';
    if (done || existing.source === 'switchyard') {
      // Processed (or made here): its stock moved once already; only what the channel says of it is updated. A
      // channel's return may be paid for after its units came back (a Shopify return refunded once restocked):
      // its money follows the channel, its items' totals too where they are the same items.
      const paidLater =
        existing.source === 'channel' &&
        (ret.total !== existing.total || ret.tax !== existing.tax || ret.adjustment !== existing.adjustment);
      await tx
        .update(returns)
        .set({
          billName: header.billName ?? existing.billName,
          receiptNumber: header.receiptNumber ?? existing.receiptNumber,
          providerCreatedAt: existing.providerCreatedAt ?? header.providerCreatedAt,
          providerUpdatedAt: header.providerUpdatedAt,
          ...(paidLater
            ? {
                providerStatus: ret.status,
                currency: header.currency,
                tax: ret.tax,
                adjustment: ret.adjustment,
                total: ret.total,
              }
            : {}),
          updatedAt: new Date(),
        })
        .where(eq(returns.id, existing.id));
      if (paidLater) {
        const ours = await tx
          .select({ id: returnItems.id, lineExternalId: returnItems.lineExternalId, qty: returnItems.qty })
          .from(returnItems)
          .where(eq(returnItems.returnId, existing.id))
          .orderBy(returnItems.position);
        const same =
          ours.length === ret.items.length &&
          ours.every((o, i) => o.lineExternalId === ret.items[i]?.lineExternalId && o.qty === ret.items[i]?.quantity);
        if (same)
          for (const [i, o] of ours.entries())
            await tx
              .update(returnItems)
              .set({ total: ret.items[i]?.total ?? 0 })
              .where(eq(returnItems.id, o.id));
        await recordReturnMetrics(tx, channel.accountId, existing.id);
      }
      // Ours, written back: where the channel says it restocked units itself and the write-back could not read
      // that back, its stock report is met now (once per item).
      if (existing.source === 'switchyard') {
        const ours = await tx.select().from(returnItems).where(eq(returnItems.returnId, existing.id));
        for (const item of ours) {
          if (!item.restock || item.channelRestocked || !item.variantId || !item.locationId) continue;
          const said = ret.items.find(
            (i) =>
              i.channelRestocked &&
              ((item.lineExternalId && i.lineExternalId === item.lineExternalId) || (item.sku && i.sku === item.sku)),
          );
          if (!said) continue;
          await tx.update(returnItems).set({ channelRestocked: true }).where(eq(returnItems.id, item.id));
          const at = header.providerCreatedAt;
          if (
            await claimRestock(tx, channel.accountId, channel.id, existing, item, item.variantId, item.locationId, at)
          )
            variantIds.push(item.variantId);
        }
      }
      return { returnId: existing.id, outcome: 'updated' as const };
    }
    // Not processed yet (pending at the channel, or in error): it follows the channel, then is taken again.
    await tx
      .update(returns)
      .set({ ...header, updatedAt: new Date() })
      .where(eq(returns.id, existing.id));
    await tx.delete(returnItems).where(eq(returnItems.returnId, existing.id));
    if (ret.items.length) await tx.insert(returnItems).values(itemsOf(channel.accountId, existing.id, ret));
    variantIds = (await processReturnInTx(tx, channel.accountId, existing.id, by)).variantIds;
    return { returnId: existing.id, outcome: 'updated' as const };
  });
  if (variantIds.length > 0) {
    await schedulePush(services, await affectedChannels(services.db, channel.accountId, variantIds));
  }
  return result;
}
