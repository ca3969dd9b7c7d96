import pino from 'pino';
import { type BuildAppOptions, buildApp } from '../src/app.ts';
import { Config } from '../src/config.ts';
import type { Database } from '../src/db/client.ts';
import { TokenService } from '../src/lib/tokens.ts';
import type { Services } from '../src/services.ts';
import { createTestDatabase } from './db.ts';

export const TEST_SECRET = 'test-secret-test-secret-test-secret-0123';

/** Collects log lines so tests can assert what was (and was not) logged. */
export function memoryLogger() {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { logger, lines };
}

export interface TestAppOptions extends BuildAppOptions {
  env?: Record<string, string>;
  database?: Database;
}

export async function createTestApp(options: TestAppOptions = {}) {
  const { logger, lines } = memoryLogger();
  const database = options.database ?? (await createTestDatabase());
  const config = Config.parse({
    NODE_ENV: 'test',
    DATA_DIR: '/nonexistent',
    SESSION_SECRET: TEST_SECRET,
    WEB_DIST: '/nonexistent',
    ...options.env,
  });
  const services: Services = {
    config,
    database,
    db: database.db,
    tokens: new TokenService(TEST_SECRET),
    logger,
    buildId: config.BUILD_ID ?? 'test-build',
  };
  const app = await buildApp(services, options);
  await app.ready();
  return {
    app,
    services,
    logs: lines,
    async close() {
      await app.close();
      if (!options.database) await database.close();
    },
  };
}
