// Connecting a channel: the signed, single-use `state` that binds an authorization to the account, user,
// provider and channel that started it; the provider's consent URL; and completing the callback.
import { createHash, randomBytes } from 'node:crypto';
import {
  CHANNEL_LABELS,
  type ChannelType,
  DEFAULT_CHANNEL_SETTINGS,
  DEFAULT_FEATURES,
  type GenerateRedirectUrlInput,
  type GetOauthUrlInput,
  type ProcessOauthResult,
} from '@switchyard/contracts';
import { and, eq, inArray, isNull, lt, ne } from 'drizzle-orm';
import { publicUrl } from '../../config.ts';
import { PROVIDERS } from '../../connectors/index.ts';
import type { AuthorizedChannel } from '../../connectors/types.ts';
import type { Db } from '../../db/client.ts';
import { DomainError, fromDatabaseError } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { Services } from '../../services.ts';
import type { Actor } from '../../trpc/context.ts';
import { recordAudit } from '../audit/audit.service.ts';
import {
  assertRoomForChannel,
  type ChannelRow,
  connectorFor,
  findChannel,
  LIVE_STATUSES,
  mergeLocationMap,
  sealCredentials,
} from './channels.service.ts';
import { channels, oauthStates } from './channels.tables.ts';

export const OAUTH_STATE_TTL_MS = 10 * 60 * 1000;
const STATE_RETENTION_MS = 24 * 60 * 60 * 1000;
/** Shopify's own rule for a shop name (the part before .myshopify.com). */
const SHOP_NAME = /^[a-z0-9][a-z0-9_-]*$/;
const STORE_HASH = /^[a-z0-9]{1,64}$/;

const hashState = (state: string) => createHash('sha256').update(state).digest('hex');

/** Where each provider sends the merchant back: the web route, which posts the query to process-oauth. */
export const redirectUriFor = (services: Services, type: ChannelType) =>
  `${publicUrl(services.config)}/oauth/callback/${type}`;

