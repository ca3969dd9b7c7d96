// The label settings of /settings/fulfillment (an account setting): label size, default parcel, the unit
// weights are typed in, and the carrier services rates are shopped from.
import { SHIPPING_LABEL_SETTING, ShippingLabelSettings } from '@switchyard/contracts';
import { and, eq } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import type { Actor } from '../../trpc/context.ts';
import { accountSettings } from '../accounts/accounts.tables.ts';

export async function getLabelSettings(db: Db, accountId: string): Promise<ShippingLabelSettings> {
  const [row] = await db
    .select({ value: accountSettings.value })
    .from(accountSettings)
    .where(and(eq(accountSettings.accountId, accountId), eq(accountSettings.key, SHIPPING_LABEL_SETTING)));
  const parsed = ShippingLabelSettings.safeParse(row?.value ?? {});
  return parsed.success ? parsed.data : ShippingLabelSettings.parse({});
}

export async function updateLabelSettings(db: Db, actor: Actor, raw: unknown): Promise<ShippingLabelSettings> {
  const value = ShippingLabelSettings.parse(raw ?? {});
  value.services = [...new Set(value.services)];
  await db
    .insert(accountSettings)
    .values({ accountId: actor.accountId, key: SHIPPING_LABEL_SETTING, value })
    .onConflictDoUpdate({
      target: [accountSettings.accountId, accountSettings.key],
      set: { value, updatedAt: new Date() },
    });
  return value;
}
