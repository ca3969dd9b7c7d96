import { createHash, randomBytes } from 'node:crypto';
import { and, eq, gt, isNull } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { newId } from '../../lib/ids.ts';
import { authCodes } from '../accounts/accounts.tables.ts';

/**
 * A single-use code for a link: 32 random bytes (base64url); only its SHA-256 is stored. It never starts with `_`
 * or `-`: the web app's router takes a path segment that starts with an underscore for a pathless one, so a link
 * to /confirm/_… or /reset/_… (one code in 64) ended on the not-found page at /confirm. Drawn again instead.
 */
export function newCode(): { code: string; codeHash: string } {
  let code = randomBytes(32).toString('base64url');
  while (code.startsWith('_') || code.startsWith('-')) code = randomBytes(32).toString('base64url');
  return { code, codeHash: hashCode(code) };
}

export function hashCode(code: string): string {
  return createHash('sha256').update(code).digest('hex');
}

type Purpose = (typeof authCodes.$inferInsert)['purpose'];

/**
 * Issues a code for a link in an e-mail; any earlier unused code of the same purpose stops working, so
 * only the newest link counts. Answers the code itself, which is never stored.
 */
export async function issueCode(
  db: Db,
  owner: { accountId: string; userId: string },
  purpose: Purpose,
  ttlMs: number,
  newEmail?: string,
): Promise<string> {
  const { code, codeHash } = newCode();
  await db
    .update(authCodes)
    .set({ usedAt: new Date() })
    .where(and(eq(authCodes.userId, owner.userId), eq(authCodes.purpose, purpose), isNull(authCodes.usedAt)));
  await db.insert(authCodes).values({
    id: newId('code'),
    ...owner,
    purpose,
    codeHash,
    newEmail,
    expiresAt: new Date(Date.now() + ttlMs),
  });
  return code;
}

const live = (code: string, purpose: Purpose, owner?: { accountId: string; userId: string }) =>
  and(
    eq(authCodes.codeHash, hashCode(code)),
    eq(authCodes.purpose, purpose),
    owner ? and(eq(authCodes.userId, owner.userId), eq(authCodes.accountId, owner.accountId)) : undefined,
    isNull(authCodes.usedAt),
    gt(authCodes.expiresAt, new Date()),
  );

/** The unused, unexpired code of this purpose, without using it up. */
export async function findLiveCode(db: Db, code: string, purpose: Purpose) {
  const [row] = await db.select().from(authCodes).where(live(code, purpose));
  return row;
}

/**
 * Uses a code up, answering its row, or undefined when it is unknown, used, expired or (with `owner`)
 * someone else's. Checking and marking in one statement makes a double click or a replay harmless.
 */
export async function consumeCode(
  db: Db,
  code: string,
  purpose: Purpose,
  owner?: { accountId: string; userId: string },
) {
  const [row] = await db
    .update(authCodes)
    .set({ usedAt: new Date() })
    .where(live(code, purpose, owner))
    .returning();
  return row;
}
