import { z } from 'zod';
import { AuthorizationLevel, SuperUserRole } from './auth.ts';
import { PASSWORD_MIN_LENGTH } from './limits.ts';

// Exact texts of SPEC §5.
export const FORM_MESSAGES = {
  required: '* Required',
  passwordTooShort: `Should be at least ${PASSWORD_MIN_LENGTH} characters long`,
  passwordsDiffer: 'Passwords do not match',
  agreement: 'Please check and agree to the Terms & Conditions',
  invalidEmail: 'Enter a valid e-mail address',
} as const;

const requiredText = z.string(FORM_MESSAGES.required).trim().min(1, FORM_MESSAGES.required).max(200);

export const Email = z
  .string(FORM_MESSAGES.required)
  .trim()
  .min(1, FORM_MESSAGES.required)
  .max(254)
  .pipe(z.email(FORM_MESSAGES.invalidEmail))
  .transform((v) => v.toLowerCase());

export const Password = z
  .string(FORM_MESSAGES.required)
  .min(1, FORM_MESSAGES.required)
  .min(PASSWORD_MIN_LENGTH, FORM_MESSAGES.passwordTooShort)
  .max(200);

/** SPEC §3/§5: the registration form, checked in the browser and again on the server. */
export const RegisterInput = z
  .object({
    firstname: requiredText,
    lastname: requiredText,
    business: requiredText,
    phone: requiredText.max(40),
    email: Email,
    password: Password,
    password2: z.string(FORM_MESSAGES.required).min(1, FORM_MESSAGES.required),
    agreement: z.boolean().refine((v) => v === true, FORM_MESSAGES.agreement),
  })
  .refine((v) => v.password === v.password2, { path: ['password2'], message: FORM_MESSAGES.passwordsDiffer });
export type RegisterInput = z.infer<typeof RegisterInput>;

export const LoginInput = z.object({ email: Email, password: z.string().min(1, FORM_MESSAGES.required).max(200) });
export type LoginInput = z.infer<typeof LoginInput>;

export const EmailInput = z.object({ email: Email });
export const CodeInput = z.object({ code: z.string().min(1).max(200) });
export const ResetCheckInput = z.object({ token: z.string().min(1).max(200) });
export const ResetUpdateInput = z.object({ token: z.string().min(1).max(200), password: Password });

/** DESIGN §3: created → requires_payment_method → awaiting_payment → active; also past_due, canceled. */
export const AccountStatus = z.enum([
  'created',
  'requires_payment_method',
  'awaiting_payment',
  'active',
  'past_due',
  'canceled',
]);
export type AccountStatus = z.infer<typeof AccountStatus>;

export const ColumnsFilterEntry = z.object({
  catalog_integration_id: z.union([z.string(), z.number()]),
  columns: z.array(z.string()).max(100),
});
export type ColumnsFilterEntry = z.infer<typeof ColumnsFilterEntry>;

export const UserSettings = z.object({ columnsFilter: z.array(ColumnsFilterEntry).default([]) });
export type UserSettings = z.infer<typeof UserSettings>;

/** SPEC §3: setting a filter replaces the entry with the same catalog_integration_id, otherwise appends it. */
export function setColumnsFilter(list: ColumnsFilterEntry[], entry: ColumnsFilterEntry): ColumnsFilterEntry[] {
  const key = String(entry.catalog_integration_id);
  const at = list.findIndex((e) => String(e.catalog_integration_id) === key);
  return at === -1 ? [...list, entry] : list.map((e, i) => (i === at ? entry : e));
}

export const PublicUser = z.object({
  id: z.string(),
  email: z.string(),
  firstname: z.string(),
  lastname: z.string(),
  phone: z.string(),
  settings: UserSettings,
});
export type PublicUser = z.infer<typeof PublicUser>;

export const PublicAccount = z.object({ id: z.string(), business: z.string(), status: AccountStatus });
export type PublicAccount = z.infer<typeof PublicAccount>;

export const SessionMeta = z.object({ authorizationLevel: AuthorizationLevel, superUserRole: SuperUserRole });

/** What sign-in answers: the token and what the client keeps (SPEC §4). */
export const LoginOutput = z.object({ token: z.string(), user: PublicUser, meta: SessionMeta, account: PublicAccount });
export type LoginOutput = z.infer<typeof LoginOutput>;

const KeyedItem = z.object({ key: z.string(), value: z.unknown() });

/** hydration.getBasicData (SPEC §7). */
export const BasicData = z.object({
  user: PublicUser,
  meta: SessionMeta,
  account: PublicAccount,
  systemSettings: z.array(KeyedItem),
  accountSettings: z.array(KeyedItem),
  modules: z.array(z.object({ dev_name: z.string(), name: z.string(), enabled: z.boolean() })),
});
export type BasicData = z.infer<typeof BasicData>;

/** SPEC §4: where a signed-in user entering the app area is sent, by account status. */
export function statusGateRedirect(
  status: AccountStatus,
): '/subscription/plans' | '/subscription/awaiting-payment' | '/confirmation' | undefined {
  switch (status) {
    case 'requires_payment_method':
      return '/subscription/plans';
    case 'awaiting_payment':
      return '/subscription/awaiting-payment';
    case 'created':
      return '/confirmation';
    default:
      return undefined;
  }
}

/** Server messages of the account flows, shared so the web app can recognise them. */
export const AUTH_MESSAGES = {
  emailTaken: 'An account with this e-mail address already exists. Sign in or reset your password.',
  wrongCredentials: 'Wrong e-mail address or password.',
  signInThrottled: 'Too many failed sign-in attempts. Try again in an hour or reset your password.',
  requestThrottled: 'Too many requests for this address. Try again later.',
  invalidConfirmation: 'This confirmation link is invalid or has expired.',
  signInRequired: 'Please sign in to continue.',
} as const;
