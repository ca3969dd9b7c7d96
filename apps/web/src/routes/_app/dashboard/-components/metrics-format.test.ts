import { describe, expect, it } from 'vitest';
import { dayRangeLabel, periodLabel } from './metrics-format.ts';

describe('dashboard dates', () => {
  it('writes the window as the rest of the app writes dates, the year once when both days share it', () => {
    expect(dayRangeLabel('2026-10-30', '2026-11-28')).toBe('Oct 30 – Nov 28, 2026');
    expect(dayRangeLabel('2025-12-01', '2026-11-28')).toBe('Dec 1, 2025 – Nov 28, 2026');
  });

  it('labels buckets by their first day', () => {
    expect(periodLabel('2026-03-04', 'day')).toBe('Mar 4');
    expect(periodLabel('2026-03-01', 'month')).toBe('Mar 2026');
    expect(periodLabel('2026-01-01', 'year')).toBe('2026');
  });
});
