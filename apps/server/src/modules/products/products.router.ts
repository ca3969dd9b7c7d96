import {
  IdInput,
  ProductCreateInput,
  ProductDetail,
  ProductListResult,
  ProductSyncInput,
  ProductsBulkInput,
  ProductsBulkResult,
  ProductsListInput,
  ProductUpdateInput,
} from '@switchyard/contracts';
import { z } from 'zod';
import { authedProcedure, router } from '../../trpc/init.ts';
import {
  bulkProducts,
  createProduct,
  deleteProduct,
  getProduct,
  listBrands,
  listProducts,
  syncProduct,
  updateProduct,
} from './products.service.ts';

export const productsRouter = router({
  list: authedProcedure
    .input(ProductsListInput)
    .output(ProductListResult)
    .query(({ ctx, input }) => listProducts(ctx.services.db, ctx.actor, input)),
  get: authedProcedure
    .input(IdInput)
    .output(ProductDetail)
    .query(({ ctx, input }) => getProduct(ctx.services.db, ctx.actor, input.id)),
  brands: authedProcedure.output(z.array(z.string())).query(({ ctx }) => listBrands(ctx.services.db, ctx.actor)),
  create: authedProcedure
    .input(ProductCreateInput)
    .output(ProductDetail)
    .mutation(({ ctx, input }) => createProduct(ctx.services, ctx.actor, input)),
  update: authedProcedure
    .input(ProductUpdateInput)
    .output(ProductDetail)
    .mutation(({ ctx, input }) => updateProduct(ctx.services, ctx.actor, input)),
  delete: authedProcedure
    .input(IdInput)
    .output(z.object({ id: z.string() }))
    .mutation(({ ctx, input }) => deleteProduct(ctx.services.db, ctx.actor, input.id)),
  bulk: authedProcedure
    .input(ProductsBulkInput)
    .output(ProductsBulkResult)
    .mutation(({ ctx, input }) => bulkProducts(ctx.services, ctx.actor, input)),
  sync: authedProcedure
    .input(ProductSyncInput)
    .output(ProductDetail)
    .mutation(({ ctx, input }) => syncProduct(ctx.services, ctx.actor, input.id, input.channelId)),
});
