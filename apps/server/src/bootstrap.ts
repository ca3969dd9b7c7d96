import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pino, { type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import type { Config } from './config.ts';
import { openDatabase } from './db/client.ts';
import { readBuildId } from './http/web.ts';
import { startQueue } from './jobs/queue.ts';
import { jobDefinitions } from './jobs/registry.ts';
import { scheduleSweep } from './jobs/sweep.ts';
import { parseKey } from './lib/crypto.ts';
import { serializeRequest } from './lib/log-url.ts';
import { localSecret } from './lib/secrets.ts';
import { TokenService } from './lib/tokens.ts';
import { startInventoryWork } from './modules/inventory/inventory.jobs.ts';
import { queueMetricsBackfill } from './modules/metrics/metrics.jobs.ts';
import { onDeadLetter, scheduleNotificationJobs } from './modules/notifications/notifications.jobs.ts';
import { needsSandbox, resolveProviders } from './providers.ts';
import type { Services } from './services.ts';

export const defaultWebDist = fileURLToPath(new URL('../../web/dist', import.meta.url));

export function createLogger(config: Config, destination?: DestinationStream): Logger {
  const options: LoggerOptions = {
    level: config.LOG_LEVEL,
    // Belt and braces: nothing that authenticates a caller is ever written to the log.
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        '*.password',
        '*.token',
        '*.accessToken',
        '*.refreshToken',
        '*.clientSecret',
        '*.apiKey',
        '*.credentials',
      ],
      censor: '[redacted]',
    },
    // A request's address without the codes and secrets some carry (lib/log-url.ts).
    serializers: { req: serializeRequest },
  };
  return destination ? pino(options, destination) : pino(options);
}

/** Opens the database (applying migrations) and builds what handlers and jobs are given. */
export async function createServices(
  config: Config,
  logger = createLogger(config),
  { sandboxUrl }: { sandboxUrl?: string | null } = {},
): Promise<Services> {
  const dataDir = resolve(config.DATA_DIR);
  const database = config.DATABASE_URL
    ? await openDatabase({
        url: config.DATABASE_URL,
        poolMax: config.DATABASE_POOL_MAX,
        prepareStatements: config.DATABASE_PREPARE,
      })
    : await openDatabase({ dataDir });
  try {
    await database.migrate();
  } catch (err) {
    await database.close();
    throw err;
  }
  const webDist = config.WEB_DIST ?? defaultWebDist;
  const providers = resolveProviders(config, sandboxUrl ?? config.SANDBOX_URL ?? defaultSandboxUrl(config), {
    stripeWebhookSecret: sandboxSecret(config, dataDir, 'stripeWebhookSecret', 'whsec_'),
    squareWebhookSignatureKey: sandboxSecret(config, dataDir, 'squareWebhookSignatureKey', ''),
  });
  return {
    config: { ...config, WEB_DIST: webDist },
    database,
    db: database.db,
    tokens: new TokenService(config.SESSION_SECRET ?? localSecret(dataDir, 'sessionSecret')),
    logger,
    providers,
    credentialsKey: parseKey(config.CREDENTIALS_KEY ?? localSecret(dataDir, 'credentialsKey')),
    buildId: config.BUILD_ID ?? readBuildId(webDist) ?? 'dev',
  };
}

export async function startJobs(services: Services, { work }: { work: boolean }) {
  const queue = await startQueue(services.database, {
    logger: services.logger,
    jobs: jobDefinitions(services),
    onDeadLetter: onDeadLetter(services),
  });
  services.queue = queue;
  if (work) {
    await queue.work();
    await startInventoryWork(services);
    await scheduleSweep(services);
    await scheduleNotificationJobs(services);
    await queueMetricsBackfill(services);
  }
  return queue;
}

/** The port the in-process sandbox listens on: SANDBOX_PORT, else the port after the app's. */
export function sandboxPort(config: Config): number {
  return config.SANDBOX_PORT ?? (config.PORT === 0 ? 0 : config.PORT + 1);
}

/** Where a worker-only process finds the sandbox the web process started. */
function defaultSandboxUrl(config: Config): string | null {
  if (!needsSandbox(config)) return null;
  const port = sandboxPort(config);
  return port === 0 ? null : `http://127.0.0.1:${port}`;
}

/** Secrets the app and the sandbox share; only made when the sandbox is in use. */
function sandboxSecret(config: Config, dataDir: string, name: string, prefix: string): string {
  if (!needsSandbox(config)) return '';
  return `${prefix}${localSecret(dataDir, name)}`;
}
