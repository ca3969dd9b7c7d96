import type { FulfillmentOrder } from '@switchyard/contracts';
import { ShipmentsSection } from '../../../../components/shipments/shipments-section.tsx';

/**
 * Where a packed shipping order gets its label (the shipments part of issue 15): this store's units, the rates of
 * every carrier service, buy, print, and the tracking once bought. Each line still to ship takes how many of its
 * units go in the parcel (default all that is left), so part of the order can ship now and the rest later.
 */
export function LabelSlot({ order, storeId }: { order: FulfillmentOrder; storeId: string | undefined }) {
  const lines = order.lines
    .filter((l) => (l.status === 1 || l.status === 2) && l.toShip > 0)
    .map((l) => ({ allocationId: l.allocationId, label: l.sku ?? l.title, title: l.title, toShip: l.toShip }));
  return <ShipmentsSection orderId={order.id} storeId={storeId} lines={lines} canBuy={lines.length > 0} />;
}
