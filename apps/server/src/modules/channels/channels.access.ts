// What a shop says about our access to it: the app uninstalled (the channel is disconnected and the merchant
// told), or our authorization revoked without removing the app (the channel needs re-authorising).
import { CHANNEL_LABELS } from '@switchyard/contracts';
import { eq } from 'drizzle-orm';
import { publicUrl } from '../../config.ts';
import { ProviderHttpError } from '../../connectors/http.ts';
import type { Services } from '../../services.ts';
import { users } from '../accounts/accounts.tables.ts';
import { dispatchMail, queueMail } from '../mail/mail.service.ts';
import { notifyChannelDisconnected } from '../notifications/notifications.producers.ts';
import { connectorFor, LIVE_STATUSES } from './channels.service.ts';
import { channels, type webhookEvents } from './channels.tables.ts';

/** The app was removed from the shop. */
export const UNINSTALL_TOPICS = new Set(['app/uninstalled', 'store/app/uninstalled']);
/** The shop withdrew our access without removing the app. */
export const REVOKED_TOPICS = new Set(['oauth.authorization.revoked']);

type EventRow = typeof webhookEvents.$inferSelect;

/**
 * A late delivery about an installation the merchant has since authorised again changes nothing. Providers
 * stamp events in whole seconds, so only a full second before the authorization is older.
 */
const olderThanAuthorization = (event: EventRow, channel: { connectedAt: Date | null }) =>
  !!event.occurredAt && !!channel.connectedAt && event.occurredAt.getTime() + 1000 <= channel.connectedAt.getTime();

/** How long the check that our token still works may take; it is sent once (no answer: the notice is followed). */
const PROBE_TIMEOUT_MS = 5000;

/**
 * Shopify signs a webhook's body only: its event id and time come in headers anyone holding one delivery can
 * change, so a recorded `app/uninstalled` could be sent again as a new event and disconnect a shop that still
 * has the app. An uninstall revokes our token at once, so before disconnecting we ask the shop who it is with
 * the token we hold: an answer means the app is still installed and the notice is stale or replayed. A refusal
 * confirms it; when the shop cannot be asked (down, timed out, credentials unreadable) the signed notice is
 * followed, as before.
 */
async function tokenStillWorks(services: Services, event: EventRow): Promise<boolean> {
  const channelId = event.channelId as string;
  const [row] = await services.db.select().from(channels).where(eq(channels.id, channelId));
  if (!row?.credentials || !LIVE_STATUSES.includes(row.status as (typeof LIVE_STATUSES)[number])) return false;
  if (olderThanAuthorization(event, row)) return false;
  try {
    await connectorFor(services, row, { timeoutMs: PROBE_TIMEOUT_MS, maxRetries: 0 }).getShop();
    return true;
  } catch (err) {
    const refused = err instanceof ProviderHttpError && (err.status === 401 || err.status === 403);
    if (!refused) {
      services.logger.warn(
        { channelId, provider: row.type, err: { type: (err as Error)?.name, message: (err as Error)?.message } },
        'uninstall notice: the shop could not be asked whether our access still works; following the notice',
      );
    }
    return false;
  }
}

/** Applies an uninstall or a revocation to the event's channel; answers the event's outcome. */
export async function applyAccessEvent(
  services: Services,
  event: EventRow,
  kind: 'uninstalled' | 'revoked',
): Promise<string> {
  const channelId = event.channelId as string;
  if (kind === 'uninstalled' && (await tokenStillWorks(services, event))) {
    services.logger.warn({ channelId, eventId: event.id }, 'uninstall notice ignored: our access token still works');
    return 'ignored: the app is still installed (our access token still works)';
  }
  const mailIds: string[] = [];
  const outcome = await services.db.transaction(async (tx) => {
    const [channel] = await tx.select().from(channels).where(eq(channels.id, channelId)).for('update');
    if (!channel || !LIVE_STATUSES.includes(channel.status as (typeof LIVE_STATUSES)[number])) {
      return 'channel was not connected';
    }
    if (olderThanAuthorization(event, channel)) return 'older than the current authorization';
    const label = CHANNEL_LABELS[channel.type];
    const now = new Date();
    if (kind === 'revoked') {
      await tx
        .update(channels)
        .set({
          status: 'error',
          statusMessage: `${label} access was revoked. Re-authorise the channel to sync again.`,
          credentials: null,
          updatedAt: now,
        })
        .where(eq(channels.id, channel.id));
      await notifyChannelDisconnected(tx, channel, `${label} access was revoked.`);
      return 'channel needs re-authorising';
    }
    await tx
      .update(channels)
      .set({
        status: 'disconnected',
        statusMessage: `The Switchyard app was uninstalled from this ${label} shop. Re-authorise to connect it again.`,
        credentials: null,
        disconnectedAt: now,
        updatedAt: now,
      })
      .where(eq(channels.id, channel.id));
    await notifyChannelDisconnected(tx, channel, `The Switchyard app was uninstalled from this ${label} shop.`);
    const recipients = await tx
      .select({ email: users.email, firstname: users.firstname })
      .from(users)
      .where(eq(users.accountId, channel.accountId));
    for (const user of recipients) {
      mailIds.push(
        await queueMail(
          tx,
          user.email,
          {
            template: 'channel_disconnected',
            firstname: user.firstname,
            link: `${publicUrl(services.config)}/channels/`,
            channelName: channel.name,
            provider: label,
          },
          channel.accountId,
        ),
      );
    }
    return 'channel disconnected';
  });
  await dispatchMail(services, mailIds);
  return outcome;
}
