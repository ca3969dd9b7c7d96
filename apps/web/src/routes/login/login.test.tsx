import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { getAuthState } from '../../lib/auth.ts';
import { renderApp } from '../../test/render-app.tsx';
import type { RestHandler } from '../../test/rest-stub.ts';
import { loginOutput, signedInHandlers, storeSession, TEST_USER } from '../../test/session.ts';

const WRONG = 'Wrong e-mail address or password.';
const THROTTLED = 'Too many failed sign-in attempts. Try again in an hour or reset your password.';

async function signInAt(path: string, answer: RestHandler = () => ({ body: loginOutput() })) {
  const app = await renderApp(path, {
    rest: { 'POST /api/frontend/login': answer },
    handlers: signedInHandlers(),
  });
  const { user } = app;
  await user.click(await screen.findByRole('textbox', { name: 'E-mail address' }));
  await user.paste('Ada@Example.com');
  await user.click(screen.getByLabelText(/^Password/));
  await user.paste('difference-engine');
  await user.click(screen.getByRole('button', { name: 'Sign in' }));
  return app;
}

describe('sign-in', () => {
  it('stores the token and user, sets the session and opens the dashboard', async () => {
    const output = loginOutput();
    const { rest, router } = await signInAt('/login', () => ({ body: output }));
    expect(await screen.findByRole('heading', { name: 'Dashboard' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/dashboard');
    expect(rest.calls[0]).toMatchObject({
      method: 'POST',
      url: '/api/frontend/login',
      data: { email: 'ada@example.com', password: 'difference-engine' },
    });
    expect(window.localStorage.getItem('token')).toBe(output.token);
    expect(JSON.parse(window.localStorage.getItem('user') ?? 'null')).toEqual(TEST_USER);
    expect(getAuthState()).toMatchObject({
      token: output.token,
      user: TEST_USER,
      authorizationLevel: 'user',
      superUserRole: null,
      account: { id: 'a-1', status: 'active' },
    });
  });

  it('follows a redirect inside the app', async () => {
    const { router } = await signInAt('/login?redirect=%2Fdashboard%3Ftimeframe%3D1y');
    expect(await screen.findByRole('heading', { name: 'Dashboard' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/dashboard');
    expect(router.state.location.search).toMatchObject({ timeframe: '1y' });
  });

  for (const external of ['//evil.com', 'https://evil.com', '/\\evil.com']) {
    it(`refuses to follow the redirect ${external}`, async () => {
      const { router } = await signInAt(`/login?${new URLSearchParams({ redirect: external })}`);
      expect(await screen.findByRole('heading', { name: 'Dashboard' })).toBeInTheDocument();
      expect(router.state.location.href).toBe('/dashboard');
    });
  }

  it('shows the server message for wrong credentials and stays signed out', async () => {
    const { router } = await signInAt('/login', () => ({ status: 401, body: { code: 401, message: WRONG } }));
    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText(WRONG)).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/login');
    expect(window.localStorage.getItem('token')).toBeNull();
  });

  it('shows the throttling message', async () => {
    await signInAt('/login', () => ({ status: 429, body: { code: 429, message: THROTTLED } }));
    expect(await screen.findByText(THROTTLED)).toBeInTheDocument();
  });

  it('checks the form before sending it', async () => {
    const { user, rest } = await renderApp('/login');
    await user.click(await screen.findByRole('button', { name: 'Sign in' }));
    expect(screen.getAllByText('* Required')).toHaveLength(2);
    expect(rest.calls).toHaveLength(0);
  });

  it('links to registration and password reset', async () => {
    await renderApp('/login');
    expect(await screen.findByRole('link', { name: 'Create an account' })).toHaveAttribute('href', '/register');
    expect(screen.getByRole('link', { name: 'Forgot your password?' })).toHaveAttribute('href', '/reset');
  });

  it('sends a signed-in visitor on to the dashboard', async () => {
    storeSession();
    const { router } = await renderApp('/login', { handlers: signedInHandlers() });
    expect(await screen.findByRole('heading', { name: 'Dashboard' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/dashboard');
  });
});
