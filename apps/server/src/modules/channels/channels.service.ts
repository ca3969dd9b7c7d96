// Sales channels: the merchant's shops at Shopify, BigCommerce and Square, their settings, and the
// provider calls onboarding needs (locations, stores). Authorization is in channels.oauth.ts, webhooks in
// channels.webhooks.ts.
import {
  CHANNEL_LABELS,
  CHANNEL_SETTING_SCHEMAS,
  type ChannelDetail,
  type ChannelFeatures,
  type ChannelSettingKey,
  type ChannelSettings,
  type ChannelSummary,
  type ChannelType,
  DEFAULT_CHANNEL_SETTINGS,
  DEFAULT_FEATURES,
  type IntegrationCreateInput,
  type LocationMapping,
  type PatchChannelInput,
  type ProviderStore,
} from '@switchyard/contracts';
import { and, count, desc, eq, inArray, isNotNull, sql } from 'drizzle-orm';
import type { z } from 'zod';
import { ProviderHttpError } from '../../connectors/http.ts';
import { PROVIDERS } from '../../connectors/index.ts';
import type { ChannelCredentials, Connector, ConnectorOptions, ProviderLocation } from '../../connectors/types.ts';
import type { Db } from '../../db/client.ts';
import { decryptJson, encryptJson } from '../../lib/crypto.ts';
import { DomainError } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { Services } from '../../services.ts';
import type { Actor } from '../../trpc/context.ts';
import { recordAudit } from '../audit/audit.service.ts';
import { assertWithinPlan } from '../billing/plan-limits.ts';
import { channels } from './channels.tables.ts';

export type ChannelRow = typeof channels.$inferSelect;

const NOT_FOUND = 'Channel not found';
/** The window of ChannelSummary.errorCount. */
const ERROR_WINDOW_MS = 24 * 60 * 60 * 1000;

/** Statuses in which the channel holds an installation at the provider (one per shop, see the unique index). */
export const LIVE_STATUSES = ['connected', 'error'] as const;

export const sealCredentials = (services: Services, channelId: string, credentials: ChannelCredentials) =>
  encryptJson(services.credentialsKey, credentials, channelId);

// Spelled out: Drizzle leaves columns unqualified in a single-table select, which would make `id` inside
// the subquery the event's own id.
const recentErrors = (since: Date) =>
  sql<number>`(select count(*)::int from webhook_events e where e.channel_id = "channels"."id" and e.error is not null and e.received_at > ${since.toISOString()})`;

const summaryColumns = (now: Date) => ({
  row: channels,
  errorCount: recentErrors(new Date(now.getTime() - ERROR_WINDOW_MS)),
});

function toSummary(row: ChannelRow, errorCount: number): ChannelSummary {
  return {
    id: row.id,
    type: row.type,
    name: row.name,
    status: row.status,
    externalId: row.externalId,
    statusMessage: row.statusMessage,
    features: { ...DEFAULT_FEATURES, ...row.features },
    connectedAt: row.connectedAt,
    lastSyncAt: row.lastSyncAt,
    errorCount: Number(errorCount),
    createdAt: row.createdAt,
  };
}

function toDetail(row: ChannelRow, errorCount: number): ChannelDetail {
  const s = row.settings;
  return {
    ...toSummary(row, errorCount),
    settings: {
      shipping: { ...DEFAULT_CHANNEL_SETTINGS.shipping, ...s.shipping },
      product: { ...DEFAULT_CHANNEL_SETTINGS.product, ...s.product },
      channel: { ...DEFAULT_CHANNEL_SETTINGS.channel, ...s.channel },
      advanced: { ...DEFAULT_CHANNEL_SETTINGS.advanced, ...s.advanced },
    },
  };
}

const own = (actor: Pick<Actor, 'accountId'>, id: string) =>
  and(eq(channels.accountId, actor.accountId), eq(channels.id, id));

/** The caller's channel row, or NOT_FOUND (also for another account's id). */
export async function findChannel(db: Db, actor: Pick<Actor, 'accountId'>, id: string): Promise<ChannelRow> {
  const [row] = await db.select().from(channels).where(own(actor, id));
  if (!row) throw new DomainError('NOT_FOUND', NOT_FOUND);
  return row;
}

