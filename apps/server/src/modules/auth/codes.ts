import { createHash, randomBytes } from 'node:crypto';
import { and, eq, isNull } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { newId } from '../../lib/ids.ts';
import { authCodes } from '../accounts/accounts.tables.ts';

/** A single-use code for a link: 32 random bytes; only its SHA-256 is stored. */
export function newCode(): { code: string; codeHash: string } {
  const code = randomBytes(32).toString('base64url');
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
