import { describe, expect, it } from 'vitest';
import { mergeLocations } from './locations.ts';

describe('mergeLocations', () => {
  const saved = [
    { externalLocationId: 'L1', externalName: 'Old name', storeId: 'S1', feeds: false },
    { externalLocationId: 'L9', externalName: 'Closed', storeId: 'S9', feeds: true },
  ];

  it('keeps what was chosen for a location, under its current name, in the provider’s order', () => {
    const merged = mergeLocations(saved, [
      { id: 'L2', name: 'New pop-up', active: false, address: null },
      { id: 'L1', name: 'Warehouse', active: true, address: null },
    ]);
    expect(merged).toEqual([
      { externalLocationId: 'L2', externalName: 'New pop-up', storeId: null, feeds: false },
      { externalLocationId: 'L1', externalName: 'Warehouse', storeId: 'S1', feeds: false },
    ]);
  });

  it('lists a new active location as feeding the channel, unmapped', () => {
    expect(mergeLocations([], [{ id: 'L3', name: 'Harbor Front', active: true, address: 'Pier 1' }])).toEqual([
      { externalLocationId: 'L3', externalName: 'Harbor Front', storeId: null, feeds: true },
    ]);
  });
});
