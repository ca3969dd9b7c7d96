// The locations module's entries of the tenant-isolation harness (test/isolation.ts). Test code only.
import { randomBytes } from 'node:crypto';
import type { Location, LocationList } from '@switchyard/contracts';
import { eq } from 'drizzle-orm';
import type { InjectOptions } from 'fastify';
import { expect } from 'vitest';
import type { IdTakingOperation, Outcome, OwnRowOperation, World } from '../../../test/isolation.ts';
import { trpcOver } from '../../../test/trpc.ts';
import { insertChannel } from '../buffers/buffers.fixtures.ts';
import { locations } from './locations.tables.ts';

const unique = (label: string) => `${label}-${randomBytes(6).toString('hex')}`;

async function rest(w: World, headers: Record<string, string>, options: InjectOptions): Promise<Outcome> {
  const res = await w.t.app.inject({ ...options, headers: { ...options.headers, ...headers } });
  return { status: res.statusCode, body: res.body };
}

async function trpc(w: World, kind: 'query' | 'mutation', path: string, input: unknown): Promise<Outcome> {
  const result = await trpcOver(w.t.app, w.b.headers)[kind](path, input);
  return { status: result.status, body: JSON.stringify(result) };
}

/** A location of A, named with the marker (its store id carries it too). */
async function createLocation(w: World) {
  const marker = unique('location');
  const res = await w.t.app.inject({
    method: 'POST',
    url: '/api/v1/locations',
    headers: w.a.headers,
    payload: { name: marker, store_id: marker, address: { city: marker } },
  });
  expect(res.statusCode).toBe(201);
  return { id: res.json<Location>().id, marker };
}

/** A connected Shopify channel of A's, named with the marker. */
async function channelOfA(w: World) {
  const marker = unique('channel');
  const channel = await insertChannel(w.t.services.db, w.a.accountId, { name: marker });
  return { id: channel.id, marker };
}

async function locationIntact(w: World, id: string, marker: string) {
  const res = await trpcOver(w.t.app, w.a.headers).query<Location>('locations.get', { id });
  expect(res.data).toMatchObject({ name: marker, store_id: marker, enabled: true, priority: 0 });
}

const restOperations = (['v1', 'v2'] as const).flatMap((v): IdTakingOperation[] => [
  {
    name: `GET /api/${v}/locations/{id}`,
    create: createLocation,
    attempt: (w, id) => rest(w, w.b.headers, { method: 'GET', url: `/api/${v}/locations/${id}` }),
  },
  {
    name: `PATCH /api/${v}/locations/{id}`,
    create: createLocation,
    attempt: (w, id) =>
      rest(w, w.b.headers, {
        method: 'PATCH',
        url: `/api/${v}/locations/${id}`,
        payload: { name: 'taken over', enabled: '', priority: 9 },
      }),
    intact: locationIntact,
  },
  {
    name: `PATCH /api/${v}/locations/{id} with an API key`,
    create: createLocation,
    attempt: (w, id) =>
      rest(w, w.b.apiKeyHeaders, { method: 'PATCH', url: `/api/${v}/locations/${id}`, payload: { enabled: false } }),
    intact: locationIntact,
  },
  {
    name: `DELETE /api/${v}/locations/{id}`,
    create: createLocation,
    attempt: (w, id) => rest(w, w.b.headers, { method: 'DELETE', url: `/api/${v}/locations/${id}` }),
    intact: locationIntact,
  },
  {
    name: `DELETE /api/${v}/locations/{id} with an API key`,
    create: createLocation,
    attempt: (w, id) => rest(w, w.b.apiKeyHeaders, { method: 'DELETE', url: `/api/${v}/locations/${id}` }),
    intact: locationIntact,
  },
]);

export const locationIdTakingOperations: IdTakingOperation[] = [
  ...restOperations,
  {
    name: 'locations.get',
    create: createLocation,
    attempt: (w, id) => trpc(w, 'query', 'locations.get', { id }),
  },
  {
    name: 'locations.update',
    create: createLocation,
    attempt: (w, id) => trpc(w, 'mutation', 'locations.update', { id, name: 'taken over', enabled: false }),
    intact: locationIntact,
  },
  {
    name: 'locations.delete',
    create: createLocation,
    attempt: (w, id) => trpc(w, 'mutation', 'locations.delete', { id }),
    intact: locationIntact,
  },
  {
    name: 'locations.channelDrafts with A’s channel',
    create: channelOfA,
    attempt: (w, channelId) => trpc(w, 'query', 'locations.channelDrafts', { channelId }),
  },
  {
    name: 'locations.createFromChannel with A’s channel',
    create: channelOfA,
    attempt: (w, channelId) =>
      trpc(w, 'mutation', 'locations.createFromChannel', {
        channelId,
        locations: [
          {
            externalLocationId: 'ext-1',
            name: 'Taken over',
            store_id: unique('taken'),
            ships: true,
            pickup: false,
            address: {},
          },
        ],
      }),
    // No location was made in either account from A's channel.
    async intact(w) {
      const made = await w.t.services.db.select().from(locations).where(eq(locations.name, 'Taken over'));
      expect(made).toEqual([]);
    },
  },
];

export const locationOwnRowOperations: OwnRowOperation[] = [
  {
    name: 'locations.list and GET locations show only B’s locations; B may use A’s store id',
    async run(w) {
      const a = await createLocation(w);
      const list = await trpcOver(w.t.app, w.b.headers).query<LocationList>('locations.list', {});
      expect(list.status).toBe(200);
      expect(JSON.stringify(list.data)).not.toContain(a.marker);
      for (const v of ['v1', 'v2']) {
        const res = await w.t.app.inject({ url: `/api/${v}/locations?search=${a.marker}`, headers: w.b.headers });
        expect(res.json<LocationList>()).toEqual({ results: [], total: 0 });
      }
      const own = await w.t.app.inject({
        method: 'POST',
        url: '/api/v1/locations',
        headers: w.b.headers,
        payload: { name: 'B’s store', store_id: a.marker },
      });
      expect(own.statusCode).toBe(201);
      await locationIntact(w, a.id, a.marker);
    },
  },
];
