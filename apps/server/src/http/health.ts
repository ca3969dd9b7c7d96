import type { FastifyInstance } from 'fastify';
import type { Services } from '../services.ts';

/** Liveness and readiness for load balancers and orchestrators; no auth, no logging noise. */
export async function healthRoutes(app: FastifyInstance, services: Services) {
  app.get('/healthz', { logLevel: 'warn' }, async () => ({ status: 'ok' }));
  app.get('/readyz', { logLevel: 'warn' }, async (_req, reply) => {
    const ready = await services.database.isReady().catch(() => false);
    return reply
      .status(ready ? 200 : 503)
      .send({ status: ready ? 'ready' : 'unavailable', database: services.database.kind });
  });
}
