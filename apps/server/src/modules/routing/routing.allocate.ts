// A routing decision made for real, inside the caller's transaction (an order's import, a re-route): lock the
// candidate levels (by variant, then location), read what they have under the lock, run the engine, reserve
// what it chose and record the decision with its trace. Nothing is read outside the lock, so two orders can
// never both be promised the last unit (docs/decisions/0009-order-routing.md).
import type { DecisionKind, DecisionTrace, RoutingRule } from '@switchyard/contracts';
import { and, eq, inArray } from 'drizzle-orm';
import type { Tx } from '../../db/client.ts';
import { insertRows } from '../../db/insert-rows.ts';
import { newId } from '../../lib/ids.ts';
import type { DeferredLedger } from '../inventory/ledger.deferred.ts';
import { lockAvailable, reserveAt } from '../inventory/reservations.ts';
import { insertAllocations, updateAllocation } from '../orders/orders.allocations.ts';
import type { TimelineInput } from '../orders/orders.timeline.ts';
import { products, variants } from '../products/products.tables.ts';
import { route } from './engine.ts';
import type { EngineLine, EngineLocation, EngineOrder, Placement, Unplaced } from './engine.types.ts';
import { liveRuleSet } from './routing.rules.ts';
import { engineLocations } from './routing.service.ts';
import { routingDecisions } from './routing.tables.ts';

export interface RouteLine {
  id: string;
  sku: string | null;
  title: string;
  variantId: string;
  quantity: number;
}

export interface RouteRequest {
  orderId: string;
  order: Omit<EngineOrder, 'lines'>;
  lines: RouteLine[];
  kind: DecisionKind;
  actor?: string | null;
  userId?: string | null;
  /** Locations left out (stores that said no to these lines). */
  without?: string[];
  /** The account's locations, when the caller has them. */
  locations?: EngineLocation[];
  /** The rules to use (tests); default: the live set. */
  rules?: { version: number; rules: RoutingRule[] };
  /** Brand and product type of variants read before in this transaction (filled with what is read here). */
  facts?: Map<string, ItemFacts>;
  /** A batch of imports that holds every level it routes locked: reserved and recorded with its writes. */
  deferred?: DeferredRouting;
}

/**
 * What a batch of imports keeps of its routing until its end (orders/ingest.ts): the reservations, in its
 * kept ledger (whose view of the locked levels routing decides on), and the decisions, written by
 * `writeDecisions`.
 */
export interface DeferredRouting {
  ledger: DeferredLedger;
  decisions: (typeof routingDecisions.$inferInsert)[];
}

/** A batch's kept decisions, in one statement. */
export async function writeDecisions(tx: Tx, deferred: DeferredRouting) {
  const rows = deferred.decisions.splice(0);
  if (rows.length > 0) await insertRows(tx, routingDecisions, rows);
}

export type ItemFacts = { brand: string | null; productType: string | null };

export interface RoutedPlacement extends Placement {
  /** The ledger key this reservation was made under (`reserve:<key>`). */
  key: string;
}

/** The allocation row of a placement: its units reserved at its store, under the placement's ledger key. */
export const reservedAllocation = (p: RoutedPlacement, lineId: string = p.lineId) => ({
  id: p.key,
  lineId,
  variantId: p.variantId,
  locationId: p.locationId,
  quantity: p.quantity,
  status: 1,
  reserved: p.quantity,
  reason: null,
});

/**
 * An allocation follows its line's new placements: the row takes the first store, with its units reserved there
 * (`reason` on it), and further stores (a split) get rows of their own. Answers the ids of the rows added.
 */
export async function placeAllocation(
  tx: Tx,
  accountId: string,
  orderId: string,
  allocation: { id: string; lineId: string },
  [first, ...rest]: RoutedPlacement[],
  reason: string,
): Promise<string[]> {
  if (!first) return [];
  await updateAllocation(tx, allocation.id, {
    locationId: first.locationId,
    quantity: first.quantity,
    status: 1,
    reserved: first.quantity,
    reason: reason.slice(0, 1000),
  });
  await insertAllocations(
    tx,
    accountId,
    orderId,
    rest.map((p) => reservedAllocation(p, allocation.lineId)),
  );
  return rest.map((p) => p.key);
}

