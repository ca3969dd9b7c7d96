import {
  Comment,
  CommentAddInput,
  CommentList,
  CommentListInput,
  OrderCounts,
  OrderDetail,
  OrderIdInput,
  OrderList,
  OrderPatch,
  OrderStatusInput,
  OrdersListInput,
} from '@switchyard/contracts';
import type { RestApp } from '../../rest/route.ts';
import { restRoute } from '../../rest/route.ts';
import type { Services } from '../../services.ts';
import { addComment, listComments } from '../comments/comments.service.ts';
import { countOrders, getOrder, listOrders, setOrderStatus, updateOrder } from './orders.service.ts';

const tags = ['orders'];
const idOf = (params: Record<string, string>) => OrderIdInput.parse(params).id;

/** Reads for the web app and for API keys (v1/v2): the list, its counts and one order. */
function orderReads(app: RestApp, services: Services) {
  restRoute(app, services, {
    method: 'GET',
    url: '/orders',
    summary: 'List orders (status −1…9, default 1 open; search by number, customer, e-mail or SKU)',
    tags,
    input: OrdersListInput,
    output: OrderList,
    handler: ({ actor, input }) => listOrders(services.db, actor, input),
  });
  restRoute(app, services, {
    method: 'GET',
    url: '/orders/count',
    summary: 'Count orders per status over the same filters',
    tags,
    input: OrdersListInput,
    output: OrderCounts,
    handler: ({ actor, input }) => countOrders(services.db, actor, input),
  });
  restRoute(app, services, {
    method: 'GET',
    url: '/orders/:id',
    summary: 'Get an order: lines with their allocations, customer, payment, timeline',
    tags,
    params: OrderIdInput,
    output: OrderDetail,
    handler: ({ actor, params }) => getOrder(services.db, actor, idOf(params)),
  });
}

/** SPEC §7 v1/v2: order reads for API keys. */
export function ordersRest(app: RestApp, services: Services) {
  orderReads(app, services);
}

/** SPEC §7 frontend: orders, order status and comments. */
export function ordersFrontendRest(app: RestApp, services: Services) {
  orderReads(app, services);
  restRoute(app, services, {
    method: 'POST',
    url: '/orders/:id',
    summary: "Change an order's note, tags or shipping address",
    tags,
    params: OrderIdInput,
    input: OrderPatch,
    output: OrderDetail,
    handler: ({ actor, params, input }) => updateOrder(services, actor, idOf(params), input),
  });
  restRoute(app, services, {
    method: 'PUT',
    url: '/orders/:id/status',
    summary: "Change an order's status (the allowed transitions only)",
    tags,
    params: OrderIdInput,
    input: OrderStatusInput,
    output: OrderDetail,
    handler: ({ actor, params, input }) => setOrderStatus(services, actor, idOf(params), input),
  });
  restRoute(app, services, {
    method: 'POST',
    url: '/comment/list',
    summary: 'List comments (limit, page, sort, order, search; entity_id and type narrow it)',
    tags: ['comments'],
    input: CommentListInput,
    output: CommentList,
    handler: ({ actor, input }) => listComments(services.db, actor, input),
  });
  restRoute(app, services, {
    method: 'POST',
    url: '/comment/add',
    summary: 'Comment on an order',
    tags: ['comments'],
    input: CommentAddInput,
    output: Comment,
    handler: async ({ actor, input, reply }) => {
      const created = await addComment(services.db, actor, input);
      reply.status(201);
      return created;
    },
  });
  // The generic list helper (SPEC §7 `GET {action}/{id}`: limit, page, sort, order; 50, 1, id, DESC): an
  // entity's comments.
  restRoute(app, services, {
    method: 'GET',
    url: '/comment/:id',
    summary: "List an entity's comments (the generic list helper: limit 50, page 1, sort id, order DESC)",
    tags: ['comments'],
    params: OrderIdInput,
    input: CommentListInput.omit({ entity_id: true }),
    output: CommentList,
    handler: ({ actor, params, input }) => listComments(services.db, actor, { ...input, entity_id: idOf(params) }),
  });
}
