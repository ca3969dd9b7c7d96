// Registration, confirmation, sign-in, sessions and password reset: who a caller is.
import {
  AUTH_MESSAGES,
  type BasicData,
  type LoginInput,
  type LoginOutput,
  MESSAGES,
  type RegisterInput,
} from '@switchyard/contracts';
import { and, eq, gt, isNull, ne } from 'drizzle-orm';
import { publicUrl } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import { DomainError, fromDatabaseError } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { Services } from '../../services.ts';
import type { Actor } from '../../trpc/context.ts';
import { accountSettings, accounts, sessions, users } from '../accounts/accounts.tables.ts';
import { dispatchMail, queueMail } from '../mail/mail.service.ts';
import { modules, systemSettings } from '../settings/settings.tables.ts';
import { recordAttempt, takeAttempt } from './attempts.ts';
import { consumeCode, findLiveCode, issueCode } from './codes.ts';
import { dummyPasswordHash, hashPassword, verifyPassword } from './password.ts';

const HOUR = 60 * 60 * 1000;
export const CONFIRM_CODE_TTL_MS = 7 * 24 * HOUR;
export const RESET_CODE_TTL_MS = 1 * HOUR;
/** SPEC-given ceiling: at most 100 failed sign-ins an hour for an account. */
export const SIGN_IN_FAILURES_PER_HOUR = 100;
export const SIGN_IN_FAILURES_PER_IP_HOUR = 300;
export const MAIL_REQUESTS_PER_HOUR = 5;
export const MAIL_REQUESTS_PER_IP_HOUR = 30;
const SIGN_IN_LIMITS = {
  perEmail: SIGN_IN_FAILURES_PER_HOUR,
  perIp: SIGN_IN_FAILURES_PER_IP_HOUR,
  message: AUTH_MESSAGES.signInThrottled,
};
const MAIL_LIMITS = {
  perEmail: MAIL_REQUESTS_PER_HOUR,
  perIp: MAIL_REQUESTS_PER_IP_HOUR,
  message: AUTH_MESSAGES.requestThrottled,
};

export interface ClientInfo {
  ip: string;
  userAgent?: string | undefined;
}

type UserRow = typeof users.$inferSelect;
type AccountRow = typeof accounts.$inferSelect;

const publicUser = (u: UserRow) => ({
  id: u.id,
  email: u.email,
  firstname: u.firstname,
  lastname: u.lastname,
  phone: u.phone,
  settings: u.settings,
});
const publicAccount = (a: AccountRow) => ({ id: a.id, business: a.business, status: a.status });
const link = (services: Services, path: string) => `${publicUrl(services.config)}${path}`;

export async function register(
  services: Services,
  input: RegisterInput,
  client: ClientInfo,
): Promise<{ email: string }> {
  const passwordHash = await hashPassword(input.password);
  const accountId = newId('acc');
  const userId = newId('usr');
  let mailId: string;
  try {
    mailId = await services.db.transaction(async (tx) => {
      await tx.insert(accounts).values({ id: accountId, business: input.business, status: 'created' });
      await tx.insert(users).values({
        id: userId,
        accountId,
        email: input.email,
        passwordHash,
        firstname: input.firstname,
        lastname: input.lastname,
        phone: input.phone,
      });
      const code = await issueCode(tx, { accountId, userId }, 'confirm', CONFIRM_CODE_TTL_MS);
      return queueMail(
        tx,
        input.email,
        { template: 'confirm', firstname: input.firstname, link: link(services, `/confirm/${code}`) },
        accountId,
      );
    });
  } catch (err) {
    const mapped = fromDatabaseError(err, AUTH_MESSAGES.emailTaken);
    if (mapped?.code === 'CONFLICT') throw mapped;
    throw err;
  }
  await recordAttempt(services.db, 'confirm_resend', input.email, client.ip);
  await dispatchMail(services, [mailId]);
  return { email: input.email };
}

