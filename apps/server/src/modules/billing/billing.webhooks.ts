// POST /webhooks/stripe: verified over the raw body with the endpoint's signing secret, stored once by
// event id, answered 200 at once, and processed by the `billing.event` job.
import { createHash } from 'node:crypto';
import { and, eq, isNull, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { findUnstorable, storableCopy } from '../../lib/storable.ts';
import { sendError } from '../../rest/errors.ts';
import type { Services } from '../../services.ts';
import {
  accountForCustomer,
  applyCheckout,
  providerFor,
  type SyncResult,
  syncInvoice,
  syncSubscription,
} from './billing.mirror.ts';
import { InvalidSignature, type ProviderEvent } from './billing.provider.ts';
import { billingEvents } from './billing.tables.ts';
import { readOnlyRestGuard } from './read-only.ts';

export const BILLING_EVENT_JOB = 'billing.event';

/** The event types that change billing state; others are stored (for the record) but not processed. */
export const HANDLED_EVENT_TYPES = new Set([
  'checkout.session.completed',
  'checkout.session.async_payment_succeeded',
  'checkout.session.async_payment_failed',
  'checkout.session.expired',
  'customer.subscription.created',
  'customer.subscription.updated',
  'customer.subscription.deleted',
  'customer.subscription.paused',
  'customer.subscription.resumed',
  'invoice.paid',
  'invoice.payment_succeeded',
  'invoice.payment_failed',
  'invoice.finalized',
  'invoice.voided',
  'invoice.marked_uncollectible',
]);

export type ReceiveResult = { status: 200; duplicate: boolean } | { status: 400; message: string };

/** Verifies and stores one delivery (once per event id) and hands it to the job. */
export async function receiveStripeEvent(
  services: Services,
  rawBody: Buffer,
  signature: string | undefined,
): Promise<ReceiveResult> {
  const provider = providerFor(services);
  let event: ProviderEvent;
  try {
    event = provider.parseWebhook(rawBody, signature);
  } catch (err) {
    if (err instanceof InvalidSignature) return { status: 400, message: 'Invalid Stripe signature' };
    throw err;
  }
  const malformed = malformation(event);
  if (malformed) {
    // Signed, so from Stripe: kept with the reason and never processed (a retry would fail the same way).
    const usableId = typeof event.id === 'string' && event.id.length > 0 && event.id.length <= 255;
    const [kept] = await services.db
      .insert(billingEvents)
      .values({
        id:
          usableId && !findUnstorable(event.id)
            ? event.id
            : `malformed:${createHash('sha256').update(rawBody).digest('hex')}`,
        type: typeof event.type === 'string' ? String(storableCopy(event.type)).slice(0, 255) : 'malformed',
        mode: provider.mode,
        createdAt: storableDate(event.created) ?? new Date(),
        payload: storableCopy(event.raw) as Record<string, unknown>,
        processedAt: new Date(),
        error: `Malformed event: ${malformed}`.slice(0, 500),
      })
      .onConflictDoNothing({ target: billingEvents.id })
      .returning({ id: billingEvents.id });
    services.logger.warn({ eventId: kept?.id, problem: malformed.slice(0, 200) }, 'billing: malformed event');
    return { status: 200, duplicate: !kept };
  }
  const customer = event.object.customer;
  const accountId = await accountForCustomer(
    services.db,
    typeof customer === 'string' ? customer : ((customer as { id?: string } | undefined)?.id ?? null),
  );
  const [stored] = await services.db
    .insert(billingEvents)
    .values({
      id: event.id,
      type: event.type,
      mode: provider.mode,
      createdAt: event.created,
      payload: event.raw,
      accountId: accountId ?? null,
      processedAt: HANDLED_EVENT_TYPES.has(event.type) ? null : new Date(),
    })
    .onConflictDoNothing({ target: billingEvents.id })
    .returning({ id: billingEvents.id });
  if (!stored) return { status: 200, duplicate: true };
  if (!HANDLED_EVENT_TYPES.has(event.type)) return { status: 200, duplicate: false };
  if (services.queue) {
    await services.queue.send(BILLING_EVENT_JOB, { id: event.id }, { singletonKey: event.id });
  } else {
    // No queue in this process (a tool or test without workers): process right after answering.
    setImmediate(() => {
      processBillingEvent(services, event.id).catch((err) =>
        services.logger.warn({ err, eventId: event.id }, 'billing: event processing failed'),
      );
    });
  }
  return { status: 200, duplicate: false };
}

/** PostgreSQL's timestamptz holds 4713 BC to 294276 AD; a JavaScript Date goes further back. */
const storableDate = (d: Date) => (!Number.isNaN(d.getTime()) && d.getUTCFullYear() >= 1 ? d : undefined);

/** Why a signed event cannot be stored and processed as it is (undefined: it can). */
function malformation(event: ProviderEvent): string | undefined {
  if (typeof event.id !== 'string' || event.id.length === 0 || event.id.length > 255) return 'no usable id';
  if (typeof event.type !== 'string' || event.type.length > 255) return 'no usable type';
  if (!storableDate(event.created)) return 'created is not a time';
  if (!event.raw.data || typeof event.raw.data !== 'object') return 'no data';
  const unstorable = findUnstorable({ id: event.id, type: event.type, payload: event.raw });
  return unstorable ? `${unstorable.path} ${unstorable.problem}` : undefined;
}

/**
 * Safety net, each minute (jobs/sweep.ts): events stored and never tried for over `olderThanSeconds` (their
 * job was lost with a process that died between storing and queueing) are queued again. Answers how many.
 */
export async function requeueStrandedBillingEvents(services: Services, olderThanSeconds = 120): Promise<number> {
  if (!services.queue) return 0;
  const stranded = await services.db
    .select({ id: billingEvents.id })
    .from(billingEvents)
    .where(
      and(
        isNull(billingEvents.processedAt),
        eq(billingEvents.attempts, 0),
        isNull(billingEvents.error),
        sql`${billingEvents.receivedAt} <= clock_timestamp() - make_interval(secs => ${olderThanSeconds})`,
      ),
    )
    .orderBy(billingEvents.receivedAt)
    .limit(1000);
  for (const { id } of stranded) await services.queue.send(BILLING_EVENT_JOB, { id }, { singletonKey: id });
  return stranded.length;
}

/** The webhook route, in a scope of its own whose body parser keeps the raw bytes; and the REST read-only guard. */
export async function billingRoutes(app: FastifyInstance, services: Services) {
  if (!services.providers.stripe.webhookSecret) {
    services.logger.warn('STRIPE_WEBHOOK_SECRET is not set: every Stripe webhook will be refused');
  }
  readOnlyRestGuard(app, services.db);
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
    scope.post('/webhooks/stripe', async (req, reply) => {
      const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const signature = req.headers['stripe-signature'];
      const result = await receiveStripeEvent(services, body, typeof signature === 'string' ? signature : undefined);
      if (result.status !== 200) return sendError(reply, result.status, result.message);
      return reply.send({ received: true, duplicate: result.duplicate });
    });
  });
}

