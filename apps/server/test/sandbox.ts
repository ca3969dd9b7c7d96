import { type RunningSandbox, startSandbox } from '@switchyard/sandbox';
import { TEST_PROVIDER_SECRETS } from './app.ts';

/**
 * A sandbox on a free port for one test file, sharing the test app's provider secrets. Pass its `url` to
 * createTestApp({ sandboxUrl }). To receive its webhooks, listen the app (`app.listen({ port: 0 })`) and
 * set `sandbox.ctx.options.stripe.webhookUrl` / `square.webhookUrl`; Shopify and BigCommerce webhooks
 * go wherever the connector subscribed them.
 */
export async function startTestSandbox(options: { seed?: number; products?: number } = {}): Promise<RunningSandbox> {
  return startSandbox({
    port: 0,
    seed: options.seed,
    shopSize: options.products ? { products: options.products } : undefined,
    webhookRetryDelayMs: 20,
    stripe: { webhookSecret: TEST_PROVIDER_SECRETS.stripeWebhookSecret },
    square: { signatureKey: TEST_PROVIDER_SECRETS.squareWebhookSignatureKey },
  });
}
