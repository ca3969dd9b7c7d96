import { devMailboxEnabled } from '../../config.ts';
import { DomainError } from '../../lib/errors.ts';
import { type RestApp, restRoute } from '../../rest/route.ts';
import type { Services } from '../../services.ts';
import { listOutbox } from './mail.service.ts';

/** GET /api/frontend/dev/outbox: only when nothing real is sent (see devMailboxEnabled). */
export function mailRest(app: RestApp, services: Services) {
  restRoute(app, services, {
    method: 'GET',
    url: '/dev/outbox',
    access: 'public',
    handler: async () => {
      if (!devMailboxEnabled(services.config)) throw new DomainError('NOT_FOUND', 'The development mailbox is off.');
      const messages = await listOutbox(services.db);
      return { enabled: true, messages: messages.map((m) => ({ ...m, createdAt: m.createdAt.toISOString() })) };
    },
  });
}
