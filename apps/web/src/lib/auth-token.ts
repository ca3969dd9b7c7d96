/** SPEC §6: the login token lives in local storage under the key `token`. */
export const TOKEN_STORAGE_KEY = 'token';

export function getToken(): string | null {
  try {
    return window.localStorage.getItem(TOKEN_STORAGE_KEY);
  } catch {
    // Storage can be unavailable (privacy mode, blocked cookies); then there is no session.
    return null;
  }
}

export function authorizationHeader(): Record<string, string> {
  const token = getToken();
  return token ? { Authorization: `Bearer ${token}` } : {};
}
