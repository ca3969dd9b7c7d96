import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

const IMMUTABLE = 'public, max-age=31536000, immutable';
const NO_CACHE = 'no-cache';

/** The build id the web app was built with (its build.json), so the client can tell it is outdated. */
export function readBuildId(webDist: string | undefined): string | undefined {
  if (!webDist) return undefined;
  try {
    const { buildId } = JSON.parse(readFileSync(join(webDist, 'build.json'), 'utf8')) as { buildId?: unknown };
    return typeof buildId === 'string' && buildId ? buildId : undefined;
  } catch {
    return undefined;
  }
}

export function hasWebBuild(webDist: string | undefined): webDist is string {
  return !!webDist && existsSync(join(webDist, 'index.html'));
}

/**
 * Serves the built web app: hashed assets are immutable, index.html is revalidated every time so a new
 * deploy is picked up, and client routes fall back to index.html (see the not-found handler in app.ts).
 */
export async function webRoutes(app: FastifyInstance, webDist: string) {
  await app.register(fastifyStatic, {
    root: webDist,
    wildcard: true,
    index: ['index.html'],
    cacheControl: false,
    setHeaders(res, path) {
      res.header('Cache-Control', path.includes('/assets/') ? IMMUTABLE : NO_CACHE);
    },
  });
}

export function sendIndexHtml(reply: import('fastify').FastifyReply) {
  return reply.header('Cache-Control', NO_CACHE).sendFile('index.html');
}