export interface Routed {
  decisionId: string;
  placements: RoutedPlacement[];
  unplaced: Unplaced[];
  trace: DecisionTrace;
  timeline: TimelineInput[];
  locations: EngineLocation[];
}

/** What routing reads before it decides: the account's locations and its live rules. */
export interface RoutingInputs {
  locations: EngineLocation[];
  rules: { version: number; rules: RoutingRule[] };
  facts: Map<string, ItemFacts>;
}

/**
 * Routing's inputs, for a caller that routes several orders in one transaction (a batch of imports): read once
 * and passed to each `routeAndReserve`, which is what each would have read in that transaction.
 */
export async function routingInputs(
  tx: Tx,
  accountId: string,
  variantIds: string[] = [],
  /** What the caller read already in this transaction: the locations, and facts of some variants. */
  known: { locations?: EngineLocation[]; facts?: Map<string, ItemFacts> } = {},
): Promise<RoutingInputs> {
  const facts = new Map<string, ItemFacts>(known.facts);
  // The facts of every variant the caller will route, in one read rather than one per order.
  if (variantIds.length > 0) await itemFacts(tx, accountId, variantIds, facts);
  return {
    locations: known.locations ?? (await engineLocations(tx, accountId)),
    rules: await liveRuleSet(tx, accountId),
    facts,
  };
}

/** Brand and product type of each variant, for item conditions (those in `known` are not read again). */
async function itemFacts(tx: Tx, accountId: string, variantIds: string[], known?: Map<string, ItemFacts>) {
  const missing = known ? variantIds.filter((id) => !known.has(id)) : variantIds;
  const out = new Map<string, ItemFacts>(
    known
      ? variantIds.flatMap((id) => {
          const f = known.get(id);
          return f ? [[id, f] as const] : [];
        })
      : [],
  );
  if (missing.length === 0) return out;
  const rows = await tx
    .select({ id: variants.id, brand: products.brand, productType: products.productType })
    .from(variants)
    .innerJoin(products, eq(products.id, variants.productId))
    .where(and(eq(variants.accountId, accountId), inArray(variants.id, missing)));
  for (const r of rows) {
    const f = { brand: r.brand, productType: r.productType };
    out.set(r.id, f);
    known?.set(r.id, f);
  }
  return out;
}

/**
 * Locks the levels of these variants at every location of the account, one variant after the other (the order
 * every reserve takes). Call it for each line right after that line's channel claim, so an import locks as it
 * always did: claim v1, levels of v1, claim v2, levels of v2.
 */
export async function lockLevelsFor(tx: Tx, accountId: string, variantIds: string[], locationIds: string[]) {
  return lockAvailable(tx, accountId, variantIds, locationIds);
}

/**
 * Routes lines and reserves the plan (see the top of this file). Writes the decision; the caller writes the
 * allocation rows from `placements` / `unplaced` (each placement's `key` is its allocation id) and the timeline.
 */
