import { MESSAGES, NotificationSettingsPatch } from '@switchyard/contracts';
import { z } from 'zod';
import { DomainError } from '../lib/errors.ts';
import { updateSettings } from '../modules/notifications/notifications.service.ts';
import type { Services } from '../services.ts';
import { type RestApp, restRoute } from './route.ts';

/**
 * SPEC §7/§8: v2 `PATCH options` sets the account's options (what the notifications watch and send: e-mailed
 * types, digest hour, order wait and low-stock thresholds; the same as Notifications → Settings) and answers
 * them all; listing and reading options are not implemented, and the API says so rather than pretending.
 */
export function optionsRest(app: RestApp, services: Services) {
  const notImplemented = () => {
    throw new DomainError('NOT_IMPLEMENTED', MESSAGES.notImplemented);
  };
  restRoute(app, services, {
    method: 'PATCH',
    url: '/options',
    input: NotificationSettingsPatch,
    summary: 'Update the account options (notification e-mails, digest hour, thresholds)',
    tags: ['options'],
    handler: ({ input, actor }) => updateSettings(services.db, actor, input),
  });
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
