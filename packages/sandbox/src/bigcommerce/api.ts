import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { catalogRoutes } from './catalog.ts';
import { hookRoutes } from './hooks.ts';
import { inventoryRoutes } from './inventory.ts';
import { orderRoutes } from './orders.ts';
import type { BigCommerceSim } from './sim.ts';
import type { BcStore } from './state.ts';
import { BcError, v2Error, v3Error } from './support.ts';

declare module 'fastify' {
  interface FastifyRequest {
    bcStore?: BcStore;
    bcClientId?: string;
    /** A fault: carry the request out, then drop the connection instead of answering. */
    bcLoseAnswer?: boolean;
  }
}

/** The OAuth scope a path needs (its `_read_only` twin is enough for GET). */
function requiredScope(path: string): string[] | null {
  if (/^\/v3\/catalog\//.test(path)) return ['store_v2_products'];
  if (/^\/v3\/inventory\/locations(\/?$|\?)/.test(path)) return ['store_locations', 'store_inventory'];
  if (/^\/v3\/inventory\//.test(path)) return ['store_inventory'];
  if (/^\/v3\/orders\/.*payment_actions/.test(path)) return ['store_v2_orders', 'store_v2_transactions'];
  if (/^\/v[23]\/orders/.test(path)) return ['store_v2_orders'];
  if (/^\/v2\/store/.test(path)) return ['store_v2_information'];
  return null;
}

export const isV2 = (req: FastifyRequest) => /\/v2\//.test(req.url);

/** Resolves the store from the request (set by the scope's hook). */
export const storeOf = (req: FastifyRequest) => req.bcStore as BcStore;

/**
 * api.bigcommerce.com/stores/{hash}/v2|v3: faults, the per-store request quota with its X-Rate-Limit-*
 * headers on every answer, X-Auth-Token and scopes, then the resource routes.
 */
export function apiRoutes(app: FastifyInstance, sim: BigCommerceSim) {
  let lostWrites = 0;
  app.register(
    async (api) => {
      api.setErrorHandler((err: Error & { statusCode?: number; validation?: unknown }, req, reply) => {
        const status = err instanceof BcError ? err.statusCode : (err.statusCode ?? 500);
        const message =
          status >= 500 ? 'Internal Server Error' : err.validation ? 'JSON data is missing or invalid' : err.message;
        if (isV2(req)) return v2Error(reply, status, message);
        return v3Error(reply, status, message, err instanceof BcError ? err.errors : {});
      });

      api.addHook('onRequest', async (req: FastifyRequest<{ Params: { hash: string } }>, reply: FastifyReply) => {
        // Unknown paths reach the not-found handler without route params: read the hash from the URL.
        const hash = req.params.hash ?? decodeURIComponent(/\/stores\/([^/?]+)/.exec(req.url)?.[1] ?? '');
        const fault = await sim.ctx.faults.draw('bigcommerce', hash);
        if (fault === 'timeout') {
          // A lost answer: every other write is carried out before the connection drops, as happens for
          // real when a response is lost on its way back (BigCommerce has no idempotency keys).
          if (req.method !== 'GET' && ++lostWrites % 2 === 0) {
            req.bcLoseAnswer = true;
          } else {
            await new Promise((r) => setTimeout(r, sim.ctx.faults.get('bigcommerce', hash).timeoutMs));
            req.raw.socket?.destroy();
            return reply.hijack();
          }
        }
        const store = sim.store(hash);
        const { quota, windowMs } = sim.quota(store);
        const now = Date.now();
        if (now - store.rate.windowStart >= windowMs) store.rate = { windowStart: now, used: 0 };
        const resetMs = Math.max(0, store.rate.windowStart + windowMs - now);
        const rateHeaders = (left: number, reset: number) => {
          reply.header('X-Rate-Limit-Time-Window-Ms', String(windowMs));
          reply.header('X-Rate-Limit-Time-Reset-Ms', String(reset));
          reply.header('X-Rate-Limit-Requests-Quota', String(quota));
          reply.header('X-Rate-Limit-Requests-Left', String(left));
        };
        const tooMany = (reset: number) => {
          rateHeaders(0, reset);
          reply.header('X-Retry-After', String(Math.max(1, Math.ceil(reset / 1000))));
          return v3Error(reply, 429, 'You have exceeded your request quota; wait for the window to reset.');
        };
        if (fault === 'throttle') return tooMany(Math.min(resetMs, 1000));
        if (store.rate.used >= quota) return tooMany(resetMs);
        store.rate.used++;
        rateHeaders(quota - store.rate.used, resetMs);
        if (fault === 'error') {
          const status = store.rate.used % 2 === 0 ? 503 : 500;
          const title = status === 503 ? 'Service Unavailable' : 'Internal Server Error';
          return isV2(req) ? v2Error(reply, status, title) : v3Error(reply, status, title);
        }

        const token = req.headers['x-auth-token'];
        const grant = typeof token === 'string' ? store.tokens.get(token) : undefined;
        if (!grant) {
          const message = 'You are not authorized to access this resource: a valid X-Auth-Token header is required.';
          return isV2(req) ? v2Error(reply, 401, message) : v3Error(reply, 401, message);
        }
        const path = req.url.slice(req.url.indexOf(`/stores/${hash}`) + `/stores/${hash}`.length);
        const needs = requiredScope(path.split('?')[0] as string);
        if (needs) {
          const held = grant.scope.split(' ');
          const ok = needs.some((s) => held.includes(s) || (req.method === 'GET' && held.includes(`${s}_read_only`)));
          if (!ok) {
            const message = "You don't have a required scope to access the endpoint";
            return isV2(req) ? v2Error(reply, 403, message) : v3Error(reply, 403, message);
          }
        }
        req.bcStore = store;
        req.bcClientId = grant.clientId;
      });

      api.addHook('onSend', async (req, _reply, payload) => {
        if (req.bcLoseAnswer) {
          await new Promise((r) =>
            setTimeout(r, sim.ctx.faults.get('bigcommerce', (req.params as { hash: string }).hash).timeoutMs),
          );
          req.raw.socket?.destroy();
        }
        return payload;
      });

      catalogRoutes(api, sim);
      inventoryRoutes(api, sim);
      orderRoutes(api, sim);
      hookRoutes(api, sim);

      api.get('/v2/store', async (req) => {
        const store = storeOf(req);
        return {
          id: store.hash,
          domain: `${store.hash}.mybigcommerce.com`,
          secure_url: `https://${store.hash}.mybigcommerce.com`,
          name: store.name,
          currency: store.currency,
          timezone: { name: 'America/Los_Angeles', raw_offset: -28800, dst_offset: -25200, dst_correction: true },
          plan_name: 'Standard',
          status: 'live',
        };
      });

      api.setNotFoundHandler((req, reply) =>
        isV2(req) ? v2Error(reply, 404, 'The requested resource was not found.') : v3Error(reply, 404, 'Not Found'),
      );
    },
    { prefix: '/api/stores/:hash' },
  );
}
