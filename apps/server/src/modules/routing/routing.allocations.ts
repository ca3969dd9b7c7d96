// The allocations as the back office reads them: a list (by order, location, status), one by id, and the
// answer a reject or a hand move gives (the line's allocations now, the decision it recorded, whether it is
// flagged). Every read is scoped to the account: another account's order or location answers as not found.
import {
  type AllocationList,
  type AllocationRow,
  type AllocationUpdateResult,
  ListAllocationsInput,
  ROUTING_MESSAGES,
} from '@switchyard/contracts';
import { and, eq } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { DomainError } from '../../lib/errors.ts';
import type { Actor } from '../../trpc/context.ts';
import { locationById } from '../locations/locations.read.ts';
import { allocationRows } from '../orders/orders.allocations.ts';
import { orders } from '../orders/orders.tables.ts';
import { orderDecisions } from './routing.service.ts';

export async function listAllocations(db: Db, actor: Pick<Actor, 'accountId'>, raw: unknown): Promise<AllocationList> {
  const input = ListAllocationsInput.parse(raw ?? {});
  // An order or location of another account answers as one that does not exist.
  if (input.order_id) {
    const [o] = await db
      .select({ id: orders.id })
      .from(orders)
      .where(and(eq(orders.accountId, actor.accountId), eq(orders.id, input.order_id)));
    if (!o) throw new DomainError('NOT_FOUND', ROUTING_MESSAGES.orderNotFound);
  }
  if (input.location_id) {
    const l = await locationById(db, actor.accountId, input.location_id);
    if (!l) throw new DomainError('NOT_FOUND', 'Location not found');
  }
  const { rows, total } = await allocationRows(db, actor.accountId, {
    orderId: input.order_id,
    locationId: input.location_id,
    status: input.status,
    limit: input.limit,
    offset: input.offset,
  });
  return { results: rows, total, limit: input.limit, offset: input.offset };
}

export async function getAllocation(db: Db, actor: Pick<Actor, 'accountId'>, id: string): Promise<AllocationRow> {
  const { rows } = await allocationRows(db, actor.accountId, { id, limit: 1 });
  const row = rows[0];
  if (!row) throw new DomainError('NOT_FOUND', ROUTING_MESSAGES.allocationNotFound);
  return row;
}

/** A line's allocations after a reject or a move, the decision that recorded it (if any), and the flag. */
export async function resultOf(
  db: Db,
  actor: Pick<Actor, 'accountId'>,
  orderId: string,
  lineId: string,
  decisionId: string | null,
): Promise<AllocationUpdateResult> {
  const { rows } = await allocationRows(db, actor.accountId, { orderId, lineId });
  const decisions = decisionId ? await orderDecisions(db, actor, orderId) : null;
  return {
    orderId,
    allocations: rows,
    decision: decisions?.decisions.find((d) => d.id === decisionId) ?? null,
    flagged: rows.some((r) => r.status === 0 || r.status === 4 || r.status === 5),
  };
}
