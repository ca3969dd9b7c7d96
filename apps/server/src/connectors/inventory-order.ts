// One stable order of stock changes: a keyed send (Connector.setInventory with an idempotency key) goes in it, so a
// repeat asks exactly what the first call asked, whatever order its rows were gathered in.
import type { InventorySet } from './types.ts';

/** By inventory item, then location. */
export const byLevel = (a: InventorySet, b: InventorySet) => {
  const x = `${a.inventoryItemId}|${a.locationExternalId}`;
  const y = `${b.inventoryItemId}|${b.locationExternalId}`;
  return x < y ? -1 : x > y ? 1 : 0;
};
