// Processing a return, in the transaction that stored it (or a retry's): every item to restock goes back on hand
// at its return store as one ledger movement (reason `return`, the return as reference); units still reserved
// for the order line (never shipped) are given back to the store instead. Where the channel put the units back
// on its own stock, its report of that is met by a claim (inventory/claims.ts), so they count once
// (docs/decisions/0008). The outcome is FINISHED, SKIPPED (nothing to restock, and why) or ERROR (what to fix).

import { CHANNEL_LABELS, type ChannelSettings, DEFAULT_CHANNEL_SETTINGS, RETURN_MESSAGES } from '@switchyard/contracts';
import { and, eq, inArray } from 'drizzle-orm';
import type { Tx } from '../../db/client.ts';
import { channels } from '../channels/channels.tables.ts';
import { claimChannelMovement } from '../inventory/claims.ts';
import { applyMovements } from '../inventory/ledger.ts';
import { accountLocations } from '../locations/locations.read.ts';
import { recordReturnMetrics } from '../metrics/metrics.returns.ts';
import { locationResolver } from '../orders/ingest.ts';
import {
  findOrderForReturn,
  type OrderForReturn,
  orderForReturn,
  recordReturnOnOrder,
  releaseReturnedUnits,
} from '../orders/orders.refunds.ts';
import { listings, variants } from '../products/products.tables.ts';
import { refundedByLine } from './returns.refunded.ts';
import { returnItems, returns } from './returns.tables.ts';

export interface ProcessedReturn {
  status: string;
  /** Variants whose stock moved: their channels are pushed once the transaction commits. */
  variantIds: string[];
}

export interface ProcessBy {
  /** Who, for the order's timeline: a person's name, or the channel's. */
  actor: string;
  userId?: string | null;
}

export const formatMoney = (minor: number, currency: string) => {
  try {
    return new Intl.NumberFormat('en-US', { style: 'currency', currency }).format(minor / 100);
  } catch {
    return `${(minor / 100).toFixed(2)} ${currency}`;
  }
};

type ReturnRow = typeof returns.$inferSelect;
type ItemRow = typeof returnItems.$inferSelect;

/** Where the channel keeps a location of ours (its location map; Square's locations are our stores). */
export function channelLocationOf(
  channel: { type: string; settings: ChannelSettings | null },
  storeId: string | null,
): string | null {
  if (!storeId) return null;
  const map = channel.settings?.channel?.locationMap ?? [];
  const mapped = map.find((m) => m.storeId === storeId)?.externalLocationId;
  if (mapped) return mapped;
  return channel.type === 'square' ? storeId : null;
}

/**
 * Processes the return once: a FINISHED or SKIPPED return is left as it is; a PENDING or ERROR one is taken
 * (again). Call in the transaction that stored the return or asks to retry it.
 */
export async function processReturnInTx(
  tx: Tx,
  accountId: string,
  returnId: string,
  by: ProcessBy,
): Promise<ProcessedReturn> {
  const processed = await processReturn(tx, accountId, returnId, by);
  // The dashboard's returns follow the return in this transaction (issue 17).
  await recordReturnMetrics(tx, accountId, returnId);
  return processed;
}

