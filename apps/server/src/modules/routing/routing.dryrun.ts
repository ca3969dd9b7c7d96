// Dry runs and replays: the engine over an order (or a typed-in one) and over the last N routed orders, with
// stock as it is now and nothing reserved. Each order sees what is available plus what it holds itself (so an
// order is not kept from its own units); replayed orders do not take stock from each other.
import {
  DryRunInput,
  type DryRunResult,
  HypotheticalOrder,
  ReplayInput,
  type ReplayMetrics,
  type ReplaySummary,
  ROUTING_MESSAGES,
  type RoutingRule,
} from '@switchyard/contracts';
import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { DomainError } from '../../lib/errors.ts';
import type { Actor } from '../../trpc/context.ts';
import { channels } from '../channels/channels.tables.ts';
import { readAvailable } from '../inventory/reservations.ts';
import { orderAllocations, orderLines, orders } from '../orders/orders.tables.ts';
import { products, variants } from '../products/products.tables.ts';
import { route } from './engine.ts';
import type { EngineLine, EngineLocation, EngineOrder } from './engine.types.ts';
import { countryCode, distanceKm, placePostalCode } from './geo.ts';
import { resolveRuleSet } from './routing.rules.ts';
import { engineLocations } from './routing.service.ts';
import { routingDecisions } from './routing.tables.ts';

type OrderRow = typeof orders.$inferSelect;
type Allocation = Pick<
  typeof orderAllocations.$inferSelect,
  'orderId' | 'lineId' | 'locationId' | 'quantity' | 'status' | 'reserved' | 'variantId'
>;

const HELD = new Set([1, 2]);
const PLACED = new Set([1, 2, 3]);

async function itemFacts(db: Db, accountId: string, variantIds: string[]) {
  const out = new Map<string, { brand: string | null; productType: string | null; price: number; sku: string }>();
  const ids = [...new Set(variantIds)];
  for (let i = 0; i < ids.length; i += 5000) {
    const rows = await db
      .select({
        id: variants.id,
        sku: variants.sku,
        price: variants.price,
        brand: products.brand,
        productType: products.productType,
      })
      .from(variants)
      .innerJoin(products, eq(products.id, variants.productId))
      .where(and(eq(variants.accountId, accountId), inArray(variants.id, ids.slice(i, i + 5000))));
    for (const r of rows) out.set(r.id, r);
  }
  return out;
}

/** An order's header as the engine sees it (its channel, destination, value); re-routes read it the same way. */
export function orderHeader(
  order: OrderRow,
  channel: { name: string; type: EngineOrder['channelType'] } | undefined,
): Omit<EngineOrder, 'lines'> {
  const ship = order.shippingAddress ?? {};
  return {
    channelId: order.channelId,
    channelName: channel?.name ?? null,
    channelType: channel?.type ?? null,
    fulfillmentType: order.fulfillmentType,
    pickupLocationId: order.pickupLocationId,
    channelLocationId: null,
    country: countryCode(ship.country ?? null),
    region: ship.province ?? null,
    postalCode: ship.zip ?? null,
    total: order.total,
    currency: order.currency,
  };
}

/** Levels by variant then location (no key strings to build per look-up: a replay looks up millions). */
type Levels = Map<string, Map<string, number>>;
function nest(flat: Map<string, number>): Levels {
  const out: Levels = new Map();
  for (const [key, n] of flat) {
    const [v, l] = key.split('|') as [string, string];
    const row = out.get(v) ?? new Map<string, number>();
    if (!out.has(v)) out.set(v, row);
    row.set(l, n);
  }
  return out;
}

/** Available as this order would see it: now, plus what it holds itself. */
function availableFor(now: Levels, own: Allocation[]) {
  const back: Levels = new Map();
  for (const a of own) {
    if (!a.variantId || !a.locationId || a.reserved <= 0) continue;
    const row = back.get(a.variantId) ?? new Map<string, number>();
    if (!back.has(a.variantId)) back.set(a.variantId, row);
    row.set(a.locationId, (row.get(a.locationId) ?? 0) + a.reserved);
  }
  return (v: string, l: string) => (now.get(v)?.get(l) ?? 0) + (back.get(v)?.get(l) ?? 0);
}

