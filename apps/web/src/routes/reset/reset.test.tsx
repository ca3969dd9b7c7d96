import { FORM_MESSAGES, MESSAGES } from '@switchyard/contracts';
import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderApp } from '../../test/render-app.tsx';

const CHECK = 'POST /api/frontend/reset/checkCode';
const UPDATE = 'POST /api/frontend/reset/updatePassword';
const invalid = () => ({ status: 400, body: { code: 400, message: MESSAGES.invalidResetCode } });

describe('password reset request', () => {
  it('asks for a link and answers the same whether or not the address is known', async () => {
    const { user, rest } = await renderApp('/reset', {
      rest: { 'POST /api/frontend/reset/getCode': () => ({ body: { ok: true } }) },
    });
    await user.click(await screen.findByRole('textbox', { name: 'E-mail address' }));
    await user.paste('Ada@example.com');
    await user.click(screen.getByRole('button', { name: 'Send the reset link' }));
    expect(await screen.findByText(/If an account uses this address, we sent a link/)).toBeInTheDocument();
    expect(rest.calls[0]?.data).toEqual({ email: 'ada@example.com' });
  });

  it('needs an address', async () => {
    const { user, rest } = await renderApp('/reset');
    await user.click(await screen.findByRole('button', { name: 'Send the reset link' }));
    expect(screen.getByText('* Required')).toBeInTheDocument();
    expect(rest.calls).toHaveLength(0);
  });
});

describe('choosing a new password', () => {
  it('reports an invalid or expired code and goes to sign-in', async () => {
    const { router, rest } = await renderApp('/reset/bad-code', { rest: { [CHECK]: invalid } });
    const toast = await screen.findByText(MESSAGES.invalidResetCode);
    expect(toast.closest('[data-sonner-toast]')).toHaveAttribute('data-type', 'error');
    expect(await screen.findByRole('heading', { name: 'Sign in' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/login');
    expect(rest.calls[0]?.data).toEqual({ token: 'bad-code' });
  });

  it('changes the password with a valid code and goes to sign-in', async () => {
    const { user, router, rest } = await renderApp('/reset/good-code', {
      rest: { [CHECK]: () => ({ body: { valid: true } }), [UPDATE]: () => ({ body: { ok: true } }) },
    });
    await user.click(await screen.findByLabelText(/^New password/));
    await user.paste('a-brand-new-secret');
    await user.click(screen.getByLabelText(/^Repeat the new password/));
    await user.paste('a-brand-new-secret');
    await user.click(screen.getByRole('button', { name: 'Change password' }));

    const toast = await screen.findByText('Your password has been changed. Sign in with it.');
    expect(toast.closest('[data-sonner-toast]')).toHaveAttribute('data-type', 'success');
    expect(router.state.location.pathname).toBe('/login');
    expect(rest.calls.find((call) => call.url.endsWith('updatePassword'))?.data).toEqual({
      token: 'good-code',
      password: 'a-brand-new-secret',
    });
  });

  it('checks length and match before sending', async () => {
    const { user, rest } = await renderApp('/reset/good-code', {
      rest: { [CHECK]: () => ({ body: { valid: true } }) },
    });
    await user.click(await screen.findByLabelText(/^New password/));
    await user.paste('short');
    await user.click(screen.getByLabelText(/^Repeat the new password/));
    await user.paste('other');
    await user.click(screen.getByRole('button', { name: 'Change password' }));
    expect(screen.getByText(FORM_MESSAGES.passwordTooShort)).toBeInTheDocument();
    expect(screen.getByText(FORM_MESSAGES.passwordsDiffer)).toBeInTheDocument();
    expect(rest.calls.filter((call) => call.url.endsWith('updatePassword'))).toHaveLength(0);
  });

  it('sends an expired code at update time to sign-in with the same message', async () => {
    const { user, router } = await renderApp('/reset/late', {
      rest: { [CHECK]: () => ({ body: { valid: true } }), [UPDATE]: invalid },
    });
    await user.click(await screen.findByLabelText(/^New password/));
    await user.paste('a-brand-new-secret');
    await user.click(screen.getByLabelText(/^Repeat the new password/));
    await user.paste('a-brand-new-secret');
    await user.click(screen.getByRole('button', { name: 'Change password' }));
    expect(await screen.findByText(MESSAGES.invalidResetCode)).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/login');
  });

  it('offers a retry when the check fails for another reason', async () => {
    await renderApp('/reset/code', {
      rest: { [CHECK]: () => ({ status: 503, body: { code: 503, message: 'Service unavailable' } }) },
    });
    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText('Service unavailable')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Try again' })).toBeInTheDocument();
  });
});
