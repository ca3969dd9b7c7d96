import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { Database, Db } from './db/client.ts';
import type { JobQueue } from './jobs/queue.ts';
import type { TokenService } from './lib/tokens.ts';
import type { ProviderEndpoints } from './providers.ts';

/** What request handlers and jobs are given: built once per process by main (or by a test). */
export interface Services {
  config: Config;
  database: Database;
  db: Db;
  tokens: TokenService;
  logger: Logger;
  /** The build of the web app this server serves; 'dev' when none is built. */
  buildId: string;
  /** Where Stripe, Shopify, BigCommerce and Square are (live, or the sandbox) and our app credentials. */
  providers: ProviderEndpoints;
  /** AES-256-GCM key for channel credentials at rest. */
  credentialsKey: Buffer;
  /** Present once the queue has started; request handlers send jobs through it. */
  queue?: JobQueue;
}
