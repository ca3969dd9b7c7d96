import type { Interval } from './types.ts';

/** Minor units → "$29.00" (zero-decimal currencies such as JPY have no minor unit). */
export function formatMoney(amount: number, currency: string): string {
  const code = currency.toUpperCase();
  let digits = 2;
  try {
    digits = new Intl.NumberFormat('en-US', { style: 'currency', currency: code }).resolvedOptions()
      .maximumFractionDigits as number;
  } catch {
    return `${(amount / 100).toFixed(2)} ${code}`;
  }
  return new Intl.NumberFormat('en-US', { style: 'currency', currency: code }).format(amount / 10 ** digits);
}

/** "month", "3 months" */
export function formatInterval(interval: Interval, count = 1): string {
  return count === 1 ? interval : `${count} ${interval}s`;
}

/** "10 Nov 2026", as Stripe writes dates on invoices and proration lines. */
export function formatDate(unixSeconds: number): string {
  return new Date(unixSeconds * 1000).toLocaleDateString('en-GB', {
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    timeZone: 'UTC',
  });
}

/**
 * The end of a billing period that starts at `start`, as Stripe computes it: the same day of the month
 * as the billing cycle anchor, clamped to the month's last day (an anchor on the 31st renews on 30 Apr).
 */
export function addInterval(start: number, interval: Interval, count: number, anchor = start): number {
  if (interval === 'day') return start + count * 86_400;
  if (interval === 'week') return start + count * 7 * 86_400;
  const from = new Date(start * 1000);
  const anchorDay = new Date(anchor * 1000).getUTCDate();
  const months = interval === 'month' ? count : 12 * count;
  const y = from.getUTCFullYear();
  const m = from.getUTCMonth() + months;
  const lastDay = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  const day = Math.min(anchorDay, lastDay);
  return Math.floor(Date.UTC(y, m, day, from.getUTCHours(), from.getUTCMinutes(), from.getUTCSeconds()) / 1000);
}
