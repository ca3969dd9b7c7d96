import { randomBytes } from 'node:crypto';
import type { AccountStatus } from '@switchyard/contracts';
import { eq } from 'drizzle-orm';
import { newId } from '../src/lib/ids.ts';
import { accounts, authAttempts, users } from '../src/modules/accounts/accounts.tables.ts';
import { login } from '../src/modules/auth/auth.service.ts';
import { hashPassword } from '../src/modules/auth/password.ts';
import type { Services } from '../src/services.ts';

export const TEST_PASSWORD = 'correct horse battery';
let passwordHash: Promise<string> | undefined;

export interface AccountOptions {
  status?: AccountStatus;
  authorizationLevel?: 'user' | 'superuser';
  superUserRole?: 'admin' | null;
  business?: string;
}

/** An account with its first user, straight into the tables (for tests that are not about registering). */
export async function createAccount(services: Services, options: AccountOptions = {}) {
  const suffix = randomBytes(4).toString('hex');
  const accountId = newId('acc');
  const userId = newId('usr');
  const email = `owner-${suffix}@shop.test`;
  passwordHash ??= hashPassword(TEST_PASSWORD);
  await services.db.insert(accounts).values({
    id: accountId,
    business: options.business ?? `Shop ${suffix}`,
    status: options.status ?? 'active',
  });
  await services.db.insert(users).values({
    id: userId,
    accountId,
    email,
    passwordHash: await passwordHash,
    firstname: 'Ada',
    lastname: 'Owner',
    phone: '+1 555 0100',
    authorizationLevel: options.authorizationLevel ?? 'user',
    superUserRole: options.superUserRole ?? null,
  });
  return { accountId, userId, email };
}

/** Signs in through the real service; answers the bearer header and what sign-in returned. */
export async function signIn(services: Services, email: string, password = TEST_PASSWORD) {
  const result = await login(services, { email, password }, { ip: '127.0.0.1' });
  return { ...result, headers: { authorization: `Bearer ${result.token}` } };
}

export async function createSignedInAccount(services: Services, options: AccountOptions = {}) {
  const account = await createAccount(services, options);
  return { ...account, ...(await signIn(services, account.email)) };
}

export async function setAccountStatus(services: Services, accountId: string, status: AccountStatus) {
  await services.db.update(accounts).set({ status }).where(eq(accounts.id, accountId));
}

/** `count` failed sign-ins for an address this hour, as the throttle counts them (attempts.ts). */
export async function seedSignInFailures(services: Services, email: string, count: number, ip = '203.0.113.9') {
  await services.db
    .insert(authAttempts)
    .values(Array.from({ length: count }, () => ({ id: newId('att'), kind: 'sign_in_failure' as const, email, ip })));
}
