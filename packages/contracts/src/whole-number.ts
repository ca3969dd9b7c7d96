import { z } from 'zod';

/**
 * A whole number from JSON, a query string or a form: a number, or a string that is one. Anything else (text, null,
 * an empty string, true, a list) is refused with `message`, as is a number outside `range`: `z.coerce.number()`
 * read null, '', false and [] as 0 (a status change "to null" asked for status 0) and said "received NaN" of text.
 */
export function wholeNumber(message: string, range: { min?: number; max?: number } = {}) {
  let n = z.number({ error: message }).int(message);
  if (range.min !== undefined) n = n.min(range.min, message);
  if (range.max !== undefined) n = n.max(range.max, message);
  return z.preprocess((v) => (typeof v === 'string' && v.trim() !== '' ? Number(v) : v), n);
}

/**
 * An optional whole-number filter of a list (`?status=`): missing, or empty as a query string or form leaves it
 * blank ("any"), read as if it were not given; anything else is a `wholeNumber` (text is still refused with
 * `message`). Only for filters: an empty value to set or create is refused by `wholeNumber` itself.
 */
export function wholeNumberFilter(message: string, range: { min?: number; max?: number } = {}) {
  return z.preprocess(
    (v) => (typeof v === 'string' && v.trim() === '' ? undefined : v),
    wholeNumber(message, range).optional(),
  );
}
