import {
  CatalogIntegration,
  CatalogIntegrationUpdate,
  CatalogSyncHourInput,
  CatalogSyncInput,
  CatalogSyncSchedule,
  CatalogSyncStarted,
} from '@switchyard/contracts';
import { z } from 'zod';
import type { RestApp, RestVersion } from '../../rest/route.ts';
import { restRoute } from '../../rest/route.ts';
import type { Services } from '../../services.ts';
import { getCatalogIntegration, listCatalogIntegrations, updateCatalogIntegration } from './catalog.integrations.ts';
import { getCatalogSyncSchedule, setCatalogSyncHour } from './catalog.schedule.ts';
import { queueCatalogImport } from './catalog-import.ts';
import { queueCatalogPublish } from './catalog-publish.ts';

const IdParams = z.object({ id: z.string().min(1).max(100) });

/** SPEC §7 frontend: `catalogSync` (the daily hour) and `catalogIntegrations`. */
export function catalogFrontendRest(app: RestApp, services: Services) {
  restRoute(app, services, {
    method: 'POST',
    url: '/catalogSync',
    input: CatalogSyncHourInput,
    output: CatalogSyncSchedule,
    handler: ({ actor, input }) => setCatalogSyncHour(services, actor, input.hour),
  });
  restRoute(app, services, {
    method: 'GET',
    url: '/catalogSync',
    output: CatalogSyncSchedule,
    handler: ({ actor }) => getCatalogSyncSchedule(services.db, actor),
  });
  restRoute(app, services, {
    method: 'GET',
    url: '/catalogIntegrations',
    output: z.object({ results: z.array(CatalogIntegration), total: z.number().int() }),
    handler: ({ actor }) => listCatalogIntegrations(services.db, actor),
  });
  restRoute(app, services, {
    method: 'GET',
    url: '/catalogIntegrations/:id',
    params: IdParams,
    output: CatalogIntegration,
    handler: ({ actor, params }) => getCatalogIntegration(services.db, actor, params.id as string),
  });
  restRoute(app, services, {
    method: 'PUT',
    url: '/catalogIntegrations/:id',
    params: IdParams,
    input: CatalogIntegrationUpdate,
    output: CatalogIntegration,
    handler: ({ actor, params, input }) => updateCatalogIntegration(services.db, actor, params.id as string, input),
  });
}

/** SPEC §7 v1 and v2: `channels/{id}/actions/catalog-sync` (and catalog-publish, on demand). */
export function catalogRest(app: RestApp, services: Services, _version: RestVersion) {
  restRoute(app, services, {
    method: 'POST',
    url: '/channels/:id/actions/catalog-sync',
    summary: 'Import a channel’s catalog (only products changed since sync_from, when given)',
    tags: ['channels'],
    params: IdParams,
    input: CatalogSyncInput.nullish(),
    output: CatalogSyncStarted,
    handler: async ({ actor, params, input, reply }) => {
      const syncId = await queueCatalogImport(services, {
        accountId: actor.accountId,
        channelId: params.id as string,
        syncFrom: input?.sync_from ?? null,
        trigger: 'manual',
      });
      reply.status(202);
      return { sync_id: syncId };
    },
  });
  restRoute(app, services, {
    method: 'POST',
    url: '/channels/:id/actions/catalog-publish',
    summary: 'Create on a channel the products of the catalog it does not list yet',
    tags: ['channels'],
    params: IdParams,
    input: z.object({}).passthrough().nullish(),
    output: CatalogSyncStarted,
    handler: async ({ actor, params, reply }) => {
      const syncId = await queueCatalogPublish(services, {
        accountId: actor.accountId,
        channelId: params.id as string,
        trigger: 'manual',
      });
      reply.status(202);
      return { sync_id: syncId };
    },
  });
}
