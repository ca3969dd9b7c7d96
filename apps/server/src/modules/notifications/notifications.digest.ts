// The daily e-mail digest (issue 17): at the hour each account chose, in its time zone, the unread notifications
// of the types it chose to get by e-mail that no digest carried yet (or that happened again since), to every
// user of the account, through the mail outbox. The day is claimed before sending, so it goes once a day even
// with two workers or a retried job.
import { NOTIFICATION_TYPE_LABELS, type NotificationType } from '@switchyard/contracts';
import { and, asc, desc, eq, inArray, isNull, lt, or, sql } from 'drizzle-orm';
import { publicUrl } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import type { Services } from '../../services.ts';
import { accounts, users } from '../accounts/accounts.tables.ts';
import { dispatchMail, queueRenderedMail } from '../mail/mail.service.ts';
import type { RenderedMail } from '../mail/templates.ts';
import { localTime } from '../products/catalog.schedule.ts';
import { readSettings } from './notifications.service.ts';
import { notificationSettings, notifications } from './notifications.tables.ts';

export const DIGEST_TEMPLATE = 'notification_digest';
/** At most this many items in one digest; the rest are a link away. */
export const DIGEST_MAX_ITEMS = 50;

const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

export interface DigestItem {
  type: NotificationType;
  title: string;
  body: string;
  link: string;
  count: number;
}

export function renderDigest(
  business: string,
  firstname: string,
  items: DigestItem[],
  more: number,
  base: string,
): RenderedMail {
  const subject = `Switchyard: ${items.length + more} ${items.length + more === 1 ? 'notification' : 'notifications'} for ${business}`;
  const all = `${base}/notifications/`;
  const line = (i: DigestItem) => `${i.title}${i.count > 1 ? ` (${i.count} times)` : ''}\n${i.body}\n${base}${i.link}`;
  const text = [
    `Hello ${firstname},`,
    `Here is what needs you in ${business} since the last digest:`,
    ...items.map(line),
    more > 0 ? `…and ${more} more.` : '',
    `All notifications: ${all}`,
    'Choose which notifications come by e-mail, and when, under Notifications → Settings.',
    '— Switchyard',
  ]
    .filter(Boolean)
    .join('\n\n');
  const rows = items
    .map(
      (
        i,
      ) => `<li style="margin:0 0 16px"><div style="font-size:12px;color:#52606d">${escapeHtml(NOTIFICATION_TYPE_LABELS[i.type])}</div>
<a href="${escapeHtml(base + i.link)}" style="color:#1c7ed6;font-weight:bold">${escapeHtml(i.title)}</a>${i.count > 1 ? ` <span style="color:#52606d">(${i.count} times)</span>` : ''}
<div>${escapeHtml(i.body)}</div></li>`,
    )
    .join('');
  const html = `<!doctype html><html><body style="margin:0;padding:24px;background:#f4f5f7;font-family:Arial,Helvetica,sans-serif;color:#1f2933">
<table role="presentation" width="100%" style="max-width:600px;margin:0 auto;background:#ffffff;border-radius:8px;padding:32px"><tr><td>
<h1 style="font-size:20px;margin:0 0 16px">${escapeHtml(subject)}</h1>
<p style="margin:0 0 16px">Hello ${escapeHtml(firstname)}, here is what needs you in ${escapeHtml(business)} since the last digest:</p>
<ul style="padding-left:18px;margin:0 0 16px">${rows}</ul>
${more > 0 ? `<p>…and ${more} more.</p>` : ''}
<p style="margin:24px 0"><a href="${escapeHtml(all)}" style="background:#228be6;color:#ffffff;padding:12px 20px;border-radius:6px;text-decoration:none;display:inline-block">Open notifications</a></p>
<p style="margin:0;font-size:13px;color:#52606d">Choose which notifications come by e-mail, and when, under Notifications → Settings.</p>
</td></tr></table></body></html>`;
  return { subject, text, html, links: [...items.map((i) => base + i.link), all] };
}

