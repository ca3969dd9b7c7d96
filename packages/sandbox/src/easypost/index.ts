import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SandboxContext } from '../context.ts';
import { EasyPostSim, KEY_PATTERN } from './sim.ts';
import { EasyPostError, type EpUser, newObjectId, publicTracker } from './state.ts';

declare module 'fastify' {
  interface FastifyRequest {
    epUser?: EpUser;
    epLoseAnswer?: boolean;
  }
}

const renderError = (err: unknown, reply: FastifyReply) => {
  if (err instanceof EasyPostError)
    return reply.status(err.statusCode).send({ error: { code: err.code, message: err.message, errors: err.errors } });
  const status = (err as { statusCode?: number }).statusCode ?? 500;
  if (status < 500)
    return reply
      .status(status)
      .send({ error: { code: 'BAD_REQUEST', message: (err as Error).message ?? 'Bad request', errors: [] } });
  return reply
    .status(500)
    .send({ error: { code: 'INTERNAL_SERVER_ERROR', message: 'Something went wrong on our end.', errors: [] } });
};

/** The API key from Basic auth (key as user name, as the official clients send it) or a Bearer token. */
function keyOf(req: FastifyRequest): string | null {
  const h = req.headers.authorization ?? '';
  if (h.startsWith('Basic ')) return Buffer.from(h.slice(6), 'base64').toString('utf8').split(':')[0] ?? null;
  if (h.startsWith('Bearer ')) return h.slice(7).trim();
  return null;
}

const user = (req: FastifyRequest) => req.epUser as EpUser;

/**
 * The carrier simulator, shaped like EasyPost's API v2 (mounted at /easypost: `/easypost/v2/...` stands in
 * for https://api.easypost.com/v2/...): carrier accounts, shipments with rates by weight and zone, buying a
 * rate (a real PDF label, a tracking code, a tracker), trackers, and webhooks signed with their secret.
 * Labels are served at /easypost/files/..., a tracking page at /easypost/track/{code}. The control API moves
 * the clock (`POST /_control/easypost/clock`) and raises exceptions on a parcel.
 */
