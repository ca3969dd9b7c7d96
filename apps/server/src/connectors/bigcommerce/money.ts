/** Amounts: BigCommerce's decimals (V3 numbers, V2 strings like "12.3400") and our integer minor units. */

/** A decimal (V3 number or V2 "12.3400") → integer minor units. */
export function toMinor(value: number | string | null | undefined): number | null {
  if (value === null || value === undefined || value === '') return null;
  const n = typeof value === 'number' ? value : Number(value);
  return Number.isFinite(n) ? Math.round(n * 100) : null;
}
export const toDecimal = (minor: number) => minor / 100;
export const positive = (minor: number | null) => (minor !== null && minor > 0 ? minor : null);
