import type { ProviderSimulator } from '../context.ts';
import { stripeApi } from './api.ts';
import { expireIfDue } from './checkout.ts';
import { checkoutPages, settleAch } from './checkout-page.ts';
import { type StripeSettings, stripeControl } from './control.ts';
import { html, layout } from './html.ts';
import { parseForm } from './http.ts';
import { accountPages } from './portal-page.ts';
import { AUTOMATIC, StripeState } from './state.ts';

/**
 * The Stripe simulator, mounted at the sandbox's root because the SDK has no base path: the API at
 * `/v1/...` (form-encoded requests with bracket notation, Stripe's JSON objects, errors and ids), the
 * hosted Checkout, 3D Secure, customer portal and invoice pages under `/stripe/...`, and the control API
 * under `/_control/stripe/...`. Events go to `options.stripe.webhookUrl` (read when each is sent),
 * signed with `options.stripe.webhookSecret` as Stripe signs them.
 */
export const stripeSimulator: ProviderSimulator = (app, ctx) => {
  // Stripe's bodies use bracket notation (line_items[0][price]=…); parse them as Stripe does.
  app.removeContentTypeParser('application/x-www-form-urlencoded');
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    try {
      done(null, parseForm(body as string));
    } catch (error) {
      done(error as Error, undefined);
    }
  });

  // Anything Fastify itself refuses under /v1 (an unreadable body, …) still answers in Stripe's shape;
  // on the hosted pages, as a page.
  app.setErrorHandler((error: { statusCode?: number; message: string }, req, reply) => {
    const status = error.statusCode && error.statusCode >= 400 ? error.statusCode : 500;
    if (req.url.startsWith('/stripe/')) {
      req.log.error(error);
      return reply
        .status(status)
        .type('text/html')
        .send(
          layout(
            'Something went wrong',
            html`<main class="page narrow"><div class="card"><h1>Something went wrong</h1><p>${status < 500 ? error.message : 'The page could not be shown. Go back and try again.'}</p></div></main>`,
          ),
        );
    }
    if (!req.url.startsWith('/v1/')) return reply.status(status).send(error);
    return reply.status(status).send({
      error: {
        type: status < 500 ? 'invalid_request_error' : 'api_error',
        message: status < 500 ? error.message : 'An unknown error occurred.',
      },
    });
  });

  const state = new StripeState(ctx);
  const configured = (ctx.options.stripe as { achSettleMs?: number } | undefined)?.achSettleMs;
  const settings: StripeSettings = { achSettleMs: configured ?? 8000 };
  const timers = new Set<NodeJS.Timeout>();
  const ach = {
    schedule(sessionId: string) {
      const timer = setTimeout(() => {
        timers.delete(timer);
        try {
          settleAch(state, sessionId);
        } catch {
          // Already settled through the control API.
        }
      }, settings.achSettleMs);
      timer.unref();
      timers.add(timer);
    },
  };
  // Sessions past expires_at expire (and checkout.session.expired is sent) even when nobody reads them.
  const sweep = setInterval(() => {
    for (const session of state.sessions.values()) expireIfDue(state, session, AUTOMATIC);
  }, 30_000);
  sweep.unref();
  app.addHook('onClose', async () => {
    clearInterval(sweep);
    for (const timer of timers) clearTimeout(timer);
    timers.clear();
  });

  stripeApi(app, state);
  checkoutPages(app, state, ach);
  accountPages(app, state);
  stripeControl(app, state, settings);
};
