// The fuzz suite's parts (fuzz.db.test.ts): the whole API enumerated from what the server builds, and
// fast-check arbitraries of hostile requests shaped by each operation's own input schema.
import fc from 'fast-check';
import type { RouteOptions } from 'fastify';
import superjson from 'superjson';
import { z } from 'zod';
import { appRouter } from '../src/trpc/router.ts';

type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: JsonSchema | boolean;
  items?: JsonSchema;
  prefixItems?: JsonSchema[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
};

export interface RestOperation {
  kind: 'rest';
  method: string;
  /** Fastify's form, `/api/v1/locations/:id`. */
  url: string;
  params: string[];
  input?: JsonSchema;
  readsQuery: boolean;
}

export interface TrpcOperation {
  kind: 'trpc';
  path: string;
  type: 'query' | 'mutation';
  input?: JsonSchema;
}

export type Operation = RestOperation | TrpcOperation;

export const operationName = (op: Operation) =>
  op.kind === 'rest' ? `${op.method} ${op.url}` : `trpc ${op.type} ${op.path}`;

function jsonSchemaOf(schema: unknown): JsonSchema | undefined {
  if (!(schema instanceof z.ZodType)) return undefined;
  try {
    return z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  } catch {
    return {};
  }
}

/** Every REST operation under /api/{frontend,v1,v2}, as the server registered it (BuildAppOptions.onRoute). */
export function restOperations(routes: RouteOptions[]): RestOperation[] {
  const ops: RestOperation[] = [];
  for (const route of routes) {
    if (!/^\/api\/(frontend|v1|v2)\//.test(route.url)) continue;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (method === 'HEAD' || method === 'OPTIONS') continue;
      const schema = (route.schema ?? {}) as Record<string, unknown>;
      const readsQuery = method === 'GET' || method === 'DELETE';
      ops.push({
        kind: 'rest',
        method,
        url: route.url,
        params: [...route.url.matchAll(/:(\w+)/g)].map((m) => m[1] as string),
        input: jsonSchemaOf(readsQuery ? schema.querystring : schema.body),
        readsQuery,
      });
    }
  }
  return ops;
}

/** Every tRPC query and mutation of the app router. */
export function trpcOperations(): TrpcOperation[] {
  const procedures = appRouter._def.procedures as unknown as Record<
    string,
    { _def: { type: string; inputs: unknown[] } }
  >;
  return Object.entries(procedures)
    .filter(([, p]) => p._def.type === 'query' || p._def.type === 'mutation')
    .map(([path, p]) => ({
      kind: 'trpc',
      path,
      type: p._def.type as 'query' | 'mutation',
      input: p._def.inputs[0] ? jsonSchemaOf(p._def.inputs[0]) : undefined,
    }));
}

const deep = (levels: number) => {
  let value: unknown = 'bottom';
  for (let i = 0; i < levels; i++) value = { a: value };
  return value;
};

/** Texts a careless or hostile client sends. None holds the words the leak check looks for. */
export const HOSTILE_STRINGS = [
  '\u0000',
  'a\u0000b',
  '\u0000\u0000\u0000',
  '%00',
  '%C0%80',
  '\uD800',
  'x\uDFFF',
  '\u0001\u0002\u0007\u001b[31m',
  '\r\n\t\v\f',
  '\u202Eevil',
  '🚀👩‍👩‍👧',
  "' OR '1'='1",
  "'; DROP TABLE users; --",
  '"',
  '\\',
  '%',
  '_',
  'a%_\\',
  '\\%',
  `\${7*7}{{7*7}}`,
  '<script>alert(1)</script>',
  '../../../../etc/passwd',
  '..%2F..%2F',
  '',
  ' ',
  'null',
  'NaN',
  'Infinity',
  '-1',
  '99999999999999999999999',
  '2147483648',
  '-2147483649',
  '1e309',
  '0x10',
  '2026-13-45T99:99:99Z',
  '+275760-09-13T00:00:00.001Z',
  '0000-00-00',
  'a'.repeat(256),
  'x'.repeat(5000),
  'é'.repeat(3000),
  'y'.repeat(200_000),
];

export const HOSTILE_NUMBERS = [
  0,
  -1,
  0.5,
  -0,
  2 ** 31 - 1,
  2 ** 31,
  -(2 ** 31) - 1,
  2 ** 53,
  -(2 ** 53),
  Number.MAX_SAFE_INTEGER + 2,
  1e21,
  1e308,
  -1e308,
  5e-324,
];

