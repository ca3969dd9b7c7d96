import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import qs from 'qs';
import { SANDBOX_APPS } from '../apps.ts';
import { StripeApiError, type StripeErrorBody } from './errors.ts';
import { expandList, type Params } from './params.ts';
import { type RequestInfo, randomId, type StripeState } from './state.ts';
import { API_VERSION } from './types.ts';

/** What an API handler gets: the parsed parameters (body or query), the path's ids and the request's ids. */
export interface ApiCall {
  params: Params;
  path: Record<string, string>;
  expand: string[];
  request: RequestInfo;
}

export type ApiHandler = (call: ApiCall) => unknown;

/** Parses a form body or query string the way Stripe does (bracket notation, indexed arrays). */
export function parseForm(text: string): Params {
  return qs.parse(text, { depth: 10, arrayLimit: 200, parameterLimit: 5000, allowDots: false }) as Params;
}

function queryOf(req: FastifyRequest): Params {
  const at = req.url.indexOf('?');
  return at < 0 ? {} : parseForm(req.url.slice(at + 1));
}

const mask = (key: string) =>
  key.length > 12 ? `${key.slice(0, 8)}${'*'.repeat(Math.max(4, key.length - 12))}${key.slice(-4)}` : '****';

/** Stripe's answer to a missing or wrong key (401), or null when the key is the sandbox's. */
function authError(req: FastifyRequest): StripeErrorBody | null {
  const header = req.headers.authorization ?? '';
  let key = '';
  if (/^bearer /i.test(header)) key = header.slice(7).trim();
  else if (/^basic /i.test(header)) {
    key = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8').split(':')[0] ?? '';
  }
  if (!key) {
    return {
      type: 'invalid_request_error',
      message:
        "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY'). See https://stripe.com/docs/api#authentication for details, or we can help at https://support.stripe.com/.",
    };
  }
  if (key === SANDBOX_APPS.stripe.secretKey) return null;
  if (key.startsWith('pk_')) {
    return {
      type: 'invalid_request_error',
      message:
        'This API call cannot be made with a publishable API key. Please use a secret API key. You can find a list of your API keys at https://dashboard.stripe.com/account/apikeys.',
    };
  }
  return { type: 'invalid_request_error', code: 'api_key_invalid', message: `Invalid API Key provided: ${mask(key)}` };
}

function sendError(reply: FastifyReply, status: number, body: StripeErrorBody) {
  return reply.status(status).send({ error: body });
}

/**
 * Registers one API route: authentication, injected faults (429 / 500 / dropped connection, configured
 * with PUT /_control/stripe/default/faults), parameter parsing, Idempotency-Key replay for POSTs, and
 * Stripe's error shape for anything the handler throws.
 */
export function apiRoute(
  app: FastifyInstance,
  state: StripeState,
  method: 'GET' | 'POST' | 'DELETE',
  url: string,
  handler: ApiHandler,
) {
  app.route({
    method,
    url,
    handler: async (req, reply) => {
      const requestId = `req_${randomId(14)}`;
      reply.header('request-id', requestId);
      reply.header('stripe-version', (req.headers['stripe-version'] as string | undefined) ?? API_VERSION);
      const auth = authError(req);
      if (auth) return sendError(reply, 401, auth);

      const fault = await state.ctx.faults.draw('stripe', 'default');
      if (fault === 'throttle') {
        reply.header('stripe-should-retry', 'true');
        return sendError(reply, 429, {
          type: 'invalid_request_error',
          code: 'rate_limit',
          message:
            'Request rate limit exceeded. Learn more about rate limits here https://stripe.com/docs/rate-limits.',
        });
      }
      if (fault === 'error') {
        reply.header('stripe-should-retry', 'true');
        return sendError(reply, 500, {
          type: 'api_error',
          message: `An unknown error occurred. Please try again. Request ${requestId}`,
        });
      }
      if (fault === 'timeout') {
        await new Promise((r) => setTimeout(r, state.ctx.faults.get('stripe', 'default').timeoutMs));
        req.raw.socket.destroy();
        return reply;
      }

      const params: Params =
        method === 'POST' ? { ...queryOf(req), ...((req.body as Params | undefined) ?? {}) } : queryOf(req);
      const idempotencyKey =
        method === 'POST' ? ((req.headers['idempotency-key'] as string | undefined) ?? null) : null;
      if (idempotencyKey) {
        reply.header('idempotency-key', idempotencyKey);
        const fingerprint = `${method} ${req.url.split('?')[0]} ${JSON.stringify(params)}`;
        const seen = state.idempotency.get(idempotencyKey);
        if (seen) {
          if (seen.fingerprint !== fingerprint) {
            return sendError(reply, 400, {
              type: 'idempotency_error',
              message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idempotencyKey}' if you meant to execute a different request.`,
            });
          }
          reply.header('idempotent-replayed', 'true');
          return reply.status(seen.status).send(seen.body);
        }
        const { status, body } = run(handler, params, req, requestId, idempotencyKey);
        // Stripe saves the result of a request that reached its API, errors included (not 5xx).
        if (status < 500) {
          state.idempotency.set(idempotencyKey, { fingerprint, status, body });
          // Stripe keeps keys for 24 hours; the sandbox keeps the latest 10,000.
          if (state.idempotency.size > 10_000)
            state.idempotency.delete(state.idempotency.keys().next().value as string);
        }
        return reply.status(status).send(body);
      }
      const { status, body } = run(handler, params, req, requestId, null);
      return reply.status(status).send(body);
    },
  });
}

function run(
  handler: ApiHandler,
  params: Params,
  req: FastifyRequest,
  requestId: string,
  idempotencyKey: string | null,
): { status: number; body: unknown } {
  try {
    const expand = expandList(params);
    const body = handler({
      params,
      path: req.params as Record<string, string>,
      expand,
      request: { id: requestId, idempotencyKey },
    });
    return { status: 200, body };
  } catch (error) {
    if (error instanceof StripeApiError) {
      return {
        status: error.status,
        body: { error: { ...error.body, request_log_url: `https://dashboard.stripe.com/test/logs/${requestId}` } },
      };
    }
    req.log.error(error);
    return {
      status: 500,
      body: { error: { type: 'api_error', message: `An unknown error occurred: ${(error as Error).message}` } },
    };
  }
}
