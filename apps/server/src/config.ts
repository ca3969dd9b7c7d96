import { z } from 'zod';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

/** One zod-validated view of the environment, read once at boot. */
export const Config = z
  .object({
    NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
    HOST: z.string().default('127.0.0.1'),
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    /** Public address of the app, used in links in e-mails and OAuth callbacks. */
    PUBLIC_URL: z.url().optional(),
    /** Embedded PGlite keeps its files under DATA_DIR/db. */
    DATA_DIR: z.string().default('./data'),
    /** When set, PostgreSQL through node-postgres instead of the embedded PGlite. */
    DATABASE_URL: z.string().startsWith('postgres').optional(),
    DATABASE_POOL_MAX: z.coerce.number().int().min(1).default(10),
    /** Prepare the statements the server repeats (db/prepared.ts); off behind a pooler in transaction mode. */
    DATABASE_PREPARE: bool.default(true),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    /** Signs session tokens. Generated once and kept in DATA_DIR/secrets.json when not set. */
    SESSION_SECRET: z.string().min(32).optional(),
    /** Run the job workers inside the web process (the default single-process mode). */
    RUN_WORKERS: bool.default(true),
    /** Folder of the built web app; the server serves it when it exists. */
    WEB_DIST: z.string().optional(),
    /** Overrides the build id read from WEB_DIST/build.json. */
    BUILD_ID: z.string().optional(),
    /** `smtp://user:pass@host:port` (or smtps://). Unset: mail stays in the outbox and the dev mailbox shows it. */
    SMTP_URL: z
      .string()
      .regex(/^smtps?:\/\//, 'must start with smtp:// or smtps://')
      .optional(),
    /** The development mailbox (GET /api/frontend/dev/outbox). Default: on outside production on a loopback HOST; never with SMTP. */
    DEV_MAILBOX: bool.optional(),
    MAIL_FROM: z.string().default('Switchyard <no-reply@switchyard.local>'),
    /** Session length, in hours. */
    SESSION_TTL_HOURS: z.coerce
      .number()
      .int()
      .min(1)
      .max(24 * 30)
      .default(12),
    /**
     * Behind a reverse proxy: the proxies whose X-Forwarded-For to believe, as addresses or ranges
     * (`loopback`, `10.0.0.0/8`, comma-separated), or `true` for any. Off by default: otherwise any client
     * could pick its own address and slip past the per-address throttles.
     */
    TRUST_PROXY: z
      .string()
      .default('false')
      .transform((v): boolean | string[] =>
        v === 'true' ? true : v === 'false' || v === '' ? false : v.split(',').map((s) => s.trim()),
      ),
    /**
     * Key for channel credentials at rest (AES-256-GCM): 32 bytes as base64 or hex. Generated once and kept
     * in DATA_DIR/secrets.json when not set.
     */
    CREDENTIALS_KEY: z.string().min(32).optional(),
    // Providers. A provider whose keys are set is live; one without keys runs against the sandbox.
    STRIPE_SECRET_KEY: z.string().startsWith('sk_').optional(),
    /** The signing secret of the Stripe webhook endpoint (whsec_…). Generated for the sandbox. */
    STRIPE_WEBHOOK_SECRET: z.string().optional(),
    SHOPIFY_API_KEY: z.string().optional(),
    SHOPIFY_API_SECRET: z.string().optional(),
    BIGCOMMERCE_CLIENT_ID: z.string().optional(),
    BIGCOMMERCE_CLIENT_SECRET: z.string().optional(),
    SQUARE_APPLICATION_ID: z.string().optional(),
    SQUARE_APPLICATION_SECRET: z.string().optional(),
    /** Square's webhook subscription signature key. */
    SQUARE_WEBHOOK_SIGNATURE_KEY: z.string().optional(),
    /** Square hosts: `production` (connect.squareup.com) or `sandbox` (connect.squareupsandbox.com). */
    SQUARE_ENVIRONMENT: z.enum(['production', 'sandbox']).default('production'),
    /** EasyPost (the carrier API labels are bought from). Unset: the sandbox's carrier simulator. */
    EASYPOST_API_KEY: z.string().min(8).optional(),
    /** The secret EasyPost signs our tracking webhook with; derived from CREDENTIALS_KEY when not set. */
    EASYPOST_WEBHOOK_SECRET: z.string().min(16).optional(),
    /** Use a sandbox that runs elsewhere (`npm run sandbox`) instead of starting one in process. */
    SANDBOX_URL: z.url().optional(),
    /** Port of the in-process sandbox; default PORT + 1 (0 when PORT is 0). */
    SANDBOX_PORT: z.coerce.number().int().min(0).max(65535).optional(),
    /**
     * S3-compatible storage for uploaded images (AWS S3, MinIO, R2, …). With S3_BUCKET set, uploads go there
     * (S3_ENDPOINT for a service other than AWS; keys from S3_ACCESS_KEY_ID/S3_SECRET_ACCESS_KEY, else the AWS
     * default chain); unset, they stay under DATA_DIR/uploads and the server serves them.
     */
    S3_ENDPOINT: z.url().optional(),
    S3_BUCKET: z.string().min(1).optional(),
    S3_ACCESS_KEY_ID: z.string().min(1).optional(),
    S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
    S3_REGION: z.string().min(1).default('us-east-1'),
    /** Public address of the bucket's objects (a CDN, say); default `<S3_ENDPOINT>/<S3_BUCKET>`. */
    S3_PUBLIC_URL: z.url().optional(),
    /** Seconds to wait for in-flight requests and jobs on shutdown. */
    SHUTDOWN_TIMEOUT_SECONDS: z.coerce.number().int().min(1).default(20),
  })
  .superRefine((config, ctx) => {
    // A live provider's id comes with the secrets that verify its webhooks and sign its calls: without them the
    // server would sign and check with an empty key (anyone could forge a webhook), so it does not start.
    const pairs = [
      ['SHOPIFY_API_KEY', 'SHOPIFY_API_SECRET'],
      ['BIGCOMMERCE_CLIENT_ID', 'BIGCOMMERCE_CLIENT_SECRET'],
      ['SQUARE_APPLICATION_ID', 'SQUARE_APPLICATION_SECRET'],
      ['SQUARE_APPLICATION_ID', 'SQUARE_WEBHOOK_SIGNATURE_KEY'],
    ] as const;
    for (const [id, secret] of pairs) {
      if (config[id] && !config[secret])
        ctx.addIssue({ code: 'custom', path: [secret], message: `is required with ${id}` });
    }
  });
export type Config = z.infer<typeof Config>;

/**
 * Anyone who reaches the server can read the development mailbox, reset links included: never where real mail goes
 * out, and by default only outside production on a server that listens on this machine alone (a container's
 * `HOST=0.0.0.0` without SMTP would otherwise hand anyone a reset link for any account). DEV_MAILBOX=true opens it.
 */
export function devMailboxEnabled(config: Pick<Config, 'SMTP_URL' | 'DEV_MAILBOX' | 'NODE_ENV' | 'HOST'>): boolean {
  if (config.SMTP_URL) return false;
  return config.DEV_MAILBOX ?? (config.NODE_ENV !== 'production' && isLoopback(config.HOST));
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

/** The address links in e-mails point at. */
export function publicUrl(config: Pick<Config, 'PUBLIC_URL' | 'HOST' | 'PORT'>): string {
  if (config.PUBLIC_URL) return config.PUBLIC_URL.replace(/\/$/, '');
  const host = config.HOST === '0.0.0.0' || config.HOST === '::' ? 'localhost' : config.HOST;
  return `http://${host}:${config.PORT}`;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = Config.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`).join('\n');
    throw new Error(`Invalid configuration:\n${lines}`);
  }
  return parsed.data;
}
