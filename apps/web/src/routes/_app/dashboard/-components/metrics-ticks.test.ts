import { describe, expect, it } from 'vitest';
import { periodLabel } from './metrics-format.ts';
import { hoursTickLabel, valueAxisTicks, xAxisTicks } from './metrics-ticks.ts';

/** `count` days' labels ending on `last` ("2026-11-27"), as the dashboard draws them. */
function days(count: number, last: string): string[] {
  const end = new Date(`${last}T00:00:00Z`).getTime();
  return Array.from({ length: count }, (_, i) =>
    periodLabel(new Date(end - (count - 1 - i) * 86_400_000).toISOString().slice(0, 10), 'day'),
  );
}

/** The gaps between consecutive ticks, in buckets. */
const gaps = (labels: string[], ticks: string[]) =>
  ticks.slice(1).map((t, i) => labels.indexOf(t) - labels.indexOf(ticks[i] as string));

describe('date axis ticks', () => {
  it('ticks 30 days once a week, ending on the last day (recharts fit nine, unevenly apart, at 1280 px)', () => {
    const labels = days(30, '2026-11-27');
    expect(xAxisTicks(labels, 'day')).toEqual(['Oct 30', 'Nov 6', 'Nov 13', 'Nov 20', 'Nov 27']);
  });

  it('ticks every bucket of a short series', () => {
    expect(xAxisTicks(days(7, '2026-11-27'), 'day')).toEqual(days(7, '2026-11-27'));
    const months = ['Jun 2026', 'Jul 2026', 'Aug 2026', 'Sep 2026', 'Oct 2026', 'Nov 2026'];
    expect(xAxisTicks(months, 'month')).toEqual(months);
    expect(xAxisTicks([], 'day')).toEqual([]);
  });

  it('keeps a long series to a few evenly spaced ticks in whole weeks, months or years', () => {
    for (const [labels, granularity, step] of [
      [days(183, '2026-11-27'), 'day', 28],
      [days(365, '2026-11-27'), 'day', 56],
      [Array.from({ length: 27 }, (_, i) => `W${i}`), 'week', 4],
      [Array.from({ length: 53 }, (_, i) => `W${i}`), 'week', 8],
      [Array.from({ length: 12 }, (_, i) => `M${i} 2026`), 'month', 2],
      [Array.from({ length: 30 }, (_, i) => String(1997 + i)), 'year', 5],
    ] as const) {
      const ticks = xAxisTicks([...labels], granularity);
      expect(ticks.length, `${labels.length} ${granularity}s`).toBeLessThanOrEqual(7);
      expect(ticks.length).toBeGreaterThanOrEqual(4);
      expect(ticks.at(-1)).toBe(labels.at(-1));
      expect(new Set(gaps([...labels], ticks))).toEqual(new Set([step]));
    }
  });

  it('ticks the longer month labels at most six times', () => {
    const months = Array.from({ length: 12 }, (_, i) =>
      periodLabel(`2026-${String(i + 1).padStart(2, '0')}-01`, 'month'),
    );
    expect(xAxisTicks(months, 'month')).toEqual([
      'Feb 2026',
      'Apr 2026',
      'Jun 2026',
      'Aug 2026',
      'Oct 2026',
      'Dec 2026',
    ]);
  });
});

describe('value axis ticks', () => {
  it('ticks rates at whole percents or tenths, evenly from 0 (recharts had 0%, 4%, 8%, 16%)', () => {
    expect(valueAxisTicks(12.7, 'percent')).toEqual([0, 5, 10, 15]);
    expect(valueAxisTicks(16, 'percent')).toEqual([0, 5, 10, 15, 20]);
    expect(valueAxisTicks(3.3, 'percent')).toEqual([0, 1, 2, 3, 4]);
    expect(valueAxisTicks(0.7, 'percent')).toEqual([0, 0.2, 0.4, 0.6, 0.8]);
    expect(valueAxisTicks(0.3, 'percent')).toEqual([0, 0.1, 0.2, 0.3]);
    expect(valueAxisTicks(100, 'percent')).toEqual([0, 25, 50, 75, 100]);
  });

  it('ticks times by the clock, then in whole days (recharts had 0, 10, 20, 40 h)', () => {
    expect(valueAxisTicks(38.6, 'hours')).toEqual([0, 12, 24, 36, 48]);
    expect(valueAxisTicks(1.5, 'hours')).toEqual([0, 0.5, 1, 1.5]);
    expect(valueAxisTicks(7, 'hours')).toEqual([0, 2, 4, 6, 8]);
    expect(valueAxisTicks(90, 'hours')).toEqual([0, 24, 48, 72, 96]);
    expect(hoursTickLabel([0, 12, 24, 36, 48])(36)).toBe('36 h');
    const days = hoursTickLabel([0, 24, 48, 72, 96]);
    expect([0, 24, 96].map(days)).toEqual(['0 d', '1 d', '4 d']);
  });

  it('ticks counts at round whole numbers and money at round amounts', () => {
    expect(valueAxisTicks(28, 'count')).toEqual([0, 10, 20, 30]);
    expect(valueAxisTicks(3, 'count')).toEqual([0, 1, 2, 3]);
    expect(valueAxisTicks(57, 'count')).toEqual([0, 20, 40, 60]);
    // Minor units: $2,980 ticks at $0, $1,000, $2,000, $3,000.
    expect(valueAxisTicks(298_000, 'money')).toEqual([0, 100_000, 200_000, 300_000]);
    expect(valueAxisTicks(9_500, 'money')).toEqual([0, 2_500, 5_000, 7_500, 10_000]);
  });

  it('draws an empty series on a one-step axis from 0', () => {
    expect(valueAxisTicks(0, 'count')).toEqual([0, 1]);
    expect(valueAxisTicks(Number.NaN, 'percent')).toEqual([0, 0.1]);
  });
});