/** Sends a new confirmation link; answers the same whether or not the address has an unconfirmed account. */
export async function resendConfirmation(services: Services, email: string, client: ClientInfo): Promise<{ ok: true }> {
  await takeAttempt(services.db, 'confirm_resend', email, client.ip, MAIL_LIMITS);
  const [found] = await services.db
    .select({ user: users, account: accounts })
    .from(users)
    .innerJoin(accounts, eq(accounts.id, users.accountId))
    .where(eq(users.email, email));
  if (found?.account.status !== 'created') return { ok: true };
  const mailId = await services.db.transaction(async (tx) => {
    const owner = { accountId: found.account.id, userId: found.user.id };
    const code = await issueCode(tx, owner, 'confirm', CONFIRM_CODE_TTL_MS);
    return queueMail(
      tx,
      email,
      { template: 'confirm', firstname: found.user.firstname, link: link(services, `/confirm/${code}`) },
      found.account.id,
    );
  });
  await dispatchMail(services, [mailId]);
  return { ok: true };
}

export async function checkConfirmationCode(db: Db, code: string): Promise<{ valid: boolean }> {
  return { valid: !!(await findLiveCode(db, code, 'confirm')) };
}

/** Confirms the address: the account moves from `created` to `requires_payment_method`. */
export async function confirmRegistration(services: Services, code: string): Promise<{ confirmed: true }> {
  const mailId = await services.db.transaction(async (tx) => {
    const used = await consumeCode(tx, code, 'confirm');
    if (!used) throw new DomainError('VALIDATION', AUTH_MESSAGES.invalidConfirmation);
    const now = new Date();
    const [user] = await tx
      .update(users)
      .set({ emailConfirmedAt: now, updatedAt: now })
      .where(eq(users.id, used.userId))
      .returning();
    await tx
      .update(accounts)
      .set({ status: 'requires_payment_method', confirmedAt: now, updatedAt: now })
      .where(and(eq(accounts.id, used.accountId), eq(accounts.status, 'created')));
    if (!user) throw new DomainError('VALIDATION', AUTH_MESSAGES.invalidConfirmation);
    return queueMail(
      tx,
      user.email,
      { template: 'welcome', firstname: user.firstname, link: link(services, '/dashboard') },
      used.accountId,
    );
  });
  await dispatchMail(services, [mailId]);
  return { confirmed: true };
}

export async function login(services: Services, input: LoginInput, client: ClientInfo): Promise<LoginOutput> {
  // Counted as a failure until the password proves right (attempts.ts).
  const attempt = await takeAttempt(services.db, 'sign_in_failure', input.email, client.ip, SIGN_IN_LIMITS);
  const [found] = await services.db
    .select({ user: users, account: accounts })
    .from(users)
    .innerJoin(accounts, eq(accounts.id, users.accountId))
    .where(eq(users.email, input.email));
  const ok = await verifyPassword(found?.user.passwordHash ?? (await dummyPasswordHash()), input.password);
  if (!found || !ok) throw new DomainError('UNAUTHORIZED', AUTH_MESSAGES.wrongCredentials);
  await attempt.forget();
  const { user, account } = found;
  const ttlSeconds = services.config.SESSION_TTL_HOURS * 3600;
  const sessionId = newId('ses');
  await services.db.insert(sessions).values({
    id: sessionId,
    accountId: account.id,
    userId: user.id,
    expiresAt: new Date(Date.now() + ttlSeconds * 1000),
    userAgent: client.userAgent?.slice(0, 300),
    ip: client.ip,
  });
  const meta = { authorizationLevel: user.authorizationLevel, superUserRole: user.superUserRole ?? null };
  const token = await services.tokens.sign({ sessionId, userId: user.id, accountId: account.id, ...meta }, ttlSeconds);
  return { token, user: publicUser(user), meta, account: publicAccount(account) };
}

export async function logout(db: Db, actor: Actor): Promise<{ ok: true }> {
  await db
    .update(sessions)
    .set({ revokedAt: new Date() })
    .where(and(eq(sessions.id, actor.sessionId), eq(sessions.accountId, actor.accountId)));
  return { ok: true };
}

/**
 * The caller behind a bearer token: the token must verify and its session must be live. Roles are read
 * from the user row, so a demoted superuser loses the rights at once.
 */
export async function resolveSession(services: Services, token: string): Promise<Actor | undefined> {
  const identity = await services.tokens.verify(token);
  if (!identity) return undefined;
  const [row] = await services.db
    .select({ user: users })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(and(eq(sessions.id, identity.sessionId), isNull(sessions.revokedAt), gt(sessions.expiresAt, new Date())));
  if (!row || row.user.id !== identity.userId) return undefined;
  return {
    sessionId: identity.sessionId,
    userId: row.user.id,
    accountId: row.user.accountId,
    authorizationLevel: row.user.authorizationLevel,
    superUserRole: row.user.superUserRole ?? null,
  };
}

