import type { FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { assertStorable } from '../lib/storable.ts';
import { accountsRest } from '../modules/accounts/accounts.rest.ts';
import { appsRest } from '../modules/apps/apps.rest.ts';
import { authRest } from '../modules/auth/auth.rest.ts';
import { buffersRest } from '../modules/buffers/buffers.rest.ts';
import { channelsFrontendRest, channelsRest } from '../modules/channels/channels.rest.ts';
import { exportsFrontendRest, exportsV1Rest } from '../modules/exports/exports.rest.ts';
import { filesRest } from '../modules/files/files.rest.ts';
import { fulfillmentFrontendRest, fulfillmentRest } from '../modules/fulfillment/fulfillment.rest.ts';
import { locationsRest } from '../modules/locations/locations.rest.ts';
import { mailRest } from '../modules/mail/mail.rest.ts';
import { metricsFrontendRest, metricsRest } from '../modules/metrics/metrics.rest.ts';
import { ordersFrontendRest, ordersRest } from '../modules/orders/orders.rest.ts';
import { catalogFrontendRest, catalogRest } from '../modules/products/catalog.rest.ts';
import { productsFrontendRest, productsRest } from '../modules/products/products.rest.ts';
import { returnsRest } from '../modules/returns/returns.rest.ts';
import { routingFrontendRest } from '../modules/routing/routing.rest.ts';
import { shipmentsFrontendRest, shipmentsRest } from '../modules/shipments/shipments.rest.ts';
import { syncsFrontendRest } from '../modules/syncs/syncs.rest.ts';
import type { Services } from '../services.ts';
import { optionsRest } from './options.rest.ts';
import type { RestApp, RestVersion } from './route.ts';
import { statusRest } from './status.rest.ts';

/** A module's REST routes for one API version, registered under `/api/<version>`. */
export type RestModule = (app: RestApp, services: Services, version: RestVersion) => void;

const modules: Record<RestVersion, RestModule[]> = {
  frontend: [
    authRest,
    mailRest,
    accountsRest,
    channelsFrontendRest,
    syncsFrontendRest,
    exportsFrontendRest,
    catalogFrontendRest,
    productsFrontendRest,
    ordersFrontendRest,
    routingFrontendRest,
    fulfillmentFrontendRest,
    shipmentsFrontendRest,
    metricsFrontendRest,
  ],
  v1: [
    statusRest,
    appsRest,
    channelsRest,
    buffersRest,
    locationsRest,
    exportsV1Rest,
    catalogRest,
    productsRest,
    filesRest,
    ordersRest,
    metricsRest,
  ],
  v2: [
    statusRest,
    optionsRest,
    appsRest,
    channelsRest,
    buffersRest,
    locationsRest,
    catalogRest,
    productsRest,
    filesRest,
    ordersRest,
    fulfillmentRest,
    returnsRest,
    shipmentsRest,
    metricsRest,
  ],
};

export async function registerRestApi(app: FastifyInstance, services: Services, extra: Partial<typeof modules> = {}) {
  for (const version of ['frontend', 'v1', 'v2'] as const) {
    await app.register(
      async (scope) => {
        scope.setValidatorCompiler(validatorCompiler);
        scope.setSerializerCompiler(serializerCompiler);
        // The one guard of what PostgreSQL cannot hold (lib/storable.ts), before any route's schema runs.
        scope.addHook('preValidation', async (req) => {
          assertStorable(req.params, 'params');
          assertStorable(req.query, 'querystring');
          assertStorable(req.body, 'body');
        });
        for (const mod of [...modules[version], ...(extra[version] ?? [])]) mod(scope, services, version);
      },
      { prefix: `/api/${version}` },
    );
  }
}