export async function routeAndReserve(tx: Tx, accountId: string, req: RouteRequest): Promise<Routed> {
  const locations = req.locations ?? (await engineLocations(tx, accountId));
  const rules = req.rules ?? (await liveRuleSet(tx, accountId));
  const variantIds = [...new Set(req.lines.map((l) => l.variantId))].sort();
  const available = req.deferred
    ? await req.deferred.ledger.available()
    : await lockAvailable(
        tx,
        accountId,
        variantIds,
        locations.map((l) => l.id),
      );
  const facts = await itemFacts(tx, accountId, variantIds, req.facts);
  const lines: EngineLine[] = req.lines.map((l) => ({
    ...l,
    brand: facts.get(l.variantId)?.brand ?? null,
    productType: facts.get(l.variantId)?.productType ?? null,
  }));
  const plan = route({
    order: { ...req.order, lines },
    locations,
    available: (v, loc) => available.get(`${v}|${loc}`) ?? 0,
    rules: rules.rules,
    ruleSetVersion: rules.version,
    without: req.without,
  });
  const decisionId = newId('rdc');
  const placements: RoutedPlacement[] = [];
  const nameOf = (id: string) => locations.find((l) => l.id === id)?.name ?? 'a location';
  const labelOf = new Map(req.lines.map((l) => [l.id, l.sku ?? l.title]));
  const timeline: TimelineInput[] = [];
  // Placements in (variant, location) order: the levels are locked already; this keeps the ledger's own
  // per-movement locks in the same order too.
  const ordered = [...plan.placements].sort((a, b) =>
    a.variantId === b.variantId ? (a.locationId < b.locationId ? -1 : 1) : a.variantId < b.variantId ? -1 : 1,
  );
  for (const p of ordered) placements.push({ ...p, key: newId('oal') });
  // The engine read `available` under these very locks: a refusal here is a bug, not a race.
  if (!(await reserveAt(tx, accountId, placements, req.orderId, req.userId ?? null, available, req.deferred?.ledger)))
    throw new Error(`routing: the plan of order ${req.orderId} no longer fits the locked levels`);
  const ruleOf = new Map(plan.trace.lines.map((l) => [l.lineId, l.ruleName]));
  for (const p of plan.placements) {
    const rule = ruleOf.get(p.lineId);
    timeline.push({
      kind: 'allocated',
      message: `${p.quantity} × ${labelOf.get(p.lineId)} reserved at ${nameOf(p.locationId)}${rule ? ` (rule "${rule}")` : ''}.`,
      actor: req.actor ?? 'Switchyard',
      userId: req.userId ?? null,
    });
  }
  for (const u of plan.unplaced)
    timeline.push({
      kind: 'flagged',
      message: `${labelOf.get(u.lineId)}: ${u.reason}`,
      actor: 'Switchyard',
    });
  // Same order as plan.placements for the caller.
  const byLine = new Map<string, RoutedPlacement[]>();
  for (const p of placements) byLine.set(p.lineId, [...(byLine.get(p.lineId) ?? []), p]);
  const inPlanOrder = plan.placements.map((p) => {
    const list = byLine.get(p.lineId) ?? [];
    const i = list.findIndex((x) => x.locationId === p.locationId && x.quantity === p.quantity);
    const [found] = list.splice(i, 1);
    return found as RoutedPlacement;
  });
  const decision = {
    id: decisionId,
    accountId,
    orderId: req.orderId,
    kind: req.kind,
    ruleSetVersion: rules.version,
    allocationIds: placements.map((p) => p.key),
    actor: req.actor ?? null,
    userId: req.userId ?? null,
    trace: plan.trace,
  };
  if (req.deferred) req.deferred.decisions.push(decision);
  else await tx.insert(routingDecisions).values(decision);
  return { decisionId, placements: inPlanOrder, unplaced: plan.unplaced, trace: plan.trace, timeline, locations };
}

/** Adds allocation ids the caller wrote after the decision (the rows of lines that could not be placed). */
export async function linkDecision(tx: Tx, decisionId: string, allocationIds: string[], deferred?: DeferredRouting) {
  if (allocationIds.length === 0) return;
  const kept = deferred?.decisions.find((d) => d.id === decisionId);
  if (kept) {
    kept.allocationIds = [...new Set([...(kept.allocationIds ?? []), ...allocationIds])];
    return;
  }
  const [row] = await tx
    .select({ ids: routingDecisions.allocationIds })
    .from(routingDecisions)
    .where(eq(routingDecisions.id, decisionId));
  await setDecisionAllocations(tx, decisionId, [...(row?.ids ?? []), ...allocationIds]);
}

/** The allocations a decision wrote, as the caller stored them (a re-route's row keeps its id). */
export async function setDecisionAllocations(tx: Tx, decisionId: string, allocationIds: string[]) {
  await tx
    .update(routingDecisions)
    .set({ allocationIds: [...new Set(allocationIds)] })
    .where(eq(routingDecisions.id, decisionId));
}
