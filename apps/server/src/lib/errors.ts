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

const pgCodes: Record<string, DomainErrorCode> = {
  '23505': 'CONFLICT', // unique_violation
  '23503': 'CONFLICT', // foreign_key_violation
  '23514': 'VALIDATION', // check_violation
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
  const code = sqlState ? pgCodes[sqlState] : undefined;
  return code ? new DomainError(code, message) : undefined;
}

function findSqlState(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 4; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}
