// The daily catalog sync (SPEC §7 `POST catalogSync` with `hour`): the account chooses an hour of its own
// time zone (accounts.timezone) and every connected channel with the catalog feature on is imported once a
// day in that hour.
//
// Stored as the account setting `catalogSyncHour` = { hour, lastRunDate } (account_settings, so it also
// reaches the web app with the basic data). pg-boss 10 keeps one schedule per queue name, so rather than a
// queue and a worker per account, one pg-boss schedule (`catalog.daily`, every 15 minutes, cron in UTC)
// dispatches: it imports the accounts whose local hour it is and that have not run today (local date),
// claiming the day with a conditional update so two processes or a retried dispatch never run an account
// twice. Every 15 minutes rather than hourly so zones at a half or quarter hour from UTC run in their hour.
import type { CatalogSyncSchedule } from '@switchyard/contracts';
import { and, eq, inArray, isNotNull, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { DomainError } from '../../lib/errors.ts';
import type { Services } from '../../services.ts';
import type { Actor } from '../../trpc/context.ts';
import { accountSettings, accounts } from '../accounts/accounts.tables.ts';
import { recordAudit } from '../audit/audit.service.ts';
import { channels } from '../channels/channels.tables.ts';
import { queueCatalogImport } from './catalog-import.ts';

export const CATALOG_DAILY_JOB = 'catalog.daily';
export const CATALOG_SYNC_SETTING = 'catalogSyncHour';
export const CATALOG_DAILY_CRON = '*/15 * * * *';

interface StoredHour {
  hour: number | null;
  /** The account's local date of the last daily run (YYYY-MM-DD). */
  lastRunDate?: string | null;
}

const validZone = (tz: string) => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return tz;
  } catch {
    return 'UTC';
  }
};

/** The local date (YYYY-MM-DD), hour and minute of an instant in a time zone. */
export function localTime(at: Date, timeZone: string): { date: string; hour: number; minute: number } {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', {
      timeZone: validZone(timeZone),
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    })
      .formatToParts(at)
      .map((p) => [p.type, p.value]),
  );
  return { date: `${parts.year}-${parts.month}-${parts.day}`, hour: Number(parts.hour), minute: Number(parts.minute) };
}

/** When the dispatcher will next run the account: its first tick in the local hour, on a day not yet run. */
export function nextDailyRun(
  hour: number | null,
  timeZone: string,
  lastRunDate: string | null | undefined,
  now: Date,
): Date | null {
  if (hour === null) return null;
  const step = 15 * 60 * 1000;
  let t = Math.ceil(now.getTime() / step) * step;
  for (let i = 0; i < 4 * 50; i++, t += step) {
    const local = localTime(new Date(t), timeZone);
    if (local.hour === hour && local.date !== lastRunDate) return new Date(t);
  }
  return null;
}

async function stored(db: Db, accountId: string): Promise<{ value: StoredHour; timezone: string }> {
  const [account] = await db.select({ timezone: accounts.timezone }).from(accounts).where(eq(accounts.id, accountId));
  if (!account) throw new DomainError('NOT_FOUND', 'Account not found');
  const [setting] = await db
    .select({ value: accountSettings.value })
    .from(accountSettings)
    .where(and(eq(accountSettings.accountId, accountId), eq(accountSettings.key, CATALOG_SYNC_SETTING)));
  const value = (setting?.value ?? { hour: null }) as StoredHour;
  return { value, timezone: validZone(account.timezone) };
}

export async function getCatalogSyncSchedule(db: Db, actor: Pick<Actor, 'accountId'>, now = new Date()) {
  const { value, timezone } = await stored(db, actor.accountId);
  const hour = typeof value.hour === 'number' ? value.hour : null;
  return {
    hour,
    timezone,
    nextRunAt: nextDailyRun(hour, timezone, value.lastRunDate, now),
  } satisfies CatalogSyncSchedule;
}

/** Makes sure the dispatcher's pg-boss schedule exists (idempotent; the schedule lives in the database). */
export async function ensureCatalogDailySchedule(services: Services): Promise<void> {
  await services.queue?.boss.schedule(CATALOG_DAILY_JOB, CATALOG_DAILY_CRON, {}, { tz: 'UTC' });
}

/** `POST catalogSync` { hour }: sets (or, with null, switches off) the account's daily catalog sync hour. */
export async function setCatalogSyncHour(
  services: Services,
  actor: Actor,
  hour: number | null,
  now = new Date(),
): Promise<CatalogSyncSchedule> {
  const { db } = services;
  await db.transaction(async (tx) => {
    const [current] = await tx
      .select({ value: accountSettings.value })
      .from(accountSettings)
      .where(and(eq(accountSettings.accountId, actor.accountId), eq(accountSettings.key, CATALOG_SYNC_SETTING)))
      .for('update');
    const value: StoredHour = { ...((current?.value as StoredHour | undefined) ?? {}), hour };
    await tx
      .insert(accountSettings)
      .values({ accountId: actor.accountId, key: CATALOG_SYNC_SETTING, value, updatedAt: now })
      .onConflictDoUpdate({
        target: [accountSettings.accountId, accountSettings.key],
        set: { value, updatedAt: now },
      });
    await recordAudit(tx, {
      accountId: actor.accountId,
      actorUserId: actor.userId,
      action: 'catalog.sync_hour',
      detail: { hour },
    });
  });
  if (hour !== null) await ensureCatalogDailySchedule(services);
  return getCatalogSyncSchedule(db, actor, now);
}

/**
 * The `catalog.daily` job: queues an import (trigger schedule) of every connected channel with the
 * catalog feature on, for the accounts whose hour it is now and that have not run today. Answers the
 * sync ids queued.
 */
export async function dispatchDailyCatalogSync(services: Services, now = new Date()): Promise<number[]> {
  const { db } = services;
  const rows = await db
    .select({ accountId: accountSettings.accountId, value: accountSettings.value, timezone: accounts.timezone })
    .from(accountSettings)
    .innerJoin(accounts, eq(accounts.id, accountSettings.accountId))
    .where(and(eq(accountSettings.key, CATALOG_SYNC_SETTING), inArray(accounts.status, ['active', 'past_due'])));
  const queued: number[] = [];
  for (const r of rows) {
    const value = r.value as StoredHour;
    if (typeof value.hour !== 'number') continue;
    const local = localTime(now, r.timezone);
    if (local.hour !== value.hour || value.lastRunDate === local.date) continue;
    const claimed = await db
      .update(accountSettings)
      .set({ value: { ...value, lastRunDate: local.date }, updatedAt: now })
      .where(
        and(
          eq(accountSettings.accountId, r.accountId),
          eq(accountSettings.key, CATALOG_SYNC_SETTING),
          sql`(${accountSettings.value} ->> 'lastRunDate') is distinct from ${local.date}`,
        ),
      )
      .returning({ accountId: accountSettings.accountId });
    if (claimed.length === 0) continue;
    const live = await db
      .select({ id: channels.id })
      .from(channels)
      .where(
        and(
          eq(channels.accountId, r.accountId),
          eq(channels.status, 'connected'),
          isNotNull(channels.credentials),
          sql`coalesce((${channels.features} ->> 'catalog')::boolean, true)`,
        ),
      )
      .orderBy(channels.createdAt);
    for (const c of live) {
      try {
        queued.push(
          await queueCatalogImport(services, { accountId: r.accountId, channelId: c.id, trigger: 'schedule' }),
        );
      } catch (err) {
        services.logger.warn({ err, accountId: r.accountId, channelId: c.id }, 'daily catalog import not queued');
      }
    }
  }
  return queued;
}
