import { startSandbox } from '@switchyard/sandbox';
import { buildApp } from './app.ts';
import { createLogger, createServices, sandboxPort, startJobs } from './bootstrap.ts';
import { loadConfig, publicUrl } from './config.ts';
import { stopProviderCalls } from './connectors/http.ts';
import { closeHttp, onShutdownSignal } from './lib/shutdown.ts';
import { needsSandbox } from './providers.ts';

const config = loadConfig();
const logger = createLogger(config);

try {
  // Sandbox mode: providers without live keys are the simulators, served in process on their own port.
  const sandbox =
    needsSandbox(config) && !config.SANDBOX_URL
      ? await startSandbox({ host: config.HOST, port: sandboxPort(config) })
      : null;
  const services = await createServices(config, logger, { sandboxUrl: sandbox?.url });
  if (sandbox) {
    const app = publicUrl(config);
    sandbox.ctx.options.stripe = {
      webhookUrl: `${app}/webhooks/stripe`,
      webhookSecret: services.providers.stripe.webhookSecret,
    };
    sandbox.ctx.options.square = {
      webhookUrl: `${app}/webhooks/square`,
      signatureKey: services.providers.square.webhookSignatureKey,
    };
  }
  const queue = await startJobs(services, { work: config.RUN_WORKERS });
  const app = await buildApp(services);
  await app.listen({ host: config.HOST, port: config.PORT });
  const bound = app.server.address();
  const address = typeof bound === 'object' && bound ? `http://${bound.address}:${bound.port}` : String(bound);
  logger.info(
    {
      address,
      database: services.database.kind,
      buildId: services.buildId,
      workers: config.RUN_WORKERS,
      sandbox: services.providers.sandboxUrl,
    },
    'Switchyard is ready',
  );

  // Stop taking requests and let in-flight ones finish, then stop the workers, then close the database.
  onShutdownSignal(logger, config.SHUTDOWN_TIMEOUT_SECONDS, [
    () => closeHttp(app),
    async () => stopProviderCalls(),
    () => queue.stop({ timeoutMs: config.SHUTDOWN_TIMEOUT_SECONDS * 1000 }),
    () => services.database.close(),
    async () => sandbox?.close(),
  ]);
} catch (err) {
  logger.fatal({ err }, 'Switchyard failed to start');
  process.exit(1);
}
