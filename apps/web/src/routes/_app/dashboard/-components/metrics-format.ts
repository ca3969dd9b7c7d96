import type { DashboardSearch } from '@switchyard/contracts';

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * A bucket's label: its first day (the account's day, as the server sent it: no time zone is applied again).
 * Days and weeks: "Mar 4"; months: "Mar 2026"; years: "2026".
 */
export function periodLabel(period: string, granularity: DashboardSearch['granularity']): string {
  const [y, m, d] = period.split('-');
  const month = MONTHS[Number(m) - 1] ?? m;
  if (granularity === 'year') return String(y);
  if (granularity === 'month') return `${month} ${y}`;
  return `${month} ${Number(d)}`;
}

/**
 * The window's first and last day as the rest of the app writes dates: "Oct 30 – Nov 28, 2026", or
 * "Dec 1, 2025 – Nov 28, 2026" across a year's end. The days are the account's, as the server sent them.
 */
export function dayRangeLabel(from: string, to: string): string {
  const day = (value: string) => {
    const [y, m, d] = value.split('-');
    return { y: String(y), text: `${MONTHS[Number(m) - 1] ?? m} ${Number(d)}` };
  };
  const a = day(from);
  const b = day(to);
  return a.y === b.y ? `${a.text} – ${b.text}, ${b.y}` : `${a.text}, ${a.y} – ${b.text}, ${b.y}`;
}

/** Change against the previous period, as "+12%" / "−5%"; null when there was nothing to compare with. */
export function changeLabel(value: number | null, previous: number | null): string | null {
  if (value === null || previous === null || previous === 0) return null;
  const change = Math.round(((value - previous) / Math.abs(previous)) * 100);
  if (change === 0) return '±0%';
  return change > 0 ? `+${change}%` : `−${Math.abs(change)}%`;
}

/** A duration in seconds as "45 min", "6.5 h" or "2.3 days". */
export function durationLabel(seconds: number | null): string {
  if (seconds === null) return '—';
  if (seconds < 3600) return `${Math.max(1, Math.round(seconds / 60))} min`;
  if (seconds < 48 * 3600) return `${(seconds / 3600).toFixed(1)} h`;
  return `${(seconds / 86400).toFixed(1)} days`;
}

export const percentLabel = (ratio: number | null) => (ratio === null ? '—' : `${(ratio * 100).toFixed(1)}%`);

const NUMBER = new Intl.NumberFormat();
export const countLabel = (n: number) => NUMBER.format(n);

/** A count with its noun: "1 return", "3 returns". */
export const plural = (n: number, noun: string) => `${countLabel(n)} ${n === 1 ? noun : `${noun}s`}`;

export const TIMEFRAME_LABELS: Record<DashboardSearch['timeframe'], string> = {
  '30d': 'Last 30 days',
  '6m': 'Last 6 months',
  '1y': 'Last 12 months',
};
