// The notifications module's entries of the tenant-isolation harness (test/isolation.ts). Test code only.
import { randomBytes } from 'node:crypto';
import type { NotificationList, NotificationSettings } from '@switchyard/contracts';
import { expect } from 'vitest';
import type { IdTakingOperation, OwnRowOperation, World } from '../../../test/isolation.ts';
import { trpc } from '../../../test/isolation.ts';
import { trpcOver } from '../../../test/trpc.ts';
import { notify } from './notifications.service.ts';

/** An unread notification of A's; its title is the marker. */
async function createNotificationOfA(w: World) {
  const marker = `A-${randomBytes(5).toString('hex')}`;
  await notify(w.t.services.db, w.a.accountId, {
    type: 'order_flagged',
    title: marker,
    body: marker,
    link: '/orders',
    dedupeKey: marker,
  });
  const list = await trpcOver(w.t.app, w.a.headers).query<NotificationList>('notifications.list', { limit: 200 });
  const id = list.data?.results.find((n) => n.title === marker)?.id ?? '';
  return { id, marker };
}

async function stillUnread(w: World, id: string, marker: string) {
  const list = await trpcOver(w.t.app, w.a.headers).query<NotificationList>('notifications.list', {
    unread: true,
    limit: 200,
  });
  expect(list.data?.results.find((n) => n.id === id)).toMatchObject({ title: marker, readAt: null });
}

export const notificationIdTakingOperations: IdTakingOperation[] = [
  {
    name: 'notifications.markRead with A’s notification',
    create: createNotificationOfA,
    attempt: (w, id) => trpc(w, w.b.headers, 'mutation', 'notifications.markRead', { ids: [id] }),
    intact: stillUnread,
  },
];

export const notificationOwnRowOperations: OwnRowOperation[] = [
  {
    name: 'notifications.list and unreadCount show only B’s; markAllRead reads only B’s',
    async run(w) {
      const { id, marker } = await createNotificationOfA(w);
      const b = trpcOver(w.t.app, w.b.headers);
      const list = await b.query<NotificationList>('notifications.list', { limit: 200 });
      expect(JSON.stringify(list.data)).not.toContain(marker);
      const unread = await b.query<NotificationList>('notifications.list', { unread: true, limit: 200 });
      const count = await b.query<{ unread: number }>('notifications.unreadCount');
      expect(count.data?.unread).toBe(unread.data?.total);
      await b.mutation('notifications.markAllRead');
      await stillUnread(w, id, marker);
    },
  },
  {
    name: 'notifications.updateSettings and v2 PATCH options change only B’s options',
    async run(w) {
      const a = trpcOver(w.t.app, w.a.headers);
      const before = await a.query<NotificationSettings>('notifications.settings');
      await trpcOver(w.t.app, w.b.headers).mutation('notifications.updateSettings', { lowStockThreshold: 4321 });
      const res = await w.t.app.inject({
        method: 'PATCH',
        url: '/api/v2/options',
        headers: w.b.apiKeyHeaders,
        payload: { orderWaitHours: 77, emailTypes: [] },
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ orderWaitHours: 77, lowStockThreshold: 4321 });
      const after = await a.query<NotificationSettings>('notifications.settings');
      expect(after.data).toEqual(before.data);
    },
  },
];
