import { z } from 'zod';
import { AccountStatus, ColumnsFilterEntry, Email, FORM_MESSAGES, Password } from './accounts.ts';

const requiredText = z.string(FORM_MESSAGES.required).trim().min(1, FORM_MESSAGES.required).max(200);
/** An optional text field: blank clears it. */
const optionalText = (max: number) =>
  z
    .string()
    .trim()
    .max(max)
    .transform((v) => (v === '' ? null : v))
    .nullable();

const isTimeZone = (tz: string) => {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
};

export const ACCOUNT_MESSAGES = {
  wrongCurrentPassword: 'Your current password is not right.',
  sameEmail: 'This is already your e-mail address.',
  invalidEmailChange: 'This e-mail change link is invalid or has expired.',
  unknownTimeZone: 'Unknown time zone',
} as const;

/** The business details of an account (the catalog data kept after sign-in). */
export const AccountDetails = z.object({
  id: z.string(),
  business: z.string(),
  status: AccountStatus,
  phone: z.string().nullable(),
  addressLine1: z.string().nullable(),
  city: z.string().nullable(),
  postcode: z.string().nullable(),
  /** ISO 3166-1 alpha-2. */
  country: z.string().nullable(),
  /** IANA time zone, e.g. Europe/Berlin. */
  timezone: z.string(),
  /** ISO 4217, e.g. USD. */
  currency: z.string(),
});
export type AccountDetails = z.infer<typeof AccountDetails>;

/** Changes some business details; omitted fields stay as they are. */
export const UpdateAccountInput = z
  .object({
    business: requiredText,
    phone: optionalText(40),
    addressLine1: optionalText(200),
    city: optionalText(100),
    postcode: optionalText(20),
    country: z
      .string()
      .trim()
      .toUpperCase()
      .regex(/^[A-Z]{2}$/, 'Use a two-letter country code')
      .nullable(),
    timezone: z.string().trim().min(1).max(64).refine(isTimeZone, ACCOUNT_MESSAGES.unknownTimeZone),
    currency: z
      .string()
      .trim()
      .toUpperCase()
      .regex(/^[A-Z]{3}$/, 'Use a three-letter currency code'),
  })
  .partial();
export type UpdateAccountInput = z.infer<typeof UpdateAccountInput>;

const KeyedItem = z.object({ key: z.string(), value: z.unknown() });

/** GET/PUT account/catalogs: the account object plus its settings list. */
export const AccountCatalogs = z.object({ account: AccountDetails, accountSettings: z.array(KeyedItem) });
export type AccountCatalogs = z.infer<typeof AccountCatalogs>;

export const UpdateProfileInput = z.object({
  firstname: requiredText,
  lastname: requiredText,
  phone: requiredText.max(40),
});
export type UpdateProfileInput = z.infer<typeof UpdateProfileInput>;

export const ChangePasswordInput = z.object({
  currentPassword: z.string(FORM_MESSAGES.required).min(1, FORM_MESSAGES.required).max(200),
  newPassword: Password,
});
export type ChangePasswordInput = z.infer<typeof ChangePasswordInput>;

export const RequestEmailChangeInput = z.object({
  newEmail: Email,
  password: z.string(FORM_MESSAGES.required).min(1, FORM_MESSAGES.required).max(200),
});
export type RequestEmailChangeInput = z.infer<typeof RequestEmailChangeInput>;

export const ConfirmEmailChangeInput = z.object({ code: z.string().min(1).max(200) });

export const SetColumnsFilterInput = ColumnsFilterEntry;
