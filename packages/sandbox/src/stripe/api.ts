import type { FastifyInstance } from 'fastify';
import { checkoutRoutes } from './api/checkout.ts';
import { customerRoutes } from './api/customers.ts';
import { eventRoutes } from './api/events.ts';
import { invoiceRoutes } from './api/invoices.ts';
import { paymentMethodRoutes } from './api/payment-methods.ts';
import { portalRoutes } from './api/portal.ts';
import { productRoutes } from './api/products.ts';
import { v1Api } from './api/shared.ts';
import { subscriptionRoutes } from './api/subscriptions.ts';
import type { StripeState } from './state.ts';
import type { Subscription } from './types.ts';

/**
 * The `/v1` API: the subset of Stripe a subscription business uses, assembled from one module a resource under
 * api/: customers, products and prices, Checkout Sessions, subscriptions, invoices, payment methods (with
 * payment intents and charges), the customer portal and events. What they share is in api/shared.ts.
 */
export function stripeApi(app: FastifyInstance, state: StripeState) {
  const api = v1Api(app, state);
  customerRoutes(api);
  productRoutes(api);
  checkoutRoutes(api);
  subscriptionRoutes(api);
  invoiceRoutes(api);
  paymentMethodRoutes(api);
  portalRoutes(api);
  eventRoutes(api);

  // Anything else under /v1 is a URL Stripe does not know.
  app.all('/v1/*', async (req, reply) =>
    reply.status(404).send({
      error: {
        type: 'invalid_request_error',
        message: `Unrecognized request URL (${req.method}: ${req.url.split('?')[0]}). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.`,
      },
    }),
  );
}

export type { Subscription };
