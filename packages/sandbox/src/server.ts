import formbody from '@fastify/formbody';
import Fastify, { type FastifyInstance } from 'fastify';
import { bigcommerceSimulator } from './bigcommerce/index.ts';
import type { SandboxContext, SandboxOptions, ShopControl } from './context.ts';
import { controlRoutes } from './control.ts';
import { easypostControlRoutes, easypostSimulator } from './easypost/index.ts';
import type { EasyPostSim } from './easypost/sim.ts';
import { Faults } from './faults.ts';
import { shopifySimulator } from './shopify/index.ts';
import { squareSimulator } from './square/index.ts';
import { stripeSimulator } from './stripe/index.ts';
import { WebhookSender } from './webhooks.ts';

export interface Sandbox {
  app: FastifyInstance;
  ctx: SandboxContext;
}

/**
 * The simulators as one Fastify app, not listening. Layout:
 * - Stripe at `/v1/...` (the SDK has no base-path option, only host and port) and its hosted pages
 *   under `/stripe/...`;
 * - Shopify under `/shopify/{shop}/...` (stands in for `https://{shop}.myshopify.com/...`);
 * - BigCommerce under `/bigcommerce/login/...` and `/bigcommerce/api/...`;
 * - Square under `/square/...`;
 * - the carrier (EasyPost's API) under `/easypost/v2/...`;
 * - the control API under `/_control/...`.
 */
export async function buildSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const app = Fastify({ logger: options.logger ?? false, routerOptions: { maxParamLength: 500 } });
  await app.register(formbody);
  const controls = new Map<'shopify' | 'bigcommerce' | 'square', ShopControl>();
  let publicUrl = options.publicUrl?.replace(/\/$/, '');
  const ctx: SandboxContext = {
    options,
    url: () => {
      if (publicUrl) return publicUrl;
      const bound = app.server.address();
      if (bound && typeof bound === 'object') {
        publicUrl = `http://${bound.family === 'IPv6' ? `[${bound.address}]` : bound.address}:${bound.port}`;
        return publicUrl;
      }
      throw new Error('The sandbox is not listening yet; pass publicUrl');
    },
    faults: new Faults(),
    webhooks: new WebhookSender({ retryDelayMs: options.webhookRetryDelayMs }),
    registerControl: (provider, control) => controls.set(provider, control),
  };
  await app.register(async (scope) => stripeSimulator(scope, ctx));
  await app.register(async (scope) => shopifySimulator(scope, ctx), { prefix: '/shopify' });
  await app.register(async (scope) => bigcommerceSimulator(scope, ctx), { prefix: '/bigcommerce' });
  await app.register(async (scope) => squareSimulator(scope, ctx), { prefix: '/square' });
  let easypost: EasyPostSim | undefined;
  await app.register(
    async (scope) => {
      easypost = await easypostSimulator(scope, ctx);
    },
    { prefix: '/easypost' },
  );
  easypostControlRoutes(app, easypost as EasyPostSim);
  controlRoutes(app, ctx, controls);
  app.get('/', async (_req, reply) =>
    reply
      .type('text/html')
      .send(
        '<!doctype html><title>Switchyard sandbox</title><h1>Switchyard sandbox</h1><p>Simulated Shopify, BigCommerce, Square, Stripe and an EasyPost-shaped carrier. See <code>/_control</code>.</p>',
      ),
  );
  return { app, ctx };
}

export interface RunningSandbox extends Sandbox {
  url: string;
  close(): Promise<void>;
}

/** Builds the sandbox and listens (port 0 picks a free one). */
export async function startSandbox(
  options: SandboxOptions & { host?: string; port?: number } = {},
): Promise<RunningSandbox> {
  const sandbox = await buildSandbox(options);
  await sandbox.app.listen({ host: options.host ?? '127.0.0.1', port: options.port ?? 0 });
  const url = sandbox.ctx.url();
  return {
    ...sandbox,
    url,
    close: async () => {
      await sandbox.app.close();
    },
  };
}
