// What a store still works on an allocation after part of it shipped (issue 15). What is left to leave the
// store is the orders module's rule (unitsLeft: what the allocation holds reserved), the same rule the shipments
// module ships against and the queue counts; units already gone (our shipments, or the channel's own
// fulfilment) are the rest of the allocation.
import { unitsLeft } from '../orders/orders.fulfil.ts';
import type { orderAllocations } from '../orders/orders.tables.ts';

type Allocation = Pick<
  typeof orderAllocations.$inferSelect,
  'status' | 'quantity' | 'reserved' | 'variantId' | 'locationId'
>;

export interface StoreUnits {
  /** Units still to leave the store (open allocations; 0 once fulfilled or rejected). */
  toShip: number;
  /** Units of the allocation that already left. */
  gone: number;
  /** Units confirmed by a scan: of those still to ship while open; all of them once picked or fulfilled. */
  scanned: number;
}

const isOpen = (a: Pick<Allocation, 'status'>) => a.status === 1 || a.status === 2;

/**
 * Scans carry over a shipment: `stored` counts every unit scanned on the allocation, and the units that left are
 * taken from the scanned ones first (a picker ships what is in hand). So 2 of 3 scanned, 1 shipped: 1 of the 2
 * left is still in hand (1 of 2); 1 of 3 scanned, 1 shipped: none of the 2 left is (0 of 2). Units that left
 * unscanned (a label bought before picking) never count as scanned.
 */
export function storeUnits(a: Allocation, stored: number | null | undefined): StoreUnits {
  if (!isOpen(a)) {
    const scanned = a.status === 3 ? a.quantity : Math.min(stored ?? 0, a.quantity);
    return { toShip: 0, gone: a.status === 3 ? a.quantity : 0, scanned };
  }
  const toShip = Math.min(unitsLeft(a), a.quantity);
  const gone = a.quantity - toShip;
  const scanned = a.status === 2 ? toShip : Math.min(Math.max((stored ?? 0) - gone, 0), toShip);
  return { toShip, gone, scanned };
}

/** The stored count after one more unit is scanned: the units gone, then those in hand, then this one. */
export const storedAfterScan = (units: StoreUnits) => units.gone + units.scanned + 1;
