import { randomBytes } from 'node:crypto';

const alphabet = '0123456789abcdefghjkmnpqrstvwxyz'; // Crockford base32, lower case

/** Prefixed, sortable-enough, URL-safe ids made in the app: `ord_01h…` (STYLE.md §4). */
export function newId(prefix: string): string {
  const time = Date.now().toString(32).padStart(10, '0');
  const bytes = randomBytes(12);
  let rand = '';
  for (const b of bytes) rand += alphabet[b & 31];
  return `${prefix}_${time}${rand}`;
}
