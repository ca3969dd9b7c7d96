// Where the dashboard charts put their axis ticks. recharts left alone labelled the buckets it could fit (30 days
// at 1280 px: "Oct 29, Nov 1, Nov 4, Nov 7, Nov 10, Nov 14…", crowded and unevenly apart) and ticked the values at
// whatever split its domain (a rate at 0%, 4%, 8%, 16%; a time at 0, 10, 20, 40 h).
import type { DashboardSearch } from '@switchyard/contracts';

/** Buckets between two date ticks, per granularity: whole weeks of days, quarters and halves of a year. */
const X_STEPS: Record<DashboardSearch['granularity'], number[]> = {
  day: [1, 2, 7, 14, 28, 56, 91, 182, 364],
  week: [1, 2, 4, 8, 13, 26, 52],
  month: [1, 2, 3, 6, 12],
  year: [1, 2, 5, 10, 20, 50],
};

/**
 * At most this many date ticks on a chart: half the dashboard's width at 1280 px holds seven "Nov 27" with room
 * between, and six "Nov 2026" (the month labels are longer).
 */
export const MAX_X_TICKS = 7;
const MAX_LONG_X_TICKS = 6;
const SHORT_LABEL = 6;

/**
 * The bucket labels to tick on the x axis: every `step` buckets counted back from the last one (so the latest
 * bucket, today's, is always labelled, and the ticks stand evenly apart), the smallest step of the granularity
 * that gives at most `max` ticks (by default MAX_X_TICKS, or fewer of longer labels).
 */
export function xAxisTicks(labels: string[], granularity: DashboardSearch['granularity'], max?: number): string[] {
  const n = labels.length;
  if (n === 0) return [];
  const longest = Math.max(...labels.map((l) => l.length));
  const most = max ?? (longest > SHORT_LABEL ? MAX_LONG_X_TICKS : MAX_X_TICKS);
  const fits = (step: number) => Math.floor((n - 1) / step) + 1 <= most;
  const steps = X_STEPS[granularity];
  const step = steps.find(fits) ?? Math.ceil((n - 1) / Math.max(1, most - 1));
  const ticks: string[] = [];
  for (let i = n - 1; i >= 0; i -= step) ticks.unshift(labels[i] as string);
  return ticks;
}

/** What a value axis counts in, which decides the steps its ticks may stand at. */
export type ValueKind = 'money' | 'count' | 'percent' | 'hours';

const decades = (mantissas: number[], from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => mantissas.map((m) => m * 10 ** (from + i))).flat();

/** Tick steps per kind: money in minor units and counts as round numbers, rates in tenths or whole percents. */
const Y_STEPS: Record<ValueKind, number[]> = {
  money: decades([1, 2, 2.5, 5], 0, 12),
  count: [...decades([1, 2, 5], 0, 0), ...decades([1, 2, 2.5, 5], 1, 12)],
  percent: [0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 25, 50],
  // Hours by the clock's divisions, then whole days and weeks.
  hours: [0.5, 1, 2, 3, 4, 6, 12, 24, 48, 72, 168, 336, 720, 1440, 2160],
};

/** Intervals between the value ticks at most (so five ticks from 0 up). */
export const MAX_Y_INTERVALS = 4;

/**
 * The value axis's ticks, from 0 to the first tick at or over `max`, evenly `step` apart: the smallest step of
 * the kind that needs at most `intervals` intervals. Floating-point noise is rounded off (0.1 × 3 is 0.3).
 */
export function valueAxisTicks(max: number, kind: ValueKind, intervals = MAX_Y_INTERVALS): number[] {
  const steps = Y_STEPS[kind];
  const top = Number.isFinite(max) && max > 0 ? max : 0;
  const step = steps.find((s) => Math.ceil(top / s - 1e-9) <= intervals) ?? (steps.at(-1) as number);
  const count = Math.max(1, Math.ceil(top / step - 1e-9));
  return Array.from({ length: count + 1 }, (_, i) => Number((i * step).toPrecision(12)));
}

/** An hours axis whose ticks are whole days reads in days ("2 d"); below, in hours ("12 h"). */
export function hoursTickLabel(ticks: number[]): (hours: number) => string {
  const inDays = (ticks[1] ?? 0) >= 24 && ticks.every((t) => t % 24 === 0);
  return (hours) => (inDays ? `${hours / 24} d` : `${hours} h`);
}
