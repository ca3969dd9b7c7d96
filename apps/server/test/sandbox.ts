import { type RunningSandbox, type SandboxOptions, startSandbox } from '@switchyard/sandbox';
import { TEST_PROVIDER_SECRETS } from './app.ts';

/**
 * A sandbox on a free port for one test file, sharing the test app's provider secrets. Pass its `url` to
 * createTestApp({ sandboxUrl }). To receive its webhooks, listen the app (`app.listen({ port: 0 })`) and
 * set `sandbox.ctx.options.stripe.webhookUrl` / `square.webhookUrl`; Shopify and BigCommerce webhooks
 * go wherever the connector subscribed them.
 *
 * `shopifyPlan`: the Shopify plan its shops start on (default "standard", 1,000 points at 50 a second, as a new
 * shop at Shopify). A file that does not study rate limits passes "plus" (20,000 points at 1,000 a second), a plan
 * Shopify has, so its reads do not sit waiting on Standard's bucket; one that studies throttling keeps "standard".
 */
export async function startTestSandbox(
  options: { seed?: number; products?: number; shopifyPlan?: NonNullable<SandboxOptions['shopify']>['plan'] } = {},
): Promise<RunningSandbox> {
  return startSandbox({
    port: 0,
    seed: options.seed,
    shopSize: options.products ? { products: options.products } : undefined,
    shopify: { plan: options.shopifyPlan },
    webhookRetryDelayMs: 20,
    stripe: { webhookSecret: TEST_PROVIDER_SECRETS.stripeWebhookSecret },
    square: { signatureKey: TEST_PROVIDER_SECRETS.squareWebhookSignatureKey },
  });
}