/** Routes an order, or a typed-in one, by the live, a saved or a draft rule set; reserves nothing. */
export async function dryRun(db: Db, actor: Pick<Actor, 'accountId'>, raw: unknown): Promise<DryRunResult> {
  const input = DryRunInput.parse(raw);
  const rules = await resolveRuleSet(db, actor, input.ruleSet);
  const locations = await engineLocations(db, actor.accountId);
  if ('orderId' in input.order) {
    const orderId = input.order.orderId;
    const [row] = await db
      .select({ order: orders, channelName: channels.name, channelType: channels.type })
      .from(orders)
      .leftJoin(channels, eq(channels.id, orders.channelId))
      .where(and(eq(orders.accountId, actor.accountId), eq(orders.id, orderId)));
    if (!row) throw new DomainError('NOT_FOUND', ROUTING_MESSAGES.orderNotFound);
    const lines = await db
      .select()
      .from(orderLines)
      .where(eq(orderLines.orderId, orderId))
      .orderBy(orderLines.position);
    const allocations = await db.select().from(orderAllocations).where(eq(orderAllocations.orderId, orderId));
    const known = lines.filter((l) => l.variantId && l.quantity - l.cancelledQty - l.refundedQty > 0);
    const facts = await itemFacts(
      db,
      actor.accountId,
      known.map((l) => l.variantId as string),
    );
    const now = nest(
      await readAvailable(
        db,
        actor.accountId,
        known.map((l) => l.variantId as string),
      ),
    );
    const engineLines: EngineLine[] = known.map((l) => ({
      id: l.id,
      sku: l.sku,
      title: l.title,
      variantId: l.variantId as string,
      quantity: l.quantity - l.cancelledQty - l.refundedQty,
      brand: facts.get(l.variantId as string)?.brand ?? null,
      productType: facts.get(l.variantId as string)?.productType ?? null,
    }));
    const channel = row.channelName && row.channelType ? { name: row.channelName, type: row.channelType } : undefined;
    const plan = route({
      order: { ...orderHeader(row.order, channel), lines: engineLines },
      locations,
      available: availableFor(now, allocations),
      rules: rules.rules,
      ruleSetVersion: rules.version ?? -1,
    });
    return {
      trace: plan.trace,
      current: allocations.map((a) => ({
        lineId: a.lineId,
        locationId: a.locationId,
        quantity: a.quantity,
        status: a.status,
      })),
    };
  }
  const h = HypotheticalOrder.parse(input.order.hypothetical);
  let channel: { name: string; type: EngineOrder['channelType'] } | undefined;
  if (h.channelId) {
    const [c] = await db
      .select({ name: channels.name, type: channels.type })
      .from(channels)
      .where(and(eq(channels.accountId, actor.accountId), eq(channels.id, h.channelId)));
    if (!c) throw new DomainError('NOT_FOUND', 'Channel not found');
    channel = c;
  }
  if (h.pickupLocationId && !locations.some((l) => l.id === h.pickupLocationId))
    throw new DomainError('NOT_FOUND', 'Location not found');
  const skus = [...new Set(h.lines.map((l) => l.sku))];
  const found = await db
    .select({ id: variants.id, sku: variants.sku })
    .from(variants)
    .where(and(eq(variants.accountId, actor.accountId), inArray(variants.sku, skus)));
  const bySku = new Map(found.map((v) => [v.sku, v.id]));
  const missing = skus.find((s) => !bySku.has(s));
  if (missing) throw new DomainError('VALIDATION', ROUTING_MESSAGES.unknownSku(missing));
  const variantIds = h.lines.map((l) => bySku.get(l.sku) as string);
  const facts = await itemFacts(db, actor.accountId, variantIds);
  const now = nest(await readAvailable(db, actor.accountId, variantIds));
  const lines: EngineLine[] = h.lines.map((l, i) => {
    const v = bySku.get(l.sku) as string;
    return {
      id: `line-${i + 1}`,
      sku: l.sku,
      title: l.sku,
      variantId: v,
      quantity: l.quantity,
      brand: facts.get(v)?.brand ?? null,
      productType: facts.get(v)?.productType ?? null,
    };
  });
  const total =
    h.total ?? h.lines.reduce((s, l) => s + (facts.get(bySku.get(l.sku) as string)?.price ?? 0) * l.quantity, 0);
  const plan = route({
    order: {
      channelId: h.channelId,
      channelName: channel?.name ?? null,
      channelType: channel?.type ?? null,
      fulfillmentType: h.fulfillmentType,
      pickupLocationId: h.pickupLocationId,
      channelLocationId: null,
      country: countryCode(h.country),
      region: h.region,
      postalCode: h.postalCode,
      total,
      currency: 'USD',
      lines,
    },
    locations,
    available: (v, l) => now.get(v)?.get(l) ?? 0,
    rules: rules.rules,
    ruleSetVersion: rules.version ?? -1,
  });
  return { trace: plan.trace, current: null };
}

