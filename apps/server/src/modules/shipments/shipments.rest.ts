import {
  LabelInput,
  OrderIdInput,
  Shipment,
  ShipmentBuyInput,
  ShipmentCreateInput,
  ShipmentList,
} from '@switchyard/contracts';
import type { RestApp } from '../../rest/route.ts';
import { restRoute } from '../../rest/route.ts';
import type { Services } from '../../services.ts';
import { buyShipment } from './shipments.buy.ts';
import { shippingLabel } from './shipments.label.ts';
import { createShipment, listShipments } from './shipments.service.ts';

const tags = ['shipments'];
const idOf = (params: Record<string, string>) => OrderIdInput.parse(params).id;

/** SPEC §7 v2: an order's shipments, a new one with its rates, and buying one of them. */
export function shipmentsRest(app: RestApp, services: Services) {
  restRoute(app, services, {
    method: 'GET',
    url: '/orders/:id/shipments',
    summary: "List an order's shipments (packages, items, rate bought, tracking)",
    tags,
    params: OrderIdInput,
    output: ShipmentList,
    handler: ({ actor, params }) => listShipments(services.db, actor, idOf(params)),
  });
  restRoute(app, services, {
    method: 'POST',
    url: '/orders/:id/shipments',
    summary: "Create a shipment from a store (packages, items) and get every carrier service's rate",
    tags,
    params: OrderIdInput,
    input: ShipmentCreateInput,
    output: Shipment,
    handler: ({ actor, params, input }) => createShipment(services, actor, idOf(params), input),
  });
  restRoute(app, services, {
    method: 'POST',
    url: '/orders/:id/shipments/buy',
    summary: 'Buy one rate of a shipment (once, however often asked): label, tracking, stock moved, channel told',
    tags,
    params: OrderIdInput,
    input: ShipmentBuyInput,
    output: Shipment,
    handler: ({ actor, params, input }) => buyShipment(services, actor, idOf(params), input),
  });
}

/** SPEC §7 frontend `shipping/getShippingLabel`: the label PDF. */
export function shipmentsFrontendRest(app: RestApp, services: Services) {
  restRoute(app, services, {
    method: 'POST',
    url: '/shipping/getShippingLabel',
    summary: "A shipment's label (PDF)",
    tags,
    input: LabelInput,
    handler: async ({ actor, input, reply }) => {
      const { filename, pdf } = await shippingLabel(services, actor, input);
      return reply
        .header('content-type', 'application/pdf')
        .header('content-disposition', `inline; filename="${filename}"`)
        .header('cache-control', 'private, no-store')
        .send(pdf);
    },
  });
}
