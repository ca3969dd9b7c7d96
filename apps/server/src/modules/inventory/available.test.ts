import { describe, expect, it } from 'vitest';
import { availableOf, computeAvailable, pushedLocations } from './available.ts';

describe('available to sell', () => {
  it('subtracts reserved, buffers and safety stock, never below zero, and pushes 0 for a disabled location', () => {
    // 2 variants × 3 locations
    const onHand = Int32Array.from([10, 5, 7, 1, 0, 4]);
    const reserved = Int32Array.from([2, 0, 0, 0, 0, 1]);
    const [a, b] = computeAvailable({
      variantCount: 2,
      locationCount: 3,
      onHand,
      reserved,
      channels: [
        { safetyStock: 0, locationIndex: Int32Array.from([0, 2]) },
        {
          safetyStock: 1,
          locationIndex: Int32Array.from([2, -1, 0]),
          bufferVariant: Int32Array.from([0, 1]),
          bufferLocation: Int32Array.from([0, 0]),
          bufferQty: Int32Array.from([3, 1]),
        },
      ],
    });
    expect([...(a as Int32Array)]).toEqual([8, 7, 1, 3]);
    // channel 2: v0 @loc2 = 7−1−3 = 3, disabled = 0, @loc0 = 8−1 = 7; v1 @loc2 = 3−1−1 = 1, 0, @loc0 = 1−1 = 0
    expect([...(b as Int32Array)]).toEqual([3, 0, 7, 1, 0, 0]);
    expect(availableOf(3, 1, 1, 5)).toBe(0);
    expect(availableOf(9, 1, 1, 2, false)).toBe(0);
  });

  it('maps only feeding channel locations whose store is one of ours', () => {
    const ours = [
      { id: 'loc_a', storeId: 'S1', enabled: true },
      { id: 'loc_b', storeId: 'S2', enabled: false },
    ];
    const mapped = pushedLocations(
      {
        channel: {
          orderImportFrom: null,
          locationMap: [
            { externalLocationId: 'x1', externalName: 'A', storeId: 'S1', feeds: true },
            { externalLocationId: 'x2', externalName: 'B', storeId: 'S2', feeds: true },
            { externalLocationId: 'x3', externalName: 'C', storeId: 'S1', feeds: false },
            { externalLocationId: 'x4', externalName: 'D', storeId: null, feeds: true },
            { externalLocationId: 'x5', externalName: 'E', storeId: 'S9', feeds: true },
          ],
        },
      },
      ours,
    );
    expect(mapped.map((m) => [m.externalLocationId, m.locationId, m.enabled])).toEqual([
      ['x1', 'loc_a', true],
      ['x2', 'loc_b', false],
    ]);
  });

  it('computes 100,000 variants × 20 locations × 5 channels, each less its safety stock and never below zero', () => {
    const variantCount = 100_000;
    const locationCount = 20;
    const cells = variantCount * locationCount;
    const onHand = new Int32Array(cells);
    const reserved = new Int32Array(cells);
    for (let i = 0; i < cells; i++) {
      onHand[i] = (i * 7919) % 50;
      reserved[i] = i % 3;
    }
    const all = Int32Array.from({ length: locationCount }, (_, i) => i);
    const channels = Array.from({ length: 5 }, (_, c) => ({ safetyStock: c, locationIndex: all }));
    // The time it takes is the benchmark's figure (bench/recompute.ts), not this test's.
    const out = computeAvailable({ variantCount, locationCount, onHand, reserved, channels });
    expect(out).toHaveLength(5);
    for (const cell of [1, 2, 1_234_567, cells - 1]) {
      for (const c of [0, 4]) {
        const want = Math.max(0, (onHand[cell] as number) - (reserved[cell] as number) - c);
        expect(out[c]?.[cell], `channel ${c}, cell ${cell}`).toBe(want);
      }
    }
  });
});
