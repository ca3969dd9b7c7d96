import {
  DeadLetterList,
  DeadLettersInput,
  SyncDetail,
  SyncGetInput,
  SyncIdInput,
  SyncList,
  SyncsListInput,
  SyncTypesOutput,
} from '@switchyard/contracts';
import { z } from 'zod';
import { authedProcedure, router } from '../../trpc/init.ts';
import { countSyncs, getSync, listDeadLetters, listSyncs, listSyncTypes, retrySync } from './syncs.service.ts';

export const syncsRouter = router({
  list: authedProcedure
    .input(SyncsListInput.optional())
    .output(SyncList)
    .query(({ ctx, input }) => listSyncs(ctx.services.db, ctx.actor, SyncsListInput.parse(input ?? {}))),
  count: authedProcedure
    .input(SyncsListInput.optional())
    .output(z.object({ total: z.number().int() }))
    .query(({ ctx, input }) => countSyncs(ctx.services.db, ctx.actor, SyncsListInput.parse(input ?? {}))),
  get: authedProcedure
    .input(SyncGetInput)
    .output(SyncDetail)
    .query(({ ctx, input }) => getSync(ctx.services.db, ctx.actor, input)),
  types: authedProcedure.output(SyncTypesOutput).query(({ ctx }) => listSyncTypes(ctx.services.db, ctx.actor)),
  retry: authedProcedure
    .input(SyncIdInput)
    .output(z.object({ id: z.number().int() }))
    .mutation(({ ctx, input }) => retrySync(ctx.services, ctx.actor, input.id)),
  deadLetters: authedProcedure
    .input(DeadLettersInput.optional())
    .output(DeadLetterList)
    .query(({ ctx, input }) => listDeadLetters(ctx.services.db, ctx.actor, DeadLettersInput.parse(input ?? {}))),
});
