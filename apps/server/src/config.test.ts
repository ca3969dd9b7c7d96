import { describe, expect, it } from 'vitest';
import { devMailboxEnabled, loadConfig } from './config.ts';

describe('configuration', () => {
  it('stops with a message naming the setting a value breaks', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(/Invalid configuration:\n {2}PORT: /);
  });

  it('refuses a live provider without the secret that verifies its webhooks, naming it', () => {
    expect(() => loadConfig({ BIGCOMMERCE_CLIENT_ID: 'bc-id' })).toThrow(
      'BIGCOMMERCE_CLIENT_SECRET: is required with BIGCOMMERCE_CLIENT_ID',
    );
    expect(() => loadConfig({ SHOPIFY_API_KEY: 'key' })).toThrow(
      'SHOPIFY_API_SECRET: is required with SHOPIFY_API_KEY',
    );
    expect(() => loadConfig({ SQUARE_APPLICATION_ID: 'sq0idp-1', SQUARE_APPLICATION_SECRET: 's' })).toThrow(
      'SQUARE_WEBHOOK_SIGNATURE_KEY: is required with SQUARE_APPLICATION_ID',
    );
    expect(
      loadConfig({ BIGCOMMERCE_CLIENT_ID: 'bc-id', BIGCOMMERCE_CLIENT_SECRET: 'bc-secret' }).BIGCOMMERCE_CLIENT_ID,
    ).toBe('bc-id');
    // No keys at all: the provider runs against the sandbox.
    expect(loadConfig({}).BIGCOMMERCE_CLIENT_ID).toBeUndefined();
  });

  it('opens the development mailbox only on this machine outside production, never with SMTP', () => {
    const at = (env: Record<string, string>) => devMailboxEnabled(loadConfig(env));
    expect(at({})).toBe(true);
    expect(at({ HOST: 'localhost' })).toBe(true);
    expect(at({ HOST: '0.0.0.0' })).toBe(false);
    expect(at({ HOST: '192.168.1.20' })).toBe(false);
    expect(at({ HOST: '0.0.0.0', DEV_MAILBOX: 'true' })).toBe(true);
    expect(at({ NODE_ENV: 'production' })).toBe(false);
    expect(at({ DEV_MAILBOX: 'true', SMTP_URL: 'smtp://mail.test:25' })).toBe(false);
  });
});
