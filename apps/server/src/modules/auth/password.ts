import { hash, verify } from '@node-rs/argon2';

// OWASP's argon2id floor: 19 MiB, two passes, one lane.
// algorithm 2 is Algorithm.Argon2id (a const enum, which isolated modules cannot import).
const OPTIONS = { algorithm: 2, memoryCost: 19 * 1024, timeCost: 2, parallelism: 1 } as const;

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

/** Verifying against this when no user matches keeps sign-in time the same for unknown addresses. */
let dummyHash: Promise<string> | undefined;
export function dummyPasswordHash(): Promise<string> {
  dummyHash ??= hashPassword('not-a-real-password-0000');
  return dummyHash;
}
