import {
  NotificationIdsInput,
  NotificationList,
  NotificationSettings,
  NotificationSettingsPatch,
  NotificationsListInput,
} from '@switchyard/contracts';
import { z } from 'zod';
import { authedProcedure, router } from '../../trpc/init.ts';
import {
  getSettings,
  listNotifications,
  markAllRead,
  markRead,
  unreadCount,
  updateSettings,
} from './notifications.service.ts';

const Updated = z.object({ updated: z.number().int() });

export const notificationsRouter = router({
  list: authedProcedure
    .input(NotificationsListInput.optional())
    .output(NotificationList)
    .query(({ ctx, input }) => listNotifications(ctx.services.db, ctx.actor, input)),
  unreadCount: authedProcedure
    .output(z.object({ unread: z.number().int() }))
    .query(({ ctx }) => unreadCount(ctx.services.db, ctx.actor)),
  markRead: authedProcedure
    .input(NotificationIdsInput)
    .output(Updated)
    .mutation(({ ctx, input }) => markRead(ctx.services.db, ctx.actor, input.ids)),
  markAllRead: authedProcedure.output(Updated).mutation(({ ctx }) => markAllRead(ctx.services.db, ctx.actor)),
  settings: authedProcedure.output(NotificationSettings).query(({ ctx }) => getSettings(ctx.services.db, ctx.actor)),
  updateSettings: authedProcedure
    .input(NotificationSettingsPatch)
    .output(NotificationSettings)
    .mutation(({ ctx, input }) => updateSettings(ctx.services.db, ctx.actor, input)),
});
