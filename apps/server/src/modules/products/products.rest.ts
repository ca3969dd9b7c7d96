import {
  ProductCreateInput,
  ProductDetail,
  ProductInput,
  ProductsBulkUpdateInput,
  ProductUpdateInput,
} from '@switchyard/contracts';
import { z } from 'zod';
import type { RestApp, RestVersion } from '../../rest/route.ts';
import { restRoute } from '../../rest/route.ts';
import type { Services } from '../../services.ts';
import { createProduct, deleteProduct, getProduct, updateProduct, updateProducts } from './products.service.ts';

const IdParams = z.object({ id: z.string().min(1).max(100) });

/** frontend `PUT products` takes `{ products: [...] }`, or the list itself. */
const BulkUpdateBody = z.union([
  ProductsBulkUpdateInput,
  z
    .array(ProductUpdateInput)
    .min(1)
    .max(100)
    .transform((products) => ({ products })),
]);

/** SPEC §7 frontend: `GET products/{id}`, `POST products`, `PUT products`, `PUT products/{id}`. */
export function productsFrontendRest(app: RestApp, services: Services) {
  restRoute(app, services, {
    method: 'GET',
    url: '/products/:id',
    params: IdParams,
    output: ProductDetail,
    handler: ({ actor, params }) => getProduct(services.db, actor, params.id as string),
  });
  restRoute(app, services, {
    method: 'POST',
    url: '/products',
    input: ProductCreateInput,
    output: ProductDetail,
    handler: async ({ actor, input, reply }) => {
      const created = await createProduct(services, actor, input);
      reply.status(201);
      return created;
    },
  });
  restRoute(app, services, {
    method: 'PUT',
    url: '/products',
    input: BulkUpdateBody,
    output: z.object({ results: z.array(ProductDetail) }),
    handler: async ({ actor, input }) => ({ results: await updateProducts(services, actor, input.products) }),
  });
  restRoute(app, services, {
    method: 'PUT',
    url: '/products/:id',
    params: IdParams,
    input: ProductInput,
    output: ProductDetail,
    handler: ({ actor, params, input }) => updateProduct(services, actor, { ...input, id: params.id as string }),
  });
}

/** SPEC §7 v1 and v2: `POST products`, `DELETE product/{id}`. */
export function productsRest(app: RestApp, services: Services, _version: RestVersion) {
  restRoute(app, services, {
    method: 'POST',
    url: '/products',
    summary: 'Create a product with its variants (and pending listings on `channelId`)',
    tags: ['products'],
    input: ProductCreateInput,
    output: ProductDetail,
    handler: async ({ actor, input, reply }) => {
      const created = await createProduct(services, actor, input);
      reply.status(201);
      return created;
    },
  });
  restRoute(app, services, {
    method: 'DELETE',
    url: '/product/:id',
    summary: 'Delete a product, its variants, listings and stock (channels keep their copies)',
    tags: ['products'],
    params: IdParams,
    output: z.object({ id: z.string() }),
    handler: ({ actor, params }) => deleteProduct(services.db, actor, params.id as string),
  });
}
