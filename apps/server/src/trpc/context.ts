import type { CreateFastifyContextOptions } from '@trpc/server/adapters/fastify';
import type { FastifyRequest } from 'fastify';
import type { Services } from '../services.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in caller, from the bearer token; resolved once per request. */
    actor(): Promise<Actor | undefined>;
  }
}

/** Who is calling: resolved once per request from the bearer token. */
export interface Actor {
  sessionId: string;
  userId: string;
  accountId: string;
  authorizationLevel: 'user' | 'superuser';
  superUserRole: 'admin' | null;
}

export interface Context {
  services: Services;
  actor: Actor | undefined;
  req: FastifyRequest;
}

export function createContextFactory(services: Services) {
  return async ({ req }: CreateFastifyContextOptions): Promise<Context> => ({
    services,
    actor: await req.actor(),
    req,
  });
}
