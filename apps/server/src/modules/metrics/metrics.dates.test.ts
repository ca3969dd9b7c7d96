import { describe, expect, it } from 'vitest';
import { addMonths, bucketStart, bucketsOf, windowOf } from './metrics.dates.ts';

describe('dashboard windows', () => {
  it('30d is the last 30 days, the previous period the 30 before', () => {
    expect(windowOf('30d', '2026-03-01')).toEqual({
      from: '2026-01-31',
      to: '2026-03-01',
      previousFrom: '2026-01-01',
      previousTo: '2026-01-30',
    });
  });

  it('6m and 1y are calendar months, this one so far included; the previous period the months before', () => {
    expect(windowOf('6m', '2026-06-15')).toEqual({
      from: '2026-01-01',
      to: '2026-06-15',
      previousFrom: '2025-07-01',
      previousTo: '2025-12-31',
    });
    expect(windowOf('1y', '2026-11-26')).toEqual({
      from: '2025-12-01',
      to: '2026-11-26',
      previousFrom: '2024-12-01',
      previousTo: '2025-11-30',
    });
  });

  it('moves by months with the day kept inside the month', () => {
    expect(addMonths('2024-03-31', -1)).toBe('2024-02-29');
    expect(addMonths('2025-03-31', -1)).toBe('2025-02-28');
    expect(addMonths('2025-12-15', 2)).toBe('2026-02-15');
  });

  it('buckets weeks from Monday, the first one starting with the window', () => {
    expect(bucketStart('2026-11-26', 'week')).toBe('2026-11-23');
    expect(bucketStart('2026-11-23', 'week')).toBe('2026-11-23');
    expect(bucketStart('2026-11-22', 'week')).toBe('2026-11-16');
    const { order, of } = bucketsOf('2026-11-04', '2026-11-26', 'week');
    expect(order).toEqual(['2026-11-04', '2026-11-09', '2026-11-16', '2026-11-23']);
    expect(of.get('2026-11-08')).toBe('2026-11-04');
    expect(bucketsOf('2025-12-01', '2026-11-26', 'year').order).toEqual(['2025-12-01', '2026-01-01']);
  });
});
