import { accountRouter } from '../modules/accounts/accounts.router.ts';
import { adminRouter } from '../modules/admin/admin.router.ts';
import { appsRouter } from '../modules/apps/apps.router.ts';
import { auditRouter } from '../modules/audit/audit.router.ts';
import { authRouter, hydrationRouter } from '../modules/auth/auth.router.ts';
import { adminPlansRouter, billingRouter, plansRouter } from '../modules/billing/billing.router.ts';
import { buffersRouter } from '../modules/buffers/buffers.router.ts';
import { channelsRouter } from '../modules/channels/channels.router.ts';
import { fulfillmentRouter } from '../modules/fulfillment/fulfillment.router.ts';
import { healthRouter } from '../modules/health/health.router.ts';
import { locationsRouter } from '../modules/locations/locations.router.ts';
import { metricsRouter } from '../modules/metrics/metrics.router.ts';
import { notificationsRouter } from '../modules/notifications/notifications.router.ts';
import { commentsRouter, ordersRouter } from '../modules/orders/orders.router.ts';
import { productsRouter } from '../modules/products/products.router.ts';
import { returnsRouter } from '../modules/returns/returns.router.ts';
import { routingRouter } from '../modules/routing/routing.router.ts';
import { shipmentsRouter } from '../modules/shipments/shipments.router.ts';
import { stockRouter } from '../modules/stock/stock.router.ts';
import { syncsRouter } from '../modules/syncs/syncs.router.ts';
import { usersRouter } from '../modules/users/users.router.ts';
import { router } from './init.ts';

export const appRouter = router({
  health: healthRouter,
  auth: authRouter,
  hydration: hydrationRouter,
  apps: appsRouter,
  account: accountRouter,
  users: usersRouter,
  admin: { ...adminRouter._def.record, plans: adminPlansRouter },
  audit: auditRouter,
  channels: channelsRouter,
  syncs: syncsRouter,
  locations: locationsRouter,
  plans: plansRouter,
  billing: billingRouter,
  products: productsRouter,
  inventory: stockRouter,
  buffers: buffersRouter,
  orders: ordersRouter,
  metrics: metricsRouter,
  comments: commentsRouter,
  fulfillment: fulfillmentRouter,
  shipments: shipmentsRouter,
  returns: returnsRouter,
  routing: routingRouter,
  notifications: notificationsRouter,
});

export type AppRouter = typeof appRouter;