export async function easypostSimulator(app: FastifyInstance, ctx: SandboxContext) {
  const sim = new EasyPostSim(ctx);
  let lostWrites = 0;

  await app.register(
    async (api) => {
      api.setErrorHandler((err, _req, reply) => renderError(err, reply));
      api.setNotFoundHandler((_req, reply) =>
        reply
          .status(404)
          .send({ error: { code: 'NOT_FOUND', message: 'The requested resource could not be found.', errors: [] } }),
      );
      api.addHook('onRequest', async (req, reply) => {
        const key = keyOf(req);
        if (!key)
          return reply.status(401).send({
            error: {
              code: 'APIKEY.REQUIRED',
              message: 'No API key provided. Use Basic auth with your API key.',
              errors: [],
            },
          });
        if (!KEY_PATTERN.test(key))
          return reply
            .status(401)
            .send({ error: { code: 'APIKEY.INACTIVE', message: 'The API key provided is not valid.', errors: [] } });
        req.epUser = sim.user(key);
        const fault = await ctx.faults.draw('easypost', req.epUser.id);
        if (fault === 'throttle')
          return reply
            .status(429)
            .header('retry-after', '1')
            .send({ error: { code: 'RATE_LIMITED', message: 'You have exceeded the rate limit.', errors: [] } });
        if (fault === 'error')
          return reply.status(500).send({
            error: { code: 'INTERNAL_SERVER_ERROR', message: 'Something went wrong on our end.', errors: [] },
          });
        if (fault === 'timeout') {
          // Every other lost write is carried out first and only its answer is lost, as happens for real.
          if (req.method !== 'GET' && ++lostWrites % 2 === 0) req.epLoseAnswer = true;
          else {
            await new Promise((r) => setTimeout(r, ctx.faults.get('easypost', req.epUser?.id ?? '').timeoutMs));
            req.raw.socket?.destroy();
            return reply.hijack();
          }
        }
      });
      api.addHook('onSend', async (req, _reply, payload) => {
        if (req.epLoseAnswer) {
          await new Promise((r) => setTimeout(r, ctx.faults.get('easypost', req.epUser?.id ?? '').timeoutMs));
          req.raw.socket?.destroy();
        }
        return payload;
      });

      api.get('/users', async (req) => ({
        id: user(req).id,
        object: 'User',
        name: 'Sandbox merchant',
        email: null,
        balance: '0.00000',
        children: [],
      }));
      api.get('/carrier_accounts', async (req) => user(req).carrierAccounts);

      api.post<{ Body: { shipment?: Record<string, unknown> } }>('/shipments', async (req, reply) => {
        if (!req.body?.shipment || typeof req.body.shipment !== 'object')
          throw new EasyPostError(422, 'PARAMETER.REQUIRED', 'Missing required parameter: shipment.');
        return reply.status(201).send(sim.createShipment(user(req), req.body.shipment));
      });
      api.get<{ Params: { id: string } }>('/shipments/:id', async (req) => sim.getShipment(user(req), req.params.id));
      api.get<{ Querystring: { page_size?: string; reference?: string } }>('/shipments', async (req) => {
        const all = [...user(req).shipments.values()]
          .filter((s) => !req.query.reference || s.reference === req.query.reference)
          .reverse();
        const size = Math.min(100, Number(req.query.page_size ?? 20) || 20);
        return { shipments: all.slice(0, size), has_more: all.length > size };
      });
      api.post<{ Params: { id: string }; Body: { rate?: { id?: string } } }>('/shipments/:id/buy', async (req) =>
        sim.buy(user(req), req.params.id, req.body?.rate?.id),
      );
      api.get<{ Params: { id: string }; Querystring: { file_format?: string } }>(
        '/shipments/:id/label',
        async (req) => {
          const s = sim.getShipment(user(req), req.params.id);
          if (!s.postage_label)
            throw new EasyPostError(422, 'SHIPMENT.POSTAGE.REQUIRED', 'The shipment has no postage label yet.');
          const format = (req.query.file_format ?? 'pdf').toLowerCase();
          if (format !== 'pdf')
            throw new EasyPostError(422, 'SHIPMENT.LABEL.FORMAT', `This sandbox converts labels to PDF only.`);
          return s;
        },
      );

      api.post<{ Body: { tracker?: { tracking_code?: string; carrier?: string } } }>(
        '/trackers',
        async (req, reply) => {
          const code = req.body?.tracker?.tracking_code;
          if (!code)
            throw new EasyPostError(422, 'PARAMETER.REQUIRED', 'Missing required parameter: tracker.tracking_code.');
          const found = sim.byCode(code);
          if (!found || found.user !== user(req))
            throw new EasyPostError(422, 'TRACKER.CODE.INVALID', 'The tracking code is not known to this sandbox.');
          return reply.status(201).send(publicTracker(found.tracker));
        },
      );
      api.get<{ Params: { id: string } }>('/trackers/:id', async (req) =>
        publicTracker(sim.tracker(user(req), req.params.id)),
      );
      api.get<{ Querystring: { tracking_code?: string } }>('/trackers', async (req) => ({
        trackers: [...user(req).trackers.values()]
          .filter((t) => !req.query.tracking_code || t.tracking_code === req.query.tracking_code)
          .map(publicTracker),
        has_more: false,
      }));

      api.post<{ Body: { webhook?: { url?: string; webhook_secret?: string } } }>('/webhooks', async (req, reply) => {
        const url = req.body?.webhook?.url;
        if (!url || !/^https?:\/\//.test(url))
          throw new EasyPostError(422, 'WEBHOOK.URL.INVALID', 'A webhook needs an http(s) url.', [
            { field: 'url', message: 'is invalid' },
          ]);
        const u = user(req);
        const hook = {
          id: newObjectId('hook'),
          object: 'Webhook' as const,
          mode: u.mode,
          url,
          disabled_at: null,
          created_at: sim.clock.iso(),
          _secret: req.body?.webhook?.webhook_secret ?? null,
        };
        u.webhooks.set(hook.id, hook);
        const { _secret, ...shown } = hook;
        return reply.status(201).send(shown);
      });
      api.get('/webhooks', async (req) => ({
        webhooks: [...user(req).webhooks.values()].map(({ _secret, ...w }) => w),
      }));
      api.delete<{ Params: { id: string } }>('/webhooks/:id', async (req) => {
        if (!user(req).webhooks.delete(req.params.id))
          throw new EasyPostError(404, 'NOT_FOUND', 'The requested resource could not be found.');
        return {};
      });
    },
    { prefix: '/v2' },
  );

  app.get<{ Params: { file: string } }>('/files/postage_label/:file', async (req, reply) => {
    const label = sim.label(req.params.file.replace(/\.pdf$/, ''));
    if (!label) return reply.status(404).type('text/plain').send('Not found');
    return reply.type('application/pdf').header('cache-control', 'private, max-age=3600').send(label);
  });

  app.get<{ Params: { code: string } }>('/track/:code', async (req, reply) => {
    const found = sim.byCode(req.params.code);
    if (!found)
      return reply
        .status(404)
        .type('text/html')
        .send('<!doctype html><title>Not found</title><p>Unknown tracking code.</p>');
    const t = found.tracker;
    const esc = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
    const rows = [...t.tracking_details]
      .reverse()
      .map(
        (d) =>
          `<li><time>${esc(d.datetime)}</time> ${esc(d.message)} <small>${esc(d.tracking_location.city ?? '')}</small></li>`,
      )
      .join('');
    return reply
      .type('text/html')
      .send(
        `<!doctype html><html lang="en"><meta charset="utf-8"><title>Tracking ${esc(t.tracking_code)}</title><h1>${esc(t.carrier)} ${esc(t.tracking_code)}</h1><p data-status="${esc(t.status)}">Status: <strong>${esc(t.status.replaceAll('_', ' '))}</strong></p><ol>${rows}</ol></html>`,
      );
  });

  return sim;
}

/** The carrier's control routes (not part of EasyPost's API): move the clock, raise a delivery exception. */
export function easypostControlRoutes(app: FastifyInstance, sim: EasyPostSim) {
  app.post<{ Body: { hours?: number; ms?: number } }>('/_control/easypost/clock', async (req) => {
    const ms = Number(req.body?.ms ?? 0) + Number(req.body?.hours ?? 0) * 3_600_000;
    if (!Number.isFinite(ms) || ms < 0) throw Object.assign(new Error('hours or ms must be ≥ 0'), { statusCode: 400 });
    sim.clock.advance(ms);
    sim.tick();
    return { now: sim.clock.iso() };
  });
  app.post<{ Params: { code: string }; Body: { status_detail?: string; message?: string } }>(
    '/_control/easypost/trackers/:code/exception',
    async (req, reply) => {
      try {
        return publicTracker(sim.exception(req.params.code, req.body?.status_detail, req.body?.message));
      } catch (err) {
        return renderError(err, reply);
      }
    },
  );
  app.get<{ Params: { code: string } }>('/_control/easypost/trackers/:code', async (req, reply) => {
    const found = sim.byCode(req.params.code);
    if (!found) return reply.status(404).send({ error: 'Unknown tracking code' });
    return { user: found.user.id, tracker: publicTracker(found.tracker) };
  });
}
