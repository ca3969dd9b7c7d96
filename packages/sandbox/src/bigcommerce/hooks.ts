import type { FastifyInstance, FastifyRequest } from 'fastify';
import { storeOf } from './api.ts';
import type { BigCommerceSim } from './sim.ts';
import type { BcHook } from './state.ts';
import { BcError, paginate } from './support.ts';

const renderHook = (storeHash: string, hook: BcHook) => ({
  id: hook.id,
  client_id: hook.clientId,
  store_hash: storeHash,
  scope: hook.scope,
  destination: hook.destination,
  is_active: hook.isActive,
  headers: hook.headers,
  created_at: Math.floor(hook.createdAt / 1000),
  updated_at: Math.floor(hook.updatedAt / 1000),
});

interface HookBody {
  scope?: unknown;
  destination?: unknown;
  is_active?: unknown;
  headers?: unknown;
}

function readHeaders(value: unknown): Record<string, string> | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'object' || Array.isArray(value))
    throw new BcError(422, 'JSON data is missing or invalid', { headers: 'error.expected.jsobject' });
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(value)) {
    if (typeof v !== 'string')
      throw new BcError(422, 'JSON data is missing or invalid', { [`headers.${k}`]: 'error.expected.jsstring' });
    out[k] = v;
  }
  return out;
}

function readDestination(value: unknown): string {
  if (typeof value !== 'string' || !value)
    throw new BcError(422, 'JSON data is missing or invalid', { destination: 'error.path.missing' });
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new BcError(422, 'The destination must be a valid URL', { destination: 'error.url.invalid' });
  }
  // BigCommerce delivers over HTTPS on port 443 only. The sandbox also delivers to plain HTTP, so a
  // local app can receive its events; a non-standard HTTPS port is refused as BigCommerce refuses it.
  if (url.protocol === 'https:' && url.port && url.port !== '443') {
    throw new BcError(422, 'The destination must use port 443', { destination: 'error.url.port' });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new BcError(422, 'The destination must be an HTTPS URL', { destination: 'error.url.scheme' });
  }
  return value;
}

/** V3 webhooks: each app sees and manages only its own hooks. */
export function hookRoutes(api: FastifyInstance, sim: BigCommerceSim) {
  const own = (req: FastifyRequest<{ Params: { id: string } }>) => {
    const hook = storeOf(req).hooks.get(Number(req.params.id));
    if (!hook || hook.clientId !== req.bcClientId) throw new BcError(404, 'Webhook not found');
    return hook;
  };

  api.get<{ Querystring: Record<string, string> }>('/v3/hooks', async (req) => {
    const store = storeOf(req);
    const hooks = [...store.hooks.values()].filter(
      (h) =>
        h.clientId === req.bcClientId &&
        (req.query.scope === undefined || h.scope === req.query.scope) &&
        (req.query.is_active === undefined || String(h.isActive) === req.query.is_active) &&
        (req.query.destination === undefined || h.destination === req.query.destination),
    );
    const page = paginate(hooks, req.query, { maxLimit: 250 });
    return { data: page.data.map((h) => renderHook(store.hash, h)), meta: page.meta };
  });

  api.post<{ Body: HookBody }>('/v3/hooks', async (req, reply) => {
    const store = storeOf(req);
    const body = req.body ?? {};
    if (typeof body.scope !== 'string' || !/^store\/[a-zA-Z0-9_*]+(\/[a-zA-Z0-9_*]+)*$/.test(body.scope)) {
      throw new BcError(422, 'JSON data is missing or invalid', {
        scope: body.scope === undefined ? 'error.path.missing' : 'error.scope.invalid',
      });
    }
    const destination = readDestination(body.destination);
    const headers = readHeaders(body.headers);
    const same = [...store.hooks.values()].filter((h) => h.clientId === req.bcClientId && h.scope === body.scope);
    if (same.some((h) => h.destination === destination)) {
      throw new BcError(422, 'A webhook with this scope and destination already exists.', {
        destination: 'error.duplicate',
      });
    }
    if (same.length >= 10) throw new BcError(422, 'You can create at most 10 webhooks per scope.');
    const now = Date.now();
    const hook: BcHook = {
      id: ++store.seq.hook + 20_172_900,
      clientId: req.bcClientId as string,
      scope: body.scope,
      destination,
      isActive: body.is_active === undefined ? true : body.is_active === true,
      headers,
      createdAt: now,
      updatedAt: now,
    };
    store.hooks.set(hook.id, hook);
    return reply.code(200).send({ data: renderHook(store.hash, hook), meta: {} });
  });

  api.get<{ Params: { id: string } }>('/v3/hooks/:id', async (req) => ({
    data: renderHook(storeOf(req).hash, own(req)),
    meta: {},
  }));

  api.put<{ Params: { id: string }; Body: HookBody }>('/v3/hooks/:id', async (req) => {
    const hook = own(req);
    const body = req.body ?? {};
    if (body.destination !== undefined) hook.destination = readDestination(body.destination);
    if (body.is_active !== undefined) {
      if (body.is_active === true && !hook.isActive) sim.reactivated(hook);
      hook.isActive = body.is_active === true;
    }
    if (body.headers !== undefined) hook.headers = readHeaders(body.headers);
    if (typeof body.scope === 'string') hook.scope = body.scope;
    hook.updatedAt = Date.now();
    return { data: renderHook(storeOf(req).hash, hook), meta: {} };
  });

  api.delete<{ Params: { id: string } }>('/v3/hooks/:id', async (req) => {
    const hook = own(req);
    storeOf(req).hooks.delete(hook.id);
    return { data: renderHook(storeOf(req).hash, hook), meta: {} };
  });
}
