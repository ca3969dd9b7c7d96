import {
  DeletedLocation,
  IdInput,
  Location,
  LocationInput,
  LocationList,
  LocationPatch,
  LocationsQuery,
} from '@switchyard/contracts';
import { authedProcedure, router } from '../../trpc/init.ts';
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
});
