import type { FastifyReply } from 'fastify';

/** BigCommerce's documentation link that every V3 error body carries in `type`. */
export const ERROR_TYPE = 'https://developer.bigcommerce.com/api-docs/getting-started/api-status-codes';

/** A V3 error: `{status, title, type, errors}`. */
export function v3Error(reply: FastifyReply, status: number, title: string, errors: Record<string, string> = {}) {
  return reply.code(status).type('application/problem+json').send({ status, title, type: ERROR_TYPE, errors });
}

/** A V2 error: a JSON array of `{status, message}`. */
export function v2Error(reply: FastifyReply, status: number, message: string) {
  return reply.code(status).type('application/json').send([{ status, message }]);
}

/** Thrown inside handlers; rendered in the V2 or V3 shape by the scope's error handler. */
export class BcError extends Error {
  readonly statusCode: number;
  readonly errors: Record<string, string>;
  constructor(statusCode: number, message: string, errors: Record<string, string> = {}) {
    super(message);
    this.statusCode = statusCode;
    this.errors = errors;
  }
}

/** Cents → BigCommerce's V3 number (10.5). */
export const toDecimal = (cents: number) => Math.round(cents) / 100;
/** Cents → BigCommerce's V2 money string ("10.5000"). */
export const toMoneyString = (cents: number) => (cents / 100).toFixed(4);
/** A decimal number or string → cents. */
export function toCents(value: unknown): number | null {
  if (value === null || value === undefined || value === '') return null;
  const n = typeof value === 'number' ? value : Number(value);
  return Number.isFinite(n) ? Math.round(n * 100) : null;
}

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad = (n: number) => String(n).padStart(2, '0');

/** V2 dates: RFC 2822 in UTC, "Wed, 10 Jan 2018 21:05:30 +0000". */
export function rfc2822(ms: number): string {
  const d = new Date(ms);
  return `${DAYS[d.getUTCDay()]}, ${pad(d.getUTCDate())} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()} ${pad(
    d.getUTCHours(),
  )}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} +0000`;
}

/** V3 dates: ISO 8601 with an offset and no milliseconds, "2018-08-15T14:48:46+00:00". */
export const iso = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', '+00:00');

/** Filter dates may be ISO 8601, RFC 2822 or a unix timestamp. */
export function parseDateParam(value: string | undefined): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : ms;
}

export function intParam(value: unknown, fallback: number): number {
  if (value === undefined || value === null || value === '') return fallback;
  const n = Number(value);
  return Number.isInteger(n) ? n : Number.NaN;
}

/** `a,b,c` → numbers (the `:in` filters). */
export function idList(value: unknown): number[] | null {
  if (typeof value !== 'string' || value === '') return null;
  return value
    .split(',')
    .map((s) => Number(s.trim()))
    .filter((n) => Number.isInteger(n));
}

export function stringList(value: unknown): string[] | null {
  if (typeof value !== 'string' || value === '') return null;
  return value.split(',').map((s) => s.trim());
}

/** page/limit over a list, with V3's `meta.pagination`. */
export function paginate<T>(
  items: T[],
  query: Record<string, unknown>,
  options: { defaultLimit?: number; maxLimit: number },
): { data: T[]; meta: { pagination: Record<string, unknown> } } {
  const limit = intParam(query.limit, options.defaultLimit ?? 50);
  const page = intParam(query.page, 1);
  if (!Number.isInteger(limit) || limit < 1)
    throw new BcError(422, 'The limit must be a positive integer', { limit: 'error.min' });
  if (limit > options.maxLimit) {
    throw new BcError(413, `The limit is too large. The maximum limit is ${options.maxLimit}.`);
  }
  if (!Number.isInteger(page) || page < 1)
    throw new BcError(422, 'The page must be a positive integer', { page: 'error.min' });
  const totalPages = Math.max(1, Math.ceil(items.length / limit));
  const data = items.slice((page - 1) * limit, page * limit);
  const links: Record<string, string> = { current: `?limit=${limit}&page=${page}` };
  if (page > 1) links.previous = `?limit=${limit}&page=${page - 1}`;
  if (page < totalPages) links.next = `?limit=${limit}&page=${page + 1}`;
  return {
    data,
    meta: {
      pagination: {
        total: items.length,
        count: data.length,
        per_page: limit,
        current_page: page,
        total_pages: totalPages,
        links,
      },
    },
  };
}

/** Matches a webhook scope against a hook's (with `*` for one segment, or the rest when last). */
export function scopeMatches(pattern: string, scope: string): boolean {
  const p = pattern.split('/');
  const s = scope.split('/');
  for (let i = 0; i < p.length; i++) {
    if (p[i] === '*' && i === p.length - 1) return s.length >= p.length;
    if (i >= s.length) return false;
    if (p[i] !== '*' && p[i] !== s[i]) return false;
  }
  return p.length === s.length;
}

export const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);
