import {
  Buffer,
  BufferDeleted,
  BufferIdInput,
  BufferInput,
  BufferList,
  BufferSkuSearch,
  BufferSkuSuggestion,
  BuffersSearch,
  BufferUpdateInput,
} from '@switchyard/contracts';
import { z } from 'zod';
import { authedProcedure, router } from '../../trpc/init.ts';
import { createBuffer, deleteBuffer, getBuffer, listBuffers, suggestSkus, updateBuffer } from './buffers.service.ts';

export const buffersRouter = router({
  list: authedProcedure
    .input(BuffersSearch.optional())
    .output(BufferList)
    .query(({ ctx, input }) => listBuffers(ctx.services.db, ctx.actor, input ?? BuffersSearch.parse({}))),
  get: authedProcedure
    .input(BufferIdInput)
    .output(Buffer)
    .query(({ ctx, input }) => getBuffer(ctx.services.db, ctx.actor, input.id)),
  create: authedProcedure
    .input(BufferInput)
    .output(Buffer)
    .mutation(({ ctx, input }) => createBuffer(ctx.services, ctx.actor, input)),
  update: authedProcedure
    .input(BufferUpdateInput)
    .output(Buffer)
    .mutation(({ ctx, input: { id, ...patch } }) => updateBuffer(ctx.services, ctx.actor, id, patch)),
  delete: authedProcedure
    .input(BufferIdInput)
    .output(BufferDeleted)
    .mutation(({ ctx, input }) => deleteBuffer(ctx.services, ctx.actor, input.id)),
  skus: authedProcedure
    .input(BufferSkuSearch)
    .output(z.array(BufferSkuSuggestion))
    .query(({ ctx, input }) => suggestSkus(ctx.services.db, ctx.actor, input)),
});
