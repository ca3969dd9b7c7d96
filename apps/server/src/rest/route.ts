import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import { DomainError } from '../lib/errors.ts';
import type { Services } from '../services.ts';
import type { Actor } from '../trpc/context.ts';

export type RestApp = FastifyInstance;
export type RestVersion = 'frontend' | 'v1' | 'v2';
type Method = 'GET' | 'DELETE' | 'POST' | 'PUT' | 'PATCH';
type Access = 'public' | 'user' | 'superuser';

interface RouteDefinition<I extends z.ZodType, O extends z.ZodType, A extends Access> {
  method: Method;
  url: string;
  /** Parsed from the query string for GET and DELETE, from the JSON body otherwise (SPEC §7). */
  input?: I;
  /** Path parameters, e.g. `{ id }`. */
  params?: z.ZodType;
  output?: O;
  summary?: string;
  tags?: string[];
  access?: A;
  handler: (call: {
    input: z.infer<I>;
    params: Record<string, string>;
    actor: A extends 'public' ? Actor | undefined : Actor;
    services: Services;
    req: FastifyRequest;
    reply: FastifyReply;
  }) => Promise<z.infer<O>> | z.infer<O>;
}

/**
 * Declares one REST route: input validated with zod at the edge, a bad one answered with 400 in
 * the `{ code, message }` shape, and the caller's identity checked before the input is (preValidation).
 */
export function restRoute<I extends z.ZodType, O extends z.ZodType, A extends Access = 'user'>(
  app: RestApp,
  services: Services,
  def: RouteDefinition<I, O, A>,
): void {
  const readsQuery = def.method === 'GET' || def.method === 'DELETE';
  const access: Access = def.access ?? 'user';
  app.withTypeProvider<ZodTypeProvider>().route({
    method: def.method,
    url: def.url,
    schema: {
      ...(def.summary ? { summary: def.summary } : {}),
      ...(def.tags ? { tags: def.tags } : {}),
      ...(def.params ? { params: def.params } : {}),
      ...(def.input ? (readsQuery ? { querystring: def.input } : { body: def.input }) : {}),
      ...(def.output ? { response: { 200: def.output } } : {}),
      ...(access === 'public' ? {} : { security: [{ bearerAuth: [] }] }),
    },
    // Who calls is settled before the input is validated: a signed-out caller learns it must sign in (401, which
    // the web app answers by going to login), not what the route's input looks like (a 400 spelling the schema).
    ...(access === 'public'
      ? {}
      : {
          preValidation: async (req: FastifyRequest) => {
            const actor = await req.actor();
            if (!actor) throw new DomainError('UNAUTHORIZED', 'Please sign in to continue.');
            if (access === 'superuser' && actor.authorizationLevel !== 'superuser') {
              throw new DomainError('FORBIDDEN', 'This needs a superuser.');
            }
          },
        }),
    handler: async (req, reply) => {
      const actor = await req.actor();
      const input = (readsQuery ? req.query : req.body) as z.infer<I>;
      return def.handler({
        input,
        params: (req.params ?? {}) as Record<string, string>,
        actor: actor as never,
        services,
        req,
        reply,
      });
    },
  });
}
