// Test fixtures of the order side: a tenant with locations, a catalog, and channels whose stock rows say they
// hold what we hold (as after a push), plus builders for channel orders and channel stock reports.
import { type ChannelType, DEFAULT_CHANNEL_SETTINGS, DEFAULT_FEATURES } from '@switchyard/contracts';
import { and, eq, sql } from 'drizzle-orm';
import { createSignedInAccount } from '../../../test/factories.ts';
import type { ProviderOrder } from '../../connectors/types.ts';
import { newId } from '../../lib/ids.ts';
import type { Services } from '../../services.ts';
import { channels } from '../channels/channels.tables.ts';
import { applyChannelReports, type ChannelReport } from '../inventory/inbound.ts';
import { channelStock, inventoryLevels } from '../inventory/inventory.tables.ts';
import { applyMovements } from '../inventory/ledger.ts';
import { locations } from '../locations/locations.tables.ts';
import { listings, products, variants } from '../products/products.tables.ts';
import type { IngestChannel } from './ingest.ts';
import { orderAllocations } from './orders.tables.ts';

export interface OrderWorld {
  accountId: string;
  headers: Record<string, string>;
  /** Our locations by store id. */
  location: Record<string, string>;
  /** Variant ids by SKU. */
  variant: Record<string, string>;
  channel: Record<ChannelType, IngestChannel & { row: typeof channels.$inferSelect }>;
}

/**
 * Stores S1 (priority 0) and S2 (priority 1), both shipping; SKUs with `stock` units at S1 and S2 each. Three
 * live channels: Shopify and BigCommerce map their location `ext-S1` to S1 and `ext-S2` to S2; Square's
 * locations are our stores (S1, S2). Every channel holds what we hold, as after an acknowledged push.
 */
export async function orderWorld(services: Services, skus: string[], stock: number): Promise<OrderWorld> {
  const { accountId, headers } = await createSignedInAccount(services);
  const db = services.db;
  const location: Record<string, string> = {};
  for (const [i, storeId] of ['S1', 'S2'].entries()) {
    location[storeId] = newId('loc');
    await db.insert(locations).values({
      id: location[storeId],
      accountId,
      name: `Store ${storeId}`,
      storeId,
      priority: i,
      ships: true,
      pickup: true,
    });
  }
  const productId = newId('prd');
  await db.insert(products).values({ id: productId, accountId, title: 'Trail Tee' });
  const variant: Record<string, string> = {};
  for (const sku of skus) {
    variant[sku] = newId('var');
    await db.insert(variants).values({ id: variant[sku], accountId, productId, sku });
  }
  await db.transaction((tx) =>
    applyMovements(
      tx,
      accountId,
      skus.flatMap((sku) =>
        Object.values(location).map((locationId) => ({
          variantId: variant[sku] as string,
          locationId,
          setTo: stock,
          reason: 'count' as const,
          source: 'manual',
        })),
      ),
    ),
  );
  const channel = {} as OrderWorld['channel'];
  for (const type of ['shopify', 'bigcommerce', 'square'] as const) {
    const id = newId('chn');
    const external = (store: string) => (type === 'square' ? store : `ext-${store}`);
    const settings = {
      ...DEFAULT_CHANNEL_SETTINGS,
      channel: {
        ...DEFAULT_CHANNEL_SETTINGS.channel,
        locationMap: ['S1', 'S2'].map((s) => ({
          externalLocationId: external(s),
          externalName: s,
          storeId: s,
          feeds: true,
        })),
      },
    };
    const [row] = await db
      .insert(channels)
      .values({
        id,
        accountId,
        type,
        name: `${type} shop`,
        status: 'connected',
        externalId: `${id}.example`,
        features: DEFAULT_FEATURES,
        settings,
      })
      .returning();
    channel[type] = { id, accountId, type, name: `${type} shop`, settings, row: row as typeof channels.$inferSelect };
    const pushedAt = new Date(Date.now() - 60_000);
    for (const sku of skus) {
      await db.insert(listings).values({
        id: newId('lst'),
        accountId,
        channelId: id,
        variantId: variant[sku] as string,
        externalVariantId: `${type}-v-${sku}`,
        inventoryItemId: `${type}-item-${sku}`,
        syncStatusCode: 1,
      });
      for (const s of ['S1', 'S2']) {
        await db.insert(channelStock).values({
          accountId,
          channelId: id,
          variantId: variant[sku] as string,
          externalLocationId: external(s),
          locationId: location[s],
          inventoryItemId: `${type}-item-${sku}`,
          pushedQty: stock,
          pushedAt,
        });
      }
    }
  }
  return { accountId, headers, location, variant, channel };
}

