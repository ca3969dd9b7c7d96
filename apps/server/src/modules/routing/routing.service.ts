// Routing's reads (the decisions of an order, the locations as routing sees them) and the engine's inputs.
import {
  DecisionTrace,
  type OrderRoutingDecisions,
  ROUTING_MESSAGES,
  type RoutingLocation,
} from '@switchyard/contracts';
import { and, desc, eq } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.ts';
import { DomainError } from '../../lib/errors.ts';
import type { Actor } from '../../trpc/context.ts';
import { accountLocations } from '../locations/locations.read.ts';
import { orders } from '../orders/orders.tables.ts';
import type { EngineLocation } from './engine.types.ts';
import { placePostalCode } from './geo.ts';
import { routingDecisions } from './routing.tables.ts';

/**
 * The account's locations as the engine sees them. A location without coordinates is placed from its own
 * postal code (geo.ts) when the data set knows it; the coordinates a merchant typed win.
 */
export async function engineLocations(db: Db | Tx, accountId: string): Promise<EngineLocation[]> {
  const rows = await accountLocations(db, accountId, ['priority', 'name', 'id']);
  return rows.map((r) => {
    let latitude = r.latitude ?? null;
    let longitude = r.longitude ?? null;
    if (latitude === null || longitude === null) {
      const placed = placePostalCode(r.address?.zip, r.address?.country).point;
      latitude = placed?.latitude ?? null;
      longitude = placed?.longitude ?? null;
    }
    return {
      id: r.id,
      name: r.name,
      storeId: r.storeId,
      enabled: r.enabled,
      ships: r.ships,
      pickup: r.pickup,
      priority: r.priority,
      latitude,
      longitude,
    };
  });
}

export async function routingLocations(db: Db, actor: Pick<Actor, 'accountId'>): Promise<RoutingLocation[]> {
  return (await engineLocations(db, actor.accountId)).map((l) => ({
    id: l.id,
    name: l.name,
    storeId: l.storeId ?? '',
    enabled: l.enabled,
    ships: l.ships,
    pickup: l.pickup,
    priority: l.priority,
    latitude: l.latitude,
    longitude: l.longitude,
  }));
}

/** Every routing decision of an order, newest first ("Why this store" on the order detail). */
export async function orderDecisions(
  db: Db,
  actor: Pick<Actor, 'accountId'>,
  orderId: string,
): Promise<OrderRoutingDecisions> {
  const [order] = await db
    .select({ id: orders.id })
    .from(orders)
    .where(and(eq(orders.accountId, actor.accountId), eq(orders.id, orderId)));
  if (!order) throw new DomainError('NOT_FOUND', ROUTING_MESSAGES.orderNotFound);
  const rows = await db
    .select()
    .from(routingDecisions)
    .where(and(eq(routingDecisions.accountId, actor.accountId), eq(routingDecisions.orderId, orderId)))
    .orderBy(desc(routingDecisions.createdAt), desc(routingDecisions.id));
  return {
    orderId,
    decisions: rows.map((r) => ({
      id: r.id,
      orderId: r.orderId,
      kind: r.kind,
      ruleSetVersion: r.ruleSetVersion,
      allocationIds: r.allocationIds,
      actor: r.actor,
      trace: DecisionTrace.parse(r.trace),
      createdAt: r.createdAt,
    })),
  };
}
