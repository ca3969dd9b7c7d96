import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { SANDBOX_APPS } from '../apps.ts';
import { type RunningSandbox, startSandbox } from '../server.ts';

/** Test support: a sandbox with a webhook receiver, the real SDK pointed at it, and form helpers. */

export interface Received {
  body: string;
  signature: string;
  event: Stripe.Event;
}

export interface StripeHarness {
  sandbox: RunningSandbox;
  stripe: Stripe;
  received: Received[];
  secret: string;
  /** Waits until every webhook sent so far has been delivered. */
  settle(): Promise<void>;
  close(): Promise<void>;
  /** POSTs a hosted-page form like a browser (no redirects followed). */
  post(path: string, fields: Record<string, string>): Promise<Response>;
  get(path: string): Promise<Response>;
  control(path: string, body?: unknown, method?: string): Promise<Response>;
  /** Event types received, in order of arrival, for one object id. */
  typesFor(objectId?: string): string[];
}

export async function startStripeHarness(options: { achSettleMs?: number } = {}): Promise<StripeHarness> {
  const received: Received[] = [];
  const secret = 'whsec_test_harness_secret';
  const receiver: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      received.push({ body, signature: String(req.headers['stripe-signature'] ?? ''), event: JSON.parse(body) });
      res.statusCode = 200;
      res.end('ok');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const port = (receiver.address() as AddressInfo).port;
  const sandbox = await startSandbox({
    port: 0,
    webhookRetryDelayMs: 20,
    stripe: { webhookUrl: `http://127.0.0.1:${port}/webhooks/stripe`, webhookSecret: secret, ...options } as {
      webhookUrl: string;
      webhookSecret: string;
    },
  });
  const url = new URL(sandbox.url);
  const stripe = new Stripe(SANDBOX_APPS.stripe.secretKey, {
    host: url.hostname,
    port: Number(url.port),
    protocol: 'http',
    maxNetworkRetries: 0,
  });
  return {
    sandbox,
    stripe,
    received,
    secret,
    settle: () => sandbox.ctx.webhooks.settled(),
    close: async () => {
      await sandbox.close();
      await new Promise<void>((r) => receiver.close(() => r()));
    },
    post: (path, fields) =>
      fetch(new URL(path, sandbox.url), {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(fields).toString(),
      }),
    get: (path) => fetch(new URL(path, sandbox.url), { redirect: 'manual' }),
    control: (path, body, method = 'POST') =>
      fetch(new URL(`/_control/stripe${path}`, sandbox.url), {
        method,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    typesFor: (objectId) =>
      received
        .filter((r) => !objectId || (r.event.data.object as { id?: string }).id === objectId)
        .map((r) => r.event.type),
  };
}

export const CARD_4242 = {
  method: 'card',
  email: 'ada@example.com',
  cardNumber: '4242 4242 4242 4242',
  cardExpiry: '12 / 34',
  cardCvc: '123',
  billingName: 'Ada Lovelace',
};

/** A monthly and a yearly price for a plan, found again by lookup key. */
export async function createPlan(stripe: Stripe, code: string, monthly: number, yearly: number) {
  const product = await stripe.products.create({ name: code[0]?.toUpperCase() + code.slice(1) });
  const month = await stripe.prices.create({
    product: product.id,
    currency: 'usd',
    unit_amount: monthly,
    recurring: { interval: 'month' },
    lookup_key: `${code}_month`,
  });
  const year = await stripe.prices.create({
    product: product.id,
    currency: 'usd',
    unit_amount: yearly,
    recurring: { interval: 'year' },
    lookup_key: `${code}_year`,
  });
  return { product, month, year };
}

/** A paid subscription through the hosted page (4242 by default). */
export async function subscribe(
  h: StripeHarness,
  price: string,
  card: Partial<typeof CARD_4242> = {},
  extra: Partial<Stripe.Checkout.SessionCreateParams> = {},
) {
  const session = await h.stripe.checkout.sessions.create({
    mode: 'subscription',
    line_items: [{ price, quantity: 1 }],
    success_url: 'http://app.test/subscription/success?session_id={CHECKOUT_SESSION_ID}',
    cancel_url: 'http://app.test/subscription/plans?checkout=canceled',
    ...extra,
  });
  const res = await h.post(`/stripe/checkout/${session.id}/pay`, { ...CARD_4242, ...card });
  if (res.status !== 303) throw new Error(`checkout failed: ${res.status} ${await res.text()}`);
  const done = await h.stripe.checkout.sessions.retrieve(session.id, { expand: ['subscription'] });
  return { session: done, subscription: done.subscription as Stripe.Subscription };
}
