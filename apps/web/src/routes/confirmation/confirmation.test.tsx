import { act, screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { renderApp } from '../../test/render-app.tsx';
import { basicData } from '../../test/session.ts';

const SEND = 'POST /api/frontend/register/sendConfirmEmail';

describe('confirmation page', () => {
  it('shows the address and sends the e-mail again, then waits 60 seconds', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const { user, rest } = await renderApp('/confirmation?email=ada%40example.com', {
      rest: { [SEND]: () => ({ body: { ok: true } }) },
      advanceTimers: vi.advanceTimersByTime,
    });
    expect(await screen.findByText('ada@example.com')).toBeInTheDocument();
    expect(screen.getByText(/not confirmed yet/)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Sign in' })).toHaveAttribute('href', '/login');

    await user.click(screen.getByRole('button', { name: 'Send the e-mail again' }));
    expect(await screen.findByText('A new confirmation e-mail is on its way.')).toBeInTheDocument();
    expect(rest.calls[0]?.data).toEqual({ email: 'ada@example.com' });
    const waiting = screen.getByRole('button', { name: /Send the e-mail again \(60 s\)/ });
    expect(waiting).toBeDisabled();

    await act(() => vi.advanceTimersByTimeAsync(30_000));
    expect(screen.getByRole('button', { name: /\(30 s\)/ })).toBeDisabled();
    await act(() => vi.advanceTimersByTimeAsync(31_000));
    expect(screen.getByRole('button', { name: 'Send the e-mail again' })).toBeEnabled();
  });

  it('shows the throttling message', async () => {
    const { user } = await renderApp('/confirmation?email=ada%40example.com', {
      rest: { [SEND]: () => ({ status: 429, body: { code: 429, message: 'Too many e-mails. Try again later.' } }) },
    });
    await user.click(await screen.findByRole('button', { name: 'Send the e-mail again' }));
    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText('Too many e-mails. Try again later.')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Send the e-mail again' })).toBeEnabled();
  });

  it('asks for the address when it does not know it', async () => {
    const { user, rest } = await renderApp('/confirmation', { rest: { [SEND]: () => ({ body: { ok: true } }) } });
    await user.click(await screen.findByRole('button', { name: 'Send the e-mail again' }));
    expect(screen.getByText('* Required')).toBeInTheDocument();
    await user.click(screen.getByRole('textbox', { name: 'E-mail address' }));
    await user.paste('ada@example.com');
    await user.click(screen.getByRole('button', { name: 'Send the e-mail again' }));
    expect(await screen.findByText('A new confirmation e-mail is on its way.')).toBeInTheDocument();
    expect(rest.calls[0]?.data).toEqual({ email: 'ada@example.com' });
  });

  it('lets a signed-in user go on once the account is confirmed, reading the account again', async () => {
    let status: 'created' | 'active' = 'created';
    const { user, router } = await renderApp('/dashboard', {
      signedIn: true,
      handlers: { 'hydration.getBasicData': () => basicData({ status }) },
    });
    expect(await screen.findByRole('heading', { name: 'Confirm your e-mail address' })).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'I have confirmed it' }));
    expect(router.state.location.pathname).toBe('/confirmation');

    status = 'active';
    await user.click(screen.getByRole('button', { name: 'I have confirmed it' }));
    expect(await screen.findByRole('heading', { name: 'Dashboard' })).toBeInTheDocument();
  });

  it('lets a signed-in user sign out from there', async () => {
    const { user, router } = await renderApp('/dashboard', {
      signedIn: { status: 'created' },
      rest: { 'POST /api/frontend/logout': () => ({ body: { ok: true } }) },
    });
    await user.click(await screen.findByRole('button', { name: 'Sign out' }));
    expect(await screen.findByRole('heading', { name: 'Sign in' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/login');
    expect(window.localStorage.getItem('token')).toBeNull();
  });
});
