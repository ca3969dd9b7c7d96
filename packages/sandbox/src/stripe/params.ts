import { invalidRequest, missingParam } from './errors.ts';
import type { Metadata } from './types.ts';

/**
 * Request parameters as Stripe reads them: form-encoded with bracket notation (parsed with qs), every
 * value a string. The readers below convert and validate one parameter each and raise Stripe's own
 * errors ("Missing required param: mode.", "Invalid integer: abc", "Received unknown parameter: foo").
 */
export type Params = Record<string, unknown>;

const isRecord = (v: unknown): v is Params => typeof v === 'object' && v !== null && !Array.isArray(v);

export function child(params: Params, key: string, path = key): Params | undefined {
  const v = params[key];
  if (v === undefined || v === '') return undefined;
  if (!isRecord(v)) throw invalidRequest(`Invalid object`, path);
  return v;
}

export function str(params: Params, key: string, path = key): string | undefined {
  const v = params[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw invalidRequest(`Invalid string: ${JSON.stringify(v)}`, path);
  return v;
}

export function reqStr(params: Params, key: string, path = key): string {
  const v = str(params, key, path);
  if (v === undefined || v === '') throw missingParam(path);
  return v;
}

export function int(params: Params, key: string, path = key): number | undefined {
  const v = str(params, key, path);
  if (v === undefined || v === '') return undefined;
  if (!/^-?\d+$/.test(v)) throw invalidRequest(`Invalid integer: ${v}`, path);
  return Number(v);
}

export function bool(params: Params, key: string, path = key): boolean | undefined {
  const v = str(params, key, path);
  if (v === undefined || v === '') return undefined;
  if (v === 'true') return true;
  if (v === 'false') return false;
  throw invalidRequest(`Invalid boolean: ${v}`, path);
}

export function oneOf<T extends string>(params: Params, key: string, values: readonly T[], path = key): T | undefined {
  const v = str(params, key, path);
  if (v === undefined || v === '') return undefined;
  if (!values.includes(v as T)) {
    throw invalidRequest(`Invalid ${path}: must be one of ${values.join(', ')}`, path, 'parameter_invalid_string');
  }
  return v as T;
}

/** Arrays arrive as `k[0]=a&k[1]=b` (qs makes an array) or, from other clients, `k[]=a`. */
export function list(params: Params, key: string): unknown[] | undefined {
  const v = params[key];
  if (v === undefined || v === '') return undefined;
  if (Array.isArray(v)) return v;
  if (isRecord(v))
    return Object.keys(v)
      .sort((a, b) => Number(a) - Number(b))
      .map((k) => v[k]);
  return [v];
}

export function strList(params: Params, key: string): string[] | undefined {
  const v = list(params, key);
  if (!v) return undefined;
  return v.map((item, i) => {
    if (typeof item !== 'string') throw invalidRequest(`Invalid string`, `${key}[${i}]`);
    return item;
  });
}

/** `metadata[k]=v`; an empty value removes the key on update, as Stripe does. */
export function metadata(params: Params, current: Metadata = {}): Metadata {
  const v = params.metadata;
  if (v === undefined) return current;
  if (v === '') return {};
  if (!isRecord(v)) throw invalidRequest('Invalid hash', 'metadata');
  const next = { ...current };
  for (const [k, value] of Object.entries(v)) {
    if (typeof value !== 'string') throw invalidRequest('Invalid metadata value', `metadata[${k}]`);
    if (k.length > 40) throw invalidRequest('Metadata keys can be at most 40 characters long.', `metadata[${k}]`);
    if (value === '') delete next[k];
    else next[k] = value.slice(0, 500);
  }
  if (Object.keys(next).length > 50) throw invalidRequest('Metadata can have at most 50 keys.', 'metadata');
  return next;
}

/** Stripe refuses parameters it does not know; so does the simulator (expand is always allowed). */
export function allowOnly(params: Params, allowed: readonly string[]) {
  for (const key of Object.keys(params)) {
    if (key === 'expand' || allowed.includes(key)) continue;
    throw invalidRequest(`Received unknown parameter: ${key}`, key, 'parameter_unknown');
  }
}

export function expandList(params: Params): string[] {
  return strList(params, 'expand') ?? [];
}
