import { type OrderDetail, OrdersSearch } from '@switchyard/contracts';
import type { QueryClient } from '@tanstack/react-query';
import { TRPCClientError } from '@trpc/client';
import { shouldRetry } from '../../../../lib/query-client.ts';
import type { Trpc } from '../../../../lib/trpc.ts';

/** SPEC §2's defaults; they are left out of the address, so the plain list is just /orders. */
export const ORDERS_SEARCH_DEFAULTS = OrdersSearch.parse({});

/** New orders show without a reload: the list and its counts are read again this often while the page is visible. */
export const ORDERS_POLL_MS = 5000;

export function orderListOptions(trpc: Trpc, search: OrdersSearch) {
  return { ...trpc.orders.list.queryOptions(search), refetchInterval: ORDERS_POLL_MS };
}

/** Counts per status over the same search: every status at once, whichever tab is open. */
export function orderCountOptions(trpc: Trpc, search: Pick<OrdersSearch, 'search'>) {
  return { ...trpc.orders.count.queryOptions({ status: -1, search: search.search }), refetchInterval: ORDERS_POLL_MS };
}

/** An order that is not there (or another account's) stays so: it is not asked for again. */
export function isNotFound(error: unknown): boolean {
  return error instanceof TRPCClientError && (error.data as { code?: string } | undefined)?.code === 'NOT_FOUND';
}

/** How often an order is read again while a write-back to its channel (a cancel, say) has no outcome yet. */
export const WRITE_BACK_POLL_MS = 2000;

export function orderOptions(trpc: Trpc, id: string) {
  return {
    ...trpc.orders.get.queryOptions({ id }),
    retry: (failureCount: number, error: unknown) => !isNotFound(error) && shouldRetry(failureCount, error),
    refetchInterval: (query: { state: { data?: OrderDetail } }) =>
      query.state.data?.timeline.some((entry) => entry.outcome === 'pending') ? WRITE_BACK_POLL_MS : false,
  };
}

export function commentListOptions(trpc: Trpc, orderId: string) {
  return trpc.comments.list.queryOptions({
    entity_id: orderId,
    type: 'order',
    limit: 200,
    page: 1,
    sort: 'created_at',
    order: 'DESC',
  });
}

/** After a change to one order: its detail, and every list and count (its status or flag may have moved). */
export async function refreshOrders(queryClient: QueryClient, trpc: Trpc) {
  await Promise.all([
    queryClient.invalidateQueries(trpc.orders.pathFilter()),
    queryClient.invalidateQueries(trpc.comments.pathFilter()),
  ]);
}
