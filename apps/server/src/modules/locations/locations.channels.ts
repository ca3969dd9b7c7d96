// Locations made from a channel's own (issue 19): a merchant who sells through Shopify or BigCommerce
// without a Square point of sale has no location for the shop's stock to land at. The channel's locations
// (name, address, whether they ship or serve pickup) become ours with store ids the merchant can edit, the
// channel's location map points at them, and a catalog import takes the shop's stock.
import {
  type ChannelLocationDrafts,
  type ChannelMappingStatus,
  type CreatedLocationsFromChannel,
  type CreateLocationsFromChannelInput,
  DEFAULT_FEATURES,
  type LocationMapping,
  suggestStoreId,
} from '@switchyard/contracts';
import { and, eq, inArray } from 'drizzle-orm';
import type { ProviderLocation } from '../../connectors/types.ts';
import { DomainError, fromDatabaseError } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { Services } from '../../services.ts';
import type { Actor } from '../../trpc/context.ts';
import { recordAudit } from '../audit/audit.service.ts';
import { assertWithinPlan } from '../billing/plan-limits.ts';
import {
  type ChannelRow,
  connectorFor,
  findChannel,
  LIVE_STATUSES,
  providerFailure,
} from '../channels/channels.service.ts';
import { channels } from '../channels/channels.tables.ts';
import { channelSettingsOf, queueCatalogImport } from '../products/catalog-import.ts';
import { toLocation } from './locations.service.ts';
import { locations } from './locations.tables.ts';

/** Channel locations that feed the channel but name none of ours (their stock is not imported). */
export function unmappedLocations(map: LocationMapping[], storeIds: Set<string>): LocationMapping[] {
  return map.filter((m) => m.feeds && !(m.storeId && storeIds.has(m.storeId)));
}

/** Every live channel's mapping against our locations, from the saved maps (no provider call). */
export async function mappingStatus(
  services: Services,
  actor: Pick<Actor, 'accountId'>,
): Promise<ChannelMappingStatus[]> {
  const { db } = services;
  const [rows, ours] = await Promise.all([
    db
      .select()
      .from(channels)
      .where(and(eq(channels.accountId, actor.accountId), inArray(channels.status, [...LIVE_STATUSES])))
      .orderBy(channels.createdAt, channels.id),
    db.select({ storeId: locations.storeId }).from(locations).where(eq(locations.accountId, actor.accountId)),
  ]);
  const storeIds = new Set(ours.map((l) => l.storeId));
  return rows.map((row) => {
    const map = channelSettingsOf(row).channel.locationMap;
    const mapped = map.filter((m) => m.storeId && storeIds.has(m.storeId)).length;
    const unmapped = unmappedLocations(map, storeIds).length;
    return {
      channelId: row.id,
      type: row.type,
      name: row.name,
      mapped,
      unmapped,
      offer: row.type !== 'square' && mapped === 0 && unmapped > 0,
    };
  });
}

async function platformChannel(services: Services, actor: Pick<Actor, 'accountId'>, channelId: string) {
  const row = await findChannel(services.db, actor, channelId);
  if (row.type === 'square') {
    throw new DomainError('INVALID_STATE', 'Square locations become your locations when its catalog is imported.');
  }
  return row;
}

async function providerLocations(services: Services, row: ChannelRow): Promise<ProviderLocation[]> {
  const connector = connectorFor(services, row);
  try {
    return await connector.listLocations();
  } catch (err) {
    throw await providerFailure(services, row, err);
  }
}

/**
 * The channel's active locations that no location of ours takes yet, as locations to make: the channel's
 * name, address and fulfilment, and a store id from the name (unique in the account).
 */
export async function channelDrafts(
  services: Services,
  actor: Pick<Actor, 'accountId'>,
  channelId: string,
): Promise<ChannelLocationDrafts> {
  const row = await platformChannel(services, actor, channelId);
  const live = await providerLocations(services, row);
  const ours = await services.db
    .select({ storeId: locations.storeId })
    .from(locations)
    .where(eq(locations.accountId, actor.accountId));
  const taken = new Set(ours.map((l) => l.storeId));
  const saved = new Map(channelSettingsOf(row).channel.locationMap.map((m) => [m.externalLocationId, m]));
  const drafts = live
    .filter((l) => {
      const storeId = saved.get(l.externalId)?.storeId;
      return l.active && !(storeId && taken.has(storeId));
    })
    .map((l) => ({
      externalLocationId: l.externalId,
      name: l.name.trim().slice(0, 100) || l.externalId.slice(0, 100),
      store_id: suggestStoreId(l.name, taken),
      ships: l.ships ?? true,
      pickup: l.pickup ?? false,
      address: {
        address1: l.address?.address1 ?? null,
        city: l.address?.city ?? null,
        province: l.address?.province ?? null,
        zip: l.address?.zip ?? null,
        country: l.address?.country ?? null,
      },
    }));
  return { channelId, drafts };
}

