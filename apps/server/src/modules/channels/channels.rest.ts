import {
  ChannelDetail,
  ChannelFeatures,
  ChannelSettingKey,
  ChannelSummary,
  ChannelType,
  GenerateRedirectUrlInput,
  IntegrationCreateInput,
  PatchChannelInput,
  ProcessOauthInput,
  ProcessOauthResult,
  ProviderStore,
} from '@switchyard/contracts';
import { z } from 'zod';
import type { RestApp, RestVersion } from '../../rest/route.ts';
import { restRoute } from '../../rest/route.ts';
import type { Services } from '../../services.ts';
import { startFullPush } from '../inventory/push.run.ts';
import { startReconcile } from '../inventory/reconcile.ts';
import { generateRedirectUrl, processOauth } from './channels.oauth.ts';
import {
  createIntegration,
  listChannelLocations,
  listSquareStores,
  renameChannel,
  updateFeatures,
  updateSettings,
} from './channels.service.ts';

const ProviderParams = z.object({ provider: ChannelType });
const IdParams = z.object({ id: z.string().min(1).max(100) });
const Url = z.object({ url: z.string() });
const InventoryPushStarted = z.object({ channelId: z.string(), variants: z.number().int() });
const ReconcileStarted = z.object({ channelId: z.string(), queued: z.boolean() });

/** SPEC §7 frontend `integration/create`: a pending channel before its authorization. */
export function channelsFrontendRest(app: RestApp, services: Services) {
  restRoute(app, services, {
    method: 'POST',
    url: '/integration/create',
    input: IntegrationCreateInput,
    output: ChannelSummary,
    handler: async ({ actor, input, reply }) => {
      const created = await createIntegration(services.db, actor, input);
      reply.status(201);
      return created;
    },
  });
}

/** SPEC §7 v1 and v2: oauth, channels and wrappers. */
export function channelsRest(app: RestApp, services: Services, _version: RestVersion) {
  restRoute(app, services, {
    method: 'POST',
    url: '/oauth/:provider/generate-redirect-url',
    summary: "The provider's consent page for a new or re-authorised channel",
    tags: ['oauth'],
    params: ProviderParams,
    input: GenerateRedirectUrlInput,
    output: Url,
    handler: ({ actor, params, input }) => generateRedirectUrl(services, actor, params.provider as ChannelType, input),
  });
  restRoute(app, services, {
    method: 'POST',
    url: '/oauth/:provider/process-oauth',
    summary: "Completes an authorization with the provider's callback query",
    tags: ['oauth'],
    params: ProviderParams,
    input: ProcessOauthInput,
    output: ProcessOauthResult,
    handler: ({ actor, params, input }) => processOauth(services, actor, params.provider as ChannelType, input),
  });
  restRoute(app, services, {
    method: 'PUT',
    url: '/channels/:id/settings/:key',
    summary: 'Replace one section of a channel’s settings',
    tags: ['channels'],
    params: IdParams.extend({ key: ChannelSettingKey }),
    // The section's schema depends on the key; the service validates the body against it.
    input: z.record(z.string(), z.unknown()),
    output: ChannelDetail,
    handler: ({ actor, params, input }) =>
      updateSettings(services.db, actor, params.id as string, params.key as ChannelSettingKey, input),
  });
  restRoute(app, services, {
    method: 'PATCH',
    url: '/channels/:id',
    summary: 'Rename a channel',
    tags: ['channels'],
    params: IdParams,
    input: PatchChannelInput,
    output: ChannelDetail,
    handler: ({ actor, params, input }) => renameChannel(services.db, actor, params.id as string, input),
  });
  restRoute(app, services, {
    method: 'PUT',
    url: '/channels/:id/actions/features',
    summary: 'Switch what a channel syncs',
    tags: ['channels'],
    params: IdParams,
    input: ChannelFeatures.partial(),
    output: ChannelDetail,
    handler: ({ actor, params, input }) => updateFeatures(services.db, actor, params.id as string, input),
  });
  restRoute(app, services, {
    method: 'POST',
    url: '/channels/:id/actions/inventory-push',
    summary: 'Push every listed variant’s available stock to the channel (a full push)',
    tags: ['channels'],
    params: IdParams,
    output: InventoryPushStarted,
    handler: async ({ actor, params, reply }) => {
      const started = await startFullPush(services, actor, params.id as string);
      reply.status(202);
      return started;
    },
  });
  restRoute(app, services, {
    method: 'POST',
    url: '/channels/:id/actions/inventory-reconcile',
    summary: 'Compare the channel’s stock with ours now and repair drift',
    tags: ['channels'],
    params: IdParams,
    output: ReconcileStarted,
    handler: async ({ actor, params, reply }) => {
      const started = await startReconcile(services, actor, params.id as string);
      reply.status(202);
      return started;
    },
  });
  restRoute(app, services, {
    method: 'GET',
    url: '/wrappers/square/stores',
    summary: 'The connected Square’s locations (POS stores)',
    tags: ['wrappers'],
    output: z.object({ stores: z.array(ProviderStore) }),
    handler: ({ actor }) => listSquareStores(services, actor),
  });
  restRoute(app, services, {
    method: 'GET',
    url: '/wrappers/:platform/locations',
    summary: 'A channel’s locations at its provider',
    tags: ['wrappers'],
    params: z.object({ platform: ChannelType }),
    input: z.object({ channel_id: z.string().min(1).max(100) }),
    output: z.object({ locations: z.array(ProviderStore) }),
    handler: ({ actor, params, input }) =>
      listChannelLocations(services, actor, params.platform as ChannelType, input.channel_id),
  });
}
