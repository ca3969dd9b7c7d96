// Superusers (DESIGN §3): see every account and act in one, audited; super admins also manage system
// settings, modules and who is a superuser. Every write here leaves an audit entry.
import {
  ACTING_SESSION_TTL_SECONDS,
  type ActAsInput,
  type ActAsOutput,
  ADMIN_MESSAGES,
  type AdminAccount,
  type AdminAccountList,
  type AdminAccountsListInput,
  type AdminUser,
  type SetModuleInput,
  type SetSuperuserInput,
  type SetSystemSettingInput,
} from '@switchyard/contracts';
import { and, asc, count, desc, eq, exists, gt, ilike, inArray, isNull, or, type SQL } from 'drizzle-orm';
import { decodeJwt } from 'jose';
import type { Db } from '../../db/client.ts';
import { DomainError } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { Services } from '../../services.ts';
import type { Actor } from '../../trpc/context.ts';
import { accounts, users } from '../accounts/accounts.tables.ts';
import { recordAudit } from '../audit/audit.service.ts';
import { modules, systemSettings } from '../settings/settings.tables.ts';
import { actingSessions } from './admin.tables.ts';

const ACTING_PREFIX = 'act';

type AccountRow = typeof accounts.$inferSelect;
type UserRow = typeof users.$inferSelect;

const toAdminUser = (u: UserRow): AdminUser => ({
  id: u.id,
  email: u.email,
  firstname: u.firstname,
  lastname: u.lastname,
  authorizationLevel: u.authorizationLevel,
  superUserRole: u.superUserRole ?? null,
});

const toAdminAccount = (a: AccountRow, members: UserRow[]): AdminAccount => ({
  id: a.id,
  business: a.business,
  status: a.status,
  createdAt: a.createdAt.toISOString(),
  users: members.filter((u) => u.accountId === a.id).map(toAdminUser),
});

const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** Every account, newest first; `search` matches the business name or a user's e-mail address. */
export async function listAllAccounts(db: Db, input: AdminAccountsListInput): Promise<AdminAccountList> {
  let where: SQL | undefined;
  if (input.search) {
    const pattern = likePattern(input.search);
    where = or(
      ilike(accounts.business, pattern),
      exists(
        db
          .select({ one: users.id })
          .from(users)
          .where(and(eq(users.accountId, accounts.id), ilike(users.email, pattern))),
      ),
    );
  }
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(accounts)
      .where(where)
      .orderBy(desc(accounts.createdAt), desc(accounts.id))
      .limit(input.limit)
      .offset(input.offset),
    db.select({ n: count() }).from(accounts).where(where),
  ]);
  const members = rows.length
    ? await db
        .select()
        .from(users)
        .where(
          inArray(
            users.accountId,
            rows.map((r) => r.id),
          ),
        )
        .orderBy(asc(users.createdAt))
    : [];
  return {
    results: rows.map((r) => toAdminAccount(r, members)),
    total: total?.n ?? 0,
    limit: input.limit,
    offset: input.offset,
  };
}

export async function getAnyAccount(db: Db, accountId: string): Promise<AdminAccount> {
  const [row] = await db.select().from(accounts).where(eq(accounts.id, accountId));
  if (!row) throw new DomainError('NOT_FOUND', ADMIN_MESSAGES.accountNotFound);
  const members = await db.select().from(users).where(eq(users.accountId, row.id)).orderBy(asc(users.createdAt));
  return toAdminAccount(row, members);
}

/**
 * Starts a session for the superuser inside the account: an hour long, and written to the account's
 * audit log with the reason, so the merchant can see who looked and why.
 */
export async function actAs(services: Services, actor: Actor, input: ActAsInput): Promise<ActAsOutput> {
  const [account] = await services.db.select().from(accounts).where(eq(accounts.id, input.accountId));
  if (!account) throw new DomainError('NOT_FOUND', ADMIN_MESSAGES.accountNotFound);
  const sessionId = newId(ACTING_PREFIX);
  const expiresAt = new Date(Date.now() + ACTING_SESSION_TTL_SECONDS * 1000);
  await services.db.transaction(async (tx) => {
    await tx.insert(actingSessions).values({
      id: sessionId,
      accountId: account.id,
      userId: actor.userId,
      reason: input.reason,
      expiresAt,
    });
    await recordAudit(tx, {
      accountId: account.id,
      actorUserId: actor.userId,
      action: 'superuser.act_as',
      detail: { reason: input.reason, sessionId, expiresAt: expiresAt.toISOString() },
    });
  });
  const token = await services.tokens.sign(
    {
      sessionId,
      userId: actor.userId,
      accountId: account.id,
      authorizationLevel: actor.authorizationLevel,
      superUserRole: actor.superUserRole,
    },
    ACTING_SESSION_TTL_SECONDS,
  );
  return {
    token,
    expiresAt: expiresAt.toISOString(),
    account: { id: account.id, business: account.business, status: account.status },
  };
}

/** Only routes a token to the right lookup; `resolveActingSession` does the verifying. */
export function isActingToken(token: string): boolean {
  try {
    const sid = decodeJwt(token).sid;
    return typeof sid === 'string' && sid.startsWith(`${ACTING_PREFIX}_`);
  } catch {
    return false;
  }
}