/**
 * Makes the given channel locations ours and maps the channel to them, all or nothing (the plan's location
 * limit and unique store ids hold for the whole batch), then queues a catalog import that takes the shop's
 * stock as the first stock of the new locations.
 */
export async function createLocationsFromChannel(
  services: Services,
  actor: Actor,
  input: CreateLocationsFromChannelInput,
): Promise<CreatedLocationsFromChannel> {
  const row = await platformChannel(services, actor, input.channelId);
  const storeIds = input.locations.map((l) => l.store_id);
  const twice = storeIds.find((id, i) => storeIds.indexOf(id) !== i);
  if (twice) throw new DomainError('VALIDATION', `store_id: “${twice}” is given to more than one location.`);
  const externalIds = input.locations.map((l) => l.externalLocationId);
  if (new Set(externalIds).size !== externalIds.length) {
    throw new DomainError('VALIDATION', 'locations: a channel location is listed twice.');
  }

  let created: CreatedLocationsFromChannel['locations'];
  try {
    created = await services.db.transaction(async (tx) => {
      const [locked] = await tx.select().from(channels).where(eq(channels.id, row.id)).for('update');
      if (!locked) throw new DomainError('NOT_FOUND', 'Channel not found');
      const settings = channelSettingsOf(locked);
      const map = settings.channel.locationMap;
      const known = new Set(map.map((m) => m.externalLocationId));
      const stranger = input.locations.find((l) => !known.has(l.externalLocationId));
      if (stranger) {
        throw new DomainError('VALIDATION', `${stranger.name} is not a location of ${row.name}. Reload the page.`);
      }
      const taken = await tx
        .select({ storeId: locations.storeId })
        .from(locations)
        .where(and(eq(locations.accountId, actor.accountId), inArray(locations.storeId, storeIds)));
      if (taken[0]) {
        throw new DomainError(
          'CONFLICT',
          `Another location already has store id “${taken[0].storeId}”. Each location needs its own store.`,
        );
      }
      const rows = [];
      for (const l of input.locations) {
        await assertWithinPlan(tx, actor.accountId, 'locations');
        const [inserted] = await tx
          .insert(locations)
          .values({
            id: newId('loc'),
            accountId: actor.accountId,
            name: l.name,
            storeId: l.store_id,
            ships: l.ships,
            pickup: l.pickup,
            address: Object.fromEntries(
              Object.entries(l.address).map(([k, v]) => [k, v === '' || v === undefined ? null : v]),
            ),
          })
          .returning();
        if (!inserted) throw new Error('insert returned no row');
        rows.push(inserted);
      }
      const storeOf = new Map(input.locations.map((l) => [l.externalLocationId, l.store_id]));
      const locationMap = map.map((m) => {
        const storeId = storeOf.get(m.externalLocationId);
        return storeId ? { ...m, storeId, feeds: true } : m;
      });
      await tx
        .update(channels)
        .set({ settings: { ...settings, channel: { ...settings.channel, locationMap } }, updatedAt: new Date() })
        .where(eq(channels.id, row.id));
      await recordAudit(tx, {
        accountId: actor.accountId,
        actorUserId: actor.userId,
        action: 'location.create_from_channel',
        detail: { channelId: row.id, locationIds: rows.map((r) => r.id), storeIds },
      });
      return rows.map(toLocation);
    });
  } catch (err) {
    throw fromDatabaseError(err) ?? err;
  }

  let syncId: number | null = null;
  if ({ ...DEFAULT_FEATURES, ...row.features }.catalog) {
    try {
      syncId = await queueCatalogImport(services, {
        accountId: actor.accountId,
        channelId: row.id,
        trigger: 'manual',
      });
    } catch (err) {
      services.logger.warn({ err, channelId: row.id }, 'import after creating locations not queued');
    }
  }
  return { locations: created, syncId };
}
