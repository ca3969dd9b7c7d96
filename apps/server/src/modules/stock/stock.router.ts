import { StockAdjustInput, StockChangeResult, StockCountInput } from '@switchyard/contracts';
import { authedProcedure, router } from '../../trpc/init.ts';
import { adjustStock, countStock } from './stock.service.ts';

/** `inventory.adjust` and `inventory.count`: manual stock changes from the product view. */
export const stockRouter = router({
  adjust: authedProcedure
    .input(StockAdjustInput)
    .output(StockChangeResult)
    .mutation(({ ctx, input }) => adjustStock(ctx.services, ctx.actor, input)),
  count: authedProcedure
    .input(StockCountInput)
    .output(StockChangeResult)
    .mutation(({ ctx, input }) => countStock(ctx.services, ctx.actor, input)),
});
