import type { AccountStatus, BasicData, LoginOutput, PublicUser } from '@switchyard/contracts';

function base64url(value: unknown): string {
  return btoa(JSON.stringify(value)).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
}

/** An unsigned JWT (the web app only decodes tokens; the server checks them). `exp` is in seconds. */
export function fakeToken(claims: Record<string, unknown> = {}): string {
  const payload = {
    sub: 'u-1',
    accountId: 'a-1',
    authorizationLevel: 'user',
    superUserRole: null,
    exp: Math.floor(Date.now() / 1000) + 3600,
    ...claims,
  };
  return `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url(payload)}.`;
}

export const TEST_USER: PublicUser = {
  id: 'u-1',
  email: 'ada@example.com',
  firstname: 'Ada',
  lastname: 'Lovelace',
  phone: '+1 555 0100',
  settings: { columnsFilter: [] },
};

export interface BasicDataOverrides {
  status?: AccountStatus;
  accountSettings?: BasicData['accountSettings'];
  meta?: BasicData['meta'];
  user?: PublicUser;
  systemSettings?: BasicData['systemSettings'];
  modules?: BasicData['modules'];
}

export const SUPERUSER_META: BasicData['meta'] = { authorizationLevel: 'superuser', superUserRole: null };
export const SUPER_ADMIN_META: BasicData['meta'] = { authorizationLevel: 'superuser', superUserRole: 'admin' };

export function basicData(overrides: BasicDataOverrides = {}): BasicData {
  return {
    user: overrides.user ?? TEST_USER,
    meta: overrides.meta ?? { authorizationLevel: 'user', superUserRole: null },
    account: { id: 'a-1', business: 'Analytical Engines Ltd', status: overrides.status ?? 'active' },
    systemSettings: overrides.systemSettings ?? [],
    accountSettings: overrides.accountSettings ?? [],
    modules: overrides.modules ?? [],
  };
}

export function loginOutput(token = fakeToken()): LoginOutput {
  return {
    token,
    user: TEST_USER,
    meta: { authorizationLevel: 'user', superUserRole: null },
    account: { id: 'a-1', business: 'Analytical Engines Ltd', status: 'active' },
  };
}

/** Puts a signed-in session in local storage, as sign-in leaves it. */
export function storeSession(token = fakeToken()): string {
  window.localStorage.setItem('token', token);
  window.localStorage.setItem('user', JSON.stringify(TEST_USER));
  return token;
}

/** tRPC handlers of a signed-in session: the basic data, with the given account status and settings. */
export function signedInHandlers(overrides: Parameters<typeof basicData>[0] = {}) {
  return {
    'hydration.getBasicData': () => basicData(overrides),
    // The header's bell asks on every signed-in screen.
    'notifications.unreadCount': () => ({ unread: 0 }),
    'notifications.list': () => ({ results: [], total: 0, unread: 0 }),
  };
}
