// Days as YYYY-MM-DD strings (the account's time zone's days, already resolved by the database): the windows of
// SPEC §2's timeframes, the previous period, and the buckets of a granularity.
import type { DashboardSearch } from '@switchyard/contracts';

type DashboardTimeframe = DashboardSearch['timeframe'];
type DashboardGranularity = DashboardSearch['granularity'];

const parse = (day: string) => {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d));
};
const format = (date: Date) => date.toISOString().slice(0, 10);

export function addDays(day: string, n: number): string {
  const date = parse(day);
  date.setUTCDate(date.getUTCDate() + n);
  return format(date);
}

/** Calendar months later (or earlier), the day clamped to the month's last (31 March − 1 month = 28/29 Feb). */
export function addMonths(day: string, n: number): string {
  const date = parse(day);
  const target = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + n, 1));
  const last = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(date.getUTCDate(), last));
  return format(target);
}

export interface Window {
  from: string;
  to: string;
  previousFrom: string;
  previousTo: string;
}

/**
 * The window ending today (inclusive): the last 30 days; or the last 6 or 12 calendar months, this one so far
 * included (6m in June: January 1st to today). The previous period is the window of the same kind before it:
 * the 30 days before, or the 6 or 12 whole months before.
 */
export function windowOf(timeframe: DashboardTimeframe, today: string): Window {
  if (timeframe === '30d') {
    const from = addDays(today, -29);
    return { from, to: today, previousFrom: addDays(from, -30), previousTo: addDays(from, -1) };
  }
  const months = timeframe === '6m' ? 6 : 12;
  const from = addMonths(`${today.slice(0, 7)}-01`, -(months - 1));
  return { from, to: today, previousFrom: addMonths(from, -months), previousTo: addDays(from, -1) };
}

/** The first day of the bucket a day falls in: itself, its ISO week's Monday, its month's or year's first day. */
export function bucketStart(day: string, granularity: DashboardGranularity): string {
  if (granularity === 'day') return day;
  if (granularity === 'month') return `${day.slice(0, 7)}-01`;
  if (granularity === 'year') return `${day.slice(0, 4)}-01-01`;
  const weekday = (parse(day).getUTCDay() + 6) % 7; // Monday 0
  return addDays(day, -weekday);
}

const pad = (n: number) => (n < 10 ? `0${n}` : String(n));

/** Every day of [from, to] (one date stepped along: a year of days is read for every dashboard view). */
export function daysOf(from: string, to: string): string[] {
  const days: string[] = [];
  const date = parse(from);
  for (let d = from; d <= to; ) {
    days.push(d);
    date.setUTCDate(date.getUTCDate() + 1);
    d = `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`;
  }
  return days;
}

/** The buckets of a window in order, each labelled by its first day inside the window; and each day's bucket. */
export function bucketsOf(from: string, to: string, granularity: DashboardGranularity) {
  const order: string[] = [];
  const of = new Map<string, string>();
  for (const day of daysOf(from, to)) {
    const start = bucketStart(day, granularity);
    const label = start < from ? from : start;
    if (order[order.length - 1] !== label) order.push(label);
    of.set(day, label);
  }
  return { order, of };
}
