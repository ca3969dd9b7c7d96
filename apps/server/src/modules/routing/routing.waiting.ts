// Lines of one order that wait unplaced, routed again by the rules inside the caller's transaction (an order that
// came in before its channel's stock did, once the stock is seeded: orders.seeded.ts). Each waiting row follows
// its line's placement; what still cannot be placed keeps waiting with the engine's reason.
import type { Tx } from '../../db/client.ts';
import { type AllocationRecord, updateAllocation } from '../orders/orders.allocations.ts';
import type { TimelineInput } from '../orders/orders.timeline.ts';
import { placeAllocation, routeAndReserve, setDecisionAllocations } from './routing.allocate.ts';
import { earlierRefusals, engineOrderOf, type LineRow, type OrderRow } from './routing.reroute.inputs.ts';

/**
 * Lines of one order waiting unplaced (status 0 or 4, holding nothing) routed again by the rules, in the caller's
 * transaction: the caller locked the order's row and the lines' levels at every location (variant, then location)
 * before anything else it locks there. Each waiting row follows its line's first placement (a split gets rows of
 * its own); what still cannot be placed stays waiting with the engine's reason. Stores that said no to a line
 * before are left out, as in `rejectAllocation`. Answers the variants reserved and the timeline entries; the
 * caller writes the timeline and the order's flags.
 */
export async function routeWaitingInTx(
  tx: Tx,
  accountId: string,
  order: OrderRow,
  waiting: { allocation: AllocationRecord; line: LineRow }[],
  options: { reason: string; channelLocationId?: string | null },
): Promise<{ touched: string[]; timeline: TimelineInput[] }> {
  // One waiting row per line is routed (the engine's line is the order's line; a second row of a line waits on).
  const seen = new Set<string>();
  const rows = waiting.filter(({ allocation: a }) => {
    if (!((a.status === 0 || a.status === 4) && a.reserved === 0 && a.variantId && a.quantity > 0)) return false;
    if (seen.has(a.lineId)) return false;
    seen.add(a.lineId);
    return true;
  });
  if (rows.length === 0) return { touched: [], timeline: [] };
  const without = new Set<string>();
  for (const { line } of rows)
    for (const id of await earlierRefusals(tx, accountId, order.id, line.id)) without.add(id);
  const routed = await routeAndReserve(tx, accountId, {
    orderId: order.id,
    order: { ...(await engineOrderOf(tx, order)), channelLocationId: options.channelLocationId ?? null },
    lines: rows.map(({ allocation: a, line }) => ({
      id: line.id,
      sku: line.sku,
      title: line.title,
      variantId: a.variantId as string,
      quantity: a.quantity,
    })),
    kind: 'reroute',
    without: [...without],
  });
  const ids: string[] = [];
  const touched = new Set<string>();
  for (const { allocation: a } of rows) {
    ids.push(a.id);
    const placed = routed.placements.filter((p) => p.lineId === a.lineId);
    if (placed.length === 0) {
      const unplaced = routed.unplaced.find((u) => u.lineId === a.lineId);
      if (unplaced) await updateAllocation(tx, a.id, { status: unplaced.status, reason: unplaced.reason });
      continue;
    }
    touched.add(a.variantId as string);
    ids.push(...(await placeAllocation(tx, accountId, order.id, a, placed, options.reason)));
  }
  await setDecisionAllocations(tx, routed.decisionId, ids);
  return { touched: [...touched], timeline: routed.timeline };
}
