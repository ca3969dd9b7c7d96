import { z } from 'zod';

/** The REST error shape: a numeric code (the HTTP status) and a message. */
export const ApiError = z.object({ code: z.number().int(), message: z.string() });
export type ApiError = z.infer<typeof ApiError>;

// Exact texts of SPEC §2 and §8.
export const MESSAGES = {
  notFound: "404 Oops! You're lost. The page you are looking for was not found.",
  unexpected: 'Oops! An unexpected error happened. Please try refreshing your page.',
  renderError: 'Something went wrong!',
  outdatedBuild: "You're using an outdated version of the product. Click here to update:",
  buildCheckFailed: 'Failed to check Build id. Please try again later.',
  untransformable: 'Unable to transform response from server',
  apiUrlsNotInitialized: 'API URLs not initialized',
  notImplemented: 'Not implemented yet',
  invalidResetCode: 'Invalid or expired code. Please try resetting your password again.',
  accountConfirmed: 'Your account has been confirmed!',
} as const;
