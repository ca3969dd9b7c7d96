import { ApiKey, ApiKeyList, CreateApiKeyInput, CreatedApiKey, IdInput, PageInput } from '@switchyard/contracts';
import { z } from 'zod';
import { type RestApp, restRoute } from '../../rest/route.ts';
import type { Services } from '../../services.ts';
import { createApiKey, getApiKey, listApiKeys, renameApiKey, revokeApiKey } from './apps.service.ts';

const tags = ['settings/apps'];

/** SPEC §7 v1 and v2 `settings/apps`: the merchant's API keys. */
export function appsRest(app: RestApp, services: Services) {
  restRoute(app, services, {
    method: 'GET',
    url: '/settings/apps',
    summary: 'List API keys',
    tags,
    input: PageInput,
    output: ApiKeyList,
    handler: ({ actor, input }) => listApiKeys(services.db, actor, input),
  });
  restRoute(app, services, {
    method: 'POST',
    url: '/settings/apps',
    summary: 'Create an API key (the secret is answered only here)',
    tags,
    input: CreateApiKeyInput,
    output: CreatedApiKey,
    handler: async ({ actor, input, reply }) => {
      const created = await createApiKey(services.db, actor, input);
      reply.status(201);
      return created;
    },
  });
  restRoute(app, services, {
    method: 'GET',
    url: '/settings/apps/:id',
    summary: 'Get an API key',
    tags,
    params: IdInput,
    output: ApiKey,
    handler: ({ actor, params }) => getApiKey(services.db, actor, params.id as string),
  });
  restRoute(app, services, {
    method: 'PUT',
    url: '/settings/apps/:id',
    summary: 'Rename an API key',
    tags,
    params: IdInput,
    input: CreateApiKeyInput,
    output: ApiKey,
    handler: ({ actor, params, input }) =>
      renameApiKey(services.db, actor, { id: params.id as string, name: input.name }),
  });
  restRoute(app, services, {
    method: 'DELETE',
    url: '/settings/apps/:id',
    summary: 'Revoke an API key',
    tags,
    params: IdInput,
    output: z.object({ id: z.string(), revoked: z.literal(true) }),
    handler: ({ actor, params }) => revokeApiKey(services.db, actor, params.id as string),
  });
}