/** Sends a reset link when the address has an account; the answer never says whether it does. */
export async function requestPasswordReset(
  services: Services,
  email: string,
  client: ClientInfo,
): Promise<{ ok: true }> {
  await takeAttempt(services.db, 'reset_request', email, client.ip, MAIL_LIMITS);
  const [user] = await services.db.select().from(users).where(eq(users.email, email));
  if (!user) return { ok: true };
  const mailId = await services.db.transaction(async (tx) => {
    const code = await issueCode(tx, { accountId: user.accountId, userId: user.id }, 'reset', RESET_CODE_TTL_MS);
    return queueMail(
      tx,
      email,
      { template: 'reset', firstname: user.firstname, link: link(services, `/reset/${code}`) },
      user.accountId,
    );
  });
  await dispatchMail(services, [mailId]);
  return { ok: true };
}

export async function checkResetCode(db: Db, token: string): Promise<{ valid: true }> {
  if (!(await findLiveCode(db, token, 'reset'))) throw new DomainError('VALIDATION', MESSAGES.invalidResetCode);
  return { valid: true };
}

/** Sets the new password and ends every session of the user: whoever had the old one is signed out. */
export async function resetPassword(services: Services, token: string, password: string): Promise<{ ok: true }> {
  const passwordHash = await hashPassword(password);
  await services.db.transaction(async (tx) => {
    const used = await consumeCode(tx, token, 'reset');
    if (!used) throw new DomainError('VALIDATION', MESSAGES.invalidResetCode);
    await tx.update(users).set({ passwordHash, updatedAt: new Date() }).where(eq(users.id, used.userId));
    await tx
      .update(sessions)
      .set({ revokedAt: new Date() })
      .where(and(eq(sessions.userId, used.userId), isNull(sessions.revokedAt)));
  });
  return { ok: true };
}

/** Ends the user's other sessions (after a password change while signed in). */
export async function endOtherSessions(db: Db, actor: Actor) {
  await db
    .update(sessions)
    .set({ revokedAt: new Date() })
    .where(and(eq(sessions.userId, actor.userId), ne(sessions.id, actor.sessionId), isNull(sessions.revokedAt)));
}

/** hydration.getBasicData (SPEC §7): what the web app loads after sign-in. */
export async function getBasicData(db: Db, actor: Actor): Promise<BasicData> {
  // The user and the account are read apart: a superuser acting as an account is not one of its users.
  const [[user], [account], system, settings, moduleList] = await Promise.all([
    db.select().from(users).where(eq(users.id, actor.userId)),
    db.select().from(accounts).where(eq(accounts.id, actor.accountId)),
    db
      .select({ key: systemSettings.key, value: systemSettings.value })
      .from(systemSettings)
      .orderBy(systemSettings.key),
    db
      .select({ key: accountSettings.key, value: accountSettings.value })
      .from(accountSettings)
      .where(eq(accountSettings.accountId, actor.accountId))
      .orderBy(accountSettings.key),
    db
      .select({ dev_name: modules.devName, name: modules.name, enabled: modules.enabled })
      .from(modules)
      .orderBy(modules.devName),
  ]);
  if (!user || !account) throw new DomainError('UNAUTHORIZED', AUTH_MESSAGES.signInRequired);
  return {
    user: publicUser(user),
    meta: { authorizationLevel: user.authorizationLevel, superUserRole: user.superUserRole ?? null },
    account: publicAccount(account),
    systemSettings: system,
    accountSettings: settings,
    modules: moduleList,
  };
}

/**
 * Checks a signed-in user's current password (before a password or e-mail change). Wrong guesses count
 * with failed sign-ins, so a stolen session cannot be used to guess the password faster than sign-in allows.
 */
export async function verifyCurrentPassword(
  db: Db,
  user: { email: string; passwordHash: string },
  password: string,
  ip = 'session',
): Promise<boolean> {
  const attempt = await takeAttempt(db, 'sign_in_failure', user.email, ip, {
    perEmail: SIGN_IN_FAILURES_PER_HOUR,
    message: AUTH_MESSAGES.signInThrottled,
  });
  const ok = await verifyPassword(user.passwordHash, password);
  if (ok) await attempt.forget();
  return ok;
}