/** Unread and not in a digest since they last happened. */
const pending = sql`${notifications.readAt} is null and (${notifications.emailedAt} is null or ${notifications.emailedAt} < ${notifications.lastAt})`;

/** Sends the digests that are due now. Answers the accounts it sent one to. */
export async function sendDigests(services: Services, now = new Date()): Promise<string[]> {
  const { db } = services;
  const candidates = await db
    .selectDistinct({ accountId: notifications.accountId, timezone: accounts.timezone, business: accounts.business })
    .from(notifications)
    .innerJoin(accounts, eq(accounts.id, notifications.accountId))
    .where(and(pending, inArray(accounts.status, ['active', 'past_due'])));
  const sent: string[] = [];
  for (const account of candidates) {
    const settings = await readSettings(db, account.accountId);
    if (settings.emailTypes.length === 0) continue;
    const local = localTime(now, account.timezone);
    if (local.hour !== settings.digestHour || settings.lastDigestDate === local.date) continue;
    const mailIds = await db.transaction(async (tx) => {
      if (!(await claimDay(tx, account.accountId, settings, local.date))) return [];
      const where = and(
        eq(notifications.accountId, account.accountId),
        inArray(notifications.type, settings.emailTypes),
        pending,
      );
      const rows = await tx
        .select()
        .from(notifications)
        .where(where)
        .orderBy(desc(notifications.lastAt), desc(notifications.id))
        .limit(DIGEST_MAX_ITEMS + 1000);
      if (rows.length === 0) return [];
      const shown = rows.slice(0, DIGEST_MAX_ITEMS);
      const recipients = await tx
        .select({ email: users.email, firstname: users.firstname })
        .from(users)
        .where(eq(users.accountId, account.accountId))
        .orderBy(asc(users.createdAt));
      const ids: string[] = [];
      for (const user of recipients) {
        const rendered = renderDigest(
          account.business,
          user.firstname,
          shown,
          rows.length - shown.length,
          publicUrl(services.config),
        );
        ids.push(await queueRenderedMail(tx, user.email, DIGEST_TEMPLATE, rendered, account.accountId));
      }
      await tx
        .update(notifications)
        // Not before its last occurrence: only a later one goes in the next digest.
        .set({ emailedAt: sql`greatest(${now.toISOString()}::timestamptz, ${notifications.lastAt})` })
        .where(
          inArray(
            notifications.id,
            rows.map((r) => r.id),
          ),
        );
      return ids;
    });
    if (mailIds.length > 0) {
      sent.push(account.accountId);
      await dispatchMail(services, mailIds);
    }
  }
  return sent;
}

/** Claims the account's local day for its digest; false when another pass already took it. */
async function claimDay(
  db: Db,
  accountId: string,
  settings: Awaited<ReturnType<typeof readSettings>>,
  date: string,
): Promise<boolean> {
  const claimed = await db
    .insert(notificationSettings)
    .values({
      accountId,
      emailTypes: settings.emailTypes,
      digestHour: settings.digestHour,
      orderWaitHours: settings.orderWaitHours,
      lastDigestDate: date,
    })
    .onConflictDoUpdate({
      target: notificationSettings.accountId,
      set: { lastDigestDate: date },
      setWhere: or(isNull(notificationSettings.lastDigestDate), lt(notificationSettings.lastDigestDate, date)),
    })
    .returning({ accountId: notificationSettings.accountId });
  return claimed.length > 0;
}

/** Deletes notifications whose last occurrence is older than the retention. */
export async function pruneNotifications(db: Db, retentionDays: number, now = new Date()): Promise<number> {
  const before = new Date(now.getTime() - retentionDays * 86_400_000);
  const deleted = await db
    .delete(notifications)
    .where(lt(notifications.lastAt, before))
    .returning({ id: notifications.id });
  return deleted.length;
}
