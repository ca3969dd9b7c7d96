// The merchant's stock settings (an account setting, edited on /settings/account): the low-stock threshold that
// the dashboard's stock health and the low-stock notifications both use.
import {
  DEFAULT_LOW_STOCK_THRESHOLD,
  LOW_STOCK_SETTING,
  LowStockThreshold,
  type StockSettings,
  StockSettingsInput,
} from '@switchyard/contracts';
import { and, eq, sql } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.ts';
import type { Actor } from '../../trpc/context.ts';
import { accountSettings } from '../accounts/accounts.tables.ts';

/** The threshold as a value in SQL, for a query that counts low stock itself (one round trip, not two). */
export const lowStockThresholdSql = (accountId: string) => sql`coalesce((
  select case when jsonb_typeof(s.value) = 'number' then (s.value #>> '{}')::int end
  from account_settings s where s.account_id = ${accountId} and s.key = ${LOW_STOCK_SETTING}
), ${DEFAULT_LOW_STOCK_THRESHOLD}::int)`;

export async function readLowStockThreshold(db: Db | Tx, accountId: string): Promise<number> {
  const [row] = await db
    .select({ value: accountSettings.value })
    .from(accountSettings)
    .where(and(eq(accountSettings.accountId, accountId), eq(accountSettings.key, LOW_STOCK_SETTING)));
  const parsed = LowStockThreshold.safeParse(row?.value);
  return parsed.success ? parsed.data : DEFAULT_LOW_STOCK_THRESHOLD;
}

export async function writeLowStockThreshold(db: Db | Tx, accountId: string, value: number) {
  const threshold = LowStockThreshold.parse(value);
  await db
    .insert(accountSettings)
    .values({ accountId, key: LOW_STOCK_SETTING, value: threshold })
    .onConflictDoUpdate({
      target: [accountSettings.accountId, accountSettings.key],
      set: { value: threshold, updatedAt: new Date() },
    });
}

export async function getStockSettings(db: Db, actor: Pick<Actor, 'accountId'>): Promise<StockSettings> {
  return { lowStockThreshold: await readLowStockThreshold(db, actor.accountId) };
}

export async function updateStockSettings(
  db: Db,
  actor: Pick<Actor, 'accountId'>,
  raw: unknown,
): Promise<StockSettings> {
  const input = StockSettingsInput.parse(raw);
  await writeLowStockThreshold(db, actor.accountId, input.lowStockThreshold);
  return getStockSettings(db, actor);
}
