// Settings → Fulfillment (issue 15): the stored shipping location (SPEC §3: `{ store_id }`, the store the queue
// opens on) and the pickup e-mail texts. Both are account settings, read and written in the caller's account
// only; a store_id of another account's location is not found.
import {
  DEFAULT_PICKUP_EMAILS,
  FULFILLMENT_SETTINGS_MESSAGES,
  type FulfillmentSettings,
  PICKUP_EMAILS_SETTING,
  PickupEmails,
  SHIPPING_LOCATION_SETTING,
  ShippingLocationInput,
} from '@switchyard/contracts';
import { and, eq, inArray } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.ts';
import { DomainError } from '../../lib/errors.ts';
import type { Actor } from '../../trpc/context.ts';
import { accountSettings } from '../accounts/accounts.tables.ts';
import { locationByStoreId } from '../locations/locations.read.ts';

/** The account's pickup e-mail texts: its own when it saved valid ones, else the defaults. */
export async function getPickupEmails(db: Db | Tx, accountId: string): Promise<PickupEmails> {
  const [row] = await db
    .select({ value: accountSettings.value })
    .from(accountSettings)
    .where(and(eq(accountSettings.accountId, accountId), eq(accountSettings.key, PICKUP_EMAILS_SETTING)));
  const parsed = PickupEmails.safeParse(row?.value);
  return parsed.success ? parsed.data : DEFAULT_PICKUP_EMAILS;
}

export async function getFulfillmentSettings(db: Db, actor: Actor): Promise<FulfillmentSettings> {
  const rows = await db
    .select({ key: accountSettings.key, value: accountSettings.value })
    .from(accountSettings)
    .where(
      and(
        eq(accountSettings.accountId, actor.accountId),
        inArray(accountSettings.key, [SHIPPING_LOCATION_SETTING, PICKUP_EMAILS_SETTING]),
      ),
    );
  const stored = rows.find((r) => r.key === SHIPPING_LOCATION_SETTING)?.value as { store_id?: unknown } | undefined;
  const emails = PickupEmails.safeParse(rows.find((r) => r.key === PICKUP_EMAILS_SETTING)?.value);
  return {
    shipping_location: typeof stored?.store_id === 'string' ? { store_id: stored.store_id } : null,
    pickup_emails: emails.success ? emails.data : DEFAULT_PICKUP_EMAILS,
    pickup_emails_custom: emails.success,
  };
}

async function put(db: Db, accountId: string, key: string, value: unknown) {
  await db
    .insert(accountSettings)
    .values({ accountId, key, value })
    .onConflictDoUpdate({
      target: [accountSettings.accountId, accountSettings.key],
      set: { value, updatedAt: new Date() },
    });
}

const remove = (db: Db, accountId: string, key: string) =>
  db.delete(accountSettings).where(and(eq(accountSettings.accountId, accountId), eq(accountSettings.key, key)));

/** Stores the shipping location (one of the account's enabled locations), or clears it with null. */
export async function setShippingLocation(db: Db, actor: Actor, raw: unknown): Promise<FulfillmentSettings> {
  const input = ShippingLocationInput.parse(raw);
  if (input.store_id === null) {
    await remove(db, actor.accountId, SHIPPING_LOCATION_SETTING);
    return getFulfillmentSettings(db, actor);
  }
  const location = await locationByStoreId(db, actor.accountId, input.store_id);
  if (!location) throw new DomainError('NOT_FOUND', FULFILLMENT_SETTINGS_MESSAGES.storeNotFound(input.store_id));
  if (!location.enabled)
    throw new DomainError('VALIDATION', FULFILLMENT_SETTINGS_MESSAGES.storeDisabled(location.name));
  await put(db, actor.accountId, SHIPPING_LOCATION_SETTING, { store_id: location.storeId });
  return getFulfillmentSettings(db, actor);
}

/** Saves the pickup e-mail texts; texts equal to the defaults are not stored, so they follow the defaults. */
export async function updatePickupEmails(db: Db, actor: Actor, raw: unknown): Promise<FulfillmentSettings> {
  const value = PickupEmails.parse(raw);
  const isDefault = JSON.stringify(PickupEmails.parse(DEFAULT_PICKUP_EMAILS)) === JSON.stringify(value);
  if (isDefault) await remove(db, actor.accountId, PICKUP_EMAILS_SETTING);
  else await put(db, actor.accountId, PICKUP_EMAILS_SETTING, value);
  return getFulfillmentSettings(db, actor);
}
