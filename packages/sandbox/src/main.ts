import { startSandbox } from './server.ts';

// The sandbox as its own server: `npm run sandbox` (SANDBOX_PORT, default 4100). It logs each request at LOG_LEVEL
// info (the default); the benches run it at warn, where a line per request cost the simulators and the bench
// reading their output more CPU than some of what was measured.
const port = Number(process.env.SANDBOX_PORT ?? 4100);
const host = process.env.SANDBOX_HOST ?? '127.0.0.1';
const sandbox = await startSandbox({
  host,
  port,
  publicUrl: process.env.SANDBOX_PUBLIC_URL,
  logger: { level: process.env.LOG_LEVEL ?? 'info' },
  stripe: { webhookUrl: process.env.STRIPE_WEBHOOK_URL, webhookSecret: process.env.STRIPE_WEBHOOK_SECRET },
  square: { webhookUrl: process.env.SQUARE_WEBHOOK_URL, signatureKey: process.env.SQUARE_WEBHOOK_SIGNATURE_KEY },
});
console.log(`Switchyard sandbox listening at ${sandbox.url}`);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void sandbox.close().then(() => process.exit(0));
  });
}
