import type { FastifyInstance, FastifyReply } from 'fastify';
import { settleAch } from './checkout-page.ts';
import { StripeApiError } from './errors.ts';
import { AUTOMATIC, type StripeState } from './state.ts';
import { endSubscription, renewSubscription } from './subscriptions.ts';

export interface StripeSettings {
  /** How long an ACH payment taken at checkout takes to settle (default 8000 ms). */
  achSettleMs: number;
}

/**
 * The Stripe part of the control API (`/_control/stripe/...`), for tests and the demo: what the account
 * holds, renewals, ACH settlement, the end of a subscription cancelled at period end, event re-delivery.
 */
export function stripeControl(app: FastifyInstance, state: StripeState, settings: StripeSettings) {
  const fail = (reply: FastifyReply, error: unknown) => {
    if (error instanceof StripeApiError) return reply.status(error.status).send({ error: error.body });
    throw error;
  };
  const outcomeOf = <T extends string>(body: unknown, allowed: readonly T[]): T | undefined => {
    const outcome = (body as { outcome?: unknown } | undefined)?.outcome;
    if (outcome === undefined || outcome === null || outcome === '') return undefined;
    if (!allowed.includes(outcome as T)) {
      throw new StripeApiError(400, {
        type: 'invalid_request_error',
        message: `outcome must be one of ${allowed.join(', ')}`,
        param: 'outcome',
      });
    }
    return outcome as T;
  };

  app.get('/_control/stripe', async () => ({
    settings,
    customers: [...state.customers.values()],
    products: [...state.products.values()],
    prices: [...state.prices.values()],
    checkoutSessions: [...state.sessions.values()].map((s) => state.render(s, ['line_items'])),
    subscriptions: [...state.subscriptions.values()],
    invoices: [...state.invoices.values()].map((i) => state.render(i, ['payments'])),
    paymentMethods: [...state.paymentMethods.values()],
    events: state.eventList().map((e) => ({
      id: e.id,
      type: e.type,
      created: e.created,
      object: (e.data.object as { id?: string }).id ?? null,
    })),
  }));

  app.put<{ Body: Partial<StripeSettings> }>('/_control/stripe/settings', async (req, reply) => {
    const ms = req.body?.achSettleMs;
    if (ms !== undefined) {
      if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) {
        return reply
          .status(400)
          .send({ error: { type: 'invalid_request_error', message: 'achSettleMs must be a number of milliseconds' } });
      }
      settings.achSettleMs = ms;
    }
    return settings;
  });

  app.post<{ Params: { id: string }; Body: { outcome?: 'paid' | 'failed' } }>(
    '/_control/stripe/subscriptions/:id/renew',
    async (req, reply) => {
      try {
        const sub = state.get(state.subscriptions, 'subscription', req.params.id);
        const invoice = renewSubscription(state, sub, outcomeOf(req.body, ['paid', 'failed'] as const), AUTOMATIC);
        return { subscription: sub, invoice: invoice ? state.render(invoice, ['payments']) : null };
      } catch (error) {
        return fail(reply, error);
      }
    },
  );

  app.post<{ Params: { id: string } }>('/_control/stripe/subscriptions/:id/end', async (req, reply) => {
    try {
      const sub = state.get(state.subscriptions, 'subscription', req.params.id);
      if (sub.status === 'canceled') {
        throw new StripeApiError(400, {
          type: 'invalid_request_error',
          message: `The subscription ${sub.id} has already ended.`,
        });
      }
      if (!sub.cancel_at_period_end) {
        throw new StripeApiError(400, {
          type: 'invalid_request_error',
          message: `The subscription ${sub.id} is not set to cancel at period end; cancel it with DELETE /v1/subscriptions/${sub.id} instead.`,
        });
      }
      endSubscription(state, sub, AUTOMATIC);
      return { subscription: sub };
    } catch (error) {
      return fail(reply, error);
    }
  });

  app.post<{ Params: { id: string }; Body: { outcome?: 'succeeded' | 'failed' } }>(
    '/_control/stripe/checkout/:id/settle',
    async (req, reply) => {
      try {
        const session = state.get(state.sessions, 'checkout.session', req.params.id);
        settleAch(state, session.id, outcomeOf(req.body, ['succeeded', 'failed'] as const));
        return { session: state.render(session) };
      } catch (error) {
        return fail(reply, error);
      }
    },
  );

  app.post<{ Params: { id: string } }>('/_control/stripe/events/:id/resend', async (req, reply) => {
    try {
      const event = state.get(state.events, 'event', req.params.id);
      return { event: event.id, sent: state.deliver(event) };
    } catch (error) {
      return fail(reply, error);
    }
  });
}
