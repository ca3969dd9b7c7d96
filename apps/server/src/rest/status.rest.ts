import { z } from 'zod';
import type { Services } from '../services.ts';
import { type RestApp, type RestVersion, restRoute } from './route.ts';

const ApiStatus = z.object({
  status: z.literal('ok'),
  apiVersion: z.string(),
  buildId: z.string(),
  serverTime: z.iso.datetime(),
});

/** Lets an API client check the address, version and clock it talks to without signing in. */
export function statusRest(app: RestApp, services: Services, version: RestVersion) {
  restRoute(app, services, {
    method: 'GET',
    url: '/status',
    access: 'public',
    summary: 'API status',
    tags: ['status'],
    output: ApiStatus,
    handler: () => ({
      status: 'ok' as const,
      apiVersion: version,
      buildId: services.buildId,
      serverTime: new Date().toISOString(),
    }),
  });
}
