import {
  DeletedLocation,
  Location,
  LocationInput,
  LocationList,
  LocationPatch,
  LocationsQuery,
} from '@switchyard/contracts';
import { z } from 'zod';
import type { RestApp, RestVersion } from '../../rest/route.ts';
import { restRoute } from '../../rest/route.ts';
import type { Services } from '../../services.ts';
import { createLocation, deleteLocation, getLocation, listLocations, updateLocation } from './locations.service.ts';

const IdParams = z.object({ id: z.string().min(1).max(100) });

/** SPEC §7 v1 (and v2): locations. */
export function locationsRest(app: RestApp, services: Services, _version: RestVersion) {
  restRoute(app, services, {
    method: 'GET',
    url: '/locations',
    summary: 'The account’s locations, by store id unless sorted otherwise; search matches name, store id or city',
    tags: ['locations'],
    input: LocationsQuery,
    output: LocationList,
    handler: ({ actor, input }) => listLocations(services.db, actor, input),
  });
  restRoute(app, services, {
    method: 'GET',
    url: '/locations/:id',
    summary: 'One location',
    tags: ['locations'],
    params: IdParams,
    output: Location,
    handler: ({ actor, params }) => getLocation(services.db, actor, params.id as string),
  });
  restRoute(app, services, {
    method: 'POST',
    url: '/locations',
    summary: 'Add a location (a POS store or a warehouse)',
    tags: ['locations'],
    input: LocationInput,
    output: Location,
    handler: async ({ actor, input, reply }) => {
      const created = await createLocation(services, actor, input);
      reply.status(201);
      return created;
    },
  });
  restRoute(app, services, {
    method: 'PATCH',
    url: '/locations/:id',
    summary: 'Change a location; `enabled` sent as an empty string is stored as false',
    tags: ['locations'],
    params: IdParams,
    input: LocationPatch,
    output: Location,
    handler: ({ actor, params, input }) => updateLocation(services, actor, params.id as string, input),
  });
  restRoute(app, services, {
    method: 'DELETE',
    url: '/locations/:id',
    summary: 'Delete a location that holds no stock',
    tags: ['locations'],
    params: IdParams,
    output: DeletedLocation,
    handler: ({ actor, params }) => deleteLocation(services.db, actor, params.id as string),
  });
}
