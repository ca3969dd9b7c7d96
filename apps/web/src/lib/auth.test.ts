import { describe, expect, it } from 'vitest';
import { fakeToken, loginOutput } from '../test/session.ts';
import {
  clearSession,
  getAuthState,
  isActing,
  isSuperAdmin,
  isSuperuser,
  signIn,
  startActing,
  stopActing,
} from './auth.ts';

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

  it('keeps the superuser token aside while acting and brings it back when acting stops', () => {
    const own = fakeToken({ authorizationLevel: 'superuser', sid: 'own' });
    signIn({ ...loginOutput(own), meta: { authorizationLevel: 'superuser', superUserRole: null } });
    const acting = fakeToken({ authorizationLevel: 'superuser', sid: 'act_1', accountId: 'a-2' });
    const account = { id: 'a-2', business: 'Difference Works', status: 'active' } as const;
    startActing({ token: acting, expiresAt: '2026-01-01T00:00:00.000Z', account });
    expect(isActing()).toBe(true);
    expect(getAuthState()).toMatchObject({ token: acting, account, authorizationLevel: 'superuser' });
    // Acting again from inside keeps the superuser's own token, not the acting one.
    startActing({ token: fakeToken({ sid: 'act_2' }), expiresAt: '2026-01-01T00:00:00.000Z', account });
    expect(window.localStorage.getItem('superuser_token')).toBe(own);

    expect(stopActing()).toBe(true);
    expect(isActing()).toBe(false);
    expect(getAuthState().token).toBe(own);
    expect(window.localStorage.getItem('token')).toBe(own);
  });

  it('ends the session when the put-aside token expired, and sign-out forgets it too', () => {
    signIn(loginOutput(fakeToken({ exp: Math.floor(Date.now() / 1000) + 1 })));
    window.localStorage.setItem('superuser_token', fakeToken({ exp: Math.floor(Date.now() / 1000) - 10 }));
    expect(stopActing()).toBe(false);
    expect(getAuthState().token).toBeNull();

    signIn(loginOutput());
    startActing({
      token: fakeToken({ sid: 'act_1' }),
      expiresAt: '2026-01-01T00:00:00.000Z',
      account: { id: 'a-2', business: 'X', status: 'active' },
    });
    clearSession();
    expect(window.localStorage.getItem('superuser_token')).toBeNull();
  });
});
