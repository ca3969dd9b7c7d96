// The shipment written back to its channel with the tracking (a job: retried, recorded as a sync run with the
// order as its item, dead-lettered, never sent twice): Shopify fulfillmentCreate on the fulfillment orders at
// the store's channel location, BigCommerce POST /v2/orders/{id}/shipments, Square the order's SHIPMENT
// fulfillment. A retry first reads the order at the channel: when the lines already show as fulfilled there (an
// earlier attempt got through and its answer was lost), nothing is sent again.
import { CHANNEL_LABELS } from '@switchyard/contracts';
import { and, eq, isNull, ne, or } from 'drizzle-orm';
import { DomainError } from '../../lib/errors.ts';
import type { Services } from '../../services.ts';
import { connectorFor } from '../channels/channels.service.ts';
import { channels } from '../channels/channels.tables.ts';
import { locationById } from '../locations/locations.read.ts';
import { orderLines, orders } from '../orders/orders.tables.ts';
import { recordWriteBack } from '../orders/orders.timeline.ts';
import { channelSettingsOf } from '../products/catalog-import.ts';
import { finishSync, recordSyncProgress, startSync } from '../syncs/syncs.records.ts';
import { shipmentItems, shipments } from './shipments.tables.ts';

export async function writeBackShipment(
  services: Services,
  input: { shipmentId: string; accountId: string },
  meta: { retryCount: number; final: boolean },
) {
  const db = services.db;
  const [row] = await db
    .select()
    .from(shipments)
    .where(and(eq(shipments.id, input.shipmentId), eq(shipments.accountId, input.accountId)));
  if (row?.status !== 'purchased' || row.writeBackStatus === 'ok' || row.channelFulfillmentId) return;
  const [order] = await db.select().from(orders).where(eq(orders.id, row.orderId));
  if (!order?.channelId) return;
  const [channel] = await db.select().from(channels).where(eq(channels.id, order.channelId));
  const key = `shipment:${row.id}`;
  const name = channel?.name ?? 'the channel';
  const syncId = await startSync(db, {
    accountId: row.accountId,
    channelId: order.channelId,
    type: 'fulfillment_write_back',
    trigger: meta.retryCount > 0 ? 'retry' : 'change',
    total: 1,
    options: { shipmentId: row.id, orderId: order.id },
  });
  const item = `Order ${order.number}`;
  try {
    if (!channel) throw new DomainError('NOT_FOUND', 'The channel of this order was removed.');
    const connector = connectorFor(services, channel);
    const items = await db
      .select({ lineId: shipmentItems.lineId, quantity: shipmentItems.quantity, externalId: orderLines.externalId })
      .from(shipmentItems)
      .innerJoin(orderLines, eq(orderLines.id, shipmentItems.lineId))
      .where(eq(shipmentItems.shipmentId, row.id));
    const byLine = new Map<string, number>();
    for (const i of items) byLine.set(i.externalId, (byLine.get(i.externalId) ?? 0) + i.quantity);
    const lines = [...byLine].map(([lineExternalId, quantity]) => ({ lineExternalId, quantity }));
    // The store's location at the channel (its location map), so Shopify fulfils that location's fulfillment order.
    const store = row.locationId ? await locationById(db, row.accountId, row.locationId) : undefined;
    const mapped = channelSettingsOf(channel).channel.locationMap.find((m) => store && m.storeId === store.storeId);
    const locationExternalId =
      mapped?.externalLocationId ?? (channel.type === 'square' ? (store?.storeId ?? null) : null);
    let externalId: string | null = null;
    if (meta.retryCount > 0 && connector.getOrder) {
      // An earlier attempt may have got through: the channel's own count of fulfilled units says.
      const there = await connector.getOrder(order.externalId);
      // What the channel shows once this shipment is there: every unit fulfilled here, less those of our other
      // bought shipments still on their way to it (parts of a line may ship in several).
      const [ours, unsent] = await Promise.all([
        db
          .select({ externalId: orderLines.externalId, fulfilledQty: orderLines.fulfilledQty })
          .from(orderLines)
          .where(eq(orderLines.orderId, order.id)),
        db
          .select({ externalId: orderLines.externalId, quantity: shipmentItems.quantity })
          .from(shipmentItems)
          .innerJoin(shipments, eq(shipments.id, shipmentItems.shipmentId))
          .innerJoin(orderLines, eq(orderLines.id, shipmentItems.lineId))
          .where(
            and(
              eq(shipments.orderId, order.id),
              eq(shipments.status, 'purchased'),
              ne(shipments.id, row.id),
              or(isNull(shipments.writeBackStatus), ne(shipments.writeBackStatus, 'ok')),
            ),
          ),
      ]);
      const done = lines.every((l) => {
        const theirs = there?.lines.find((x) => x.externalId === l.lineExternalId)?.fulfilledQuantity ?? 0;
        const fulfilled = ours.find((o) => o.externalId === l.lineExternalId)?.fulfilledQty ?? l.quantity;
        const onTheWay = unsent.filter((u) => u.externalId === l.lineExternalId).reduce((n, u) => n + u.quantity, 0);
        return theirs >= fulfilled - onTheWay;
      });
      if (done) externalId = 'already-at-channel';
    }
    if (!externalId) {
      const made = await connector.createFulfillment({
        orderExternalId: order.externalId,
        locationExternalId,
        lines,
        tracking: {
          company: row.carrier ?? undefined,
          number: row.trackingCode ?? undefined,
          url: row.trackingUrl ?? undefined,
        },
        notifyCustomer: true,
      });
      externalId = made.externalId;
    }
    const message = `Shipped at ${name} with tracking ${row.trackingCode}.`;
    await db
      .update(shipments)
      .set({
        writeBackStatus: 'ok',
        writeBackMessage: message,
        channelFulfillmentId: externalId,
        updatedAt: new Date(),
      })
      .where(eq(shipments.id, row.id));
    await recordWriteBack(db, row.accountId, order.id, key, message, 'ok');
    await recordSyncProgress(db, syncId, row.accountId, { succeeded: 1 });
    await finishSync(db, syncId, { message: `${item} fulfilled at ${CHANNEL_LABELS[channel.type]}.` });
  } catch (err) {
    const reason = err instanceof Error ? err.message.slice(0, 300) : 'failed';
    const retrying = !meta.final && !(err instanceof DomainError && err.code !== 'UPSTREAM_FAILED');
    const message = retrying
      ? `Sending the shipment to ${name} failed: ${reason}. Retrying.`
      : `Sending the shipment to ${name} failed: ${reason}. Add the tracking there by hand.`;
    await db
      .update(shipments)
      .set({ writeBackStatus: 'failed', writeBackMessage: message, updatedAt: new Date() })
      .where(eq(shipments.id, row.id));
    await recordWriteBack(db, row.accountId, order.id, key, message, 'failed');
    await recordSyncProgress(db, syncId, row.accountId, { succeeded: 0, failures: [{ label: item, error: reason }] });
    await finishSync(db, syncId, { error: reason });
    if (retrying) throw err;
  }
}
