import type { ChannelDetail, ProviderStore } from '@switchyard/contracts';
import { useQuery, useSuspenseQuery } from '@tanstack/react-query';
import { useTRPC } from '../../../../lib/trpc.ts';
import { channelOptions, channelsRest, restKeys } from './channel-api.ts';

/** The channel of a settings page; its layout has loaded it before the page renders. */
export function useLoadedChannel(id: string): ChannelDetail {
  const trpc = useTRPC();
  return useSuspenseQuery(channelOptions(trpc, id)).data;
}

/** The POS stores channel locations map to (`GET wrappers/square/stores`). */
export function useSquareStores() {
  return useQuery({ queryKey: restKeys.squareStores, queryFn: channelsRest.squareStores });
}

/** Options for a store select; a saved store Square no longer lists still shows, named by its id. */
export function storeOptions(stores: ProviderStore[], keep: (string | null)[] = []) {
  const options = stores.map((store) => ({
    value: store.id,
    label: store.active ? store.name : `${store.name} (inactive)`,
  }));
  for (const id of keep) {
    if (id && !options.some((option) => option.value === id))
      options.push({ value: id, label: `Unknown store (${id})` });
  }
  return options;
}
