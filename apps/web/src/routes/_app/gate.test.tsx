import { act, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { getAuthState, isTokenValid } from '../../lib/auth.ts';
import { renderApp } from '../../test/render-app.tsx';
import { basicData, fakeToken, storeSession, TEST_USER } from '../../test/session.ts';
import { ProcedureError } from '../../test/trpc-stub.ts';

const EXPIRED = 'Your session has expired. Please sign in again.';

describe('the app area gate', () => {
  it('sends a visitor without a token to sign-in with the way back', async () => {
    const { router, fetch } = await renderApp('/dashboard?timeframe=6m');
    expect(await screen.findByRole('heading', { name: 'Sign in' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/login');
    expect(router.state.location.search).toEqual({ redirect: '/dashboard?timeframe=6m' });
    expect(fetch.calls.flatMap((call) => call.paths)).not.toContain('hydration.getBasicData');
  });

  it('treats an expired token as signed out and removes it', async () => {
    storeSession(fakeToken({ exp: Math.floor(Date.now() / 1000) - 60 }));
    const { router, fetch } = await renderApp('/dashboard', { signedIn: false });
    expect(await screen.findByRole('heading', { name: 'Sign in' })).toBeInTheDocument();
    expect(router.state.location.search).toEqual({ redirect: '/dashboard' });
    expect(window.localStorage.getItem('token')).toBeNull();
    expect(window.localStorage.getItem('user')).toBeNull();
    expect(fetch.calls.flatMap((call) => call.paths)).not.toContain('hydration.getBasicData');
  });

  it('treats a token it cannot decode as signed out and removes it', async () => {
    storeSession('not-a-jwt');
    const { router } = await renderApp('/dashboard');
    expect(await screen.findByRole('heading', { name: 'Sign in' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/login');
    expect(window.localStorage.getItem('token')).toBeNull();
  });

  it('reads token validity from exp', () => {
    const now = Date.now();
    expect(isTokenValid(fakeToken({ exp: Math.floor(now / 1000) + 10 }), now)).toBe(true);
    expect(isTokenValid(fakeToken({ exp: Math.floor(now / 1000) - 1 }), now)).toBe(false);
    expect(isTokenValid(fakeToken({ exp: undefined }), now)).toBe(false);
    expect(isTokenValid('garbage', now)).toBe(false);
  });

  it('loads the basic data and lets an active account in', async () => {
    const { router, fetch } = await renderApp('/dashboard', { signedIn: { status: 'active' } });
    expect(await screen.findByRole('heading', { name: 'Dashboard' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/dashboard');
    const call = fetch.calls.find((c) => c.paths.includes('hydration.getBasicData'));
    expect(call?.headers.get('Authorization')).toMatch(/^Bearer /);
    expect(getAuthState()).toMatchObject({
      user: TEST_USER,
      authorizationLevel: 'user',
      account: { status: 'active' },
    });
  });

  it.each([
    ['created', '/confirmation'],
    ['requires_payment_method', '/subscription/plans'],
    ['awaiting_payment', '/subscription/awaiting-payment'],
  ] as const)('sends a %s account to %s', async (status, path) => {
    const { router } = await renderApp('/dashboard', { signedIn: { status } });
    await vi.waitFor(() => expect(router.state.location.pathname).toBe(path));
    expect(screen.queryByRole('heading', { name: 'Dashboard' })).not.toBeInTheDocument();
  });

  it('gives the confirmation page the address of a created account', async () => {
    const { router } = await renderApp('/dashboard', { signedIn: { status: 'created' } });
    expect(await screen.findByRole('heading', { name: 'Confirm your e-mail address' })).toBeInTheDocument();
    expect(router.state.location.search).toEqual({ email: TEST_USER.email });
  });

  it.each(['past_due', 'canceled'] as const)('lets a %s account in', async (status) => {
    await renderApp('/dashboard', { signedIn: { status } });
    expect(await screen.findByRole('heading', { name: 'Dashboard' })).toBeInTheDocument();
  });

  it('on UNAUTHORIZED basic data shows the message for 10 seconds and goes to sign-in', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const goToLogin = vi.fn();
    const { router } = await renderApp('/dashboard?timeframe=1y', {
      signedIn: true,
      goToLogin,
      handlers: {
        'hydration.getBasicData': () => {
          throw new ProcedureError('UNAUTHORIZED', EXPIRED);
        },
      },
    });
    const message = await screen.findByText(EXPIRED);
    expect(message.closest('[data-sonner-toast]')).toHaveAttribute('data-type', 'error');
    expect(router.state.location.pathname).toBe('/login');
    expect(router.state.location.search).toEqual({ redirect: '/dashboard?timeframe=1y' });
    expect(window.localStorage.getItem('token')).toBeNull();

    await act(() => vi.advanceTimersByTimeAsync(9_000));
    expect(screen.getByText(EXPIRED)).toBeInTheDocument();
    await act(() => vi.advanceTimersByTimeAsync(1_500));
    expect(screen.queryByText(EXPIRED)).not.toBeInTheDocument();
    // The gate handled it; the app-wide handler does not send the user anywhere else afterwards.
    await act(() => vi.advanceTimersByTimeAsync(10_000));
    expect(goToLogin).not.toHaveBeenCalled();
  });

  it('on any other basic-data failure shows the message and lets the page render', async () => {
    const { router } = await renderApp('/dashboard', {
      signedIn: true,
      handlers: {
        'hydration.getBasicData': () => {
          throw new ProcedureError('INTERNAL_SERVER_ERROR', 'Database unavailable');
        },
      },
    });
    expect(await screen.findByRole('heading', { name: 'Dashboard' })).toBeInTheDocument();
    const toast = (await screen.findAllByText('Database unavailable')).find((el) => el.closest('[data-sonner-toast]'));
    expect(toast?.closest('[data-sonner-toast]')).toHaveAttribute('data-type', 'error');
    expect(router.state.location.pathname).toBe('/dashboard');
  });

  it('uses the basic data it already has when moving inside the app', async () => {
    let calls = 0;
    const { router } = await renderApp('/dashboard', {
      signedIn: true,
      handlers: {
        'hydration.getBasicData': () => {
          calls += 1;
          return basicData();
        },
      },
    });
    await screen.findByRole('heading', { name: 'Dashboard' });
    await act(() => router.navigate({ to: '/dashboard', search: { timeframe: '6m', granularity: 'day' } }));
    expect(calls).toBe(1);
  });
});
