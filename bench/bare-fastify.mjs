// The baseline: bare Fastify, no plugins, no hooks, no logger, one tiny JSON route shaped like our
// GET /api/v1/status. Run as its own process by bench/run.mjs; PORT and HOST come from the environment.
import { createRequire } from 'node:module';

// fastify is a dependency of apps/server; resolve it from there so this works however npm hoisted it.
const require = createRequire(new URL('../apps/server/package.json', import.meta.url));
const Fastify = require('fastify');

const app = Fastify({ logger: false });

app.get('/status', async () => ({
  status: 'ok',
  apiVersion: 'v1',
  buildId: 'dev',
  serverTime: new Date().toISOString(),
}));

const stop = async () => {
  await app.close();
  process.exit(0);
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);

await app.listen({ host: process.env.HOST ?? '127.0.0.1', port: Number(process.env.PORT ?? 0) });
