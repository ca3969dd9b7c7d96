import { QUERY_GC_TIME_MS, QUERY_RETRIES, QUERY_STALE_TIME_MS, retryDelayMs } from '@switchyard/contracts';
import { MutationCache, QueryCache, QueryClient } from '@tanstack/react-query';
import { httpStatusOf, isUnauthorized } from './errors.ts';

/** Retries a failed query up to 3 times (SPEC §9), but never an expired session: that goes to login. */
export function shouldRetry(failureCount: number, error: unknown): boolean {
  return !isUnauthorized(error) && failureCount < QUERY_RETRIES;
}

/** A refusal (4xx) is not asked again: the same question gets the same answer. A failure (5xx, network) is. */
export function retryUnlessRefused(failureCount: number, error: unknown): boolean {
  const status = httpStatusOf(error);
  if (status !== undefined && status >= 400 && status < 500) return false;
  return shouldRetry(failureCount, error);
}

/**
 * A call flagged `meta: { handlesUnauthorized: true }` deals with its own failures (sign-in's "wrong
 * password" is a 401; the app gate turns an expired session into a redirect at once).
 */
function handlesOwnUnauthorized(meta: Record<string, unknown> | undefined): boolean {
  return meta?.handlesUnauthorized === true;
}

export interface QueryClientOptions {
  /** Called with every failed query and mutation; the app passes the UNAUTHORIZED handler. */
  onError?: (error: unknown) => void;
}

export function createQueryClient({ onError }: QueryClientOptions = {}): QueryClient {
  return new QueryClient({
    queryCache: new QueryCache({
      onError: (error, query) => {
        if (!handlesOwnUnauthorized(query.meta)) onError?.(error);
      },
    }),
    mutationCache: new MutationCache({
      onError: (error, _variables, _context, mutation) => {
        if (!handlesOwnUnauthorized(mutation.meta)) onError?.(error);
      },
    }),
    defaultOptions: {
      queries: {
        staleTime: QUERY_STALE_TIME_MS,
        gcTime: QUERY_GC_TIME_MS,
        retry: shouldRetry,
        retryDelay: (attemptIndex) => retryDelayMs(attemptIndex),
      },
    },
  });
}
