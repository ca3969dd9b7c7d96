import { createHash, randomBytes } from 'node:crypto';

/** A single-use code for a link: 32 random bytes; only its SHA-256 is stored. */
export function newCode(): { code: string; codeHash: string } {
  const code = randomBytes(32).toString('base64url');
  return { code, codeHash: hashCode(code) };
}

export function hashCode(code: string): string {
  return createHash('sha256').update(code).digest('hex');
}
