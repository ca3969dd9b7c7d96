// After a stock event's answer (channels.webhooks.ts): the echo of our own push is recorded processed on the spot
// (it would only take a worker's turn from a real change); anything else queues the channel's stock pass. The
// events of a channel that arrive while its settlement is on its way settle together in the next one: one read of
// the levels they name and one write for the echoes among them, rather than two round trips each. Under a burst
// of orders every push brings a webhook back per level, so this is most of the stock webhooks we get.
import { and, eq, inArray, isNull } from 'drizzle-orm';
import type { WebhookEvent } from '../../connectors/types.ts';
import type { Services } from '../../services.ts';
import { carriedReports, echoesAmong } from '../inventory/inbound.events.ts';
import type { ChannelReport } from '../inventory/inbound.ts';
import { deferWhilePushing, queueStockEvents } from '../inventory/schedule.ts';
import { webhookEvents } from './channels.tables.ts';

interface Waiting {
  id: string;
  /** What the event reports, or null when it cannot be an echo (it names no quantity). */
  reports: ChannelReport[] | null;
  done: () => void;
  failed: (err: unknown) => void;
}

/** Events in one settlement at most (more take the next). */
const MOST_PER_SETTLEMENT = 200;

const settlers = new WeakMap<Services, Map<string, { waiting: Waiting[]; running: boolean }>>();

/** Settles a stored stock event (see the top of this file); resolves once it is recorded or its pass queued. */
export function settleStockEvent(
  services: Services,
  channelId: string,
  id: string,
  event: Omit<WebhookEvent, 'occurredAt'> & { occurredAt: Date | null },
): Promise<void> {
  let byChannel = settlers.get(services);
  if (!byChannel) {
    byChannel = new Map();
    settlers.set(services, byChannel);
  }
  let settler = byChannel.get(channelId);
  if (!settler) {
    settler = { waiting: [], running: false };
    byChannel.set(channelId, settler);
  }
  const s = settler;
  const reports = carriedReports({ ...event, receivedAt: new Date() });
  return new Promise<void>((done, failed) => {
    s.waiting.push({ id, reports, done, failed });
    if (!s.running) void run(services, channelId, s, byChannel);
  });
}

async function run(
  services: Services,
  channelId: string,
  settler: { waiting: Waiting[]; running: boolean },
  byChannel: Map<string, unknown>,
) {
  settler.running = true;
  try {
    while (settler.waiting.length > 0) {
      const batch = settler.waiting.splice(0, MOST_PER_SETTLEMENT);
      try {
        await settle(services, channelId, batch);
        for (const w of batch) w.done();
      } catch (err) {
        for (const w of batch) w.failed(err);
      }
    }
  } finally {
    settler.running = false;
    byChannel.delete(channelId);
  }
}

async function settle(services: Services, channelId: string, batch: Waiting[]) {
  const isEcho = await echoesAmong(
    services,
    channelId,
    batch.flatMap((w) => w.reports ?? []),
  );
  const echoes = batch.filter((w) => w.reports && w.reports.length > 0 && w.reports.every(isEcho)).map((w) => w.id);
  // Recorded only while no pass has taken the event (a pass that has would count it again otherwise).
  const absorbed =
    echoes.length === 0
      ? []
      : await services.db
          .update(webhookEvents)
          .set({ processedAt: new Date(), outcome: 'echo of our push: nothing to do', attempts: 1 })
          .where(
            and(inArray(webhookEvents.id, echoes), isNull(webhookEvents.processedAt), eq(webhookEvents.attempts, 0)),
          )
          .returning({ id: webhookEvents.id });
  if (absorbed.length === batch.length) return;
  // While this process pushes the channel, the push's end queues its stock events (most are its echoes).
  if (!deferWhilePushing(channelId)) await queueStockEvents(services, channelId);
}
