// Where a POS sale's units were taken: its own store. Every other line is placed by routing (issue 14,
// modules/routing: the merchant's rules, under the lock of the levels, with a trace), which replaced issue 13's
// plain default here.
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

export interface AllocationPlan {
  candidates: string[];
  /** Why nothing can be tried (no candidates), for the allocation's reason. */
  reason: string | null;
}

/** A POS sale complete at its store is sold there, even at a disabled location: it already happened. */
export function storePlan(storeLocationId: string | null, locations: OurLocation[]): AllocationPlan {
  const store = locations.find((l) => l.id === storeLocationId);
  if (!store) return { candidates: [], reason: 'The store of this order is not one of your locations.' };
  return { candidates: [store.id], reason: null };
}

export const NO_LOCATION_COVERS = ORDER_MESSAGES.noLocation;
