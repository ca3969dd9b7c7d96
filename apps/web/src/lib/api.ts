import { MESSAGES, type RestApiVersion } from '@switchyard/contracts';
import axios, { type AxiosRequestConfig, type AxiosResponseHeaders, type Method } from 'axios';
import { getToken } from './auth-token.ts';

export type ApiUrls = Record<RestApiVersion, string>;

let apiUrls: ApiUrls | undefined;

/** Sets the base addresses of the REST versions; main.tsx calls it once at start-up. */
export function initApi(urls: ApiUrls): void {
  apiUrls = { ...urls };
}

/** Forgets the base addresses again (tests use it to start from a clean slate). */
export function resetApi(): void {
  apiUrls = undefined;
}

export function apiUrl(version: RestApiVersion): string {
  if (!apiUrls) throw new Error(MESSAGES.apiUrlsNotInitialized);
  return apiUrls[version];
}

/**
 * Bodies are parsed as JSON unless the caller asked for another response type (a CSV export as a blob,
 * say). Axios would otherwise hand back the raw text of a body it cannot parse; SPEC §8 makes that an error.
 */
function parseJsonBody(this: AxiosRequestConfig, data: unknown, _headers: AxiosResponseHeaders): unknown {
  const wantsJson = this.responseType === undefined || this.responseType === 'json';
  if (!wantsJson || typeof data !== 'string') return data;
  if (data.trim() === '') return undefined;
  try {
    return JSON.parse(data);
  } catch {
    throw new Error(MESSAGES.untransformable);
  }
}

/** The one axios instance for REST calls. */
export const http = axios.create({
  headers: { Accept: 'application/json' },
  transformResponse: [parseJsonBody],
});

http.interceptors.request.use((config) => {
  const token = getToken();
  if (token) config.headers.set('Authorization', `Bearer ${token}`);
  return config;
});

type RequestConfig = Omit<AxiosRequestConfig, 'baseURL' | 'url' | 'method' | 'params' | 'data'>;

const SENDS_BODY = new Set<Method>(['POST', 'PUT', 'PATCH']);

async function request<T>(
  version: RestApiVersion,
  method: Method,
  path: string,
  data?: unknown,
  config?: RequestConfig,
): Promise<T> {
  const baseURL = apiUrl(version);
  // SPEC §7: GET and DELETE carry their data as query parameters, the others as a JSON body.
  const payload = SENDS_BODY.has(method) ? { data } : { params: data };
  const response = await http.request<T>({ ...config, baseURL, url: path, method, ...payload });
  return response.data;
}

function restClient(version: RestApiVersion) {
  return {
    get: <T>(path: string, params?: unknown, config?: RequestConfig) =>
      request<T>(version, 'GET', path, params, config),
    delete: <T>(path: string, params?: unknown, config?: RequestConfig) =>
      request<T>(version, 'DELETE', path, params, config),
    post: <T>(path: string, body?: unknown, config?: RequestConfig) => request<T>(version, 'POST', path, body, config),
    put: <T>(path: string, body?: unknown, config?: RequestConfig) => request<T>(version, 'PUT', path, body, config),
    patch: <T>(path: string, body?: unknown, config?: RequestConfig) =>
      request<T>(version, 'PATCH', path, body, config),
  };
}

export type RestClient = ReturnType<typeof restClient>;

/** `api.v1.get('locations', { sort: 'store_id' })`, `api.frontend.post('login', credentials)`, … */
export const api: Record<RestApiVersion, RestClient> = {
  frontend: restClient('frontend'),
  v1: restClient('v1'),
  v2: restClient('v2'),
};
