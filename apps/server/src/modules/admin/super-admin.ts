import { Email, FORM_MESSAGES, Password } from '@switchyard/contracts';
import { eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../../db/client.ts';
import { newId } from '../../lib/ids.ts';
import { accounts, users } from '../accounts/accounts.tables.ts';
import { recordAudit } from '../audit/audit.service.ts';
import { hashPassword } from '../auth/password.ts';

const text = z.string(FORM_MESSAGES.required).trim().min(1, FORM_MESSAGES.required).max(200);

export const SuperAdminInput = z.object({
  email: Email,
  password: Password,
  business: text.default('Operations'),
  firstname: text.default('Super'),
  lastname: text.default('Admin'),
});
export type SuperAdminInput = z.input<typeof SuperAdminInput>;

/**
 * Makes the address a confirmed, active super admin: a new account and user, or, when the address
 * exists, that user promoted (and given the password). Used by `npm run admin:create`.
 */
export async function ensureSuperAdmin(
  db: Db,
  raw: SuperAdminInput,
): Promise<{ created: boolean; userId: string; accountId: string; email: string }> {
  const input = SuperAdminInput.parse(raw);
  const passwordHash = await hashPassword(input.password);
  const now = new Date();
  return db.transaction(async (tx) => {
    const [existing] = await tx.select().from(users).where(eq(users.email, input.email));
    const role = { authorizationLevel: 'superuser' as const, superUserRole: 'admin' as const };
    let result: { created: boolean; userId: string; accountId: string; email: string };
    if (existing) {
      await tx
        .update(users)
        .set({ ...role, passwordHash, emailConfirmedAt: existing.emailConfirmedAt ?? now, updatedAt: now })
        .where(eq(users.id, existing.id));
      await tx
        .update(accounts)
        .set({ status: 'active', confirmedAt: now, updatedAt: now })
        .where(eq(accounts.id, existing.accountId));
      result = { created: false, userId: existing.id, accountId: existing.accountId, email: input.email };
    } else {
      const accountId = newId('acc');
      const userId = newId('usr');
      await tx.insert(accounts).values({ id: accountId, business: input.business, status: 'active', confirmedAt: now });
      await tx.insert(users).values({
        id: userId,
        accountId,
        email: input.email,
        passwordHash,
        firstname: input.firstname,
        lastname: input.lastname,
        phone: '',
        ...role,
        emailConfirmedAt: now,
      });
      result = { created: true, userId, accountId, email: input.email };
    }
    await recordAudit(tx, {
      accountId: result.accountId,
      actorUserId: result.userId,
      action: 'cli.admin_create',
      detail: { created: result.created },
    });
    return result;
  });
}
