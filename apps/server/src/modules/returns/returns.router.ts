import {
  CreateReturnInput,
  Return,
  ReturnIdInput,
  ReturnList,
  ReturnsForOrderInput,
  ReturnsListInput,
} from '@switchyard/contracts';
import { z } from 'zod';
import { authedProcedure, router } from '../../trpc/init.ts';
import { createReturn, getReturn, listReturns, retryReturn, returnsForOrder } from './returns.service.ts';

export const returnsRouter = router({
  list: authedProcedure
    .input(ReturnsListInput.optional())
    .output(ReturnList)
    .query(({ ctx, input }) => listReturns(ctx.services.db, ctx.actor, input)),
  get: authedProcedure
    .input(ReturnIdInput)
    .output(Return)
    .query(({ ctx, input }) => getReturn(ctx.services.db, ctx.actor, input.id)),
  forOrder: authedProcedure
    .input(ReturnsForOrderInput)
    .output(z.array(Return))
    .query(({ ctx, input }) => returnsForOrder(ctx.services.db, ctx.actor, input.order_id)),
  create: authedProcedure
    .input(CreateReturnInput)
    .output(Return)
    .mutation(({ ctx, input }) => createReturn(ctx.services, ctx.actor, input)),
  retry: authedProcedure
    .input(ReturnIdInput)
    .output(Return)
    .mutation(({ ctx, input }) => retryReturn(ctx.services, ctx.actor, input.id)),
});
