import { BUFFERS_CACHE_MS, type BuffersSearch, type ChannelSummary, type Location } from '@switchyard/contracts';
import type { QueryClient } from '@tanstack/react-query';
import { TRPCClientError } from '@trpc/client';
import { shouldRetry } from '../../../../lib/query-client.ts';
import type { Trpc } from '../../../../lib/trpc.ts';

/** The list's defaults (SPEC §2); they are left out of the address. */
export const BUFFER_SEARCH_DEFAULTS = { limit: 25, offset: 0, sort: 'desc', sort_by: 'id' } as const;

/** SPEC §9: buffers are cached for 5 minutes; changes made here invalidate them. */
export function bufferListOptions(trpc: Trpc, search: BuffersSearch) {
  return { ...trpc.buffers.list.queryOptions(search), staleTime: BUFFERS_CACHE_MS, gcTime: BUFFERS_CACHE_MS };
}

/** A buffer that is not there (or another account's) stays so: it is not asked for again. */
export function isNotFound(error: unknown): boolean {
  return error instanceof TRPCClientError && (error.data as { code?: string } | undefined)?.code === 'NOT_FOUND';
}

export function bufferOptions(trpc: Trpc, id: number) {
  return {
    ...trpc.buffers.get.queryOptions({ id }),
    staleTime: BUFFERS_CACHE_MS,
    gcTime: BUFFERS_CACHE_MS,
    retry: (failureCount: number, error: unknown) => !isNotFound(error) && shouldRetry(failureCount, error),
  };
}

/** Every location, for the location select and the list's names (at most 500, the locations list's cap). */
export function allLocationsOptions(trpc: Trpc) {
  return trpc.locations.list.queryOptions({ limit: 500, offset: 0, sort: 'store_id', order: 'asc' });
}

/** After a change: the lists and the changed buffer are read again. */
export async function refreshBuffers(queryClient: QueryClient, trpc: Trpc, id?: number) {
  await Promise.all([
    queryClient.invalidateQueries(trpc.buffers.list.pathFilter()),
    id === undefined ? undefined : queryClient.invalidateQueries(trpc.buffers.get.queryFilter({ id })),
  ]);
}

/** Channels a buffer can hold stock back from: the live ones, plus `keep` (a buffer's own) whatever its state. */
export function channelOptions(channels: ChannelSummary[], keep?: string) {
  return channels
    .filter((c) => c.status === 'connected' || c.status === 'error' || c.id === keep)
    .map((c) => ({
      value: c.id,
      label: c.status === 'connected' || c.status === 'error' ? c.name : `${c.name} (${c.status})`,
    }));
}

/** Our locations by store id; a store id no location has any more still shows, by its id. */
export function locationOptions(locations: Pick<Location, 'name' | 'store_id' | 'enabled'>[], keep?: string) {
  const options = locations.map((l) => ({
    value: l.store_id,
    label: `${l.name} (${l.store_id})${l.enabled ? '' : ' – disabled'}`,
  }));
  if (keep && !options.some((o) => o.value === keep))
    options.push({ value: keep, label: `Unknown location (${keep})` });
  return options;
}
