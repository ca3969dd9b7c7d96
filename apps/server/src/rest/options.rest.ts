import { MESSAGES } from '@switchyard/contracts';
import { z } from 'zod';
import { DomainError } from '../lib/errors.ts';
import type { Services } from '../services.ts';
import { type RestApp, restRoute } from './route.ts';

/** SPEC §8: listing and reading v2 options is not implemented; the API says so rather than pretending. */
export function optionsRest(app: RestApp, services: Services) {
  const notImplemented = () => {
    throw new DomainError('NOT_IMPLEMENTED', MESSAGES.notImplemented);
  };
  restRoute(app, services, {
    method: 'GET',
    url: '/options',
    summary: 'List options (not implemented)',
    tags: ['options'],
    handler: notImplemented,
  });
  restRoute(app, services, {
    method: 'GET',
    url: '/options/:id',
    params: z.object({ id: z.string() }),
    summary: 'Get an option (not implemented)',
    tags: ['options'],
    handler: notImplemented,
  });
}
