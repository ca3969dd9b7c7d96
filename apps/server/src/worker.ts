import { createLogger, createServices, startJobs } from './bootstrap.ts';
import { loadConfig } from './config.ts';
import { onShutdownSignal } from './lib/shutdown.ts';

// A worker-only process: runs the job handlers against the shared database, serves no HTTP.
const config = loadConfig();
const logger = createLogger(config);

try {
  const services = await createServices(config, logger);
  const queue = await startJobs(services, { work: true });
  logger.info({ database: services.database.kind }, 'Switchyard worker is ready');
  onShutdownSignal(logger, config.SHUTDOWN_TIMEOUT_SECONDS, [
    () => queue.stop({ timeoutMs: config.SHUTDOWN_TIMEOUT_SECONDS * 1000 }),
    () => services.database.close(),
  ]);
} catch (err) {
  logger.fatal({ err }, 'Switchyard worker failed to start');
  process.exit(1);
}
