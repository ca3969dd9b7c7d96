import {
  ApiKey,
  ApiKeyList,
  CreateApiKeyInput,
  CreatedApiKey,
  IdInput,
  PageInput,
  UpdateApiKeyInput,
} from '@switchyard/contracts';
import { z } from 'zod';
import { authedProcedure, router } from '../../trpc/init.ts';
import { createApiKey, getApiKey, listApiKeys, renameApiKey, revokeApiKey } from './apps.service.ts';

export const appsRouter = router({
  list: authedProcedure
    .input(PageInput.optional())
    .output(ApiKeyList)
    .query(({ ctx, input }) => listApiKeys(ctx.services.db, ctx.actor, input ?? PageInput.parse({}))),
  byId: authedProcedure
    .input(IdInput)
    .output(ApiKey)
    .query(({ ctx, input }) => getApiKey(ctx.services.db, ctx.actor, input.id)),
  create: authedProcedure
    .input(CreateApiKeyInput)
    .output(CreatedApiKey)
    .mutation(({ ctx, input }) => createApiKey(ctx.services.db, ctx.actor, input)),
  update: authedProcedure
    .input(UpdateApiKeyInput)
    .output(ApiKey)
    .mutation(({ ctx, input }) => renameApiKey(ctx.services.db, ctx.actor, input)),
  revoke: authedProcedure
    .input(IdInput)
    .output(z.object({ id: z.string(), revoked: z.literal(true) }))
    .mutation(({ ctx, input }) => revokeApiKey(ctx.services.db, ctx.actor, input.id)),
});
