import {
  CarrierServices,
  OrderIdInput,
  Shipment,
  ShipmentBuyInput,
  ShipmentCreateInput,
  ShipmentList,
  ShippingLabelSettings,
} from '@switchyard/contracts';
import { carrierEndpoint } from '../../carriers/easypost.ts';
import { authedProcedure, router } from '../../trpc/init.ts';
import { buyShipment } from './shipments.buy.ts';
import { createShipment, listShipments } from './shipments.service.ts';
import { getLabelSettings, updateLabelSettings } from './shipments.settings.ts';

export const shipmentsRouter = router({
  list: authedProcedure
    .input(OrderIdInput)
    .output(ShipmentList)
    .query(({ ctx, input }) => listShipments(ctx.services.db, ctx.actor, input.id)),
  create: authedProcedure
    .input(OrderIdInput.extend(ShipmentCreateInput.shape))
    .output(Shipment)
    .mutation(({ ctx, input: { id, ...rest } }) => createShipment(ctx.services, ctx.actor, id, rest)),
  buy: authedProcedure
    .input(OrderIdInput.extend(ShipmentBuyInput.shape))
    .output(Shipment)
    .mutation(({ ctx, input: { id, ...rest } }) => buyShipment(ctx.services, ctx.actor, id, rest)),
  /** Settings → Fulfillment, labels. */
  settings: authedProcedure
    .output(ShippingLabelSettings)
    .query(({ ctx }) => getLabelSettings(ctx.services.db, ctx.actor.accountId)),
  updateSettings: authedProcedure
    .input(ShippingLabelSettings)
    .output(ShippingLabelSettings)
    .mutation(({ ctx, input }) => updateLabelSettings(ctx.services.db, ctx.actor, input)),
  /** Where labels come from: the live carrier or the sandbox's. */
  carrier: authedProcedure.output(CarrierServices.pick({ mode: true })).query(({ ctx }) => ({
    mode: carrierEndpoint(ctx.services).mode,
  })),
});