const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) },
  { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_NUMBERS) },
  { weight: 1, arbitrary: fc.string({ unit: fc.integer({ min: 0, max: 31 }).map((c) => String.fromCharCode(c)) }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
  { weight: 2, arbitrary: fc.constantFrom<unknown>(null, true, false, {}, [], [null], { '\u0000': 1 }) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(deep(40), deep(300), Array(3000).fill('a'), { $gt: '' }) },
);

export interface Pools {
  /** Real ids of the caller's own rows (and some of another account), for fields and params that take ids. */
  ids: string[];
}

const isIdName = (name: string) => /(^id$|Id$|_id$|^ids$|Ids$)/.test(name);

/** Values of `schema`'s shape where any node may instead be hostile (one in six). */
function node(schema: JsonSchema | boolean | undefined, name: string, pools: Pools, depth: number) {
  return fc.oneof(
    { weight: 5, arbitrary: plausible(schema, name, pools, depth) },
    { weight: 1, arbitrary: hostileValue },
  );
}

function plausible(
  schema: JsonSchema | boolean | undefined,
  name: string,
  pools: Pools,
  depth: number,
): fc.Arbitrary<unknown> {
  const s: JsonSchema = typeof schema === 'object' ? schema : {};
  if (depth > 6) return fc.constant(null);
  if (s.const !== undefined) return fc.constant(s.const);
  if (s.enum?.length) return fc.constantFrom(...s.enum);
  const alternatives = s.anyOf ?? s.oneOf;
  if (alternatives?.length) return fc.oneof(...alternatives.map((a) => plausible(a, name, pools, depth)));
  if (s.allOf?.[0]) return plausible(s.allOf[0], name, pools, depth);
  const types = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
  if (types.length > 1) return fc.oneof(...types.map((type) => plausible({ ...s, type }, name, pools, depth)));
  switch (types[0]) {
    case 'object': {
      const props = Object.entries(s.properties ?? {});
      if (props.length === 0 && typeof s.additionalProperties === 'object') {
        return fc.dictionary(fc.string({ maxLength: 8 }), node(s.additionalProperties, name, pools, depth + 1), {
          maxKeys: 3,
        });
      }
      const required = (s.required ?? []).filter((k) => k in (s.properties ?? {}));
      const record = fc.record(Object.fromEntries(props.map(([k, v]) => [k, node(v, k, pools, depth + 1)])), {
        requiredKeys: required,
      });
      // Sometimes a field the schema does not know, or one it needs left out.
      return fc.oneof(
        { weight: 6, arbitrary: record },
        { weight: 1, arbitrary: record.map((r) => ({ ...r, unexpected: '\u0000', __proto__x: { a: 1 } })) },
        { weight: 1, arbitrary: fc.constant({}) },
      );
    }
    case 'array':
      if (s.prefixItems) return fc.tuple(...s.prefixItems.map((item) => node(item, name, pools, depth + 1)));
      return fc.array(node(s.items, name, pools, depth + 1), {
        minLength: Math.min(s.minItems ?? 0, 3),
        maxLength: Math.max(Math.min(s.maxItems ?? 3, 3), Math.min(s.minItems ?? 0, 3)),
      });
    case 'string':
      return stringOf(s, name, pools);
    case 'integer':
      return fc.integer({
        min: Math.max(s.minimum ?? -1000, -(2 ** 31)),
        max: Math.min(s.maximum ?? 1000, 2 ** 31 - 1),
      });
    case 'number':
      return fc.double({
        min: Math.max(s.minimum ?? -1000, -1e9),
        max: Math.min(s.maximum ?? 1000, 1e9),
        noNaN: true,
        noDefaultInfinity: true,
      });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    default:
      return fc.oneof(fc.string({ maxLength: 10 }), fc.integer(), fc.boolean(), fc.constant(null));
  }
}

function stringOf(s: JsonSchema, name: string, pools: Pools): fc.Arbitrary<unknown> {
  const text =
    s.format === 'email'
      ? fc.constantFrom('fuzz@shop.test', 'a@b.co', 'x@y')
      : s.format === 'date-time' || s.format === 'date'
        ? fc
            .date({ noInvalidDate: true })
            .map((d) => (s.format === 'date' ? d.toISOString().slice(0, 10) : d.toISOString()))
        : fc.string({
            minLength: Math.min(s.minLength ?? 0, 20),
            maxLength: Math.max(Math.min(s.maxLength ?? 20, 20), Math.min(s.minLength ?? 0, 20)),
          });
  if (isIdName(name) && pools.ids.length > 0) {
    return fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...pools.ids) }, { weight: 1, arbitrary: text });
  }
  return text;
}

