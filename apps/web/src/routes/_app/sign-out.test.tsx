import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { getAuthState } from '../../lib/auth.ts';
import { renderApp } from '../../test/render-app.tsx';

describe('sign-out', () => {
  async function signOut(logout: () => { status?: number; body?: unknown }) {
    const app = await renderApp('/dashboard', { signedIn: true, rest: { 'POST /api/frontend/logout': logout } });
    await screen.findByRole('heading', { name: 'Dashboard' });
    const header = screen.getByRole('banner');
    await app.user.click(within(header).getByRole('button', { name: 'Account: Ada Lovelace' }));
    await app.user.click(await screen.findByRole('menuitem', { name: 'Sign out' }));
    expect(await screen.findByRole('heading', { name: 'Sign in' })).toBeInTheDocument();
    return app;
  }

  it('shows who is signed in', async () => {
    await renderApp('/dashboard', { signedIn: true });
    const header = await screen.findByRole('banner');
    expect(await within(header).findByText('Ada Lovelace')).toBeInTheDocument();
  });

  it('ends the session on the server, clears storage and cache and goes to sign-in', async () => {
    const { rest, router, services } = await signOut(() => ({ body: { ok: true } }));
    expect(rest.calls[0]).toMatchObject({ method: 'POST', url: '/api/frontend/logout' });
    expect(rest.calls[0]?.authorization).toMatch(/^Bearer /);
    expect(router.state.location.pathname).toBe('/login');
    expect(window.localStorage.getItem('token')).toBeNull();
    expect(window.localStorage.getItem('user')).toBeNull();
    expect(getAuthState()).toMatchObject({ token: null, user: null, account: null, authorizationLevel: null });
    const cached = services.queryClient.getQueryCache().findAll();
    expect(cached.filter((query) => JSON.stringify(query.queryKey).includes('getBasicData'))).toHaveLength(0);
  });

  it('signs out on this device even when the server call fails', async () => {
    const { router } = await signOut(() => ({ status: 500, body: { code: 500, message: 'Down' } }));
    expect(router.state.location.pathname).toBe('/login');
    expect(window.localStorage.getItem('token')).toBeNull();
  });
});
