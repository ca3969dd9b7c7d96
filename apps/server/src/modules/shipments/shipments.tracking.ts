// The carrier's tracking events: POST /webhooks/easypost is verified (X-Hmac-Signature over the raw body),
// stored once by the event's id, acknowledged, and processed by a job that moves the parcel's and the
// shipment's tracking status and writes the order's timeline.
import { TRACKING_LABELS, TRACKING_STATUSES, type TrackingStatus } from '@switchyard/contracts';
import { eq, inArray } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { carrierEndpoint, verifyEasyPostSignature } from '../../carriers/easypost.ts';
import { newId } from '../../lib/ids.ts';
import type { Services } from '../../services.ts';
import { writeTimeline } from '../orders/orders.timeline.ts';
import { carrierEvents, shipmentPackages, shipments } from './shipments.tables.ts';

export const CARRIER_EVENT_JOB = 'shipments.tracking-event';

interface TrackerEvent {
  id?: unknown;
  description?: unknown;
  result?: {
    object?: string;
    tracking_code?: string;
    status?: string;
    status_detail?: string;
    public_url?: string;
    tracking_details?: { message?: string; status?: string }[];
  };
}

/** Verifies and stores one delivery; the job does the rest. */
export async function receiveCarrierEvent(
  services: Services,
  rawBody: Buffer,
  signature: string | undefined,
): Promise<{ status: 200 | 401 | 400; message?: string }> {
  if (!verifyEasyPostSignature(rawBody, signature, carrierEndpoint(services).webhookSecret))
    return { status: 401, message: 'Invalid signature' };
  let event: TrackerEvent;
  try {
    event = JSON.parse(rawBody.toString('utf8')) as TrackerEvent;
  } catch {
    return { status: 400, message: 'Malformed JSON' };
  }
  if (typeof event.id !== 'string' || event.id.length === 0 || event.id.length > 255)
    return { status: 400, message: 'Missing event id' };
  const code = typeof event.result?.tracking_code === 'string' ? event.result.tracking_code.slice(0, 100) : null;
  const [stored] = await services.db
    .insert(carrierEvents)
    .values({
      id: newId('cev'),
      provider: 'easypost',
      eventId: event.id,
      description: String(event.description ?? 'unknown').slice(0, 100),
      trackingCode: code,
      payload: event,
    })
    .onConflictDoNothing()
    .returning({ id: carrierEvents.id });
  if (stored && event.result?.object !== undefined && code) {
    await services.queue?.send(CARRIER_EVENT_JOB, { id: stored.id }, { singletonKey: stored.id });
    services.queue?.notify(CARRIER_EVENT_JOB);
  }
  return { status: 200 };
}

const ORDER: Record<TrackingStatus, number> = {
  unknown: 0,
  pre_transit: 1,
  in_transit: 2,
  out_for_delivery: 3,
  available_for_pickup: 4,
  delivered: 5,
  return_to_sender: 6,
  failure: 7,
  cancelled: 7,
  error: 7,
};

/** The shipment's status from its parcels': a problem with any parcel shows, else the least advanced. */
export function shipmentTrackingStatus(statuses: (TrackingStatus | null)[]): TrackingStatus | null {
  const known = statuses.filter((s): s is TrackingStatus => !!s);
  if (known.length === 0) return null;
  const problem = known.find((s) => ORDER[s] >= 6);
  if (problem) return problem;
  return known.reduce((a, b) => (ORDER[b] < ORDER[a] ? b : a));
}

export async function processCarrierEvent(services: Services, id: string) {
  const db = services.db;
  const [event] = await db.select().from(carrierEvents).where(eq(carrierEvents.id, id));
  if (!event || event.processedAt || !event.trackingCode) return;
  const result = (event.payload as TrackerEvent).result ?? {};
  const status = (TRACKING_STATUSES as readonly string[]).includes(result.status ?? '')
    ? (result.status as TrackingStatus)
    : 'unknown';
  const found = await db
    .select({ pkg: shipmentPackages, shipment: shipments })
    .from(shipmentPackages)
    .innerJoin(shipments, eq(shipments.id, shipmentPackages.shipmentId))
    .where(eq(shipmentPackages.trackingCode, event.trackingCode));
  await db.transaction(async (tx) => {
    for (const { pkg, shipment } of found) {
      // An older event after a newer one (redelivery out of order) does not move a parcel back.
      if (pkg.trackingStatus && ORDER[status] < ORDER[pkg.trackingStatus] && ORDER[pkg.trackingStatus] < 6) continue;
      if (pkg.trackingStatus === status) continue;
      await tx
        .update(shipmentPackages)
        .set({ trackingStatus: status, trackingUrl: result.public_url ?? pkg.trackingUrl, updatedAt: new Date() })
        .where(eq(shipmentPackages.id, pkg.id));
      const siblings = await tx
        .select({ id: shipmentPackages.id, status: shipmentPackages.trackingStatus })
        .from(shipmentPackages)
        .where(inArray(shipmentPackages.shipmentId, [shipment.id]));
      const overall = shipmentTrackingStatus(siblings.map((s) => (s.id === pkg.id ? status : s.status)));
      await tx
        .update(shipments)
        .set({ trackingStatus: overall, updatedAt: new Date() })
        .where(eq(shipments.id, shipment.id));
      const detail = result.tracking_details?.at(-1)?.message;
      await writeTimeline(tx, shipment.accountId, shipment.orderId, [
        {
          kind: 'shipment',
          message: `Tracking ${event.trackingCode}: ${TRACKING_LABELS[status]}${detail ? ` (${detail})` : ''}.`,
          actor: shipment.carrier ?? 'Carrier',
        },
      ]);
    }
    await tx.update(carrierEvents).set({ processedAt: new Date() }).where(eq(carrierEvents.id, id));
  });
}

/** POST /webhooks/easypost (raw body for the signature). */
export async function carrierWebhookRoutes(app: FastifyInstance, services: Services) {
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
    scope.post('/webhooks/easypost', async (req, reply) => {
      const rawBody = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const header = req.headers['x-hmac-signature'];
      const result = await receiveCarrierEvent(services, rawBody, Array.isArray(header) ? header[0] : header);
      if (result.status !== 200)
        return reply.status(result.status).send({ code: result.status, message: result.message });
      return reply.status(200).send({ ok: true });
    });
  });
}
