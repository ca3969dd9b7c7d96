import {
  CHANNEL_LIST_CACHE_MS,
  type ChannelDetail,
  type ChannelFeatures,
  type ChannelSettingKey,
  type ChannelSettings,
  type ChannelSummary,
  type ChannelType,
  type GenerateRedirectUrlInput,
  type IntegrationCreateInput,
  type PatchChannelInput,
  type ProcessOauthResult,
  type ProviderStore,
} from '@switchyard/contracts';
import type { QueryClient } from '@tanstack/react-query';
import { TRPCClientError } from '@trpc/client';
import { api } from '../../../../lib/api.ts';
import { shouldRetry } from '../../../../lib/query-client.ts';
import type { Trpc } from '../../../../lib/trpc.ts';

/** A REST answer is JSON: its dates arrive as ISO strings. */
type Wire<T> = { [K in keyof T]: T[K] extends Date ? string : T[K] extends Date | null ? string | null : T[K] };

export type WireChannelSummary = Wire<ChannelSummary>;
export type WireChannelDetail = Wire<ChannelSummary> & { settings: ChannelSettings };

/** How often the list is read again while a channel's first sync is awaited (awaitingFirstSync). */
export const FIRST_SYNC_POLL_MS = 5_000;
/** A channel connected longer ago than this that has never synced is not waited for (its import failed or is off). */
const FIRST_SYNC_WAIT_MS = CHANNEL_LIST_CACHE_MS;

/**
 * Whether a channel connected within the hour has not synced yet: its first import is running, and the list's
 * "Last sync" (and the dashboard's "Import your catalog" step) would read "not yet" for the hour the list is kept.
 */
export function awaitingFirstSync(channels: ChannelSummary[] | undefined, now = Date.now()): boolean {
  return (
    channels?.some(
      (c) =>
        c.status === 'connected' &&
        c.lastSyncAt === null &&
        c.connectedAt !== null &&
        now - c.connectedAt.getTime() < FIRST_SYNC_WAIT_MS,
    ) ?? false
  );
}

/**
 * SPEC §9: the channel list is cached for an hour; changes made here invalidate it. While a newly connected
 * channel's first sync is awaited, it is read again every few seconds, until that sync shows.
 */
export function channelListOptions(trpc: Trpc) {
  return {
    ...trpc.channels.list.queryOptions(),
    staleTime: CHANNEL_LIST_CACHE_MS,
    gcTime: CHANNEL_LIST_CACHE_MS,
    refetchInterval: (query: { state: { data?: ChannelSummary[] } }) =>
      awaitingFirstSync(query.state.data) ? FIRST_SYNC_POLL_MS : (false as const),
  };
}

/**
 * The plan allows no more channels: PLAN_LIMIT, which REST answers with 402 and tRPC as FORBIDDEN with
 * that domain code. The merchant is then offered the upgrade.
 */
export function isPlanLimit(error: unknown): boolean {
  if (error instanceof TRPCClientError) {
    return (error.data as { domainCode?: string } | undefined)?.domainCode === 'PLAN_LIMIT';
  }
  const status = (error as { response?: { status?: number } } | null)?.response?.status;
  return status === 402;
}

/** A channel that is not there (or another account's) stays so: it is not asked for again. */
function isNotFound(error: unknown): boolean {
  return error instanceof TRPCClientError && (error.data as { code?: string } | undefined)?.code === 'NOT_FOUND';
}

export function channelOptions(trpc: Trpc, id: string) {
  return {
    ...trpc.channels.get.queryOptions({ id }),
    retry: (failureCount: number, error: unknown) => !isNotFound(error) && shouldRetry(failureCount, error),
  };
}

/** The REST calls of the channel screens (SPEC §7), through the shared axios client. */
export const channelsRest = {
  create: (input: IntegrationCreateInput) => api.frontend.post<WireChannelSummary>('integration/create', input),
  generateRedirectUrl: (provider: ChannelType, input: GenerateRedirectUrlInput) =>
    api.v1.post<{ url: string }>(`oauth/${provider}/generate-redirect-url`, input),
  processOauth: (provider: ChannelType, query: Record<string, string>) =>
    api.v1.post<ProcessOauthResult>(`oauth/${provider}/process-oauth`, query),
  saveSettings: <K extends ChannelSettingKey>(id: string, key: K, section: ChannelSettings[K]) =>
    api.v1.put<WireChannelDetail>(`channels/${encodeURIComponent(id)}/settings/${key}`, section),
  rename: (id: string, input: PatchChannelInput) =>
    api.v1.patch<WireChannelDetail>(`channels/${encodeURIComponent(id)}`, input),
  setFeatures: (id: string, features: Partial<ChannelFeatures>) =>
    api.v1.put<WireChannelDetail>(`channels/${encodeURIComponent(id)}/actions/features`, features),
  squareStores: () => api.v1.get<{ stores: ProviderStore[] }>('wrappers/square/stores'),
  channelLocations: (type: ChannelType, channelId: string) =>
    api.v1.get<{ locations: ProviderStore[] }>(`wrappers/${type}/locations`, { channel_id: channelId }),
};

/** Query keys of the REST reads, so saving can refresh them. */
export const restKeys = {
  squareStores: ['rest', 'wrappers', 'square', 'stores'] as const,
  channelLocations: (type: ChannelType, channelId: string) =>
    ['rest', 'wrappers', type, 'locations', channelId] as const,
};

/**
 * After a REST change answered with the channel: the cached detail takes the parts that changed (the
 * answer's dates are strings, so it is not put in whole), and the list is read again.
 */
export async function applyChannelChange(queryClient: QueryClient, trpc: Trpc, changed: WireChannelDetail) {
  queryClient.setQueryData(trpc.channels.get.queryKey({ id: changed.id }), (old: ChannelDetail | undefined) =>
    old
      ? { ...old, name: changed.name, status: changed.status, features: changed.features, settings: changed.settings }
      : old,
  );
  await Promise.all([
    queryClient.invalidateQueries(trpc.channels.list.pathFilter()),
    queryClient.invalidateQueries(trpc.channels.get.queryFilter({ id: changed.id })),
  ]);
}
