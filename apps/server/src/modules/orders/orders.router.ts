import {
  Comment,
  CommentAddInput,
  CommentList,
  CommentListInput,
  OrderCancelInput,
  OrderCounts,
  OrderDetail,
  OrderIdInput,
  OrderList,
  OrderPatch,
  OrderStatusInput,
  OrdersListInput,
} from '@switchyard/contracts';
import { z } from 'zod';
import { authedProcedure, router } from '../../trpc/init.ts';
import { addComment, listComments } from '../comments/comments.service.ts';
import { importNow } from './orders.import.ts';
import { cancelOrder, countOrders, getOrder, listOrders, setOrderStatus, updateOrder } from './orders.service.ts';

export const ordersRouter = router({
  list: authedProcedure
    .input(OrdersListInput.optional())
    .output(OrderList)
    .query(({ ctx, input }) => listOrders(ctx.services.db, ctx.actor, input)),
  count: authedProcedure
    .input(OrdersListInput.optional())
    .output(OrderCounts)
    .query(({ ctx, input }) => countOrders(ctx.services.db, ctx.actor, input)),
  get: authedProcedure
    .input(OrderIdInput)
    .output(OrderDetail)
    .query(({ ctx, input }) => getOrder(ctx.services.db, ctx.actor, input.id)),
  update: authedProcedure
    .input(OrderIdInput.extend(OrderPatch.shape).strict())
    .output(OrderDetail)
    .mutation(({ ctx, input: { id, ...patch } }) => updateOrder(ctx.services, ctx.actor, id, patch)),
  setStatus: authedProcedure
    .input(OrderIdInput.extend(OrderStatusInput.shape))
    .output(OrderDetail)
    .mutation(({ ctx, input: { id, ...status } }) => setOrderStatus(ctx.services, ctx.actor, id, status)),
  cancel: authedProcedure
    .input(OrderIdInput.extend(OrderCancelInput.shape))
    .output(OrderDetail)
    .mutation(({ ctx, input: { id, ...rest } }) => cancelOrder(ctx.services, ctx.actor, id, rest)),
  importNow: authedProcedure
    .input(z.object({ channelId: z.string().trim().min(1).max(64) }))
    .output(z.object({ queued: z.boolean(), syncId: z.number().int().nullable() }))
    .mutation(({ ctx, input }) => importNow(ctx.services, ctx.actor, input.channelId)),
});

export const commentsRouter = router({
  list: authedProcedure
    .input(CommentListInput.optional())
    .output(CommentList)
    .query(({ ctx, input }) => listComments(ctx.services.db, ctx.actor, input)),
  add: authedProcedure
    .input(CommentAddInput)
    .output(Comment)
    .mutation(({ ctx, input }) => addComment(ctx.services.db, ctx.actor, input)),
});
