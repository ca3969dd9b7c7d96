import type { BillingInterval, Plan, PlanLimitKey, PlanLimits } from '@switchyard/contracts';
import { PLAN_LIMIT_LABELS } from '@switchyard/contracts';

/** Intl wants upper-case ISO 4217 codes; Stripe keeps them lower case. */
function currencyCode(currency: string): string {
  return currency.trim().toUpperCase();
}

interface CurrencyFormat {
  format: Intl.NumberFormat;
  digits: number;
  /** False for a code Intl does not know: the amount is then followed by the code. */
  known: boolean;
}

const formats = new Map<string, CurrencyFormat>();

function currencyFormat(currency: string): CurrencyFormat {
  const code = currencyCode(currency);
  let cached = formats.get(code);
  if (!cached) {
    try {
      const format = new Intl.NumberFormat(undefined, { style: 'currency', currency: code });
      cached = { format, digits: format.resolvedOptions().maximumFractionDigits ?? 2, known: true };
    } catch {
      const format = new Intl.NumberFormat(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
      cached = { format, digits: 2, known: false };
    }
    formats.set(code, cached);
  }
  return cached;
}

/** How many minor units a currency has (2 for usd, 0 for jpy, 3 for kwd). */
export function currencyDigits(currency: string): number {
  return currencyFormat(currency).digits;
}

/** An amount in minor units, in the currency, as the reader's locale writes it ("$29.00", "29,00 €"). */
export function formatMoney(minor: number, currency: string): string {
  const { format, digits, known } = currencyFormat(currency);
  const text = format.format(minor / 10 ** digits);
  return known ? text : `${text} ${currencyCode(currency)}`;
}

/** "12.5" in usd → 1250 minor units; undefined when the text is not an amount with at most that many decimals. */
export function toMinorUnits(text: string, currency: string): number | undefined {
  const digits = currencyDigits(currency);
  const match = /^(\d{1,9})(?:[.,](\d+))?$/.exec(text.trim());
  if (!match) return undefined;
  const [, whole = '0', fraction = ''] = match;
  if (fraction.length > digits) return undefined;
  return Number(whole) * 10 ** digits + Number(fraction.padEnd(digits, '0') || '0');
}

/** 1250 minor units in usd → "12.50", for an input. */
export function fromMinorUnits(minor: number, currency: string): string {
  const digits = currencyDigits(currency);
  return digits === 0 ? String(minor) : (minor / 10 ** digits).toFixed(digits);
}

export const INTERVAL_LABEL: Record<BillingInterval, { adverb: string; unit: string }> = {
  month: { adverb: 'Monthly', unit: 'month' },
  year: { adverb: 'Yearly', unit: 'year' },
};

export function planPrice(plan: Pick<Plan, 'monthlyPrice' | 'yearlyPrice'>, interval: BillingInterval): number {
  return interval === 'month' ? plan.monthlyPrice : plan.yearlyPrice;
}

/** "$29.00 / month". */
export function formatPlanPrice(plan: Plan, interval: BillingInterval): string {
  return `${formatMoney(planPrice(plan, interval), plan.currency)} / ${INTERVAL_LABEL[interval].unit}`;
}

/** What paying yearly saves against twelve monthly payments, in whole percent (0 when nothing). */
export function yearlySaving(plan: Pick<Plan, 'monthlyPrice' | 'yearlyPrice'>): number {
  const twelve = plan.monthlyPrice * 12;
  if (twelve <= 0 || plan.yearlyPrice >= twelve) return 0;
  return Math.round(((twelve - plan.yearlyPrice) / twelve) * 100);
}

export const LIMIT_KEYS: readonly PlanLimitKey[] = ['channels', 'locations', 'ordersPerMonth', 'users'];

const NUMBER = new Intl.NumberFormat();

/** "3 sales channels", "1 location", "Unlimited users". */
export function formatLimit(key: PlanLimitKey, value: PlanLimits[PlanLimitKey]): string {
  const label = PLAN_LIMIT_LABELS[key];
  if (value === null) return `Unlimited ${label.many}`;
  return `${NUMBER.format(value)} ${value === 1 ? label.one : label.many}`;
}

const DATE = new Intl.DateTimeFormat(undefined, { dateStyle: 'long' });

/** A date as the reader's locale writes it ("March 4, 2026"); `fallback` when there is none. */
export function formatDate(date: Date | null | undefined, fallback = '—'): string {
  if (!date || Number.isNaN(date.getTime())) return fallback;
  return DATE.format(date);
}