/** Invalid JSON and odd bodies, sent with a JSON content type. */
const RAW_BODIES = [
  '{"name":',
  '\u0000',
  '{"name":"\\u0000"}',
  '{"\\u0000":1}',
  '{"name":"\\ud800"}',
  'null',
  '[]',
  '"text"',
  '1e999',
  '[',
  '['.repeat(5000),
  '{"a":'.repeat(2000),
  '{"__proto__":{"admin":true}}',
  '{"constructor":{"prototype":{"admin":true}}}',
];

const WRONG_TYPES = [
  ['text/plain', 'name=x'],
  ['application/x-www-form-urlencoded', 'name=%00&limit=1'],
  ['multipart/form-data', '--x\r\n'],
  ['application/xml', '<a>\u0000</a>'],
  ['application/json; charset=latin1', '{"name":"\u00ff"}'],
] as const;

export interface FuzzRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string;
}

/** Percent-encodes as a client would, a lone surrogate as the bytes of one (invalid UTF-8), where encodeURIComponent throws. */
export function encode(text: string): string {
  let out = '';
  for (const ch of text) out += /^[\uD800-\uDFFF]$/.test(ch) ? '%ED%A0%80' : encodeURIComponent(ch);
  return out;
}

function toQuery(input: unknown): string {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    return input === undefined ? '' : `?q=${encode(String(input))}`;
  }
  const parts = Object.entries(input as Record<string, unknown>).map(([k, v]) => {
    const text = typeof v === 'string' ? v : (JSON.stringify(v) ?? '');
    return `${encode(k)}=${encode(text)}`;
  });
  return parts.length ? `?${parts.join('&')}` : '';
}

const paramValue = (pools: Pools) =>
  fc.oneof(
    { weight: 3, arbitrary: pools.ids.length ? fc.constantFrom(...pools.ids) : fc.constant('x') },
    { weight: 2, arbitrary: fc.constantFrom<unknown>(...HOSTILE_STRINGS, ...HOSTILE_NUMBERS) },
    { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
  );

/** Requests for one operation: its input shape with hostile values, invalid JSON, wrong content types, odd ids. */
export function requestsFor(op: Operation, pools: Pools): fc.Arbitrary<FuzzRequest> {
  const input = op.input ? node(op.input, '', pools, 0) : fc.oneof(fc.constant(undefined), hostileValue);
  if (op.kind === 'trpc') {
    const url = `/api/trpc/${op.path}`;
    const encoded = input.map((value) => JSON.stringify(superjson.serialize(value)));
    const raw = fc.constantFrom(
      ...RAW_BODIES,
      '{"json":{"a":1},"meta":{"values":{"a":["bigint"]}}}',
      '{"json":{"a":"x"},"meta":{"values":{"a":["Date"]}}}',
      '{"json":{"a":"x"},"meta":{"values":{"__proto__":["set"]}}}',
      '{"json":{"a":[1]},"meta":{"values":{"a.0.b.c":["map"]}}}',
    );
    const body = fc.oneof({ weight: 5, arbitrary: encoded }, { weight: 1, arbitrary: raw });
    return body.map(
      (text): FuzzRequest =>
        op.type === 'query'
          ? { method: 'GET', url: `${url}?input=${encode(text)}`, headers: {} }
          : { method: 'POST', url, headers: { 'content-type': 'application/json' }, payload: text },
    );
  }
  const params = fc.tuple(...op.params.map(() => paramValue(pools)));
  const path = params.map((values) =>
    values.reduce<string>((url, value, i) => url.replace(`:${op.params[i]}`, encode(String(value))), op.url),
  );
  if (op.readsQuery) {
    return fc
      .tuple(path, input)
      .map(([url, value]) => ({ method: op.method, url: `${url}${toQuery(value)}`, headers: {} }));
  }
  const json = input.map((value) => ({
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify(value) ?? '',
  }));
  const raw = fc.constantFrom(...RAW_BODIES).map((payload) => ({
    headers: { 'content-type': 'application/json' },
    payload,
  }));
  const wrongType = fc.constantFrom(...WRONG_TYPES).map(([type, payload]) => ({
    headers: { 'content-type': type },
    payload,
  }));
  const body = fc.oneof(
    { weight: 6, arbitrary: json },
    { weight: 1, arbitrary: raw },
    { weight: 1, arbitrary: wrongType },
  );
  return fc.tuple(path, body).map(([url, b]) => ({ method: op.method, url, ...b }));
}

/** What an answer must never carry: a stack frame, a module path, or the database's own words. */
export const LEAK =
  /\bat [\w.<>]+ \(|\.ts:\d+:\d+|node_modules|Failed query|(\\n|\n)params: |invalid input syntax|violates [\w ]*constraint|out of range for type|unsupported Unicode escape|invalid byte sequence|syntax error at or near|relation "[^"]+" does not exist|DrizzleQueryError|ZodError|SQLSTATE/;
