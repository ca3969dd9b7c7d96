// Where a line's units should come from: the seam routing (issue 14) replaces. Pure: given the order and our
// locations, the candidate locations in order of preference; the ledger then reserves at the first that can
// cover the line, under the lock of its levels (inventory/reservations.ts).
import { ORDER_MESSAGES } from '@switchyard/contracts';

export interface OurLocation {
  id: string;
  name: string;
  storeId: string;
  enabled: boolean;
  ships: boolean;
  pickup: boolean;
  priority: number;
}

export interface AllocationRequest {
  fulfillmentType: 'ship' | 'pickup' | 'curbside_pickup';
  /** Where the channel took the units itself (mapped to ours): first among locations of equal priority. */
  channelLocationId?: string | null;
  /** A POS sale's store or a pickup's store, already mapped to ours (null: the channel named none we map). */
  storeLocationId: string | null;
  /** A POS sale that is complete at its store. */
  completedAtStore: boolean;
}

export interface AllocationPlan {
  candidates: string[];
  /** Why nothing can be tried (no candidates), for the allocation's reason. */
  reason: string | null;
}

/**
 * The plain default of issue 13: a POS sale at its store; a pickup at the pickup store; otherwise the
 * enabled locations that ship, highest priority (lowest number) first; among equals, the one the channel took
 * the units from itself, then by name.
 */
export function defaultAllocation(request: AllocationRequest, locations: OurLocation[]): AllocationPlan {
  if (request.completedAtStore || request.fulfillmentType !== 'ship') {
    const store = locations.find((l) => l.id === request.storeLocationId);
    if (!store) return { candidates: [], reason: 'The store of this order is not one of your locations.' };
    if (!store.enabled && !request.completedAtStore) return { candidates: [], reason: `${store.name} is disabled.` };
    return { candidates: [store.id], reason: null };
  }
  const own = (l: OurLocation) => (l.id === request.channelLocationId ? 0 : 1);
  const shipping = locations
    .filter((l) => l.enabled && l.ships)
    .sort((a, b) => a.priority - b.priority || own(a) - own(b) || a.name.localeCompare(b.name));
  if (shipping.length === 0) return { candidates: [], reason: 'No enabled location ships orders.' };
  return { candidates: shipping.map((l) => l.id), reason: null };
}

export const NO_LOCATION_COVERS = ORDER_MESSAGES.noLocation;