export async function listChannels(db: Db, actor: Actor, now = new Date()): Promise<ChannelSummary[]> {
  const rows = await db
    .select(summaryColumns(now))
    .from(channels)
    .where(eq(channels.accountId, actor.accountId))
    .orderBy(channels.createdAt, channels.id);
  return rows.map(({ row, errorCount }) => toSummary(row, errorCount));
}

export async function getChannel(db: Db, actor: Pick<Actor, 'accountId'>, id: string): Promise<ChannelDetail> {
  const [found] = await db.select(summaryColumns(new Date())).from(channels).where(own(actor, id));
  if (!found) throw new DomainError('NOT_FOUND', NOT_FOUND);
  return toDetail(found.row, found.errorCount);
}

/** A channel's number within its type, so a second Shopify store gets a name apart from the first. */
async function defaultName(db: Db, accountId: string, type: ChannelType) {
  const [existing] = await db
    .select({ n: count() })
    .from(channels)
    .where(and(eq(channels.accountId, accountId), eq(channels.type, type)));
  const n = existing?.n ?? 0;
  return n === 0 ? CHANNEL_LABELS[type] : `${CHANNEL_LABELS[type]} ${n + 1}`;
}

/** Refuses a channel the account's plan has no room for (PLAN_LIMIT, naming the limit and the upgrade). */
export function assertRoomForChannel(db: Db, accountId: string): Promise<void> {
  return assertWithinPlan(db, accountId, 'channels');
}

/** `POST integration/create`: the pending record an authorization then completes. */
export async function createIntegration(db: Db, actor: Actor, input: IntegrationCreateInput): Promise<ChannelSummary> {
  return db.transaction(async (tx) => {
    await assertRoomForChannel(tx, actor.accountId);
    const id = newId('chn');
    const [row] = await tx
      .insert(channels)
      .values({
        id,
        accountId: actor.accountId,
        type: input.type,
        name: input.name ?? (await defaultName(tx, actor.accountId, input.type)),
        status: 'pending',
        features: DEFAULT_FEATURES,
        settings: DEFAULT_CHANNEL_SETTINGS,
      })
      .returning();
    if (!row) throw new Error('insert returned no row');
    await recordAudit(tx, {
      accountId: actor.accountId,
      actorUserId: actor.userId,
      action: 'channel.create',
      detail: { channelId: id, type: input.type },
    });
    return toSummary(row, 0);
  });
}

export async function renameChannel(
  db: Db,
  actor: Actor,
  id: string,
  input: PatchChannelInput,
): Promise<ChannelDetail> {
  if (input.name !== undefined) {
    const name = input.name;
    await db.transaction(async (tx) => {
      const [row] = await tx
        .update(channels)
        .set({ name, updatedAt: new Date() })
        .where(own(actor, id))
        .returning({ id: channels.id });
      if (!row) throw new DomainError('NOT_FOUND', NOT_FOUND);
      await audit(tx, actor, 'channel.rename', { channelId: id, name });
    });
  }
  return getChannel(db, actor, id);
}

/** Switches some features; the row is locked so two switches flipped at once both stick. */
export async function updateFeatures(
  db: Db,
  actor: Actor,
  id: string,
  input: Partial<ChannelFeatures>,
): Promise<ChannelDetail> {
  await db.transaction(async (tx) => {
    const [row] = await tx.select().from(channels).where(own(actor, id)).for('update');
    if (!row) throw new DomainError('NOT_FOUND', NOT_FOUND);
    await tx
      .update(channels)
      .set({ features: { ...DEFAULT_FEATURES, ...row.features, ...input }, updatedAt: new Date() })
      .where(own(actor, id));
    await audit(tx, actor, 'channel.features', { channelId: id, ...input });
  });
  return getChannel(db, actor, id);
}

const audit = (db: Db, actor: Actor, action: string, detail: Record<string, unknown>) =>
  recordAudit(db, { accountId: actor.accountId, actorUserId: actor.userId, action, detail });

/**
 * Validates one settings section against its contract schema. The REST edge takes the body as it comes
 * (the schema depends on the path's key), so the message names the field as a form would.
 */
