import { MESSAGES } from '@switchyard/contracts';
import { TRPCClientError } from '@trpc/client';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function nonEmptyString(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

/** The response a REST (axios) failure carries, if any. */
function responseOf(err: unknown): { status?: unknown; data?: unknown } | undefined {
  if (!isRecord(err) || !isRecord(err.response)) return undefined;
  return err.response;
}

/**
 * A tRPC call whose body was not JSON fails inside the client with the parser's SyntaxError; tRPC itself
 * reports a body of the wrong shape as "Unable to transform response from server". Both read the same.
 */
function trpcErrorMessage(err: TRPCClientError<never>): string {
  if (err.cause instanceof SyntaxError) return MESSAGES.untransformable;
  return nonEmptyString(err.message) ?? MESSAGES.unexpected;
}

/**
 * The text to show for a failed call (SPEC §8): the response's message, then its error, then the response
 * body when it is text, then the error's own message.
 */
export function errorMessage(err: unknown): string {
  if (err instanceof TRPCClientError) return trpcErrorMessage(err);
  const data = responseOf(err)?.data;
  if (isRecord(data)) {
    const fromBody = nonEmptyString(data.message) ?? nonEmptyString(data.error);
    if (fromBody) return fromBody;
  }
  const text = nonEmptyString(data);
  if (text) return text;
  if (isRecord(err)) {
    const message = nonEmptyString(err.message);
    if (message) return message;
  }
  return nonEmptyString(err) ?? MESSAGES.unexpected;
}

/** True for a tRPC UNAUTHORIZED error and for a REST 401 (by HTTP status or by the `{ code }` body). */
export function isUnauthorized(err: unknown): boolean {
  if (err instanceof TRPCClientError) {
    const data: unknown = err.data;
    return isRecord(data) && (data.code === 'UNAUTHORIZED' || data.httpStatus === 401);
  }
  const response = responseOf(err);
  if (!response) return false;
  return response.status === 401 || (isRecord(response.data) && response.data.code === 401);
}

/** The HTTP status of a tRPC or REST (axios) failure; undefined for a network error or anything else. */
export function httpStatusOf(err: unknown): number | undefined {
  if (err instanceof TRPCClientError) {
    const data: unknown = err.data;
    return isRecord(data) && typeof data.httpStatus === 'number' ? data.httpStatus : undefined;
  }
  const status = responseOf(err)?.status;
  return typeof status === 'number' ? status : undefined;
}
