/**
 * The app credentials the simulators accept: the sandbox's stand-ins for the keys a merchant-facing app
 * gets from each provider's partner dashboard. The server uses them when no live keys are configured.
 */
export const SANDBOX_APPS = {
  shopify: { apiKey: 'sandbox-shopify-api-key', apiSecret: 'sandbox-shopify-api-secret' },
  bigcommerce: { clientId: 'sandbox-bigcommerce-client-id', clientSecret: 'sandbox-bigcommerce-client-secret' },
  square: {
    applicationId: 'sandbox-sq0idb-switchyard',
    applicationSecret: 'sandbox-sq0csb-switchyard-secret',
  },
  stripe: { secretKey: 'sk_test_sandbox_switchyard', publishableKey: 'pk_test_sandbox_switchyard' },
  /** A test-mode EasyPost key: the carrier simulator makes test labels for it. */
  easypost: { apiKey: 'EZTK_sandbox_switchyard' },
} as const;
