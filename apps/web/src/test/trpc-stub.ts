import superjson from 'superjson';

/** JSON-RPC numbers tRPC puts in `error.code`, by the names procedures throw. */
const ERROR_NUMBERS = {
  BAD_REQUEST: -32600,
  UNAUTHORIZED: -32001,
  FORBIDDEN: -32003,
  NOT_FOUND: -32004,
  CONFLICT: -32009,
  INTERNAL_SERVER_ERROR: -32603,
} as const;

const HTTP_STATUS: Record<keyof typeof ERROR_NUMBERS, number> = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  INTERNAL_SERVER_ERROR: 500,
};

export class ProcedureError {
  readonly code: keyof typeof ERROR_NUMBERS;
  readonly message: string;
  constructor(code: keyof typeof ERROR_NUMBERS, message: string) {
    this.code = code;
    this.message = message;
  }
}

/** Answers one call: a value (or a promise of one), or a ProcedureError to throw. */
export type ProcedureHandler = (input: unknown) => unknown;

export interface RecordedCall {
  url: URL;
  method: string;
  headers: Headers;
  paths: string[];
  inputs: unknown[];
  batched: boolean;
}

export type StubbedFetch = typeof globalThis.fetch & { calls: RecordedCall[] };

function readInputs(url: URL, paths: string[], batched: boolean, body: string | null): unknown[] {
  // Queries carry their input in the query string, mutations in a JSON body.
  const raw = body ?? url.searchParams.get('input');
  if (raw === null) return paths.map(() => undefined);
  const parsed: unknown = JSON.parse(raw);
  const deserialize = (value: unknown) =>
    value === undefined ? undefined : superjson.deserialize(value as Parameters<typeof superjson.deserialize>[0]);
  if (!batched) return [deserialize(parsed)];
  const byIndex = parsed as Record<string, unknown>;
  return paths.map((_, index) => deserialize(byIndex[index]));
}

async function answer(path: string, handler: ProcedureHandler | undefined, input: unknown) {
  try {
    if (!handler) throw new ProcedureError('NOT_FOUND', `No "query"-procedure on path "${path}"`);
    // A handler may answer later (a promise), to show what the screen does while a call runs.
    return { status: 200, body: { result: { data: superjson.serialize(await handler(input)) } } };
  } catch (err) {
    const error = err instanceof ProcedureError ? err : new ProcedureError('INTERNAL_SERVER_ERROR', String(err));
    const httpStatus = HTTP_STATUS[error.code];
    const shape = {
      message: error.message,
      code: ERROR_NUMBERS[error.code],
      data: { code: error.code, httpStatus, path },
    };
    return { status: httpStatus, body: { error: superjson.serialize(shape) } };
  }
}

/**
 * A fetch that speaks tRPC's HTTP protocol (queries and mutations, superjson, batched or not) for the given
 * procedures, so the real client, links and transformer run in tests. Every call is recorded.
 */
export function trpcFetch(handlers: Record<string, ProcedureHandler>): StubbedFetch {
  const calls: RecordedCall[] = [];
  const stub = async (resource: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(resource), 'http://localhost');
    const paths = decodeURIComponent(url.pathname.replace(/^\/api\/trpc\//, '')).split(',');
    const batched = url.searchParams.get('batch') === '1';
    const method = init?.method ?? 'GET';
    const sentBody = method === 'POST' && typeof init?.body === 'string' ? init.body : null;
    const inputs = readInputs(url, paths, batched, sentBody);
    calls.push({ url, method, headers: new Headers(init?.headers), paths, inputs, batched });
    const answers = await Promise.all(paths.map((path, index) => answer(path, handlers[path], inputs[index])));
    const status = answers.length === 1 ? (answers[0]?.status ?? 200) : 207;
    const body = batched ? answers.map((entry) => entry.body) : answers[0]?.body;
    return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  };
  return Object.assign(stub, { calls }) as StubbedFetch;
}

/** A fetch whose every answer is the given raw body, for responses the client cannot read. */
export function rawFetch(body: string, init: ResponseInit = { status: 200 }): typeof globalThis.fetch {
  return async () => new Response(body, init);
}
