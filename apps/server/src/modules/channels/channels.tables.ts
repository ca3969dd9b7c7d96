import type { ChannelFeatures, ChannelSettings, ChannelStatus, ChannelType } from '@switchyard/contracts';
import { sql } from 'drizzle-orm';
import { check, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { accounts, users } from '../accounts/accounts.tables.ts';

const at = () => timestamp({ withTimezone: true });

/**
 * The merchant's sales channels: one row per shop at a provider. `credentials` is AES-256-GCM sealed JSON
 * (lib/crypto.ts) bound to the row's id, null until authorised and again once disconnected.
 */
export const channels = pgTable(
  'channels',
  {
    id: text().primaryKey(),
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    type: text().$type<ChannelType>().notNull(),
    name: text().notNull(),
    status: text().$type<ChannelStatus>().notNull().default('pending'),
    statusMessage: text(),
    /** Shop name, store hash or Square merchant id; kept after a disconnect so re-authorising finds it. */
    externalId: text(),
    credentials: text(),
    features: jsonb().$type<ChannelFeatures>().notNull(),
    settings: jsonb().$type<ChannelSettings>().notNull(),
    connectedAt: at(),
    disconnectedAt: at(),
    lastSyncAt: at(),
    lastErrorAt: at(),
    lastError: text(),
    createdAt: at().notNull().defaultNow(),
    updatedAt: at().notNull().defaultNow(),
  },
  (t) => [
    index('channels_account_idx').on(t.accountId, t.createdAt),
    // One live installation per shop across the product: a shop cannot feed two channels at once.
    uniqueIndex('channels_live_shop_key').on(t.type, t.externalId).where(sql`${t.status} in ('connected', 'error')`),
    check('channels_type_check', sql`${t.type} in ('shopify', 'bigcommerce', 'square')`),
    check('channels_status_check', sql`${t.status} in ('pending', 'connected', 'error', 'disconnected')`),
  ],
);

/**
 * One row per authorization started: only a SHA-256 of the random `state` is kept. It binds the account,
 * user, provider and channel, lives 10 minutes and is spent by its first use.
 */
export const oauthStates = pgTable(
  'oauth_states',
  {
    id: text().primaryKey(),
    stateHash: text().notNull(),
    accountId: text()
      .notNull()
      .references(() => accounts.id),
    userId: text()
      .notNull()
      .references(() => users.id),
    provider: text().$type<ChannelType>().notNull(),
    /** The channel the authorization completes; null: a new channel is made on success. */
    channelId: text().references(() => channels.id),
    redirectUri: text().notNull(),
    environment: text().$type<'production' | 'sandbox'>(),
    /** Shopify: the shop the consent page was for; the callback must name the same one. */
    shop: text(),
    expiresAt: at().notNull(),
    usedAt: at(),
    createdAt: at().notNull().defaultNow(),
  },
  (t) => [uniqueIndex('oauth_states_hash_key').on(t.stateHash), index('oauth_states_expires_idx').on(t.expiresAt)],
);

/**
 * Verified provider webhook deliveries, stored before they are answered and processed by the
 * `channels.webhook` job. (provider, event_id) is unique, so a redelivery is a no-op. The account and
 * channel are resolved from the shop's external id; both stay null for a shop no channel has.
 */
export const webhookEvents = pgTable(
  'webhook_events',
  {
    id: text().primaryKey(),
    provider: text().$type<ChannelType>().notNull(),
    eventId: text().notNull(),
    topic: text().notNull(),
    shopExternalId: text().notNull(),
    accountId: text().references(() => accounts.id),
    channelId: text().references(() => channels.id),
    payload: jsonb().notNull(),
    occurredAt: at(),
    receivedAt: at().notNull().defaultNow(),
    processedAt: at(),
    /** What processing did, in words: "channel disconnected", "no handler yet", … */
    outcome: text(),
    attempts: integer().notNull().default(0),
    error: text(),
  },
  (t) => [
    uniqueIndex('webhook_events_provider_event_key').on(t.provider, t.eventId),
    index('webhook_events_channel_idx').on(t.channelId, t.receivedAt),
    // The events a channel's passes wait on, oldest first: without it each pass read past every event the
    // channel ever had processed (a few ms at a few thousand, and growing), to find the few that wait.
    index('webhook_events_waiting_idx').on(t.channelId, t.receivedAt, t.id).where(sql`${t.processedAt} is null`),
  ],
);