async function processReturn(tx: Tx, accountId: string, returnId: string, by: ProcessBy): Promise<ProcessedReturn> {
  const [ret] = await tx
    .select()
    .from(returns)
    .where(and(eq(returns.id, returnId), eq(returns.accountId, accountId)))
    .for('update');
  if (!ret) return { status: 'missing', variantIds: [] };
  if (ret.status === 'FINISHED' || ret.status === 'SKIPPED') return { status: ret.status, variantIds: [] };
  const set = (status: ReturnRow['status'], message: string | null) =>
    tx
      .update(returns)
      .set({ status, message, processedAt: status === 'PENDING' ? null : new Date(), updatedAt: new Date() })
      .where(eq(returns.id, ret.id));
  if (ret.providerStatus === 'pending') {
    await set('PENDING', 'Waiting for the channel to complete the return.');
    return { status: 'PENDING', variantIds: [] };
  }
  if (ret.providerStatus === 'failed') {
    await set('SKIPPED', RETURN_MESSAGES.failedAtChannel);
    return { status: 'SKIPPED', variantIds: [] };
  }
  await set('PROCESSING', null);

  const [channel] = ret.channelId ? await tx.select().from(channels).where(eq(channels.id, ret.channelId)) : [];
  const settings: ChannelSettings = { ...DEFAULT_CHANNEL_SETTINGS, ...(channel?.settings ?? {}) };
  const ours = await accountLocations(tx, accountId);
  const resolve = locationResolver(settings, ours);
  const order = await orderOf(tx, accountId, ret);
  if (order && ret.orderId !== order.id) {
    await tx.update(returns).set({ orderId: order.id }).where(eq(returns.id, ret.id));
  }
  const items = await tx
    .select()
    .from(returnItems)
    .where(eq(returnItems.returnId, ret.id))
    .orderBy(returnItems.position);
  const skus = [...new Set(items.map((i) => i.sku).filter((s): s is string => !!s))];
  const found = skus.length
    ? await tx
        .select({ id: variants.id, sku: variants.sku })
        .from(variants)
        .where(and(eq(variants.accountId, accountId), inArray(variants.sku, skus)))
    : [];
  const variantOf = new Map(found.map((v) => [v.sku, v.id]));
  const channelName = channel?.name ?? 'the channel';

  // Every item is checked before anything moves: a return is restocked whole or not at all, so a retry after
  // the merchant's fix starts clean.
  const problems: string[] = [];
  const plan: { item: ItemRow; variantId: string | null; locationId: string | null; lineId: string | null }[] = [];
  for (const item of items) {
    const line = order?.lines.find(
      (l) =>
        (item.orderLineId && l.id === item.orderLineId) ||
        (item.lineExternalId && l.externalId === item.lineExternalId),
    );
    const lineId = line?.id ?? item.orderLineId ?? null;
    if (!item.restock || item.qty <= 0) {
      plan.push({ item, variantId: item.sku ? (variantOf.get(item.sku) ?? null) : null, locationId: null, lineId });
      continue;
    }
    const variantId = (item.sku ? variantOf.get(item.sku) : undefined) ?? line?.variantId ?? null;
    if (!variantId) problems.push(RETURN_MESSAGES.unknownSku(item.sku ?? line?.sku ?? null));
    let locationId = item.locationId;
    if (!locationId && item.locationExternalId) {
      locationId = resolve(item.locationExternalId)?.id ?? null;
      if (!locationId) problems.push(RETURN_MESSAGES.storeNotOurs(item.locationExternalId, channelName));
    } else if (!locationId) {
      // The channel did not say where (BigCommerce refunds): back where the line's units were taken from.
      locationId = line?.allocatedAt ?? resolve(line?.stockLocationExternalId)?.id ?? null;
      if (!locationId) problems.push(RETURN_MESSAGES.noStore(item.sku));
    }
    plan.push({ item, variantId, locationId, lineId });
  }
  if (problems.length > 0) {
    await set('ERROR', [...new Set(problems)].join(' '));
    return { status: 'ERROR', variantIds: [] };
  }

  const touched = new Set<string>();
  const source = channel?.type ?? 'switchyard';
  const notes: string[] = [];
  const nameOf = (id: string | null) => ours.find((l) => l.id === id)?.name ?? 'a location';
  for (const { item, variantId, locationId, lineId } of plan) {
    const label = item.sku ?? 'an item';
    if (!item.restock || item.qty <= 0 || !variantId || !locationId) {
      if (item.qty > 0) notes.push(`${item.qty} × ${label} not restocked.`);
      await tx.update(returnItems).set({ variantId, orderLineId: lineId }).where(eq(returnItems.id, item.id));
      continue;
    }
    const released = lineId
      ? (
          await releaseReturnedUnits(tx, accountId, {
            lineId,
            qty: item.qty,
            key: `return:${item.id}`,
            reference: ret.id,
          })
        ).released
      : 0;
    const restocked = item.qty - released;
    if (restocked > 0) {
      await applyMovements(tx, accountId, [
        {
          variantId,
          locationId,
          delta: restocked,
          reason: 'return',
          source,
          reference: ret.id,
          idempotencyKey: `return:${item.id}`,
          userId: by.userId ?? null,
        },
      ]);
    }
    touched.add(variantId);
    if (item.channelRestocked && channel && item.locationExternalId) {
      if (await claimRestock(tx, accountId, channel.id, ret, item, variantId, locationId)) touched.add(variantId);
    }
    await tx
      .update(returnItems)
      .set({ variantId, locationId, orderLineId: lineId, restocked, released })
      .where(eq(returnItems.id, item.id));
    notes.push(
      released > 0
        ? `${item.qty} × ${label} back at ${nameOf(locationId)} (${released} never shipped, released).`
        : `${item.qty} × ${label} back on hand at ${nameOf(locationId)}.`,
    );
  }
  const restockedAny = plan.some((p) => p.item.restock && p.item.qty > 0);
  const status = restockedAny ? 'FINISHED' : 'SKIPPED';
  await set(
    status,
    restockedAny ? null : items.length === 0 ? RETURN_MESSAGES.moneyOnly : RETURN_MESSAGES.nothingToRestock,
  );
  if (order) await recordOnOrder(tx, accountId, order, ret, notes, by);
  return { status, variantIds: [...touched] };
}

