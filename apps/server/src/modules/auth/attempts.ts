// Throttling sign-in and mail requests (SPEC §9: at most 100 failed sign-ins an hour for an account). An attempt is
// written before it is judged, then counted with every other one of the hour: requests sent at the same moment
// each see the others, so no more than the limit get through however many arrive together. (Counting first and
// writing after a password check let 160 wrong passwords sent at once all be tried.)
import { and, count, eq, gt } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { DomainError } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { authAttempts } from '../accounts/accounts.tables.ts';

const HOUR = 60 * 60 * 1000;

export type AttemptKind = (typeof authAttempts.$inferInsert)['kind'];

export interface AttemptLimits {
  /** Attempts of this kind an hour for one address, and from one IP address (unchecked when absent). */
  perEmail: number;
  perIp?: number;
  /** The refusal's message (TOO_MANY_REQUESTS). */
  message: string;
}

/** Writes an attempt that is not judged (the first confirmation mail at sign-up). */
export async function recordAttempt(db: Db, kind: AttemptKind, email: string, ip: string): Promise<void> {
  await db.insert(authAttempts).values({ id: newId('att'), kind, email, ip });
}

/**
 * Takes an attempt within the hour's limits, or refuses it (TOO_MANY_REQUESTS) and leaves no trace of it. A taken
 * attempt stays counted; `forget` it when it turns out not to count (a sign-in whose password was right).
 */
export async function takeAttempt(
  db: Db,
  kind: AttemptKind,
  email: string,
  ip: string,
  limits: AttemptLimits,
): Promise<{ forget: () => Promise<void> }> {
  const id = newId('att');
  await db.insert(authAttempts).values({ id, kind, email, ip });
  const forget = async () => {
    await db.delete(authAttempts).where(eq(authAttempts.id, id));
  };
  const since = new Date(Date.now() - HOUR);
  const [byEmail, byIp] = await Promise.all([
    countAttempts(db, kind, { email }, since),
    limits.perIp === undefined ? 0 : countAttempts(db, kind, { ip }, since),
  ]);
  if (byEmail > limits.perEmail || (limits.perIp !== undefined && byIp > limits.perIp)) {
    await forget();
    throw new DomainError('TOO_MANY_REQUESTS', limits.message);
  }
  return { forget };
}

async function countAttempts(db: Db, kind: AttemptKind, by: { email?: string; ip?: string }, since: Date) {
  const [row] = await db
    .select({ n: count() })
    .from(authAttempts)
    .where(
      and(
        eq(authAttempts.kind, kind),
        by.email ? eq(authAttempts.email, by.email) : eq(authAttempts.ip, by.ip ?? ''),
        gt(authAttempts.createdAt, since),
      ),
    );
  return row?.n ?? 0;
}
