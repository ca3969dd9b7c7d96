import type { TRPC_ERROR_CODE_KEY } from '@trpc/server';

/**
 * The closed set of failures a service may raise. One table maps each to tRPC and to HTTP,
 * so tRPC and REST can never disagree (STYLE.md §6).
 */
const codes = {
  UNAUTHORIZED: { trpc: 'UNAUTHORIZED', http: 401 }, // no session
  FORBIDDEN: { trpc: 'FORBIDDEN', http: 403 }, // signed in, lacks the permission
  NOT_FOUND: { trpc: 'NOT_FOUND', http: 404 }, // also for rows of another account
  CONFLICT: { trpc: 'CONFLICT', http: 409 }, // duplicate, stale version
  INVALID_STATE: { trpc: 'CONFLICT', http: 409 }, // e.g. cancelling a shipped order
  INSUFFICIENT_STOCK: { trpc: 'CONFLICT', http: 409 },
  VALIDATION: { trpc: 'BAD_REQUEST', http: 400 }, // a rule the input schema cannot express
  TOO_MANY_REQUESTS: { trpc: 'TOO_MANY_REQUESTS', http: 429 },
  NOT_IMPLEMENTED: { trpc: 'NOT_IMPLEMENTED', http: 501 },
  UPSTREAM_FAILED: { trpc: 'BAD_GATEWAY', http: 502 }, // a channel or payment API failed
  PLAN_LIMIT: { trpc: 'FORBIDDEN', http: 402 }, // the plan's limit is reached; upgrading lifts it
  PAYMENT_REQUIRED: { trpc: 'FORBIDDEN', http: 402 }, // past due beyond the grace period: read-only
} as const satisfies Record<string, { trpc: TRPC_ERROR_CODE_KEY; http: number }>;

export type DomainErrorCode = keyof typeof codes;

export class DomainError extends Error {
  override name = 'DomainError';
  readonly code: DomainErrorCode;
  constructor(code: DomainErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

export function trpcCodeFor(code: DomainErrorCode): TRPC_ERROR_CODE_KEY {
  return codes[code].trpc;
}

export function httpStatusFor(code: DomainErrorCode): number {
  return codes[code].http;
}

const CANNOT_STORE = 'A value in the request cannot be stored: it is too long, out of range or not valid text';

/** SQLSTATEs a request can cause with its values alone: the caller's fault, never a 500 (issue 18). */
const pgCodes: Record<string, { code: DomainErrorCode; message?: string }> = {
  '23505': { code: 'CONFLICT' }, // unique_violation
  '23503': { code: 'CONFLICT' }, // foreign_key_violation
  '23514': { code: 'VALIDATION' }, // check_violation
  '22001': { code: 'VALIDATION', message: CANNOT_STORE }, // string_data_right_truncation: text beyond a column's length
  '22003': { code: 'VALIDATION', message: CANNOT_STORE }, // numeric_value_out_of_range: e.g. beyond integer
  '22007': { code: 'VALIDATION', message: CANNOT_STORE }, // invalid_datetime_format
  '22008': { code: 'VALIDATION', message: CANNOT_STORE }, // datetime_field_overflow
  '22021': { code: 'VALIDATION', message: CANNOT_STORE }, // character_not_in_repertoire: U+0000 in text
  '22025': { code: 'VALIDATION', message: CANNOT_STORE }, // invalid_escape_sequence: a LIKE pattern
  '2201B': { code: 'VALIDATION', message: CANNOT_STORE }, // invalid_regular_expression
  '22P02': { code: 'VALIDATION', message: CANNOT_STORE }, // invalid_text_representation: 'abc' for an integer
  '22P05': { code: 'VALIDATION', message: CANNOT_STORE }, // untranslatable_character: \u0000 in jsonb
  '54000': { code: 'VALIDATION', message: CANNOT_STORE }, // program_limit_exceeded: text too long for an index
};

/**
 * Turns a database error into a DomainError without its driver text: Drizzle's message carries the SQL
 * and bound parameters, which must reach neither clients nor logs.
 */
export function fromDatabaseError(
  err: unknown,
  message = 'The change conflicts with existing data',
): DomainError | undefined {
  const sqlState = findSqlState(err);
  const known = sqlState ? pgCodes[sqlState] : undefined;
  return known ? new DomainError(known.code, known.message ?? message) : undefined;
}

function findSqlState(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 4; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}
