import pino from 'pino';
import { type BuildAppOptions, buildApp } from '../src/app.ts';
import { Config } from '../src/config.ts';
import type { Database } from '../src/db/client.ts';
import { TokenService } from '../src/lib/tokens.ts';
import { resolveProviders } from '../src/providers.ts';
import type { Services } from '../src/services.ts';
import { createTestDatabase } from './db.ts';

export const TEST_SECRET = 'test-secret-test-secret-test-secret-0123';
/** The secrets the test app and a test sandbox share (see test/sandbox.ts). */
export const TEST_PROVIDER_SECRETS = {
  stripeWebhookSecret: 'whsec_test_switchyard',
  squareWebhookSignatureKey: 'test-square-signature-key',
};
export const TEST_CREDENTIALS_KEY = Buffer.alloc(32, 7);

/** Collects log lines so tests can assert what was (and was not) logged. */
export function memoryLogger() {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { logger, lines };
}

export interface TestAppOptions extends BuildAppOptions {
  env?: Record<string, string>;
  database?: Database;
  /**
   * The sandbox the providers point at (`startTestSandbox().url`). Without one they point at a closed
   * port, so a test that reaches a provider by mistake fails fast.
   */
  sandboxUrl?: string;
}

export async function createTestApp(options: TestAppOptions = {}) {
  const { logger, lines } = memoryLogger();
  const database = options.database ?? (await createTestDatabase());
  const config = Config.parse({
    NODE_ENV: 'test',
    DATA_DIR: '/nonexistent',
    SESSION_SECRET: TEST_SECRET,
    WEB_DIST: '/nonexistent',
    // Where shops send webhooks and links point unless a test listens (test/relay.ts sets its own): the discard
    // port refuses at once. Before, it was 127.0.0.1:3000, where a developer's own `npm start` may listen.
    PUBLIC_URL: 'http://127.0.0.1:9',
    ...options.env,
  });
  const services: Services = {
    config,
    database,
    db: database.db,
    tokens: new TokenService(TEST_SECRET),
    logger,
    providers: resolveProviders(config, options.sandboxUrl ?? 'http://127.0.0.1:9', TEST_PROVIDER_SECRETS),
    credentialsKey: TEST_CREDENTIALS_KEY,
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
