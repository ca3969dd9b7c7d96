import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pino, { type Logger } from 'pino';
import type { Config } from './config.ts';
import { openDatabase } from './db/client.ts';
import { readBuildId } from './http/web.ts';
import { startQueue } from './jobs/queue.ts';
import { jobDefinitions } from './jobs/registry.ts';
import { localSecret } from './lib/secrets.ts';
import { TokenService } from './lib/tokens.ts';
import type { Services } from './services.ts';

export const defaultWebDist = fileURLToPath(new URL('../../web/dist', import.meta.url));

export function createLogger(config: Config): Logger {
  return pino({
    level: config.LOG_LEVEL,
    // Belt and braces: nothing that authenticates a caller is ever written to the log.
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', '*.password', '*.token'],
      censor: '[redacted]',
    },
  });
}

/** Opens the database (applying migrations) and builds what handlers and jobs are given. */
export async function createServices(config: Config, logger = createLogger(config)): Promise<Services> {
  const dataDir = resolve(config.DATA_DIR);
  const database = config.DATABASE_URL
    ? await openDatabase({ url: config.DATABASE_URL, poolMax: config.DATABASE_POOL_MAX })
    : await openDatabase({ dataDir });
  try {
    await database.migrate();
  } catch (err) {
    await database.close();
    throw err;
  }
  const webDist = config.WEB_DIST ?? defaultWebDist;
  return {
    config: { ...config, WEB_DIST: webDist },
    database,
    db: database.db,
    tokens: new TokenService(config.SESSION_SECRET ?? localSecret(dataDir, 'sessionSecret')),
    logger,
    buildId: config.BUILD_ID ?? readBuildId(webDist) ?? 'dev',
  };
}

export async function startJobs(services: Services, { work }: { work: boolean }) {
  const queue = await startQueue(services.database, { logger: services.logger, jobs: jobDefinitions(services) });
  services.queue = queue;
  if (work) await queue.work();
  return queue;
}
