import { RETURNS_CACHE_MS, RETURNS_SEARCH_DEFAULTS, type ReturnsSearch } from '@switchyard/contracts';
import type { QueryClient } from '@tanstack/react-query';
import type { Trpc } from '../../../../lib/trpc.ts';

export { RETURNS_SEARCH_DEFAULTS };

/** SPEC §9: the returns list is cached for 5 minutes; Reload, and returns made here, read it again. */
export function returnListOptions(trpc: Trpc, search: ReturnsSearch) {
  const input = { external_id: search.external_id || undefined, limit: search.limit, offset: search.offset };
  return { ...trpc.returns.list.queryOptions(input), staleTime: RETURNS_CACHE_MS, gcTime: RETURNS_CACHE_MS };
}

/** An order's returns (its detail page): read again while a refund's write-back has no outcome yet. */
export function orderReturnsOptions(trpc: Trpc, orderId: string) {
  return {
    ...trpc.returns.forOrder.queryOptions({ order_id: orderId }),
    refetchInterval: (query: { state: { data?: { refund_state: string | null }[] } }) =>
      query.state.data?.some((r) => r.refund_state === 'pending') ? 2000 : false,
  };
}

/** After a return is made or retried: the returns lists, and the orders (lines refunded, timeline). */
export async function refreshReturns(queryClient: QueryClient, trpc: Trpc) {
  await Promise.all([
    queryClient.invalidateQueries(trpc.returns.pathFilter()),
    queryClient.invalidateQueries(trpc.orders.pathFilter()),
  ]);
}
