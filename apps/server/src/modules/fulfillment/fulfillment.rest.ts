import {
  FulfillmentCounts,
  FulfillmentList,
  FulfillmentListInput,
  FulfillmentOrder,
  OrderIdInput,
  PickingListSearch,
} from '@switchyard/contracts';
import type { RestApp } from '../../rest/route.ts';
import { restRoute } from '../../rest/route.ts';
import type { Services } from '../../services.ts';
import { pickedUp, readyForPickup } from './fulfillment.pickup.ts';
import { countQueue, listQueue } from './fulfillment.queue.ts';
import { pickingList, pickingListPdf } from './picking-list.ts';

const tags = ['fulfillment'];
const idOf = (params: Record<string, string>) => OrderIdInput.parse(params).id;

/**
 * SPEC §7 v2: the store queue and its counts (limit, offset, sort, order, and the filter's skus, store_id,
 * order_ids and scope, flat or as `filter` JSON), and the pickup verbs.
 */
export function fulfillmentRest(app: RestApp, services: Services) {
  restRoute(app, services, {
    method: 'GET',
    url: '/fulfillment',
    summary: "A store's fulfillment queue (scope toShip, pickup, shipped, cancelled, flagged; default toShip)",
    tags,
    input: FulfillmentListInput,
    output: FulfillmentList,
    handler: ({ actor, input }) => listQueue(services.db, actor, input),
  });
  restRoute(app, services, {
    method: 'GET',
    url: '/fulfillment/count',
    summary: 'How many orders each scope of a store holds',
    tags,
    input: FulfillmentListInput,
    output: FulfillmentCounts,
    handler: ({ actor, input }) => countQueue(services.db, actor, input),
  });
  restRoute(app, services, {
    method: 'POST',
    url: '/orders/:id/fulfillments/ready-for-pickup',
    summary: 'A pickup or curbside order is ready: status 4, the customer e-mailed, the channel told',
    tags,
    params: OrderIdInput,
    output: FulfillmentOrder,
    handler: ({ actor, params }) => readyForPickup(services, actor, idOf(params)),
  });
  restRoute(app, services, {
    method: 'POST',
    url: '/orders/:id/fulfillments/picked-up',
    summary: 'The customer took the order: status 5, its units leave on hand once, the channel told',
    tags,
    params: OrderIdInput,
    output: FulfillmentOrder,
    handler: ({ actor, params }) => pickedUp(services, actor, idOf(params)),
  });
}

/** The printable picking list (store_id, sort, sort_by, order_ids) as a PDF, for the web app. */
export function fulfillmentFrontendRest(app: RestApp, services: Services) {
  restRoute(app, services, {
    method: 'GET',
    url: '/fulfillment/picking-list.pdf',
    summary: 'The picking list as a PDF with a barcode per SKU',
    tags,
    input: PickingListSearch,
    handler: async ({ actor, input, reply }) => {
      const pdf = await pickingListPdf(await pickingList(services.db, actor, input));
      reply
        .header('content-type', 'application/pdf')
        .header('content-disposition', `inline; filename="picking-list-${new Date().toISOString().slice(0, 10)}.pdf"`)
        .header('cache-control', 'no-store');
      return pdf;
    },
  });
}