interface Tally {
  orders: number;
  shipments: number;
  split: number;
  distance: number;
  measured: number;
  unplaced: number;
}
const emptyTally = (): Tally => ({ orders: 0, shipments: 0, split: 0, distance: 0, measured: 0, unplaced: 0 });
const metricsOf = (t: Tally): ReplayMetrics => ({
  orders: t.orders,
  shipments: t.shipments,
  shipmentsPerOrder: t.orders ? Math.round((t.shipments / t.orders) * 1000) / 1000 : 0,
  splitRate: t.orders ? Math.round((t.split / t.orders) * 1000) / 1000 : 0,
  avgDistanceKm: t.measured ? Math.round((t.distance / t.measured) * 10) / 10 : null,
  unplacedLines: t.unplaced,
});

function tallyOrder(
  t: Tally,
  shipTo: string[],
  unplacedLines: number,
  dest: { latitude: number; longitude: number } | null,
  byId: Map<string, EngineLocation>,
) {
  t.orders++;
  t.shipments += shipTo.length;
  if (shipTo.length > 1) t.split++;
  t.unplaced += unplacedLines;
  if (!dest) return;
  for (const id of shipTo) {
    const l = byId.get(id);
    if (l?.latitude == null || l.longitude == null) continue;
    t.distance += distanceKm(dest, { latitude: l.latitude, longitude: l.longitude });
    t.measured++;
  }
}

/**
 * Runs a rule set (usually a draft) over the last N routed orders and compares it with what happened: shipments
 * per order, split rate, average distance, lines that could not be placed.
 */