export function parseSettingsSection<K extends ChannelSettingKey>(key: K, body: unknown): ChannelSettings[K] {
  const parsed = (CHANNEL_SETTING_SCHEMAS[key] as unknown as z.ZodType<ChannelSettings[K]>).safeParse(body);
  if (!parsed.success) {
    const detail = parsed.error.issues
      .map((issue) => (issue.path.length ? `${issue.path.join('.')}: ${issue.message}` : issue.message))
      .join('; ');
    throw new DomainError('VALIDATION', `Invalid ${key} settings: ${detail}`);
  }
  return parsed.data;
}

function checkSection<K extends ChannelSettingKey>(key: K, section: ChannelSettings[K], type: ChannelType) {
  if (key === 'channel') {
    const seen = new Set<string>();
    const stores = new Set<string>();
    for (const [i, m] of (section as ChannelSettings['channel']).locationMap.entries()) {
      // Two Square stores cannot be one location of ours: each would sell the other's stock.
      if (type === 'square' && m.storeId) {
        if (stores.has(m.storeId)) {
          throw new DomainError(
            'VALIDATION',
            `locationMap.${i}.storeId: another Square store is already that location`,
          );
        }
        stores.add(m.storeId);
      }
      if (seen.has(m.externalLocationId)) {
        throw new DomainError('VALIDATION', `locationMap.${i}.externalLocationId: ${m.externalName} is listed twice`);
      }
      seen.add(m.externalLocationId);
    }
  }
  if (key === 'shipping') {
    const seen = new Set<string>();
    for (const [i, m] of (section as ChannelSettings['shipping']).methodMap.entries()) {
      const name = m.channelMethod.toLowerCase();
      if (seen.has(name)) {
        throw new DomainError('VALIDATION', `methodMap.${i}.channelMethod: “${m.channelMethod}” is mapped twice`);
      }
      seen.add(name);
    }
  }
}

/** `PUT channels/{id}/settings/{key}`: replaces one section. */
export async function updateSettings<K extends ChannelSettingKey>(
  db: Db,
  actor: Actor,
  id: string,
  key: K,
  body: unknown,
): Promise<ChannelDetail> {
  const section = parseSettingsSection(key, body);
  await db.transaction(async (tx) => {
    const [row] = await tx.select().from(channels).where(own(actor, id)).for('update');
    if (!row) throw new DomainError('NOT_FOUND', NOT_FOUND);
    checkSection(key, section, row.type);
    await tx
      .update(channels)
      .set({ settings: { ...DEFAULT_CHANNEL_SETTINGS, ...row.settings, [key]: section }, updatedAt: new Date() })
      .where(own(actor, id));
    await audit(tx, actor, 'channel.settings', { channelId: id, key });
  });
  return getChannel(db, actor, id);
}

/**
 * Disconnecting keeps the record and its settings (re-authorising picks them up again) but forgets the
 * credentials: we are no longer allowed to use them.
 */
export async function disconnectChannel(db: Db, actor: Actor, id: string): Promise<ChannelSummary> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .update(channels)
      .set({
        status: 'disconnected',
        statusMessage: 'Disconnected in Switchyard. Re-authorise to connect it again.',
        credentials: null,
        disconnectedAt: new Date(),
        updatedAt: new Date(),
      })
      .where(own(actor, id))
      .returning();
    if (!row) throw new DomainError('NOT_FOUND', NOT_FOUND);
    await recordAudit(tx, {
      accountId: actor.accountId,
      actorUserId: actor.userId,
      action: 'channel.disconnect',
      detail: { channelId: id, type: row.type, externalId: row.externalId },
    });
    const [errors] = await tx.select(summaryColumns(new Date())).from(channels).where(eq(channels.id, id));
    return toSummary(row, errors?.errorCount ?? 0);
  });
}

