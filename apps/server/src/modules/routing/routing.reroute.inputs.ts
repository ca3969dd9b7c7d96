// What a re-route starts from: the allocation row and its SKU's levels locked (in a reserve's lock order), the
// order as the engine sees it, and the stores that said no to a line before. Shared by a store's rejection, a
// hand move (routing.reroute.ts) and waiting lines routed again (routing.waiting.ts).
import { ROUTING_MESSAGES } from '@switchyard/contracts';
import { and, eq } from 'drizzle-orm';
import type { Tx } from '../../db/client.ts';
import { DomainError } from '../../lib/errors.ts';
import { channels } from '../channels/channels.tables.ts';
import { lockAvailable } from '../inventory/reservations.ts';
import { type AllocationRecord, lockAllocation } from '../orders/orders.allocations.ts';
import type { orderLines, orders } from '../orders/orders.tables.ts';
import type { EngineLocation, EngineOrder } from './engine.types.ts';
import { orderHeader } from './routing.dryrun.ts';
import { engineLocations } from './routing.service.ts';
import { routingDecisions } from './routing.tables.ts';

export type OrderRow = typeof orders.$inferSelect;
export type LineRow = typeof orderLines.$inferSelect;

/** Orders whose lines are no longer routed: complete, picked up, cancelled, refunded. */
const CLOSED = new Set([3, 5, 7, 8]);

/** The order as the engine sees it (its channel, destination, value). */
export async function engineOrderOf(tx: Tx, order: OrderRow): Promise<Omit<EngineOrder, 'lines'>> {
  const [channel] = order.channelId
    ? await tx
        .select({ name: channels.name, type: channels.type })
        .from(channels)
        .where(eq(channels.id, order.channelId))
    : [];
  return orderHeader(order, channel);
}

/** Every store that said no to this line before (earlier re-routes' left-out locations). */
export async function earlierRefusals(tx: Tx, accountId: string, orderId: string, lineId: string): Promise<string[]> {
  const rows = await tx
    .select({ trace: routingDecisions.trace })
    .from(routingDecisions)
    .where(
      and(
        eq(routingDecisions.accountId, accountId),
        eq(routingDecisions.orderId, orderId),
        eq(routingDecisions.kind, 'reroute'),
      ),
    );
  const out = new Set<string>();
  for (const r of rows)
    if (r.trace.lines.some((l) => l.lineId === lineId)) for (const id of r.trace.withoutLocationIds) out.add(id);
  return [...out];
}

export interface Locked {
  allocation: AllocationRecord;
  line: LineRow;
  order: OrderRow;
  locations: EngineLocation[];
}

/** The allocation row, then its SKU's levels everywhere (variant, then location): the lock order of a reserve. */
export async function lockForChange(tx: Tx, accountId: string, allocationId: string): Promise<Locked> {
  const found = await lockAllocation(tx, accountId, allocationId);
  if (!found) throw new DomainError('NOT_FOUND', ROUTING_MESSAGES.allocationNotFound);
  if (CLOSED.has(found.order.status)) throw new DomainError('INVALID_STATE', ROUTING_MESSAGES.orderClosed);
  const locations = await engineLocations(tx, accountId);
  if (found.allocation.variantId)
    await lockAvailable(
      tx,
      accountId,
      [found.allocation.variantId],
      locations.map((l) => l.id),
    );
  return { ...found, locations };
}