/** The return's order: the one it names, else the channel's order of that id (imported since, perhaps). */
async function orderOf(tx: Tx, accountId: string, ret: ReturnRow): Promise<OrderForReturn | null> {
  if (ret.orderId) return orderForReturn(tx, accountId, ret.orderId);
  if (ret.channelId && ret.orderExternalId)
    return findOrderForReturn(tx, accountId, ret.channelId, ret.orderExternalId);
  return null;
}

/**
 * The channel put the returned units back on its own stock: its +q report is met (absorbed if it comes later,
 * reversed if it was counted first), once per item.
 */
export async function claimRestock(
  tx: Tx,
  accountId: string,
  channelId: string,
  ret: Pick<ReturnRow, 'id' | 'providerUpdatedAt' | 'providerCreatedAt'>,
  item: Pick<ItemRow, 'id' | 'qty' | 'locationExternalId'>,
  variantId: string,
  locationId: string,
  at?: Date,
): Promise<boolean> {
  if (!item.locationExternalId || item.qty <= 0) return false;
  const [listing] = await tx
    .select({ inventoryItemId: listings.inventoryItemId })
    .from(listings)
    .where(and(eq(listings.channelId, channelId), eq(listings.variantId, variantId)));
  if (!listing?.inventoryItemId) return false;
  const result = await claimChannelMovement(tx, accountId, {
    channelId,
    variantId,
    externalLocationId: item.locationExternalId,
    inventoryItemId: listing.inventoryItemId,
    locationId,
    qty: item.qty,
    at: at ?? ret.providerCreatedAt ?? ret.providerUpdatedAt ?? new Date(),
    key: `${item.id}:channel-restock`,
    reference: ret.id,
    reason: 'return',
  });
  return result.reversed !== 0;
}

/** The order's lines refunded up to what all its processed returns brought back, and a timeline entry. */
async function recordOnOrder(
  tx: Tx,
  accountId: string,
  order: OrderForReturn,
  ret: ReturnRow,
  notes: string[],
  by: ProcessBy,
) {
  const refunded = await refundedByLine(tx, accountId, order.id);
  const what = ret.source === 'switchyard' ? 'Return' : `Return ${ret.receiptNumber ?? ret.externalId}`;
  const from = ret.source === 'switchyard' ? '' : ` at ${CHANNEL_LABELS[(await channelType(tx, ret)) ?? 'shopify']}`;
  const refund = ret.total > 0 ? ` Refund ${formatMoney(ret.total, ret.currency)}.` : '';
  await recordReturnOnOrder(tx, accountId, order.id, {
    refunded: [...refunded].map(([lineId, qty]) => ({ lineId, qty })),
    message: `${what}${from}: ${notes.length ? notes.join(' ') : 'no items.'}${refund}`,
    actor: by.actor,
    userId: by.userId ?? null,
  });
}

async function channelType(tx: Tx, ret: ReturnRow) {
  if (!ret.channelId) return null;
  const [row] = await tx.select({ type: channels.type }).from(channels).where(eq(channels.id, ret.channelId));
  return row?.type ?? null;
}
