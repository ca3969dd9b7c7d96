// past_due beyond the grace period: the account is read-only until a payment succeeds. Reads go on;
// writes are refused, except paying (billing.*), signing in and out, and superusers' own procedures.
import { BILLING_SETTINGS_PATH, PAST_DUE_GRACE_DAYS } from '@switchyard/contracts';
import { and, desc, eq, isNotNull } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/client.ts';
import { DomainError } from '../../lib/errors.ts';
import { sendError } from '../../rest/errors.ts';
import { accounts } from '../accounts/accounts.tables.ts';
import { subscriptions } from './billing.tables.ts';

export const READ_ONLY_MESSAGE = `Your account is read-only: the last payment failed more than ${PAST_DUE_GRACE_DAYS} days ago. Update your payment method (${BILLING_SETTINGS_PATH}) to make changes again.`;

/** tRPC procedures that stay usable while read-only. */
export function writableWhileReadOnly(path: string): boolean {
  return (
    path.startsWith('billing.') ||
    path.startsWith('auth.') ||
    path.startsWith('admin.') ||
    // Reading a notification changes nothing of the business.
    path === 'notifications.markRead' ||
    path === 'notifications.markAllRead'
  );
}

export async function isAccountReadOnly(db: Db, accountId: string, now = new Date()): Promise<boolean> {
  const [account] = await db.select({ status: accounts.status }).from(accounts).where(eq(accounts.id, accountId));
  if (account?.status !== 'past_due') return false;
  const [sub] = await db
    .select({ pastDueSince: subscriptions.pastDueSince })
    .from(subscriptions)
    .where(and(eq(subscriptions.accountId, accountId), isNotNull(subscriptions.pastDueSince)))
    .orderBy(desc(subscriptions.pastDueSince))
    .limit(1);
  if (!sub?.pastDueSince) return false;
  return now.getTime() >= sub.pastDueSince.getTime() + PAST_DUE_GRACE_DAYS * 24 * 60 * 60 * 1000;
}

export async function assertWritable(db: Db, accountId: string): Promise<void> {
  if (await isAccountReadOnly(db, accountId)) throw new DomainError('PAYMENT_REQUIRED', READ_ONLY_MESSAGE);
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const GUARDED_REST = /^\/api\/(frontend|v1|v2)\//;
const ALWAYS_ALLOWED_REST = /\/(login|logout)$/;

/** The same refusal for REST writes (frontend, v1, v2): HTTP 402 with the REST error shape. */
export function readOnlyRestGuard(app: FastifyInstance, db: Db) {
  app.addHook('preHandler', async (req, reply) => {
    if (SAFE_METHODS.has(req.method)) return;
    const path = req.url.split('?')[0] ?? '';
    if (!GUARDED_REST.test(path) || ALWAYS_ALLOWED_REST.test(path)) return;
    const actor = await req.actor();
    if (!actor) return;
    if (await isAccountReadOnly(db, actor.accountId)) return sendError(reply, 402, READ_ONLY_MESSAGE);
  });
}
