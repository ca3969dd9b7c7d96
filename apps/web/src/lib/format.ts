const DATE_TIME = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** An ISO time as the reader's local date and time; `fallback` when there is none. */
export function formatDateTime(iso: string | null | undefined, fallback = '—'): string {
  if (!iso) return fallback;
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? fallback : DATE_TIME.format(date);
}

const DATE = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });
const TIME = new Intl.DateTimeFormat(undefined, { timeStyle: 'short' });

/** The reader's local date alone ("Nov 27, 2026") and time alone ("10:24 PM"), for a date over its time. */
export const formatDate = (date: Date) => DATE.format(date);
export const formatTime = (date: Date) => TIME.format(date);

/** A count with its word: "1 unit", "3 units", "-1 unit" (`many` defaults to `one` + "s"). */
export const countOf = (n: number, one: string, many = `${one}s`) =>
  `${n.toLocaleString()} ${Math.abs(n) === 1 ? one : many}`;
