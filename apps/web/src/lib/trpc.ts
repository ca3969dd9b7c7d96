import { API_PATHS, TRPC_MAX_BATCH } from '@switchyard/contracts';
import type { AppRouter } from '@switchyard/server/router';
import type { QueryClient } from '@tanstack/react-query';
import { createTRPCClient, httpBatchLink, httpLink, splitLink, type TRPCClient } from '@trpc/client';
import { createTRPCContext, createTRPCOptionsProxy, type TRPCOptionsProxy } from '@trpc/tanstack-react-query';
import superjson from 'superjson';
import { authorizationHeader } from './auth-token.ts';

export type { AppRouter };
export type TrpcClient = TRPCClient<AppRouter>;
export type Trpc = TRPCOptionsProxy<AppRouter>;

export const { TRPCProvider, useTRPC, useTRPCClient } = createTRPCContext<AppRouter>();

export interface TrpcClientOptions {
  url?: string;
  /** Tests pass a stub here: the network edge. */
  fetch?: typeof globalThis.fetch;
}

/**
 * SPEC §7: calls are batched (comma-joined paths, batch=1) unless the operation's context says
 * `skipBatch: true`, as the sync lists do: `trpc.syncs.list.queryOptions(input, { trpc: { context: { skipBatch: true } } })`.
 */
export function createTrpcClient({ url = API_PATHS.trpc, fetch }: TrpcClientOptions = {}): TrpcClient {
  const options = { url, transformer: superjson, headers: authorizationHeader, ...(fetch ? { fetch } : {}) };
  return createTRPCClient<AppRouter>({
    links: [
      splitLink({
        condition: (op) => op.context.skipBatch === true,
        true: httpLink(options),
        false: httpBatchLink({ ...options, maxItems: TRPC_MAX_BATCH }),
      }),
    ],
  });
}

export function createTrpcProxy(client: TrpcClient, queryClient: QueryClient): Trpc {
  return createTRPCOptionsProxy<AppRouter>({ client, queryClient });
}
