import rateLimit from '@fastify/rate-limit';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { API_KEY_PREFIX, TRPC_MAX_BATCH } from '@switchyard/contracts';
import { type FastifyTRPCPluginOptions, fastifyTRPCPlugin } from '@trpc/server/adapters/fastify';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyRequest,
  LogController,
  type RouteOptions,
} from 'fastify';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import helmet from 'helmet';
import { healthRoutes } from './http/health.ts';
import { hasWebBuild, sendIndexHtml, webRoutes } from './http/web.ts';
import { newId } from './lib/ids.ts';
import { bearerToken } from './lib/tokens.ts';
import { isActingToken, resolveActingSession } from './modules/admin/admin.service.ts';
import { resolveApiKey } from './modules/apps/apps.service.ts';
import { resolveSession } from './modules/auth/auth.service.ts';
import { billingRoutes } from './modules/billing/billing.webhooks.ts';
import { channelWebhookRoutes } from './modules/channels/channels.webhooks.ts';
import { fileRoutes } from './modules/files/files.rest.ts';
import { carrierWebhookRoutes } from './modules/shipments/shipments.tracking.ts';
import { type RestModule, registerRestApi } from './rest/api.ts';
import { restErrorHandler, sendError, useJsonBodyParser } from './rest/errors.ts';
import type { Services } from './services.ts';
import { type Actor, createContextFactory } from './trpc/context.ts';
import { type AppRouter, appRouter } from './trpc/router.ts';

export interface BuildAppOptions {
  /** Extra REST modules (tests use this to exercise the plumbing). */
  rest?: Partial<Record<'frontend' | 'v1' | 'v2', RestModule[]>>;
  /** Told of every route as it is added (the fuzz suite enumerates the whole API with it, test/fuzz.ts). */
  onRoute?: (route: RouteOptions) => void;
}

/** The strict policy the built web app runs under: no inline or remote script, no eval. */
export const CONTENT_SECURITY_POLICY = {
  defaultSrc: ["'self'"],
  scriptSrc: ["'self'"],
  // Mantine and Sonner set styles from script at run time; script itself stays locked down.
  styleSrc: ["'self'", "'unsafe-inline'"],
  // Product images come from the channels' CDNs and from S3-compatible storage: any https address.
  imgSrc: ["'self'", 'data:', 'blob:', 'https:'],
  fontSrc: ["'self'", 'data:'],
  connectSrc: ["'self'"],
  objectSrc: ["'none'"],
  baseUri: ["'self'"],
  frameAncestors: ["'none'"],
  formAction: ["'self'"],
  upgradeInsecureRequests: null,
};

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;
const actorKey = Symbol('actor');

export async function buildApp(services: Services, options: BuildAppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: services.logger as FastifyBaseLogger,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : newId('req');
    },
    logController: new LogController({
      requestIdLogLabel: 'reqId',
      disableRequestLogging: services.config.NODE_ENV === 'test',
    }),
    // tRPC batches join procedure paths with commas into one path segment.
    routerOptions: { maxParamLength: 5000 },
    bodyLimit: 5 * 1024 * 1024,
    trustProxy: services.config.TRUST_PROXY,
  });

  if (options.onRoute) app.addHook('onRoute', options.onRoute);

  app.addHook('onSend', async (req, reply) => {
    reply.header('x-request-id', req.id);
  });

  app.decorateRequest('actor', function (this: FastifyRequest) {
    const req = this as FastifyRequest & { [actorKey]?: Promise<Actor | undefined> };
    req[actorKey] ??= resolveActor(services, req.headers.authorization, req.url);
    return req[actorKey];
  });

  // Security headers on every answer. Helmet's middleware is built once: @fastify/helmet built it (parsing the
  // policy) for every request, 2 % of the server's CPU under a stream of webhooks (bench/README.md).
  const securityHeaders = helmet({
    contentSecurityPolicy: { useDefaults: false, directives: CONTENT_SECURITY_POLICY },
    crossOriginEmbedderPolicy: false,
  });
  app.addHook('onRequest', (req, reply, done) =>
    securityHeaders(req.raw, reply.raw, (err) => done(err as Error | undefined)),
  );
  await app.register(rateLimit, { global: false });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Switchyard API',
        version: '1.0.0',
        description: 'The public REST API (v1 and v2). Authenticate with `Authorization: Bearer <token>`.',
      },
      components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } } },
    },
    // Only v1 and v2 are the public API; /api/frontend serves our own web app.
    transform: (doc) => {
      if (!/^\/api\/v[12]\//.test(doc.url)) return { schema: { ...doc.schema, hide: true }, url: doc.url };
      return jsonSchemaTransform(doc);
    },
  });
  await app.register(swaggerUi, { routePrefix: '/api/docs', staticCSP: true });

  app.setErrorHandler(restErrorHandler);
  useJsonBodyParser(app);

  await healthRoutes(app, services);
  await channelWebhookRoutes(app, services);
  await billingRoutes(app, services);
  await carrierWebhookRoutes(app, services);
  await fileRoutes(app, services);

  await app.register(fastifyTRPCPlugin, {
    prefix: '/api/trpc',
    trpcOptions: {
      router: appRouter,
      // One request runs at most this many procedures (the web client's batches stop there too: TRPC_MAX_BATCH).
      maxBatchSize: TRPC_MAX_BATCH,
      createContext: createContextFactory(services),
      onError({ error, path, req }) {
        if (error.code === 'INTERNAL_SERVER_ERROR') {
          req.log.error(
            { err: { type: error.cause?.name ?? error.name, stack: error.cause?.stack }, path },
            'unexpected error',
          );
        }
      },
    } satisfies FastifyTRPCPluginOptions<AppRouter>['trpcOptions'],
  });

  await registerRestApi(app, services, options.rest);

  const webDist = services.config.WEB_DIST;
  const serveWeb = hasWebBuild(webDist);
  if (serveWeb) await webRoutes(app, webDist);

  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split('?')[0] ?? '/';
    const isClientRoute =
      serveWeb &&
      (req.method === 'GET' || req.method === 'HEAD') &&
      !path.startsWith('/api/') &&
      !path.startsWith('/assets/');
    if (isClientRoute) return sendIndexHtml(reply);
    return sendError(reply, 404, `Route ${req.method} ${path} not found`);
  });

  return app;
}

/** API keys are for the public REST API only, never for the web app's own calls (frontend, tRPC). */
const PUBLIC_API = /^\/api\/v[12](\/|\?|$)/;

/**
 * The one place a request's caller is decided: a session token, a superuser's acting token (admin.actAs),
 * or an API key on the public API.
 */
async function resolveActor(
  services: Services,
  authorization: string | undefined,
  url: string,
): Promise<Actor | undefined> {
  const token = bearerToken(authorization);
  if (!token) return undefined;
  if (token.startsWith(API_KEY_PREFIX)) return PUBLIC_API.test(url) ? resolveApiKey(services.db, token) : undefined;
  return isActingToken(token) ? resolveActingSession(services, token) : resolveSession(services, token);
}