/** An authenticated client for a channel that holds credentials (`calls`: a timeout and retries other than the defaults). */
export function connectorFor(
  services: Services,
  row: ChannelRow,
  calls: Pick<ConnectorOptions, 'timeoutMs' | 'maxRetries'> = {},
): Connector {
  if (!row.credentials || !LIVE_STATUSES.includes(row.status as (typeof LIVE_STATUSES)[number])) {
    throw new DomainError('INVALID_STATE', `${row.name} is not connected. Re-authorise it first.`);
  }
  const credentials = decryptJson<ChannelCredentials>(services.credentialsKey, row.credentials, row.id);
  return PROVIDERS[row.type].connect(services.providers, credentials, {
    logger: services.logger.child({ channelId: row.id, provider: row.type }),
    ...calls,
    onCredentials: async (next) => {
      await services.db
        .update(channels)
        .set({ credentials: sealCredentials(services, row.id, next), updatedAt: new Date() })
        .where(eq(channels.id, row.id));
    },
  });
}

/**
 * Turns a failed provider call into what the merchant can act on. A refusal of our credentials puts the
 * channel in error (re-authorise); anything else is a provider failure, logged without its body.
 */
export async function providerFailure(services: Services, row: ChannelRow, err: unknown): Promise<DomainError> {
  if (err instanceof DomainError) return err;
  const label = CHANNEL_LABELS[row.type];
  if (err instanceof ProviderHttpError && (err.status === 401 || err.status === 403)) {
    const message = `${label} refused our access to ${row.name}. Re-authorise the channel.`;
    await services.db
      .update(channels)
      .set({ status: 'error', statusMessage: message, lastError: message, lastErrorAt: new Date() })
      .where(and(eq(channels.id, row.id), inArray(channels.status, [...LIVE_STATUSES])));
    return new DomainError('UPSTREAM_FAILED', message);
  }
  services.logger.warn(
    { channelId: row.id, provider: row.type, err: { type: (err as Error)?.name, message: (err as Error)?.message } },
    'provider call failed',
  );
  return new DomainError('UPSTREAM_FAILED', `${label} did not answer as expected. Try again in a moment.`);
}

const toStore = (location: ProviderLocation): ProviderStore => {
  const a = location.address;
  const address = a ? [a.address1, a.city, a.province, a.zip, a.country].filter(Boolean).join(', ') : '';
  return { id: location.externalId, name: location.name, active: location.active, address: address || null };
};

async function locationsOf(services: Services, row: ChannelRow): Promise<ProviderStore[]> {
  try {
    return (await connectorFor(services, row).listLocations()).map(toStore);
  } catch (err) {
    throw await providerFailure(services, row, err);
  }
}

/** `GET wrappers/{platform}/locations?channel_id=`: the channel's own locations at its provider. */
export async function listChannelLocations(
  services: Services,
  actor: Actor,
  platform: ChannelType,
  channelId: string,
): Promise<{ locations: ProviderStore[] }> {
  const row = await findChannel(services.db, actor, channelId);
  if (row.type !== platform) throw new DomainError('NOT_FOUND', NOT_FOUND);
  return { locations: await locationsOf(services, row) };
}

/**
 * `GET wrappers/square/stores`: the locations of the account's connected Square, the POS stores channel
 * locations map to. Empty while no Square is connected.
 */
export async function listSquareStores(services: Services, actor: Actor): Promise<{ stores: ProviderStore[] }> {
  const [row] = await services.db
    .select()
    .from(channels)
    .where(
      and(
        eq(channels.accountId, actor.accountId),
        eq(channels.type, 'square'),
        eq(channels.status, 'connected'),
        isNotNull(channels.credentials),
      ),
    )
    .orderBy(desc(channels.connectedAt))
    .limit(1);
  if (!row) return { stores: [] };
  return { stores: await locationsOf(services, row) };
}

/**
 * The location map after (re)authorising: every provider location is listed, feeding the channel by
 * default; mappings the merchant already made are kept. A Square location is its own POS store.
 */
export function mergeLocationMap(
  type: ChannelType,
  current: LocationMapping[],
  locations: ProviderLocation[],
): LocationMapping[] {
  const known = new Map(current.map((m) => [m.externalLocationId, m]));
  const merged = locations.map((l): LocationMapping => {
    const existing = known.get(l.externalId);
    return {
      externalLocationId: l.externalId,
      externalName: l.name,
      storeId: existing ? existing.storeId : type === 'square' ? l.externalId : null,
      feeds: existing ? existing.feeds : l.active,
    };
  });
  return merged.slice(0, 200);
}
