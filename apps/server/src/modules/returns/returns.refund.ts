// The write-back of a refund made here (the `returns.refund-at-channel` job): the channel is asked once, with an
// idempotency key that is the return's id, so a retry after a crash between the channel's answer and our commit
// finds the same refund there instead of making a second. Each attempt is a Refund run on /syncs/.
import { and, eq } from 'drizzle-orm';
import { ProviderHttpError } from '../../connectors/http.ts';
import type { ProviderReturn } from '../../connectors/types.ts';
import { DomainError } from '../../lib/errors.ts';
import type { Services } from '../../services.ts';
import { connectorFor, providerFailure } from '../channels/channels.service.ts';
import { channels } from '../channels/channels.tables.ts';
import { schedulePush } from '../inventory/schedule.ts';
import { affectedChannels, recordWriteBack } from '../orders/orders.timeline.ts';
import { finishSync, recordSyncProgress, restartSync } from '../syncs/syncs.records.ts';
import { claimRestock, formatMoney } from './returns.process.ts';
import { returnItems, returns } from './returns.tables.ts';

export const REFUND_RETRIES = 5;

/** The channel did not answer (a timeout, a 5xx): the job is retried. */
class TransientFailure extends Error {}

export async function refundAtChannel(
  services: Services,
  input: { returnId: string; accountId: string; syncId: number | null },
  final: boolean,
): Promise<void> {
  const [ret] = await services.db
    .select()
    .from(returns)
    .where(and(eq(returns.id, input.returnId), eq(returns.accountId, input.accountId)));
  if (!ret?.channelId || ret.refundState !== 'pending') {
    if (input.syncId) await finishSync(services.db, input.syncId, { message: 'Nothing left to write back.' });
    return;
  }
  if (input.syncId) await restartSync(services.db, input.syncId);
  const key = `refund:${ret.id}`;
  const items = await services.db
    .select()
    .from(returnItems)
    .where(eq(returnItems.returnId, ret.id))
    .orderBy(returnItems.position);
  const [row] = await services.db.select().from(channels).where(eq(channels.id, ret.channelId));
  const label = `Refund ${formatMoney(ret.total, ret.currency)} of order ${ret.orderExternalId ?? ''}`.trim();
  const asked = new Date();
  try {
    if (!row) throw new DomainError('NOT_FOUND', 'The channel of this order was removed.');
    if (!ret.orderExternalId) throw new DomainError('VALIDATION', 'This return names no order at the channel.');
    const connector = connectorFor(services, row);
    const location = items.find((i) => i.locationExternalId)?.locationExternalId ?? null;
    let result: Awaited<ReturnType<typeof connector.refund>>;
    try {
      result = await connector.refund({
        orderExternalId: ret.orderExternalId,
        amount: ret.total,
        currency: ret.currency,
        reason: ret.refundReason ?? undefined,
        shipping: ret.refundShipping || undefined,
        locationExternalId: location,
        lines: items
          .filter((i) => i.lineExternalId && i.qty > 0)
          .map((i) => ({
            lineExternalId: i.lineExternalId as string,
            quantity: i.qty,
            // Only where the channel keeps one of our stores can it put units back there.
            restock: i.restock && !!i.locationExternalId,
            locationExternalId: i.locationExternalId,
          })),
        idempotencyKey: ret.id,
      });
    } catch (err) {
      // A refusal (4xx, or our own check) stays a refusal on a retry; a timeout or 5xx is retried by the queue.
      const refused =
        err instanceof DomainError || (err instanceof ProviderHttpError && !err.retryable && err.status !== null);
      const failure = await providerFailure(services, row, err);
      const message =
        err instanceof ProviderHttpError && refused
          ? `${row.name} refused the refund: ${err.message}`
          : failure.message;
      throw refused ? new DomainError('UPSTREAM_FAILED', message) : new TransientFailure(message);
    }
    const variantIds = await services.db.transaction(async (tx) => {
      const [current] = await tx.select().from(returns).where(eq(returns.id, ret.id)).for('update');
      if (current?.refundState !== 'pending') return [];
      await tx
        .update(returns)
        .set({
          externalId: result.externalId,
          refundState: 'ok',
          refundMessage: null,
          receiptNumber: result.ret?.receiptNumber ?? current.receiptNumber,
          updatedAt: new Date(),
        })
        .where(eq(returns.id, ret.id));
      // The channel put units back on its own stock too: its report of that is met, not counted again.
      const touched: string[] = [];
      for (const item of items) {
        if (!item.restock || !item.variantId || !item.locationId) continue;
        if (!restockedByChannel(result.ret, item)) continue;
        await tx.update(returnItems).set({ channelRestocked: true }).where(eq(returnItems.id, item.id));
        if (await claimRestock(tx, ret.accountId, row.id, ret, item, item.variantId, item.locationId, asked)) {
          touched.push(item.variantId);
        }
      }
      if (ret.orderId) {
        await recordWriteBack(
          tx,
          ret.accountId,
          ret.orderId,
          key,
          `Refunded ${formatMoney(ret.total, ret.currency)} at ${row.name}.`,
          'ok',
        );
      }
      return touched;
    });
    if (variantIds.length) await schedulePush(services, await affectedChannels(services.db, ret.accountId, variantIds));
    if (input.syncId) {
      await recordSyncProgress(services.db, input.syncId, ret.accountId, { succeeded: 1 });
      await finishSync(services.db, input.syncId, { message: `Refunded at ${row.name} (${result.externalId}).` });
    }
  } catch (err) {
    const message = err instanceof Error ? err.message.slice(0, 300) : 'failed';
    if (!(err instanceof DomainError) && !(err instanceof TransientFailure)) {
      services.logger.warn({ returnId: ret.id, err: { message } }, 'refund write-back failed');
    }
    // A refusal (a DomainError) will not change on a retry; anything else is retried by the queue.
    const last = final || err instanceof DomainError;
    if (last) {
      await services.db
        .update(returns)
        .set({ refundState: 'failed', refundMessage: message, updatedAt: new Date() })
        .where(eq(returns.id, ret.id));
      if (input.syncId) {
        await recordSyncProgress(services.db, input.syncId, ret.accountId, {
          succeeded: 0,
          failures: [{ label, error: message, payload: { returnId: ret.id } }],
        });
        await finishSync(services.db, input.syncId, { error: `Refund failed: ${message}` });
      }
    }
    if (ret.orderId) {
      await recordWriteBack(
        services.db,
        ret.accountId,
        ret.orderId,
        key,
        last
          ? `Refunding at the channel failed: ${message}. Retry it from Returns, or refund it at the channel.`
          : `Refunding at the channel failed: ${message}. Retrying.`,
        'failed',
      );
    }
    if (!(err instanceof DomainError)) throw err;
  }
}

/** Whether the channel's record of the refund says it restocked this item itself. */
function restockedByChannel(
  ret: ProviderReturn | null | undefined,
  item: { lineExternalId: string | null; sku: string | null },
): boolean {
  if (!ret) return false;
  return ret.items.some(
    (i) =>
      i.channelRestocked &&
      ((item.lineExternalId && i.lineExternalId === item.lineExternalId) || (item.sku && i.sku === item.sku)),
  );
}
