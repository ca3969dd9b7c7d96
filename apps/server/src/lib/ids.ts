import { randomBytes } from 'node:crypto';

const alphabet = '0123456789abcdefghjkmnpqrstvwxyz'; // Crockford base32, lower case

/** Prefixed, sortable-enough, URL-safe ids made in the app: `ord_01h…` (STYLE.md §4). */
export function newId(prefix: string, at = Date.now()): string {
  const time = at.toString(32).padStart(10, '0');
  if (offset + 12 > pool.length) {
    pool = randomBytes(POOL);
    offset = 0;
  }
  let rand = '';
  for (let i = offset; i < offset + 12; i++) rand += alphabet[(pool[i] as number) & 31];
  offset += 12;
  return `${prefix}_${time}${rand}`;
}

/** Random bytes drawn a few kilobytes at a time (one call per id was 2 % of the server's time under load). */
const POOL = 12 * 512;
let pool = Buffer.alloc(0);
let offset = 0;

/** When an id made by `newId` was made (its first ten characters after the prefix); null for any other string. */
export function idTime(id: string): Date | null {
  const time = /^[a-z]+_([0-9a-v]{10})/.exec(id)?.[1];
  if (!time) return null;
  const ms = Number.parseInt(time, 32);
  return Number.isSafeInteger(ms) ? new Date(ms) : null;
}

/** The bound below which every id `newId` made with this prefix before `at` sorts (a range over a primary key). */
export function idsBefore(prefix: string, at: Date): string {
  return `${prefix}_${at.getTime().toString(32).padStart(10, '0')}`;
}
