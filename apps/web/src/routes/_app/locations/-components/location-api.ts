import type {
  DeletedLocation,
  Location,
  LocationInput,
  LocationList,
  LocationPatch,
  ProviderStore,
} from '@switchyard/contracts';
import type { QueryClient } from '@tanstack/react-query';
import { TRPCClientError } from '@trpc/client';
import { api } from '../../../../lib/api.ts';
import { shouldRetry } from '../../../../lib/query-client.ts';
import type { Trpc } from '../../../../lib/trpc.ts';

/** A location as REST answers it: dates as ISO strings. */
export type WireLocation = Omit<Location, 'created_at' | 'updated_at'> & { created_at: string; updated_at: string };
export type WireLocationList = Omit<LocationList, 'results'> & { results: WireLocation[] };

/** `GET locations` query (SPEC §7: sort store_id, order ASC, search). */
export interface LocationsListQuery {
  sort?: 'store_id' | 'name' | 'priority' | 'id';
  order?: 'ASC' | 'DESC';
  search?: string;
  limit?: number;
  offset?: number;
}

/** SPEC §7 v1 locations, through the shared axios client. */
export const locationsRest = {
  list: (query: LocationsListQuery) => api.v1.get<WireLocationList>('locations', query),
  create: (input: LocationInput) => api.v1.post<WireLocation>('locations', input),
  update: (id: string, patch: LocationPatch) =>
    api.v1.patch<WireLocation>(`locations/${encodeURIComponent(id)}`, patch),
  remove: (id: string) => api.v1.delete<DeletedLocation>(`locations/${encodeURIComponent(id)}`),
  squareStores: () => api.v1.get<{ stores: ProviderStore[] }>('wrappers/square/stores'),
};

export const locationKeys = {
  all: ['rest', 'locations'] as const,
  list: (query: LocationsListQuery) => ['rest', 'locations', 'list', query] as const,
  // The same key as the channel screens use, so both share one read of the stores.
  squareStores: ['rest', 'wrappers', 'square', 'stores'] as const,
};

/** A location that is not there (or another account's) stays so: it is not asked for again. */
export function isLocationNotFound(error: unknown): boolean {
  return error instanceof TRPCClientError && (error.data as { code?: string } | undefined)?.code === 'NOT_FOUND';
}

export function locationOptions(trpc: Trpc, id: string) {
  return {
    ...trpc.locations.get.queryOptions({ id }),
    retry: (failureCount: number, error: unknown) => !isLocationNotFound(error) && shouldRetry(failureCount, error),
  };
}

/** After a change: every list and the changed location are read again. */
export async function refreshLocations(queryClient: QueryClient, trpc: Trpc, id?: string) {
  await Promise.all([
    queryClient.invalidateQueries({ queryKey: locationKeys.all }),
    queryClient.invalidateQueries(trpc.locations.list.pathFilter()),
    id ? queryClient.invalidateQueries(trpc.locations.get.queryFilter({ id })) : undefined,
  ]);
}

/** The plan allows no more locations: REST answers PLAN_LIMIT with 402. */
export function isPlanLimit(error: unknown): boolean {
  return (error as { response?: { status?: number } } | null)?.response?.status === 402;
}

/** A refusal that is about the store id: a duplicate (409) or a store Square does not list. */
export function storeIdError(error: unknown): string | undefined {
  const response = (error as { response?: { status?: number; data?: { message?: unknown } } } | null)?.response;
  const message = typeof response?.data?.message === 'string' ? response.data.message : undefined;
  if (!message) return undefined;
  if (response?.status === 409 && message.includes('store id')) return message;
  if (response?.status === 400 && message.startsWith('store_id: ')) return message.slice('store_id: '.length);
  return undefined;
}
