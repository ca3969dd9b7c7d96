// Notifications (issue 17): what needs the merchant, raised by a small `notify` call where it happens (in the
// transaction of its cause when there is one), read in the header bell and on /notifications/.
import {
  DEFAULT_NOTIFICATION_SETTINGS,
  type Notification,
  type NotificationList,
  type NotificationSettings,
  type NotificationSettingsPatch,
  NotificationsListInput,
  type NotificationType,
} from '@switchyard/contracts';
import { and, count, desc, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.ts';
import { DomainError } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { Actor } from '../../trpc/context.ts';
import { accounts } from '../accounts/accounts.tables.ts';
import { localTime } from '../products/catalog.schedule.ts';
import { readLowStockThreshold, writeLowStockThreshold } from '../settings/settings.stock.ts';
import { notificationSettings, notifications } from './notifications.tables.ts';

export interface NotifyInput {
  type: NotificationType;
  title: string;
  body: string;
  /** An app path where it is handled. */
  link: string;
  /**
   * Names the condition: while a notification with this key is unread, a repeat updates it (count, time, text)
   * instead of adding another. Without one, every call adds one.
   */
  dedupeKey?: string | null;
  /** Sets the count instead of adding one to it (a condition that counts things, as orders waiting). */
  count?: number;
}

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** Raises a notification for the account (deduplicated by its key while unread). */
export async function notify(db: Db | Tx, accountId: string, input: NotifyInput): Promise<void> {
  const now = new Date();
  const values = {
    id: newId('ntf'),
    accountId,
    type: input.type,
    title: clip(input.title, 200),
    body: clip(input.body, 1000),
    link: clip(input.link, 500),
    dedupeKey: input.dedupeKey ? clip(input.dedupeKey, 300) : null,
    count: input.count ?? 1,
    createdAt: now,
    lastAt: now,
  };
  if (!values.dedupeKey) {
    await db.insert(notifications).values(values);
    return;
  }
  await db
    .insert(notifications)
    .values(values)
    .onConflictDoUpdate({
      target: [notifications.accountId, notifications.dedupeKey],
      targetWhere: sql`${notifications.readAt} is null and ${notifications.dedupeKey} is not null`,
      set: {
        title: values.title,
        body: values.body,
        link: values.link,
        count: input.count ?? sql`${notifications.count} + 1`,
        lastAt: now,
      },
    });
}

const toNotification = (row: typeof notifications.$inferSelect): Notification => ({
  id: row.id,
  type: row.type,
  title: row.title,
  body: row.body,
  link: row.link,
  count: row.count,
  createdAt: row.createdAt,
  lastAt: row.lastAt,
  readAt: row.readAt,
});

export async function unreadCount(db: Db, actor: Pick<Actor, 'accountId'>): Promise<{ unread: number }> {
  const [row] = await db
    .select({ n: count() })
    .from(notifications)
    .where(and(eq(notifications.accountId, actor.accountId), isNull(notifications.readAt)));
  return { unread: row?.n ?? 0 };
}

export async function listNotifications(
  db: Db,
  actor: Pick<Actor, 'accountId'>,
  raw: NotificationsListInput = {},
): Promise<NotificationList> {
  const input = NotificationsListInput.parse(raw);
  const where = and(
    eq(notifications.accountId, actor.accountId),
    input.unread ? isNull(notifications.readAt) : undefined,
  );
  const [rows, [total], unread] = await Promise.all([
    db
      .select()
      .from(notifications)
      .where(where)
      .orderBy(desc(notifications.lastAt), desc(notifications.id))
      .limit(input.limit)
      .offset(input.offset),
    db.select({ n: count() }).from(notifications).where(where),
    unreadCount(db, actor),
  ]);
  return { results: rows.map(toNotification), total: total?.n ?? 0, unread: unread.unread };
}

/** Marks the account's notifications read; an id that is not the account's is NOT_FOUND (nothing changes). */
export async function markRead(db: Db, actor: Pick<Actor, 'accountId'>, ids: string[]): Promise<{ updated: number }> {
  const unique = [...new Set(ids)];
  return db.transaction(async (tx) => {
    const own = await tx
      .select({ id: notifications.id })
      .from(notifications)
      .where(and(eq(notifications.accountId, actor.accountId), inArray(notifications.id, unique)));
    if (own.length !== unique.length) throw new DomainError('NOT_FOUND', 'Notification not found');
    const updated = await tx
      .update(notifications)
      .set({ readAt: new Date() })
      .where(
        and(
          eq(notifications.accountId, actor.accountId),
          inArray(notifications.id, unique),
          isNull(notifications.readAt),
        ),
      )
      .returning({ id: notifications.id });
    return { updated: updated.length };
  });
}

export async function markAllRead(db: Db, actor: Pick<Actor, 'accountId'>): Promise<{ updated: number }> {
  const updated = await db
    .update(notifications)
    .set({ readAt: new Date() })
    .where(and(eq(notifications.accountId, actor.accountId), isNull(notifications.readAt)))
    .returning({ id: notifications.id });
  return { updated: updated.length };
}

// ------------------------------------------------------------------------------------------- settings

export type StoredSettings = typeof DEFAULT_NOTIFICATION_SETTINGS & { lastDigestDate: string | null };

/** The account's settings, or the defaults when it never saved any. */
export async function readSettings(db: Db | Tx, accountId: string): Promise<StoredSettings> {
  const [[row], lowStockThreshold] = await Promise.all([
    db.select().from(notificationSettings).where(eq(notificationSettings.accountId, accountId)),
    readLowStockThreshold(db, accountId),
  ]);
  if (!row) return { ...DEFAULT_NOTIFICATION_SETTINGS, lowStockThreshold, lastDigestDate: null };
  return {
    emailTypes: row.emailTypes,
    digestHour: row.digestHour,
    orderWaitHours: row.orderWaitHours,
    lowStockThreshold,
    lastDigestDate: row.lastDigestDate,
  };
}

/** When the digest next goes: the first quarter hour of the digest hour, today if not sent yet, else tomorrow. */
export function nextDigestAt(hour: number, timeZone: string, lastDigestDate: string | null, now: Date): Date | null {
  const step = 15 * 60 * 1000;
  let t = Math.ceil(now.getTime() / step) * step;
  for (let i = 0; i < 4 * 50; i++, t += step) {
    const local = localTime(new Date(t), timeZone);
    if (local.hour === hour && local.date !== lastDigestDate) return new Date(t);
  }
  return null;
}

export async function getSettings(
  db: Db,
  actor: Pick<Actor, 'accountId'>,
  now = new Date(),
): Promise<NotificationSettings> {
  const [settings, [account]] = await Promise.all([
    readSettings(db, actor.accountId),
    db.select({ timezone: accounts.timezone }).from(accounts).where(eq(accounts.id, actor.accountId)),
  ]);
  const timezone = account?.timezone ?? 'UTC';
  return {
    emailTypes: settings.emailTypes,
    digestHour: settings.digestHour,
    orderWaitHours: settings.orderWaitHours,
    lowStockThreshold: settings.lowStockThreshold,
    timezone,
    nextDigestAt:
      settings.emailTypes.length > 0 ? nextDigestAt(settings.digestHour, timezone, settings.lastDigestDate, now) : null,
  };
}

export async function updateSettings(
  db: Db,
  actor: Pick<Actor, 'accountId'>,
  patch: NotificationSettingsPatch,
): Promise<NotificationSettings> {
  await db.transaction(async (tx) => {
    const current = await readSettings(tx, actor.accountId);
    const next = {
      emailTypes: patch.emailTypes ? [...new Set(patch.emailTypes)] : current.emailTypes,
      digestHour: patch.digestHour ?? current.digestHour,
      orderWaitHours: patch.orderWaitHours ?? current.orderWaitHours,
      updatedAt: new Date(),
    };
    // The threshold is the account's stock setting (also the dashboard's): kept there.
    if (patch.lowStockThreshold !== undefined)
      await writeLowStockThreshold(tx, actor.accountId, patch.lowStockThreshold);
    await tx
      .insert(notificationSettings)
      .values({ accountId: actor.accountId, ...next })
      .onConflictDoUpdate({ target: notificationSettings.accountId, set: next });
  });
  return getSettings(db, actor);
}