/** "demo.myshopify.com", "https://Demo.myshopify.com/admin" or "demo" → "demo". */
export function shopNameOf(value: string): string {
  const host = value
    .trim()
    .toLowerCase()
    .replace(/^https?:\/\//, '');
  return host.split(/[./]/)[0] ?? '';
}

interface StartInput {
  provider: ChannelType;
  channelId?: string;
  shop?: string;
  environment?: 'production' | 'sandbox';
}

/** Records a fresh state and answers the provider's consent URL carrying it. */
async function startAuthorization(services: Services, actor: Actor, input: StartInput): Promise<{ url: string }> {
  const { db } = services;
  let channel: ChannelRow | undefined;
  if (input.channelId) {
    channel = await findChannel(db, actor, input.channelId);
    if (channel.type !== input.provider) {
      throw new DomainError(
        'VALIDATION',
        `${channel.name} is a ${CHANNEL_LABELS[channel.type]} channel, not ${CHANNEL_LABELS[input.provider]}.`,
      );
    }
  }
  // Refused here already, so the merchant does not go through the provider's consent for nothing.
  if (!channel || channel.status === 'disconnected') await assertRoomForChannel(db, actor.accountId);

  let shop: string | undefined;
  if (input.provider === 'shopify') {
    shop = shopNameOf(input.shop || channel?.externalId || '');
    if (!SHOP_NAME.test(shop)) {
      throw new DomainError('VALIDATION', 'Enter your Shopify shop address, e.g. your-store.myshopify.com.');
    }
  } else if (input.provider === 'bigcommerce') {
    // The store hash names the store the install page is for (context=stores/{hash}).
    shop = shopNameOf(input.shop || channel?.externalId || '') || undefined;
    if (shop !== undefined && !STORE_HASH.test(shop)) {
      throw new DomainError(
        'VALIDATION',
        'Enter your BigCommerce store hash: the code after /stores/ in your control panel address.',
      );
    }
  }
  const environment =
    input.provider === 'square' ? (input.environment ?? services.providers.square.defaultEnvironment) : undefined;
  const redirectUri = redirectUriFor(services, input.provider);
  const state = await issueState(services.db, actor, {
    provider: input.provider,
    channelId: channel?.id ?? null,
    redirectUri,
    environment: environment ?? null,
    shop: shop ?? null,
  });
  const url = PROVIDERS[input.provider]
    .oauth(services.providers)
    .authorizeUrl({ shop, state, redirectUri, environment });
  return { url };
}

/** Records a fresh random state (only its hash is kept) and answers it. */
export async function issueState(
  db: Db,
  actor: Pick<Actor, 'accountId' | 'userId'>,
  input: Pick<typeof oauthStates.$inferInsert, 'provider' | 'channelId' | 'redirectUri' | 'environment' | 'shop'>,
  now = new Date(),
): Promise<string> {
  const state = randomBytes(32).toString('base64url');
  // States are worth nothing once expired; a day's grace keeps "already used" answers meaningful.
  await db.delete(oauthStates).where(lt(oauthStates.expiresAt, new Date(now.getTime() - STATE_RETENTION_MS)));
  await db.insert(oauthStates).values({
    id: newId('oas'),
    stateHash: hashState(state),
    accountId: actor.accountId,
    userId: actor.userId,
    ...input,
    expiresAt: new Date(now.getTime() + OAUTH_STATE_TTL_MS),
  });
  return state;
}

/** `channels.getOauthUrl`: the shop is the part of the shop-or-hash value before its first dot (SPEC §2). */
export function getOauthUrl(services: Services, actor: Actor, input: GetOauthUrlInput) {
  const { shop, hash, channelId } = input.properties;
  return startAuthorization(services, actor, {
    provider: input.provider,
    channelId,
    shop: input.provider === 'shopify' ? shop || hash : input.provider === 'bigcommerce' ? hash || shop : undefined,
  });
}

/** `oauth/{provider}/generate-redirect-url` (the POS route: store empty, environment `api` = production). */
export function generateRedirectUrl(
  services: Services,
  actor: Actor,
  provider: ChannelType,
  input: GenerateRedirectUrlInput,
) {
  return startAuthorization(services, actor, {
    provider,
    channelId: input.channelId,
    shop: input.store || undefined,
    environment: input.environment === 'sandbox' ? 'sandbox' : 'production',
  });
}

/**
 * Spends the callback's state: it must exist for this account (another account's state is not found,
 * and is left unspent), be for this provider, unused and within its 10 minutes.
 */
async function consumeState(services: Services, actor: Actor, provider: ChannelType, state: string | undefined) {
  if (!state)
    throw new DomainError('VALIDATION', 'The authorization came back without its state. Start connecting again.');
  const hash = hashState(state);
  const [found] = await services.db
    .select()
    .from(oauthStates)
    .where(and(eq(oauthStates.stateHash, hash), eq(oauthStates.accountId, actor.accountId)));
  if (!found) throw new DomainError('NOT_FOUND', 'This authorization was not started here. Start connecting again.');
  if (found.provider !== provider) {
    throw new DomainError('VALIDATION', `This authorization was started for ${CHANNEL_LABELS[found.provider]}.`);
  }
  if (found.usedAt)
    throw new DomainError('INVALID_STATE', 'This authorization was already used. Start connecting again.');
  const now = new Date();
  if (found.expiresAt <= now) {
    throw new DomainError('VALIDATION', 'This authorization expired (it lasts 10 minutes). Start connecting again.');
  }
  // The condition repeats in SQL: of two concurrent callbacks with one state, one wins.
  const [spent] = await services.db
    .update(oauthStates)
    .set({ usedAt: now })
    .where(and(eq(oauthStates.id, found.id), isNull(oauthStates.usedAt)))
    .returning({ id: oauthStates.id });
  if (!spent) throw new DomainError('INVALID_STATE', 'This authorization was already used. Start connecting again.');
  return found;
}

const firstLabel = (value: string) => value.toLowerCase().split('.')[0] ?? '';

/** `oauth/{provider}/process-oauth`: the callback's query → a connected channel. */
export async function processOauth(
  services: Services,
  actor: Actor,
  provider: ChannelType,
  query: Record<string, string>,
): Promise<ProcessOauthResult> {
  const state = await consumeState(services, actor, provider, query.state);
  const label = CHANNEL_LABELS[provider];
  if (query.error) {
    const why = query.error_description || query.error;
    throw new DomainError('VALIDATION', `${label} did not grant access (${why.replaceAll('_', ' ')}).`);
  }
  let target: ChannelRow | undefined;
  if (state.channelId) target = await findChannel(services.db, actor, state.channelId);
  // A new channel, or a disconnected one coming back, takes a place in the plan.
  const addsChannel = !target || target.status === 'disconnected';
  if (addsChannel) await assertRoomForChannel(services.db, actor.accountId);

  let authorized: AuthorizedChannel;
  try {
    authorized = await PROVIDERS[provider].oauth(services.providers).completeAuthorization(query, state.redirectUri);
  } catch (err) {
    // A callback that does not verify is a refused authorization, not a signed-out caller: 401 would send
    // the merchant to the login page (SPEC §8).
    if (err instanceof DomainError && err.code === 'UNAUTHORIZED') {
      throw new DomainError('VALIDATION', `${err.message}. Start connecting again.`);
    }
    if (err instanceof DomainError) throw err;
    services.logger.warn(
      { provider, err: { type: (err as Error)?.name, message: (err as Error)?.message } },
      'authorization exchange failed',
    );
    throw new DomainError('UPSTREAM_FAILED', `${label} did not complete the authorization. Try again.`);
  }
  const externalId = authorized.externalId;
  if (state.shop && firstLabel(authorized.credentials.shop ?? externalId) !== state.shop) {
    throw new DomainError('VALIDATION', `The authorization is for another shop than ${state.shop}. Start again.`);
  }
  if (target?.externalId && target.externalId !== externalId) {
    throw new DomainError(
      'VALIDATION',
      `${target.name} is ${target.externalId} at ${label}; you authorised ${externalId}. Connect that one as a new channel.`,
    );
  }

  const channel = await services.db
    .transaction(async (tx) => {
      const [holder] = await tx
        .select({ id: channels.id, accountId: channels.accountId, name: channels.name })
        .from(channels)
        .where(
          and(
            eq(channels.type, provider),
            eq(channels.externalId, externalId),
            inArray(channels.status, [...LIVE_STATUSES]),
            ...(target ? [ne(channels.id, target.id)] : []),
          ),
        );
      if (holder && holder.accountId !== actor.accountId) {
        throw new DomainError(
          'CONFLICT',
          `This ${label} shop is already connected to another Switchyard account. Disconnect it there (or uninstall the app) first.`,
        );
      }
      if (holder) {
        throw new DomainError('CONFLICT', `This ${label} shop is already connected as “${holder.name}”.`);
      }
      if (addsChannel) await assertRoomForChannel(tx, actor.accountId);
      const now = new Date();
      const id = target?.id ?? newId('chn');
      const values = {
        status: 'connected' as const,
        statusMessage: null,
        externalId,
        credentials: sealCredentials(services, id, authorized.credentials),
        connectedAt: now,
        disconnectedAt: null,
        updatedAt: now,
      };
      const [row] = target
        ? await tx
            .update(channels)
            // The name the merchant chose (or the default) stays; a channel made here takes the shop's.
            .set(values)
            .where(eq(channels.id, id))
            .returning()
        : await tx
            .insert(channels)
            .values({
              id,
              accountId: actor.accountId,
              type: provider,
              name: authorized.name || label,
              features: DEFAULT_FEATURES,
              settings: DEFAULT_CHANNEL_SETTINGS,
              ...values,
            })
            .returning();
      if (!row) throw new Error('channel write returned no row');
      await recordAudit(tx, {
        accountId: actor.accountId,
        actorUserId: actor.userId,
        action: target && target.status !== 'pending' ? 'channel.reauthorize' : 'channel.connect',
        detail: { channelId: id, type: provider, externalId },
      });
      return row;
    })
    .catch((err) => {
      throw err instanceof DomainError
        ? err
        : (fromDatabaseError(err, `This ${label} shop is already connected.`) ?? err);
    });

  await finishConnecting(services, channel);
  const [after] = await services.db.select().from(channels).where(eq(channels.id, channel.id));
  const row = after ?? channel;
  return { channelId: row.id, type: row.type, name: row.name, status: row.status };
}

/**
 * After the credentials are stored: subscribe the provider's webhooks to us and list the shop's locations
 * into the location map. A failure here leaves the channel connected with a message saying what to redo.
 */
async function finishConnecting(services: Services, row: ChannelRow) {
  const connector = connectorFor(services, row);
  const problems: string[] = [];
  try {
    await connector.subscribeWebhooks(`${publicUrl(services.config)}/webhooks/${row.type}`);
  } catch (err) {
    problems.push('webhooks could not be subscribed');
    services.logger.warn(
      { channelId: row.id, err: { message: (err as Error)?.message } },
      'webhook subscription failed',
    );
  }
  try {
    const locations = await connector.listLocations();
    await services.db.transaction(async (tx) => {
      const [current] = await tx.select().from(channels).where(eq(channels.id, row.id)).for('update');
      if (!current) return;
      const section = { ...DEFAULT_CHANNEL_SETTINGS.channel, ...current.settings.channel };
      section.locationMap = mergeLocationMap(row.type, section.locationMap, locations);
      await tx
        .update(channels)
        .set({ settings: { ...DEFAULT_CHANNEL_SETTINGS, ...current.settings, channel: section } })
        .where(eq(channels.id, row.id));
    });
  } catch (err) {
    problems.push('its locations could not be listed');
    services.logger.warn({ channelId: row.id, err: { message: (err as Error)?.message } }, 'listing locations failed');
  }
  if (problems.length) {
    const message = `Connected, but ${problems.join(' and ')}. Re-authorise to try again.`;
    await services.db
      .update(channels)
      .set({ statusMessage: message, lastError: message, lastErrorAt: new Date() })
      .where(eq(channels.id, row.id));
  }
}
