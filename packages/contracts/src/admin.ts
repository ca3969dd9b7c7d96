import { z } from 'zod';
import { AccountStatus } from './accounts.ts';
import { PageInput } from './apps.ts';
import { AuthorizationLevel, SuperUserRole } from './auth.ts';

/** An acting session (a superuser working inside a merchant's account) lasts this long. */
export const ACTING_SESSION_TTL_SECONDS = 60 * 60;

export const ADMIN_MESSAGES = {
  ownAdminRole: 'You cannot remove your own super admin role.',
  adminNeedsSuperuser: 'A super admin must also be a superuser.',
  userNotFound: 'User not found',
  accountNotFound: 'Account not found',
} as const;

export const AdminAccountsListInput = PageInput.extend({ search: z.string().trim().max(200).optional() });
export type AdminAccountsListInput = z.infer<typeof AdminAccountsListInput>;

export const AdminUser = z.object({
  id: z.string(),
  email: z.string(),
  firstname: z.string(),
  lastname: z.string(),
  authorizationLevel: AuthorizationLevel,
  superUserRole: SuperUserRole,
});
export type AdminUser = z.infer<typeof AdminUser>;

export const AdminAccount = z.object({
  id: z.string(),
  business: z.string(),
  status: AccountStatus,
  createdAt: z.iso.datetime(),
  users: z.array(AdminUser),
});
export type AdminAccount = z.infer<typeof AdminAccount>;

export const AdminAccountList = z.object({
  results: z.array(AdminAccount),
  total: z.number().int(),
  limit: z.number(),
  offset: z.number(),
});
export type AdminAccountList = z.infer<typeof AdminAccountList>;

export const ActAsInput = z.object({
  accountId: z.string().min(1).max(100),
  /** Kept in the account's audit log, which the merchant can read. */
  reason: z.string().trim().min(5, 'Say why, in at least 5 characters').max(500),
});
export type ActAsInput = z.infer<typeof ActAsInput>;

export const ActAsOutput = z.object({
  token: z.string(),
  expiresAt: z.iso.datetime(),
  account: z.object({ id: z.string(), business: z.string(), status: AccountStatus }),
});
export type ActAsOutput = z.infer<typeof ActAsOutput>;

export const SetSystemSettingInput = z.object({
  key: z
    .string()
    .min(1)
    .max(100)
    .regex(/^[a-zA-Z0-9_.-]+$/, 'Letters, digits, dots, dashes and underscores only'),
  /** Any JSON but a bare null: the stored value is never empty (a null would be SQL NULL in the jsonb column). */
  value: z.json().refine((value) => value !== null, 'Give a value: null cannot be stored'),
});
export type SetSystemSettingInput = z.infer<typeof SetSystemSettingInput>;

export const SetModuleInput = z.object({
  dev_name: z
    .string()
    .min(1)
    .max(100)
    .regex(/^[a-z0-9_-]+$/, 'Lower-case letters, digits, dashes and underscores only'),
  name: z.string().trim().min(1).max(200),
  enabled: z.boolean(),
});
export type SetModuleInput = z.infer<typeof SetModuleInput>;

export const SetSuperuserInput = z
  .object({ userId: z.string().min(1).max(100), authorizationLevel: AuthorizationLevel, superUserRole: SuperUserRole })
  .refine((v) => v.superUserRole !== 'admin' || v.authorizationLevel === 'superuser', {
    path: ['superUserRole'],
    message: ADMIN_MESSAGES.adminNeedsSuperuser,
  });
export type SetSuperuserInput = z.infer<typeof SetSuperuserInput>;

/** One line of an account's audit log. */
export const AuditEntry = z.object({
  id: z.string(),
  action: z.string(),
  actor: z.object({ id: z.string(), email: z.string(), firstname: z.string(), lastname: z.string() }),
  detail: z.record(z.string(), z.unknown()),
  createdAt: z.iso.datetime(),
});
export type AuditEntry = z.infer<typeof AuditEntry>;

export const AuditList = z.object({
  results: z.array(AuditEntry),
  total: z.number().int(),
  limit: z.number(),
  offset: z.number(),
});
export type AuditList = z.infer<typeof AuditList>;
