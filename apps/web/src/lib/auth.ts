import {
  type ActAsOutput,
  type AuthorizationLevel,
  type BasicData,
  type LoginOutput,
  type PublicAccount,
  PublicUser,
  type SuperUserRole,
  TokenClaims,
} from '@switchyard/contracts';
import { jwtDecode } from 'jwt-decode';
import { useSyncExternalStore } from 'react';
import { getToken, TOKEN_STORAGE_KEY } from './auth-token.ts';

/** SPEC §3/§4: the signed-in user is also kept in local storage, under `user`. */
export const USER_STORAGE_KEY = 'user';

/** SPEC §3 auth state, plus the account from the basic data (the "catalog data"). */
export interface AuthState {
  token: string | null;
  user: PublicUser | null;
  authorizationLevel: AuthorizationLevel | null;
  superUserRole: SuperUserRole;
  account: PublicAccount | null;
}

const SIGNED_OUT: AuthState = {
  token: null,
  user: null,
  authorizationLevel: null,
  superUserRole: null,
  account: null,
};

function storage(): Storage | undefined {
  try {
    return window.localStorage;
  } catch {
    return undefined;
  }
}

/** While a superuser acts as an account, their own token waits here (the acting token is under `token`). */
export const SUPERUSER_TOKEN_STORAGE_KEY = 'superuser_token';

function removeStored(): void {
  storage()?.removeItem(TOKEN_STORAGE_KEY);
  storage()?.removeItem(USER_STORAGE_KEY);
  storage()?.removeItem(SUPERUSER_TOKEN_STORAGE_KEY);
}

/** The claims of a token, or undefined when it cannot be decoded. */
export function decodeToken(token: string): Partial<TokenClaims> | undefined {
  try {
    const claims = jwtDecode<Record<string, unknown>>(token);
    return typeof claims === 'object' && claims !== null ? claims : undefined;
  } catch {
    return undefined;
  }
}

/** SPEC §4: a token is valid only while its expiry time is still in the future. */
export function isTokenValid(token: string, now = Date.now()): boolean {
  const exp = decodeToken(token)?.exp;
  return typeof exp === 'number' && exp * 1000 > now;
}

/**
 * The stored token when it is still valid. An expired or undecodable token means signed out: it is removed
 * (with the stored user), so it is not sent as a bearer header any more.
 */
export function getValidToken(): string | null {
  const token = getToken();
  if (!token) return null;
  if (isTokenValid(token)) return token;
  // Only storage here: this runs while rendering too. The state follows on its next read.
  removeStored();
  return null;
}

export function isSignedIn(): boolean {
  return getValidToken() !== null;
}

