// The signed-in user's own profile: name, phone, password, e-mail address and UI settings.
import {
  ACCOUNT_MESSAGES,
  AUTH_MESSAGES,
  type ChangePasswordInput,
  type ColumnsFilterEntry,
  type PublicUser,
  type RequestEmailChangeInput,
  type UpdateProfileInput,
  UserSettings,
  setColumnsFilter as withColumnsFilter,
} from '@switchyard/contracts';
import { and, eq, isNull } from 'drizzle-orm';
import { publicUrl } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import { DomainError, fromDatabaseError } from '../../lib/errors.ts';
import type { Services } from '../../services.ts';
import type { Actor } from '../../trpc/context.ts';
import { authCodes, users } from '../accounts/accounts.tables.ts';
import { endOtherSessions, verifyCurrentPassword } from '../auth/auth.service.ts';
import { consumeCode, issueCode } from '../auth/codes.ts';
import { hashPassword } from '../auth/password.ts';
import { dispatchMail, queueMail } from '../mail/mail.service.ts';

export const EMAIL_CHANGE_TTL_MS = 24 * 60 * 60 * 1000;

type UserRow = typeof users.$inferSelect;

const toPublicUser = (u: UserRow): PublicUser => ({
  id: u.id,
  email: u.email,
  firstname: u.firstname,
  lastname: u.lastname,
  phone: u.phone,
  settings: UserSettings.parse(u.settings ?? {}),
});

const own = (actor: Actor) => and(eq(users.id, actor.userId), eq(users.accountId, actor.accountId));

/** The caller's own row; a superuser acting in another account has none there. */
async function ownUser(db: Db, actor: Actor): Promise<UserRow> {
  const [user] = await db.select().from(users).where(own(actor));
  if (!user) throw new DomainError('NOT_FOUND', 'User not found');
  return user;
}

async function requirePassword(db: Db, user: UserRow, password: string) {
  if (!(await verifyCurrentPassword(db, user, password))) {
    throw new DomainError('VALIDATION', ACCOUNT_MESSAGES.wrongCurrentPassword);
  }
}

export async function getProfile(db: Db, actor: Actor): Promise<PublicUser> {
  return toPublicUser(await ownUser(db, actor));
}

export async function updateProfile(db: Db, actor: Actor, input: UpdateProfileInput): Promise<PublicUser> {
  const [user] = await db
    .update(users)
    .set({ ...input, updatedAt: new Date() })
    .where(own(actor))
    .returning();
  if (!user) throw new DomainError('NOT_FOUND', 'User not found');
  return toPublicUser(user);
}

/** Needs the current password; then every other session of the user ends, this one stays. */
export async function changePassword(db: Db, actor: Actor, input: ChangePasswordInput): Promise<{ ok: true }> {
  const user = await ownUser(db, actor);
  await requirePassword(db, user, input.currentPassword);
  const passwordHash = await hashPassword(input.newPassword);
  await db.transaction(async (tx) => {
    await tx.update(users).set({ passwordHash, updatedAt: new Date() }).where(own(actor));
    // A reset link sent before the change must not undo it.
    await tx
      .update(authCodes)
      .set({ usedAt: new Date() })
      .where(and(eq(authCodes.userId, user.id), eq(authCodes.purpose, 'reset'), isNull(authCodes.usedAt)));
    await endOtherSessions(tx, actor);
  });
  return { ok: true };
}

/**
 * Sends a confirmation link to the new address; the old one stays in use until the link is followed.
 * A newer request replaces an older one.
 */
export async function requestEmailChange(
  services: Services,
  actor: Actor,
  input: RequestEmailChangeInput,
): Promise<{ ok: true; newEmail: string }> {
  const user = await ownUser(services.db, actor);
  await requirePassword(services.db, user, input.password);
  if (input.newEmail === user.email) throw new DomainError('VALIDATION', ACCOUNT_MESSAGES.sameEmail);
  const [taken] = await services.db.select({ id: users.id }).from(users).where(eq(users.email, input.newEmail));
  if (taken) throw new DomainError('CONFLICT', AUTH_MESSAGES.emailTaken);
  const mailId = await services.db.transaction(async (tx) => {
    const owner = { accountId: user.accountId, userId: user.id };
    const code = await issueCode(tx, owner, 'email_change', EMAIL_CHANGE_TTL_MS, input.newEmail);
    const link = `${publicUrl(services.config)}/settings/profile?emailChange=${code}`;
    return queueMail(
      tx,
      input.newEmail,
      { template: 'email_change', firstname: user.firstname, link, newEmail: input.newEmail },
      user.accountId,
    );
  });
  await dispatchMail(services, [mailId]);
  return { ok: true, newEmail: input.newEmail };
}

/** Follows the link: only the user who asked can use it, once, within 24 hours. */
export async function confirmEmailChange(db: Db, actor: Actor, code: string): Promise<PublicUser> {
  try {
    return await db.transaction(async (tx) => {
      const used = await consumeCode(tx, code, 'email_change', actor);
      if (!used?.newEmail) throw new DomainError('NOT_FOUND', ACCOUNT_MESSAGES.invalidEmailChange);
      const now = new Date();
      const [user] = await tx
        .update(users)
        .set({ email: used.newEmail, emailConfirmedAt: now, updatedAt: now })
        .where(own(actor))
        .returning();
      if (!user) throw new DomainError('NOT_FOUND', ACCOUNT_MESSAGES.invalidEmailChange);
      return toPublicUser(user);
    });
  } catch (err) {
    // Someone registered the address after the link was sent.
    const mapped = fromDatabaseError(err, AUTH_MESSAGES.emailTaken);
    throw mapped?.code === 'CONFLICT' ? mapped : err;
  }
}

/** SPEC §3: replaces the entry for the same catalog_integration_id, or appends one. */
export async function setColumnsFilter(db: Db, actor: Actor, entry: ColumnsFilterEntry): Promise<UserSettings> {
  return db.transaction(async (tx) => {
    // Locked so two quick changes from two tabs do not drop one another.
    const [user] = await tx.select().from(users).where(own(actor)).for('update');
    if (!user) throw new DomainError('NOT_FOUND', 'User not found');
    const current = UserSettings.parse(user.settings ?? {});
    const settings = { ...current, columnsFilter: withColumnsFilter(current.columnsFilter, entry) };
    await tx.update(users).set({ settings, updatedAt: new Date() }).where(own(actor));
    return settings;
  });
}