const str = (value: unknown) => (typeof value === 'string' ? value : undefined);
const idOf = (value: unknown) => str(value) ?? str((value as { id?: unknown } | null | undefined)?.id);

/** The job: applies one stored event. Done once; a retry after success is a no-op. */
export async function processBillingEvent(services: Services, id: string): Promise<void> {
  const { db } = services;
  const [row] = await db.select().from(billingEvents).where(eq(billingEvents.id, id));
  if (!row || row.processedAt) return;
  await db
    .update(billingEvents)
    .set({ attempts: sql`${billingEvents.attempts} + 1` })
    .where(eq(billingEvents.id, id));
  const event = row.payload as { data?: { object?: Record<string, unknown> } };
  const object = event.data?.object ?? {};
  let result: SyncResult | 'ignored';
  try {
    result = await applyEvent(services, row.type, object, row.createdAt);
  } catch (err) {
    await db
      .update(billingEvents)
      .set({ error: err instanceof Error ? err.message.slice(0, 500) : 'failed' })
      .where(eq(billingEvents.id, id));
    throw err;
  }
  await db.update(billingEvents).set({ processedAt: new Date(), error: null }).where(eq(billingEvents.id, id));
  services.logger.info({ eventId: id, type: row.type, result }, 'billing: event processed');
}

async function applyEvent(
  services: Services,
  type: string,
  object: Record<string, unknown>,
  created: Date,
): Promise<SyncResult | 'ignored'> {
  const provider = providerFor(services);
  const objectId = str(object.id);
  if (!objectId) return 'ignored';
  switch (type) {
    case 'checkout.session.completed':
    case 'checkout.session.async_payment_succeeded':
    case 'checkout.session.expired':
      return applyCheckout(services, await provider.getCheckout(objectId), { eventCreated: created });
    case 'checkout.session.async_payment_failed': {
      const session = await provider.getCheckout(objectId);
      const sub = session.subscriptionId ? await provider.getSubscription(session.subscriptionId) : undefined;
      const reason =
        (sub?.latestInvoiceId ? await provider.invoicePaymentError(sub.latestInvoiceId) : null) ??
        'The bank payment failed.';
      return applyCheckout(services, session, { eventCreated: created, paymentError: reason });
    }
    case 'customer.subscription.created':
    case 'customer.subscription.updated':
    case 'customer.subscription.deleted':
    case 'customer.subscription.paused':
    case 'customer.subscription.resumed': {
      // An event older than the newest one applied changes nothing; otherwise Stripe's current state is applied.
      return syncSubscription(
        services,
        objectId,
        async () => ({ subscription: await provider.getSubscription(objectId) }),
        {
          eventCreated: created,
        },
      );
    }
    case 'invoice.paid':
    case 'invoice.payment_succeeded':
    case 'invoice.payment_failed':
    case 'invoice.finalized':
    case 'invoice.voided':
    case 'invoice.marked_uncollectible': {
      const invoice = await provider.getInvoice(objectId);
      const mirrored = await syncInvoice(services, invoice);
      const subscriptionId = invoice.subscriptionId ?? idOf(object.subscription);
      if (!subscriptionId) return mirrored;
      // The subscription is read as it is now, so only its latest invoice speaks for its payment: a late event
      // of an earlier, paid invoice must not clear the reason of a renewal that failed since (the reason is then
      // looked up on the latest invoice). The invoice as it is now decides: a failure already made good by a
      // later payment is no error.
      const read = async () => {
        const subscription = await provider.getSubscription(subscriptionId);
        const latest = !subscription.latestInvoiceId || subscription.latestInvoiceId === invoice.id;
        const paymentError = !latest
          ? undefined
          : invoice.status === 'paid'
            ? null
            : type === 'invoice.payment_failed'
              ? ((await provider.invoicePaymentError(objectId)) ?? 'The payment was declined.')
              : undefined;
        return { subscription, paymentError };
      };
      return syncSubscription(services, subscriptionId, read, { eventCreated: created });
    }
    default:
      return 'ignored';
  }
}
