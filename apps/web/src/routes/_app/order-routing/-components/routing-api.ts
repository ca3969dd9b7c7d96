import type { QueryClient } from '@tanstack/react-query';
import { retryUnlessRefused } from '../../../../lib/query-client.ts';
import type { Trpc } from '../../../../lib/trpc.ts';

export const VERSIONS_PAGE_SIZE = 10;

/** The live rule set. */
export function liveRulesOptions(trpc: Trpc) {
  return { ...trpc.routing.rules.queryOptions(), retry: retryUnlessRefused };
}

/** What the editor offers: every location with its coordinates and flags. */
export function routingLocationsOptions(trpc: Trpc) {
  return { ...trpc.routing.locations.queryOptions(), retry: retryUnlessRefused };
}

export function versionListOptions(trpc: Trpc, offset: number) {
  return trpc.routing.versions.queryOptions({ limit: VERSIONS_PAGE_SIZE, offset });
}

/** After a save: the live set and the history are read again. */
export async function refreshRouting(queryClient: QueryClient, trpc: Trpc) {
  await Promise.all([
    queryClient.invalidateQueries(trpc.routing.rules.pathFilter()),
    queryClient.invalidateQueries(trpc.routing.versions.pathFilter()),
  ]);
}