function readStoredUser(): PublicUser | null {
  const raw = storage()?.getItem(USER_STORAGE_KEY);
  if (!raw) return null;
  try {
    const parsed = PublicUser.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** What local storage says: the token and user, with the level and role the token carries. */
function readStoredState(): AuthState {
  const token = getValidToken();
  if (!token) return SIGNED_OUT;
  const claims = TokenClaims.partial().safeParse(decodeToken(token));
  return {
    token,
    user: readStoredUser(),
    authorizationLevel: claims.success ? (claims.data.authorizationLevel ?? null) : null,
    superUserRole: claims.success ? (claims.data.superUserRole ?? null) : null,
    account: null,
  };
}

let state: AuthState | undefined;
const listeners = new Set<() => void>();

function setState(next: AuthState): void {
  state = next;
  for (const listener of listeners) listener();
}

export function getAuthState(): AuthState {
  // Storage can change under us (another tab, a test); re-read while the token in memory is not the stored one.
  if (!state || state.token !== getToken()) state = readStoredState();
  return state;
}

/** Sign-in (SPEC §4): stores the token and user, and sets the level, role and catalog data. */
export function signIn(output: LoginOutput): void {
  storage()?.setItem(TOKEN_STORAGE_KEY, output.token);
  storage()?.setItem(USER_STORAGE_KEY, JSON.stringify(output.user));
  setState({
    token: output.token,
    user: output.user,
    authorizationLevel: output.meta.authorizationLevel,
    superUserRole: output.meta.superUserRole,
    account: output.account,
  });
}

/** Takes in the basic data loaded after sign-in: the user, level, role and the account. */
export function hydrateSession(data: Pick<BasicData, 'user' | 'meta' | 'account'>): void {
  const token = getValidToken();
  if (!token) return;
  const current = getAuthState();
  // The gate runs on every navigation with the same cached data; only a change is news.
  if (current.token === token && current.user === data.user && current.account === data.account) return;
  storage()?.setItem(USER_STORAGE_KEY, JSON.stringify(data.user));
  setState({
    token,
    user: data.user,
    authorizationLevel: data.meta.authorizationLevel,
    superUserRole: data.meta.superUserRole,
    account: data.account,
  });
}

/**
 * A superuser starts acting as an account: their own token is kept under `superuser_token` and the acting
 * token becomes the session's token. The level and role stay theirs; the account is the one acted as.
 */
export function startActing(output: ActAsOutput): void {
  const current = getAuthState();
  if (!current.token) return;
  // Acting again from inside an acting session keeps the superuser's own token, not the acting one.
  if (!isActing()) storage()?.setItem(SUPERUSER_TOKEN_STORAGE_KEY, current.token);
  storage()?.setItem(TOKEN_STORAGE_KEY, output.token);
  setState({ ...current, token: output.token, account: output.account });
}

/** True while a superuser acts as an account (their own token is put aside). */
export function isActing(): boolean {
  return Boolean(storage()?.getItem(SUPERUSER_TOKEN_STORAGE_KEY));
}

/**
 * Stops acting on this device: the superuser's own token comes back. False when it has expired meanwhile
 * (then the session is over and everything is cleared).
 */
export function stopActing(): boolean {
  const own = storage()?.getItem(SUPERUSER_TOKEN_STORAGE_KEY) ?? null;
  storage()?.removeItem(SUPERUSER_TOKEN_STORAGE_KEY);
  if (!own || !isTokenValid(own)) {
    clearSession();
    return false;
  }
  storage()?.setItem(TOKEN_STORAGE_KEY, own);
  setState(readStoredState());
  return true;
}

export const ACTING_ENDED_MESSAGE = 'Your time acting as that account has ended. You are back in your own account.';

/**
 * When the server stops accepting an acting token (it lasts an hour), the superuser goes back to their own
 * session rather than being signed out. True when that happened; false when there was nothing to go back to.
 */
export function endExpiredActing(): boolean {
  return isActing() && stopActing();
}

/** True while acting with an acting token that has run out (checked before anything clears the session). */
export function hasExpiredActingToken(): boolean {
  const token = storage()?.getItem(TOKEN_STORAGE_KEY);
  return isActing() && !!token && !isTokenValid(token);
}

/** Replaces the signed-in user (after a profile or settings change), in the state and in local storage. */
export function setStoredUser(user: PublicUser): void {
  const current = getAuthState();
  if (!current.token) return;
  storage()?.setItem(USER_STORAGE_KEY, JSON.stringify(user));
  setState({ ...current, user });
}

/** Sign-out's local half (SPEC §4): removes the token and user and clears the state. */
export function clearSession(): void {
  removeStored();
  if (state !== SIGNED_OUT) setState(SIGNED_OUT);
}

export function subscribeAuth(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function useAuth(): AuthState {
  return useSyncExternalStore(subscribeAuth, getAuthState, getAuthState);
}

/** SPEC §4/§6: a superuser's authorizationLevel is superuser. */
export function isSuperuser(auth: Pick<AuthState, 'authorizationLevel'>): boolean {
  return auth.authorizationLevel === 'superuser';
}

/** SPEC §4/§6: a super admin's superUserRole is admin. */
export function isSuperAdmin(auth: Pick<AuthState, 'superUserRole'>): boolean {
  return auth.superUserRole === 'admin';
}

export function displayName(user: Pick<PublicUser, 'firstname' | 'lastname' | 'email'> | null): string {
  if (!user) return '';
  const name = `${user.firstname} ${user.lastname}`.trim();
  return name || user.email;
}
