import {
  FulfillmentCounts,
  FulfillmentList,
  FulfillmentListInput,
  FulfillmentOrder,
  FulfillmentOrderInput,
  FulfillmentSettings,
  FulfillmentStores,
  PickingList,
  PickingListSearch,
  PickupEmails,
  RejectInput,
  ScanInput,
  ScanResult,
  ShippingLocationInput,
} from '@switchyard/contracts';
import { z } from 'zod';
import { authedProcedure, router } from '../../trpc/init.ts';
import { pickedUp, readyForPickup } from './fulfillment.pickup.ts';
import { countQueue, listQueue, listStores } from './fulfillment.queue.ts';
import { getFulfillmentOrder, pack, reject, scan } from './fulfillment.service.ts';
import { getFulfillmentSettings, setShippingLocation, updatePickupEmails } from './fulfillment.settings.ts';
import { pickingList } from './picking-list.ts';

const IdInput = z.object({ id: z.string().trim().min(1).max(64) });

export const fulfillmentRouter = router({
  stores: authedProcedure.output(FulfillmentStores).query(({ ctx }) => listStores(ctx.services.db, ctx.actor)),
  list: authedProcedure
    .input(FulfillmentListInput.optional())
    .output(FulfillmentList)
    .query(({ ctx, input }) => listQueue(ctx.services.db, ctx.actor, input)),
  count: authedProcedure
    .input(FulfillmentListInput.optional())
    .output(FulfillmentCounts)
    .query(({ ctx, input }) => countQueue(ctx.services.db, ctx.actor, input)),
  get: authedProcedure
    .input(FulfillmentOrderInput)
    .output(FulfillmentOrder)
    .query(({ ctx, input }) => getFulfillmentOrder(ctx.services.db, ctx.actor, input.id, input.store_id)),
  scan: authedProcedure
    .input(ScanInput)
    .output(ScanResult)
    .mutation(({ ctx, input }) => scan(ctx.services, ctx.actor, input)),
  pack: authedProcedure
    .input(FulfillmentOrderInput)
    .output(FulfillmentOrder)
    .mutation(({ ctx, input }) => pack(ctx.services, ctx.actor, input)),
  reject: authedProcedure
    .input(RejectInput)
    .output(FulfillmentOrder)
    .mutation(({ ctx, input }) => reject(ctx.services, ctx.actor, input)),
  readyForPickup: authedProcedure
    .input(IdInput)
    .output(FulfillmentOrder)
    .mutation(({ ctx, input }) => readyForPickup(ctx.services, ctx.actor, input.id)),
  pickedUp: authedProcedure
    .input(IdInput)
    .output(FulfillmentOrder)
    .mutation(({ ctx, input }) => pickedUp(ctx.services, ctx.actor, input.id)),
  pickingList: authedProcedure
    .input(PickingListSearch.optional())
    .output(PickingList)
    .query(({ ctx, input }) => pickingList(ctx.services.db, ctx.actor, input)),
  /** Settings → Fulfillment: the stored shipping location and the pickup e-mail texts. */
  settings: authedProcedure
    .output(FulfillmentSettings)
    .query(({ ctx }) => getFulfillmentSettings(ctx.services.db, ctx.actor)),
  setShippingLocation: authedProcedure
    .input(ShippingLocationInput)
    .output(FulfillmentSettings)
    .mutation(({ ctx, input }) => setShippingLocation(ctx.services.db, ctx.actor, input)),
  updatePickupEmails: authedProcedure
    .input(PickupEmails)
    .output(FulfillmentSettings)
    .mutation(({ ctx, input }) => updatePickupEmails(ctx.services.db, ctx.actor, input)),
});
