import type { PlaceOrderInput } from './context.ts';

/** An address as the control API takes it for a web order; each simulator renders it its provider's way. */
export interface WebOrderAddress {
  firstName?: string;
  lastName?: string;
  name?: string;
  company?: string;
  address1?: string;
  address2?: string;
  city?: string;
  province?: string;
  zip?: string;
  /** ISO 3166 alpha-2. */
  country?: string;
  phone?: string;
}

/**
 * A web order placed through `/_control/{shopify|bigcommerce}/{shop}/orders`: the common input plus what a
 * storefront checkout carries. Money in minor units; what is left out is made up as the seed does.
 */
export type WebOrderInput = PlaceOrderInput & {
  shippingAddress?: WebOrderAddress;
  billingAddress?: WebOrderAddress;
  note?: string;
  tags?: string[];
  /** Order-level discount, spread over the lines by their value. */
  discount?: number;
  /** Tax on the order, spread over the lines by their value. */
  tax?: number;
  /** Shipping charged (default: the provider's flat rate; 0 for a pickup). */
  shipping?: number;
};

/** Splits `total` over parts in proportion to `weights`, in whole minor units that add up exactly. */
export function spread(total: number, weights: number[]): number[] {
  const sum = weights.reduce((s, w) => s + w, 0);
  if (total === 0 || weights.length === 0) return weights.map(() => 0);
  if (sum <= 0) return weights.map((_, i) => (i === 0 ? total : 0));
  const exact = weights.map((w) => (total * w) / sum);
  const out = exact.map(Math.floor);
  let left = total - out.reduce((s, n) => s + n, 0);
  const order = exact.map((e, i) => [e - Math.floor(e), i] as const).sort((a, b) => b[0] - a[0]);
  for (const [, i] of order) {
    if (left <= 0) break;
    out[i] = (out[i] as number) + 1;
    left--;
  }
  return out;
}

/** "Ava Nguyen" → first and last name (the last word is the last name). */
export function splitName(name: string | undefined): { first: string; last: string } | null {
  const words = (name ?? '').trim().split(/\s+/).filter(Boolean);
  if (words.length === 0) return null;
  if (words.length === 1) return { first: words[0] as string, last: '' };
  return { first: words.slice(0, -1).join(' '), last: words.at(-1) as string };
}

/** A whole, non-negative number of minor units, or an error with status 400. */
export function minorUnits(value: unknown, field: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0)
    throw Object.assign(new Error(`${field} must be a whole, non-negative number of minor units`), {
      statusCode: 400,
    });
  return value;
}
