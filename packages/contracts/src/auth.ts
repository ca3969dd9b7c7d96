import { z } from 'zod';

export const AuthorizationLevel = z.enum(['user', 'superuser']);
export type AuthorizationLevel = z.infer<typeof AuthorizationLevel>;
export const SuperUserRole = z.enum(['admin']).nullable();
export type SuperUserRole = z.infer<typeof SuperUserRole>;

/** Claims carried by a session token. */
export const TokenClaims = z.object({
  sub: z.string(),
  /** The server-side session this token belongs to (revoked on sign-out and password change). */
  sid: z.string(),
  accountId: z.string(),
  authorizationLevel: AuthorizationLevel,
  superUserRole: SuperUserRole,
  exp: z.number(),
});
export type TokenClaims = z.infer<typeof TokenClaims>;