/**
 * The caller behind an acting token: the token must verify, its session be live, and the user still
 * a superuser (a demotion ends acting at once).
 */
export async function resolveActingSession(services: Services, token: string): Promise<Actor | undefined> {
  const identity = await services.tokens.verify(token);
  if (!identity?.sessionId.startsWith(`${ACTING_PREFIX}_`)) return undefined;
  const [row] = await services.db
    .select({ session: actingSessions, user: users })
    .from(actingSessions)
    .innerJoin(users, eq(users.id, actingSessions.userId))
    .where(
      and(
        eq(actingSessions.id, identity.sessionId),
        isNull(actingSessions.revokedAt),
        gt(actingSessions.expiresAt, new Date()),
      ),
    );
  if (!row || row.user.id !== identity.userId || row.session.accountId !== identity.accountId) return undefined;
  if (row.user.authorizationLevel !== 'superuser') return undefined;
  return {
    sessionId: row.session.id,
    userId: row.user.id,
    accountId: row.session.accountId,
    authorizationLevel: row.user.authorizationLevel,
    superUserRole: row.user.superUserRole ?? null,
  };
}

/** Ends the caller's acting session (leaving the account); audited like its start. */
export async function endActing(db: Db, actor: Actor): Promise<{ ended: boolean }> {
  if (!actor.sessionId.startsWith(`${ACTING_PREFIX}_`)) return { ended: false };
  return db.transaction(async (tx) => {
    const [ended] = await tx
      .update(actingSessions)
      .set({ revokedAt: new Date() })
      .where(
        and(
          eq(actingSessions.id, actor.sessionId),
          eq(actingSessions.userId, actor.userId),
          isNull(actingSessions.revokedAt),
        ),
      )
      .returning();
    if (!ended) return { ended: false };
    await recordAudit(tx, {
      accountId: ended.accountId,
      actorUserId: actor.userId,
      action: 'superuser.act_as_end',
      detail: { sessionId: ended.id },
    });
    return { ended: true };
  });
}

/** Product-wide changes are logged in the super admin's own account. */
async function homeAccountOf(db: Db, actor: Actor): Promise<string> {
  const [user] = await db.select({ accountId: users.accountId }).from(users).where(eq(users.id, actor.userId));
  if (!user) throw new DomainError('UNAUTHORIZED', 'Please sign in to continue.');
  return user.accountId;
}

export async function setSystemSetting(db: Db, actor: Actor, input: SetSystemSettingInput) {
  const accountId = await homeAccountOf(db, actor);
  return db.transaction(async (tx) => {
    const [row] = await tx
      .insert(systemSettings)
      .values({ key: input.key, value: input.value })
      .onConflictDoUpdate({ target: systemSettings.key, set: { value: input.value, updatedAt: new Date() } })
      .returning({ key: systemSettings.key, value: systemSettings.value });
    await recordAudit(tx, {
      accountId,
      actorUserId: actor.userId,
      action: 'system_settings.set',
      detail: { key: input.key, value: input.value },
    });
    return row as { key: string; value: unknown };
  });
}

export async function setModule(db: Db, actor: Actor, input: SetModuleInput) {
  const accountId = await homeAccountOf(db, actor);
  return db.transaction(async (tx) => {
    const values = { name: input.name, enabled: input.enabled };
    const [row] = await tx
      .insert(modules)
      .values({ devName: input.dev_name, ...values })
      .onConflictDoUpdate({ target: modules.devName, set: { ...values, updatedAt: new Date() } })
      .returning();
    await recordAudit(tx, { accountId, actorUserId: actor.userId, action: 'modules.set', detail: { ...input } });
    return { dev_name: row?.devName ?? input.dev_name, name: row?.name ?? input.name, enabled: !!row?.enabled };
  });
}

/** Grants or takes away superuser rights; takes effect on the user's next request. */
export async function setSuperuser(db: Db, actor: Actor, input: SetSuperuserInput): Promise<AdminUser> {
  if (input.userId === actor.userId && input.superUserRole !== 'admin') {
    throw new DomainError('VALIDATION', ADMIN_MESSAGES.ownAdminRole);
  }
  return db.transaction(async (tx) => {
    const [before] = await tx.select().from(users).where(eq(users.id, input.userId));
    if (!before) throw new DomainError('NOT_FOUND', ADMIN_MESSAGES.userNotFound);
    const [user] = await tx
      .update(users)
      .set({ authorizationLevel: input.authorizationLevel, superUserRole: input.superUserRole, updatedAt: new Date() })
      .where(eq(users.id, input.userId))
      .returning();
    if (!user) throw new DomainError('NOT_FOUND', ADMIN_MESSAGES.userNotFound);
    await recordAudit(tx, {
      accountId: user.accountId,
      actorUserId: actor.userId,
      action: 'users.set_superuser',
      detail: {
        userId: user.id,
        email: user.email,
        from: { authorizationLevel: before.authorizationLevel, superUserRole: before.superUserRole ?? null },
        to: { authorizationLevel: input.authorizationLevel, superUserRole: input.superUserRole },
      },
    });
    return toAdminUser(user);
  });
}