let orderSeq = 0;

/** A channel order as a connector maps it: one line per SKU, taken from the channel's own stock at `store`. */
export function channelOrder(
  _world: OrderWorld,
  type: ChannelType,
  lines: Record<string, number>,
  options: Partial<ProviderOrder> & { store?: string; at?: Date; stockMoved?: boolean } = {},
): ProviderOrder {
  const n = ++orderSeq;
  const at = (options.at ?? new Date()).toISOString();
  const store = options.store ?? 'S1';
  const external = type === 'square' ? store : `ext-${store}`;
  const { store: _s, at: _a, stockMoved, ...rest } = options;
  return {
    externalId: `${type}-order-${n}-${Math.random().toString(36).slice(2, 8)}`,
    name: `#${1000 + n}`,
    createdAt: at,
    updatedAt: at,
    currency: 'USD',
    total: Object.values(lines).reduce((s, q) => s + q * 2500, 0),
    financialStatus: 'paid',
    fulfillmentStatus: null,
    cancelled: false,
    locationExternalId: type === 'square' ? store : null,
    fulfillmentType: 'ship',
    customer: { name: 'Ada Lovelace', email: 'ada@example.com' },
    shippingAddress: { name: 'Ada Lovelace', address1: '1 Main St', city: 'Portland', zip: '97201', country: 'US' },
    lines: Object.entries(lines).map(([sku, quantity], i) => ({
      externalId: `line-${n}-${i}`,
      sku,
      variantExternalId: null,
      title: `Trail Tee ${sku}`,
      quantity,
      price: 2500,
      stockLocationExternalId: stockMoved === false ? null : external,
    })),
    ...rest,
  };
}

/** The channel's stock webhook: what it holds of `sku` at `store` now, at provider time `at`. */
export function report(
  _world: OrderWorld,
  type: ChannelType,
  sku: string,
  quantity: number,
  at: Date,
  store = 'S1',
): ChannelReport {
  return {
    inventoryItemId: `${type}-item-${sku}`,
    externalLocationId: type === 'square' ? store : `ext-${store}`,
    quantity,
    at,
    key: `evt-${Math.random().toString(36).slice(2)}`,
  };
}

export const sendReports = (services: Services, world: OrderWorld, type: ChannelType, reports: ChannelReport[]) =>
  applyChannelReports(services, world.channel[type].row, reports);

export async function level(services: Services, world: OrderWorld, sku: string, store = 'S1') {
  const [row] = await services.db
    .select({ onHand: inventoryLevels.onHand, reserved: inventoryLevels.reserved })
    .from(inventoryLevels)
    .where(
      and(
        eq(inventoryLevels.variantId, world.variant[sku] as string),
        eq(inventoryLevels.locationId, world.location[store] as string),
      ),
    );
  return row ?? { onHand: 0, reserved: 0 };
}

/** The ledger invariant: every level's reserved is the sum of its open allocations, and no more than on hand. */
export async function invariantViolations(services: Services, accountId: string): Promise<string[]> {
  const rows = await services.db.execute<{
    variant_id: string;
    location_id: string;
    reserved: number;
    held: number;
    on_hand: number;
  }>(sql`
    select l.variant_id, l.location_id, l.reserved, l.on_hand, coalesce(sum(a.reserved), 0)::int as held
    from ${inventoryLevels} l
    left join ${orderAllocations} a on a.variant_id = l.variant_id and a.location_id = l.location_id and a.account_id = l.account_id
    where l.account_id = ${accountId}
    group by l.variant_id, l.location_id, l.reserved, l.on_hand`);
  const list = (rows as unknown as { rows?: typeof rows }).rows ?? rows;
  return (
    list as unknown as { variant_id: string; location_id: string; reserved: number; held: number; on_hand: number }[]
  )
    .filter((r) => r.reserved !== r.held || r.reserved > r.on_hand)
    .map(
      (r) => `${r.variant_id}@${r.location_id}: reserved ${r.reserved}, held by orders ${r.held}, on hand ${r.on_hand}`,
    );
}
