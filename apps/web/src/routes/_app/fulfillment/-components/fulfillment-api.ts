import { type FulfillmentOrder, FulfillmentSearch, type PickingListSearch } from '@switchyard/contracts';
import type { QueryClient } from '@tanstack/react-query';
import { apiUrl, http } from '../../../../lib/api.ts';
import { shouldRetry } from '../../../../lib/query-client.ts';
import type { Trpc } from '../../../../lib/trpc.ts';
import { isNotFound } from '../../orders/-components/order-api.ts';

/** SPEC §2's defaults, left out of the address: the plain queue is /fulfillment. */
export const FULFILLMENT_SEARCH_DEFAULTS = FulfillmentSearch.parse({});

/** New work shows without a reload: the queue and its counts are read again this often. */
export const QUEUE_POLL_MS = 5000;

export function queueOptions(trpc: Trpc, search: FulfillmentSearch) {
  return { ...trpc.fulfillment.list.queryOptions(search), refetchInterval: QUEUE_POLL_MS };
}

/** Counts per scope of the store, over the same SKU and order filters (the tabs show every scope at once). */
export function queueCountOptions(trpc: Trpc, search: FulfillmentSearch) {
  return { ...trpc.fulfillment.count.queryOptions(search), refetchInterval: QUEUE_POLL_MS };
}

/** An unknown store (a store id typed into the address) says so at once: no retries on NOT_FOUND. */
export function pickingListOptions(trpc: Trpc, search: PickingListSearch) {
  return {
    ...trpc.fulfillment.pickingList.queryOptions(search),
    retry: (failureCount: number, error: unknown) => !isNotFound(error) && shouldRetry(failureCount, error),
  };
}

export function fulfillmentOrderOptions(trpc: Trpc, id: string, storeId: string | undefined) {
  return {
    ...trpc.fulfillment.get.queryOptions({ id, ...(storeId ? { store_id: storeId } : {}) }),
    retry: (failureCount: number, error: unknown) => !isNotFound(error) && shouldRetry(failureCount, error),
    refetchInterval: QUEUE_POLL_MS,
  };
}

/** After a change to an order at the store: its view, the queue and counts, and the orders screens. */
export async function refreshFulfillment(queryClient: QueryClient, trpc: Trpc, order?: FulfillmentOrder) {
  if (order) {
    queryClient.setQueryData(
      trpc.fulfillment.get.queryKey({ id: order.id, ...(order.store ? { store_id: order.store.storeId } : {}) }),
      order,
    );
  }
  await Promise.all([
    queryClient.invalidateQueries(trpc.fulfillment.pathFilter()),
    queryClient.invalidateQueries(trpc.orders.pathFilter()),
  ]);
}

/** The picking list PDF, fetched with the user's token (a plain link could not carry it). */
export async function fetchPickingListPdf(search: Partial<PickingListSearch>): Promise<Blob> {
  const response = await http.request<Blob>({
    baseURL: apiUrl('frontend'),
    url: 'fulfillment/picking-list.pdf',
    method: 'GET',
    params: search,
    responseType: 'blob',
    headers: { Accept: 'application/pdf, application/json' },
  });
  return response.data instanceof Blob ? response.data : new Blob([response.data], { type: 'application/pdf' });
}
