import { describe, expect, it } from 'vitest';
import { loginOutput } from '../test/session.ts';
import { clearSession, getAuthState, isSuperAdmin, isSuperuser, signIn } from './auth.ts';

describe('auth state', () => {
  it('knows superusers and super admins', () => {
    expect(isSuperuser({ authorizationLevel: 'superuser' })).toBe(true);
    expect(isSuperuser({ authorizationLevel: 'user' })).toBe(false);
    expect(isSuperuser({ authorizationLevel: null })).toBe(false);
    expect(isSuperAdmin({ superUserRole: 'admin' })).toBe(true);
    expect(isSuperAdmin({ superUserRole: null })).toBe(false);
  });

  it('sets everything on sign-in and clears it all on sign-out', () => {
    const output = { ...loginOutput(), meta: { authorizationLevel: 'superuser', superUserRole: 'admin' } as const };
    signIn(output);
    expect(getAuthState()).toEqual({
      token: output.token,
      user: output.user,
      authorizationLevel: 'superuser',
      superUserRole: 'admin',
      account: output.account,
    });
    expect(window.localStorage.getItem('token')).toBe(output.token);
    clearSession();
    expect(getAuthState()).toEqual({
      token: null,
      user: null,
      authorizationLevel: null,
      superUserRole: null,
      account: null,
    });
    expect(window.localStorage.getItem('token')).toBeNull();
    expect(window.localStorage.getItem('user')).toBeNull();
  });
});
