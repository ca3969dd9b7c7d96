import { type AxiosAdapter, AxiosError, type InternalAxiosRequestConfig } from 'axios';
import { http } from '../lib/api.ts';

/** One REST answer: a status and a JSON body. */
export interface RestAnswer {
  status?: number;
  body?: unknown;
}

/** Answers one call from its parsed JSON body (POST/PUT/PATCH) or query params (GET/DELETE). */
export type RestHandler = (data: unknown, request: RecordedRestCall) => RestAnswer | Promise<RestAnswer>;

export interface RecordedRestCall {
  method: string;
  /** Base URL + path, e.g. `/api/frontend/login`. */
  url: string;
  data: unknown;
  authorization: string | null;
}

export type RestStub = { calls: RecordedRestCall[]; restore: () => void };

/**
 * Stubs the REST network edge: the shared axios instance gets an adapter that answers by
 * `'METHOD /api/…/path'` from `handlers` (404 for anything else). The real interceptors and response
 * parsing still run. Every call is recorded.
 */
export function stubRest(handlers: Record<string, RestHandler>): RestStub {
  const calls: RecordedRestCall[] = [];
  const adapter: AxiosAdapter = async (config: InternalAxiosRequestConfig) => {
    const method = (config.method ?? 'get').toUpperCase();
    const url = `${config.baseURL ?? ''}/${config.url ?? ''}`.replace(/\/{2,}/g, '/');
    const data = typeof config.data === 'string' ? JSON.parse(config.data) : (config.data ?? config.params);
    const authorization = config.headers.get('Authorization');
    const call = { method, url, data, authorization: typeof authorization === 'string' ? authorization : null };
    calls.push(call);
    const handler = handlers[`${method} ${url}`];
    const { status = 200, body } = handler
      ? await handler(data, call)
      : { status: 404, body: { code: 404, message: `No stub for ${method} ${url}` } };
    const response = {
      data: body === undefined ? '' : JSON.stringify(body),
      status,
      statusText: String(status),
      headers: { 'content-type': 'application/json' },
      config,
    };
    // Axios parses the body (transformResponse) after the adapter, for answers and failures alike.
    if (config.validateStatus?.(status) ?? true) return response;
    throw new AxiosError(
      `Request failed with status code ${status}`,
      status >= 500 ? 'ERR_BAD_RESPONSE' : 'ERR_BAD_REQUEST',
      config,
      null,
      response,
    );
  };
  const previous = http.defaults.adapter;
  http.defaults.adapter = adapter;
  return { calls, restore: () => (http.defaults.adapter = previous) };
}
