import { SANDBOX_APPS } from '@switchyard/sandbox';
import type { Config } from './config.ts';

export type ProviderMode = 'live' | 'sandbox';

/**
 * Where each provider is and which app credentials we use with it. A provider with keys in the
 * configuration is live; otherwise it is the sandbox's simulator, reached over real HTTP. Connectors take
 * everything from here, which is also how tests point them at a sandbox on a random port.
 */
export interface ProviderEndpoints {
  /** The sandbox's address when any provider runs against it. */
  sandboxUrl: string | null;
  stripe: {
    mode: ProviderMode;
    secretKey: string;
    webhookSecret: string;
    /** For the SDK's host/port/protocol options; unset when live. */
    host?: string;
    port?: number;
    protocol?: 'http' | 'https';
  };
  shopify: {
    mode: ProviderMode;
    apiKey: string;
    apiSecret: string;
    /** The shop's base address: https://{shop}.myshopify.com, or the sandbox's stand-in for it. */
    shopUrl(shop: string): string;
  };
  bigcommerce: {
    mode: ProviderMode;
    clientId: string;
    clientSecret: string;
    /** https://login.bigcommerce.com */
    loginUrl: string;
    /** https://api.bigcommerce.com */
    apiUrl: string;
  };
  square: {
    mode: ProviderMode;
    applicationId: string;
    applicationSecret: string;
    webhookSignatureKey: string;
    /** https://connect.squareup.com (production) or https://connect.squareupsandbox.com (sandbox). */
    baseUrl(environment: 'production' | 'sandbox'): string;
    defaultEnvironment: 'production' | 'sandbox';
  };
}

export interface ProviderSecrets {
  /** Signs Stripe webhooks between the sandbox and the app. */
  stripeWebhookSecret: string;
  squareWebhookSignatureKey: string;
}

/** Which providers need the sandbox under this configuration. */
export function needsSandbox(config: Config): boolean {
  return !(
    config.STRIPE_SECRET_KEY &&
    config.SHOPIFY_API_KEY &&
    config.BIGCOMMERCE_CLIENT_ID &&
    config.SQUARE_APPLICATION_ID &&
    config.EASYPOST_API_KEY
  );
}

export function resolveProviders(
  config: Config,
  sandboxUrl: string | null,
  secrets: ProviderSecrets,
): ProviderEndpoints {
  const sandbox = (path: string) => {
    if (!sandboxUrl) throw new Error('A provider runs in sandbox mode but no sandbox is running');
    return `${sandboxUrl}${path}`;
  };
  const stripeLive = !!config.STRIPE_SECRET_KEY;
  const sandboxAddress = sandboxUrl ? new URL(sandboxUrl) : null;
  return {
    sandboxUrl,
    stripe: stripeLive
      ? {
          mode: 'live',
          secretKey: config.STRIPE_SECRET_KEY as string,
          webhookSecret: config.STRIPE_WEBHOOK_SECRET ?? '',
        }
      : {
          mode: 'sandbox',
          secretKey: SANDBOX_APPS.stripe.secretKey,
          webhookSecret: config.STRIPE_WEBHOOK_SECRET ?? secrets.stripeWebhookSecret,
          host: sandboxAddress?.hostname.replace(/^\[|\]$/g, ''),
          port: sandboxAddress ? Number(sandboxAddress.port || 80) : undefined,
          protocol: sandboxAddress?.protocol === 'https:' ? 'https' : 'http',
        },
    shopify: config.SHOPIFY_API_KEY
      ? {
          mode: 'live',
          apiKey: config.SHOPIFY_API_KEY,
          apiSecret: config.SHOPIFY_API_SECRET ?? '',
          shopUrl: (shop) => `https://${shop}.myshopify.com`,
        }
      : {
          mode: 'sandbox',
          ...SANDBOX_APPS.shopify,
          shopUrl: (shop) => sandbox(`/shopify/${encodeURIComponent(shop)}`),
        },
    bigcommerce: config.BIGCOMMERCE_CLIENT_ID
      ? {
          mode: 'live',
          clientId: config.BIGCOMMERCE_CLIENT_ID,
          clientSecret: config.BIGCOMMERCE_CLIENT_SECRET ?? '',
          loginUrl: 'https://login.bigcommerce.com',
          apiUrl: 'https://api.bigcommerce.com',
        }
      : {
          mode: 'sandbox',
          ...SANDBOX_APPS.bigcommerce,
          loginUrl: sandboxUrl ? sandbox('/bigcommerce/login') : '',
          apiUrl: sandboxUrl ? sandbox('/bigcommerce/api') : '',
        },
    square: config.SQUARE_APPLICATION_ID
      ? {
          mode: 'live',
          applicationId: config.SQUARE_APPLICATION_ID,
          applicationSecret: config.SQUARE_APPLICATION_SECRET ?? '',
          webhookSignatureKey: config.SQUARE_WEBHOOK_SIGNATURE_KEY ?? '',
          baseUrl: (env) =>
            env === 'sandbox' ? 'https://connect.squareupsandbox.com' : 'https://connect.squareup.com',
          defaultEnvironment: config.SQUARE_ENVIRONMENT,
        }
      : {
          mode: 'sandbox',
          ...SANDBOX_APPS.square,
          webhookSignatureKey: config.SQUARE_WEBHOOK_SIGNATURE_KEY ?? secrets.squareWebhookSignatureKey,
          // Both of Square's environments are the one simulator; the path keeps them apart in its logs.
          baseUrl: (env) => sandbox(env === 'sandbox' ? '/square/sandbox' : '/square'),
          defaultEnvironment: config.SQUARE_ENVIRONMENT,
        },
  };
}
