import {
  ChannelDetail,
  ChannelFeatures,
  ChannelSettingKey,
  ChannelSummary,
  GetOauthUrlInput,
  IdInput,
  IntegrationCreateInput,
  PatchChannelInput,
} from '@switchyard/contracts';
import { z } from 'zod';
import { authedProcedure, router } from '../../trpc/init.ts';
import { startFullPush } from '../inventory/push.run.ts';
import { startReconcile } from '../inventory/reconcile.ts';
import { getOauthUrl } from './channels.oauth.ts';
import {
  createIntegration,
  disconnectChannel,
  getChannel,
  listChannels,
  renameChannel,
  updateFeatures,
  updateSettings,
} from './channels.service.ts';

export const channelsRouter = router({
  list: authedProcedure.output(z.array(ChannelSummary)).query(({ ctx }) => listChannels(ctx.services.db, ctx.actor)),
  get: authedProcedure
    .input(IdInput)
    .output(ChannelDetail)
    .query(({ ctx, input }) => getChannel(ctx.services.db, ctx.actor, input.id)),
  getOauthUrl: authedProcedure
    .input(GetOauthUrlInput)
    .output(z.object({ url: z.string() }))
    .query(({ ctx, input }) => getOauthUrl(ctx.services, ctx.actor, input)),
  create: authedProcedure
    .input(IntegrationCreateInput)
    .output(ChannelSummary)
    .mutation(({ ctx, input }) => createIntegration(ctx.services.db, ctx.actor, input)),
  disconnect: authedProcedure
    .input(IdInput)
    .output(ChannelSummary)
    .mutation(({ ctx, input }) => disconnectChannel(ctx.services.db, ctx.actor, input.id)),
  update: authedProcedure
    .input(PatchChannelInput.extend({ id: z.string() }))
    .output(ChannelDetail)
    .mutation(({ ctx, input: { id, ...patch } }) => renameChannel(ctx.services.db, ctx.actor, id, patch)),
  updateSettings: authedProcedure
    .input(z.object({ id: z.string(), key: ChannelSettingKey, settings: z.unknown() }))
    .output(ChannelDetail)
    .mutation(({ ctx, input }) => updateSettings(ctx.services.db, ctx.actor, input.id, input.key, input.settings)),
  updateFeatures: authedProcedure
    .input(ChannelFeatures.partial().extend({ id: z.string() }))
    .output(ChannelDetail)
    .mutation(({ ctx, input: { id, ...features } }) => updateFeatures(ctx.services.db, ctx.actor, id, features)),
  /** A full push: every listed variant's available stock is sent (what differs from the channel's). */
  pushInventory: authedProcedure
    .input(IdInput)
    .output(z.object({ channelId: z.string(), variants: z.number().int() }))
    .mutation(({ ctx, input }) => startFullPush(ctx.services, ctx.actor, input.id)),
  /** Reconciliation now: missed channel changes taken in, drift pushed back. */
  reconcileInventory: authedProcedure
    .input(IdInput)
    .output(z.object({ channelId: z.string(), queued: z.boolean() }))
    .mutation(({ ctx, input }) => startReconcile(ctx.services, ctx.actor, input.id)),
});
