import type { LabelInput, Shipment } from '@switchyard/contracts';
import type { QueryClient } from '@tanstack/react-query';
import { apiUrl, http } from '../../lib/api.ts';
import type { Trpc } from '../../lib/trpc.ts';

/** While a label's write-back to the channel or its tracking may still move, the list is read again this often. */
export const SHIPMENTS_POLL_MS = 3000;

export function shipmentListOptions(trpc: Trpc, orderId: string) {
  return {
    ...trpc.shipments.list.queryOptions({ id: orderId }),
    refetchInterval: (query: { state: { data?: { results: Shipment[] } } }) =>
      query.state.data?.results.some((s) => s.status === 'buying' || s.channelStatus === 'pending')
        ? SHIPMENTS_POLL_MS
        : false,
  };
}

/** After a purchase: the shipments, the order (status, timeline) and the store's queue. */
export async function refreshShipments(queryClient: QueryClient, trpc: Trpc) {
  await Promise.all([
    queryClient.invalidateQueries(trpc.shipments.pathFilter()),
    queryClient.invalidateQueries(trpc.orders.pathFilter()),
    queryClient.invalidateQueries({ queryKey: [['fulfillment']] }),
  ]);
}

/** The label PDF (frontend shipping/getShippingLabel), fetched with the user's token. */
export async function fetchLabel(input: LabelInput): Promise<Blob> {
  const response = await http.request<Blob>({
    baseURL: apiUrl('frontend'),
    url: 'shipping/getShippingLabel',
    method: 'POST',
    data: input,
    responseType: 'blob',
    headers: { Accept: 'application/pdf, application/json' },
  });
  return response.data instanceof Blob ? response.data : new Blob([response.data], { type: 'application/pdf' });
}

/** Opens the PDF in the browser's viewer to print; a blocked pop-up falls back to a download. */
export function openPdf(blob: Blob, filename: string) {
  const url = URL.createObjectURL(blob);
  const opened = window.open(url, '_blank', 'noopener');
  if (!opened) {
    const link = document.createElement('a');
    link.href = url;
    link.download = filename;
    link.click();
  }
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

export { serviceName } from '@switchyard/contracts';
