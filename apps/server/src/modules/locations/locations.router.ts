import {
  ChannelLocationDrafts,
  ChannelMappingStatus,
  CreatedLocationsFromChannel,
  CreateLocationsFromChannelInput,
  DeletedLocation,
  IdInput,
  Location,
  LocationInput,
  LocationList,
  LocationPatch,
  LocationsQuery,
} from '@switchyard/contracts';
import { z } from 'zod';
import { authedProcedure, router } from '../../trpc/init.ts';
import { channelDrafts, createLocationsFromChannel, mappingStatus } from './locations.channels.ts';
import { createLocation, deleteLocation, getLocation, listLocations, updateLocation } from './locations.service.ts';

export const locationsRouter = router({
  list: authedProcedure
    .input(LocationsQuery)
    .output(LocationList)
    .query(({ ctx, input }) => listLocations(ctx.services.db, ctx.actor, input)),
  get: authedProcedure
    .input(IdInput)
    .output(Location)
    .query(({ ctx, input }) => getLocation(ctx.services.db, ctx.actor, input.id)),
  create: authedProcedure
    .input(LocationInput)
    .output(Location)
    .mutation(({ ctx, input }) => createLocation(ctx.services, ctx.actor, input)),
  update: authedProcedure
    .input(LocationPatch.extend({ id: IdInput.shape.id }))
    .output(Location)
    .mutation(({ ctx, input: { id, ...patch } }) => updateLocation(ctx.services, ctx.actor, id, patch)),
  delete: authedProcedure
    .input(IdInput)
    .output(DeletedLocation)
    .mutation(({ ctx, input }) => deleteLocation(ctx.services.db, ctx.actor, input.id)),
  /** Each live channel's locations against ours: mapped, unmapped, and whether ours can be made from its. */
  mappingStatus: authedProcedure
    .output(z.array(ChannelMappingStatus))
    .query(({ ctx }) => mappingStatus(ctx.services, ctx.actor)),
  /** A Shopify or BigCommerce channel's unmapped locations, as locations of ours to make. */
  channelDrafts: authedProcedure
    .input(z.object({ channelId: z.string().min(1) }))
    .output(ChannelLocationDrafts)
    .query(({ ctx, input }) => channelDrafts(ctx.services, ctx.actor, input.channelId)),
  createFromChannel: authedProcedure
    .input(CreateLocationsFromChannelInput)
    .output(CreatedLocationsFromChannel)
    .mutation(({ ctx, input }) => createLocationsFromChannel(ctx.services, ctx.actor, input)),
});
