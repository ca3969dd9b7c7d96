import { buildApp } from './app.ts';
import { createLogger, createServices, startJobs } from './bootstrap.ts';
import { loadConfig } from './config.ts';
import { onShutdownSignal } from './lib/shutdown.ts';

const config = loadConfig();
const logger = createLogger(config);

try {
  const services = await createServices(config, logger);
  const queue = await startJobs(services, { work: config.RUN_WORKERS });
  const app = await buildApp(services);
  await app.listen({ host: config.HOST, port: config.PORT });
  const bound = app.server.address();
  const address = typeof bound === 'object' && bound ? `http://${bound.address}:${bound.port}` : String(bound);
  logger.info(
    { address, database: services.database.kind, buildId: services.buildId, workers: config.RUN_WORKERS },
    'Switchyard is ready',
  );

  // Stop taking requests and let in-flight ones finish, then stop the workers, then close the database.
  onShutdownSignal(logger, config.SHUTDOWN_TIMEOUT_SECONDS, [
    () => app.close(),
    () => queue.stop({ timeoutMs: config.SHUTDOWN_TIMEOUT_SECONDS * 1000 }),
    () => services.database.close(),
  ]);
} catch (err) {
  logger.fatal({ err }, 'Switchyard failed to start');
  process.exit(1);
}
