// Business constants of SPEC §9, shared by the web app and the server.

export const PASSWORD_MIN_LENGTH = 10;

/** Build-version check: at start-up, then every 10 minutes. */
export const BUILD_CHECK_INTERVAL_MS = 10 * 60 * 1000;

export const TOAST_DEFAULT_DURATION_MS = 3000;
export const TOAST_VISIBLE_MAX = 9;
export const UNAUTHORIZED_MESSAGE_MS = 10_000;

export const PAGE_SIZE_OPTIONS = [25, 50, 100, 200] as const;
export const DEFAULT_PAGE_SIZE = 25;
export const GENERIC_LIST_PAGE_SIZE = 50;

export const SEARCH_DEBOUNCE_MS = 500;
export const RETURNS_SEARCH_DEBOUNCE_MS = 1000;

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

export const QUERY_STALE_TIME_MS = 60 * SECOND;
export const QUERY_GC_TIME_MS = 5 * MINUTE;
export const QUERY_RETRIES = 3;
export const QUERY_RETRY_BASE_MS = 1 * SECOND;
export const QUERY_RETRY_MAX_MS = 30 * SECOND;
export const SYNC_LIST_STALE_MS = 5 * MINUTE;
export const SYNC_META_STALE_MS = 10 * MINUTE;
export const CHANNEL_LIST_CACHE_MS = 1 * HOUR;
export const RETURNS_CACHE_MS = 5 * MINUTE;
export const BUFFERS_CACHE_MS = 5 * MINUTE;

/** SPEC §9 "Route preload cache lifetime 1000 ms": a preloaded route (a hover) is fresh, and kept unused, this long. */
export const ROUTE_PRELOAD_CACHE_MS = 1000;

/** Exponential backoff for failed queries: 1 s doubling, capped at 30 s. */
export function retryDelayMs(attemptIndex: number): number {
  return Math.min(QUERY_RETRY_BASE_MS * 2 ** attemptIndex, QUERY_RETRY_MAX_MS);
}