export async function replay(db: Db, actor: Pick<Actor, 'accountId'>, raw: unknown): Promise<ReplaySummary> {
  const started = performance.now();
  const input = ReplayInput.parse(raw);
  const rules: { version: number | null; rules: RoutingRule[] } = await resolveRuleSet(db, actor, input.ruleSet);
  const locations = await engineLocations(db, actor.accountId);
  const byId = new Map(locations.map((l) => [l.id, l]));
  const routed = db
    .select({ id: orders.id })
    .from(orders)
    .where(
      and(
        eq(orders.accountId, actor.accountId),
        sql`${orders.status} <> 7`,
        sql`exists (select 1 from ${routingDecisions} d where d.order_id = ${orders.id} and d.kind = 'initial')`,
      ),
    )
    .orderBy(desc(orders.placedAt), desc(orders.id))
    .limit(input.limit)
    .as('routed');
  const orderRows = await db
    .select({ order: orders, channelName: channels.name, channelType: channels.type })
    .from(orders)
    .innerJoin(routed, eq(routed.id, orders.id))
    .leftJoin(channels, eq(channels.id, orders.channelId));
  const ids = orderRows.map((r) => r.order.id);
  const lines: (typeof orderLines.$inferSelect)[] = [];
  const allocations: Allocation[] = [];
  for (let i = 0; i < ids.length; i += 2000) {
    const chunk = ids.slice(i, i + 2000);
    lines.push(...(await db.select().from(orderLines).where(inArray(orderLines.orderId, chunk))));
    allocations.push(
      ...(await db
        .select({
          orderId: orderAllocations.orderId,
          lineId: orderAllocations.lineId,
          locationId: orderAllocations.locationId,
          quantity: orderAllocations.quantity,
          status: orderAllocations.status,
          reserved: orderAllocations.reserved,
          variantId: orderAllocations.variantId,
        })
        .from(orderAllocations)
        .where(inArray(orderAllocations.orderId, chunk))),
    );
  }
  const linesOf = new Map<string, typeof lines>();
  for (const l of lines) linesOf.set(l.orderId, [...(linesOf.get(l.orderId) ?? []), l]);
  const allocsOf = new Map<string, Allocation[]>();
  for (const a of allocations) allocsOf.set(a.orderId, [...(allocsOf.get(a.orderId) ?? []), a]);
  const variantIds = lines.filter((l) => l.variantId).map((l) => l.variantId as string);
  const facts = await itemFacts(db, actor.accountId, variantIds);
  const now = nest(await readAvailable(db, actor.accountId, variantIds));

  const actual = emptyTally();
  const draft = emptyTally();
  let changed = 0;
  const examples: ReplaySummary['examples'] = [];
  for (const { order, channelName, channelType } of orderRows) {
    const own = allocsOf.get(order.id) ?? [];
    const orderLinesOf = (linesOf.get(order.id) ?? []).filter(
      (l) => l.variantId && l.quantity - l.cancelledQty - l.refundedQty > 0,
    );
    if (orderLinesOf.length === 0) continue;
    const header = orderHeader(
      order,
      channelName && channelType ? { name: channelName, type: channelType } : undefined,
    );
    const dest = placePostalCode(header.postalCode, header.country).point;
    const was = [
      ...new Set(own.filter((a) => PLACED.has(a.status) && a.locationId).map((a) => a.locationId as string)),
    ].sort();
    const wasUnplaced = new Set(own.filter((a) => !PLACED.has(a.status)).map((a) => a.lineId)).size;
    tallyOrder(actual, was, wasUnplaced, dest, byId);
    const plan = route({
      order: {
        ...header,
        lines: orderLinesOf.map((l) => ({
          id: l.id,
          sku: l.sku,
          title: l.title,
          variantId: l.variantId as string,
          quantity: l.quantity - l.cancelledQty - l.refundedQty,
          brand: facts.get(l.variantId as string)?.brand ?? null,
          productType: facts.get(l.variantId as string)?.productType ?? null,
        })),
      },
      locations,
      available: availableFor(
        now,
        own.filter((a) => HELD.has(a.status)),
      ),
      rules: rules.rules,
      ruleSetVersion: rules.version ?? -1,
      explain: false,
    });
    const would = [...new Set(plan.placements.map((p) => p.locationId))].sort();
    tallyOrder(draft, would, plan.unplaced.length, dest, byId);
    if (would.join() !== was.join()) {
      changed++;
      if (examples.length < 20)
        examples.push({
          orderId: order.id,
          number: order.number,
          actual: was.map((id) => byId.get(id)?.name ?? id),
          draft: would.map((id) => byId.get(id)?.name ?? id),
        });
    }
  }
  return {
    ruleSetVersion: rules.version,
    orders: actual.orders,
    actual: metricsOf(actual),
    draft: metricsOf(draft),
    changedOrders: changed,
    examples,
    tookMs: Math.round(performance.now() - started),
  };
}
