import type { FastifyInstance } from 'fastify';
import superjson from 'superjson';

export interface TrpcResult<T = unknown> {
  status: number;
  data?: T;
  error?: { message: string; code: number; data: { code: string; httpStatus: number; domainCode?: string } };
}

/** Calls one tRPC procedure over HTTP (no batching), as the web app does, and decodes the answer. */
export function trpcOver(app: FastifyInstance, headers: Record<string, string> = {}) {
  const decode = <T>(res: { statusCode: number; body: string }): TrpcResult<T> => {
    const body = JSON.parse(res.body) as { result?: { data: unknown }; error?: { json: unknown } };
    if (body.error) return { status: res.statusCode, error: body.error.json as TrpcResult['error'] };
    return { status: res.statusCode, data: superjson.deserialize(body.result?.data as never) as T };
  };
  return {
    async query<T = unknown>(path: string, input?: unknown): Promise<TrpcResult<T>> {
      const qs = input === undefined ? '' : `?input=${encodeURIComponent(JSON.stringify(superjson.serialize(input)))}`;
      return decode<T>(await app.inject({ method: 'GET', url: `/api/trpc/${path}${qs}`, headers }));
    },
    async mutation<T = unknown>(path: string, input?: unknown): Promise<TrpcResult<T>> {
      return decode<T>(
        await app.inject({
          method: 'POST',
          url: `/api/trpc/${path}`,
          headers: { ...headers, 'content-type': 'application/json' },
          payload: JSON.stringify(superjson.serialize(input ?? null)),
        }),
      );
    },
  };
}
