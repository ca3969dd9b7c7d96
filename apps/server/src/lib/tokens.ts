import { TokenClaims } from '@switchyard/contracts';
import { errors, jwtVerify, SignJWT } from 'jose';
import { z } from 'zod';

export interface SessionIdentity {
  sessionId: string;
  userId: string;
  accountId: string;
  authorizationLevel: TokenClaims['authorizationLevel'];
  superUserRole: TokenClaims['superUserRole'];
}

const ISSUER = 'switchyard';
const ALG = 'HS256';

export const DEFAULT_SESSION_TTL_SECONDS = 12 * 60 * 60;

export class TokenService {
  readonly #key: Uint8Array;
  constructor(secret: string) {
    this.#key = new TextEncoder().encode(secret);
  }

  async sign(identity: SessionIdentity, ttlSeconds = DEFAULT_SESSION_TTL_SECONDS): Promise<string> {
    return new SignJWT({
      sid: identity.sessionId,
      accountId: identity.accountId,
      authorizationLevel: identity.authorizationLevel,
      superUserRole: identity.superUserRole,
    })
      .setProtectedHeader({ alg: ALG })
      .setSubject(identity.userId)
      .setIssuer(ISSUER)
      .setIssuedAt()
      .setExpirationTime(Math.floor(Date.now() / 1000) + ttlSeconds)
      .sign(this.#key);
  }

  /** The identity in a valid, unexpired token; undefined for anything else. */
  async verify(token: string): Promise<(SessionIdentity & { issuedAt: number }) | undefined> {
    try {
      const { payload } = await jwtVerify(token, this.#key, { issuer: ISSUER, algorithms: [ALG] });
      const claims = TokenClaims.parse(payload);
      return {
        sessionId: claims.sid,
        userId: claims.sub,
        accountId: claims.accountId,
        authorizationLevel: claims.authorizationLevel,
        superUserRole: claims.superUserRole,
        issuedAt: payload.iat ?? 0,
      };
    } catch (err) {
      // A bad signature, an expired or malformed token, or claims of the wrong shape: not signed in.
      // Anything else is a bug and must not pass for a signed-out caller.
      if (err instanceof errors.JOSEError || err instanceof z.ZodError) return undefined;
      throw err;
    }
  }
}

export function bearerToken(header: string | undefined): string | undefined {
  const match = header?.match(/^Bearer\s+(\S+)$/i);
  return match?.[1];
}
