import { FORM_MESSAGES } from '@switchyard/contracts';
import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderApp } from '../../test/render-app.tsx';

const CONFLICT = 'An account with this e-mail address already exists. Sign in or reset your password.';

function fields() {
  return {
    firstname: screen.getByRole('textbox', { name: 'First name' }),
    lastname: screen.getByRole('textbox', { name: 'Last name' }),
    business: screen.getByRole('textbox', { name: 'Business name' }),
    phone: screen.getByRole('textbox', { name: 'Phone' }),
    email: screen.getByRole('textbox', { name: 'E-mail address' }),
    password: screen.getByLabelText(/^Password/),
    password2: screen.getByLabelText(/^Repeat password/),
    agreement: screen.getByRole('checkbox', { name: /agree to the Terms & Conditions/ }),
  };
}

async function openRegister(rest = {}) {
  const app = await renderApp('/register/', { rest });
  await screen.findByRole('heading', { name: 'Create your account' });
  return app;
}

type User = Awaited<ReturnType<typeof openRegister>>['user'];

async function fill(user: User, input: HTMLElement, text: string) {
  await user.click(input);
  await user.paste(text);
}

async function fillValid(user: User) {
  const f = fields();
  await fill(user, f.firstname, '  Ada ');
  await fill(user, f.lastname, 'Lovelace');
  await fill(user, f.business, 'Analytical Engines Ltd');
  await fill(user, f.phone, '+1 555 0100');
  await fill(user, f.email, 'Ada@Example.com');
  await fill(user, f.password, 'difference-engine');
  await fill(user, f.password2, 'difference-engine');
  await user.click(f.agreement);
}

describe('registration', () => {
  it('shows "* Required" under every empty field and the agreement message, and sends nothing', async () => {
    const { user, rest } = await openRegister();
    await user.click(screen.getByRole('button', { name: 'Create account' }));

    const f = fields();
    for (const input of [f.firstname, f.lastname, f.business, f.phone, f.email, f.password, f.password2]) {
      expect(input).toHaveAttribute('aria-invalid', 'true');
      expect(input).toHaveAccessibleDescription(expect.stringContaining(FORM_MESSAGES.required));
    }
    expect(screen.getAllByText('* Required')).toHaveLength(7);
    expect(screen.getByText('Please check and agree to the Terms & Conditions')).toBeInTheDocument();
    expect(rest.calls).toHaveLength(0);
  });

  it('asks for a 10-character password and matching passwords', async () => {
    const { user, rest } = await openRegister();
    await fillValid(user);
    const f = fields();
    await user.clear(f.password);
    await fill(user, f.password, 'short');
    await user.click(screen.getByRole('button', { name: 'Create account' }));

    expect(await screen.findByText('Should be at least 10 characters long')).toBeInTheDocument();
    expect(screen.getByText('Passwords do not match')).toBeInTheDocument();
    expect(f.password2).toHaveAccessibleDescription(FORM_MESSAGES.passwordsDiffer);
    expect(rest.calls).toHaveLength(0);
  });

  it('re-checks a field when it loses focus after the first submit, not before', async () => {
    const { user } = await openRegister();
    const f = fields();
    await user.click(f.firstname);
    await user.tab();
    expect(screen.queryByText('* Required')).not.toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Create account' }));
    expect(f.firstname).toHaveAttribute('aria-invalid', 'true');
    await user.type(f.firstname, 'Ada');
    await user.tab();
    expect(f.firstname).not.toHaveAttribute('aria-invalid', 'true');
  });

  it('posts the checked form and goes on to the confirmation page with the address', async () => {
    const { user, rest, router } = await openRegister({
      'POST /api/frontend/register/register': () => ({ status: 201, body: { email: 'ada@example.com' } }),
    });
    await fillValid(user);
    await user.click(screen.getByRole('button', { name: 'Create account' }));

    expect(await screen.findByRole('heading', { name: 'Confirm your e-mail address' })).toBeInTheDocument();
    expect(rest.calls).toHaveLength(1);
    expect(rest.calls[0]).toMatchObject({ method: 'POST', url: '/api/frontend/register/register' });
    expect(rest.calls[0]?.data).toEqual({
      firstname: 'Ada',
      lastname: 'Lovelace',
      business: 'Analytical Engines Ltd',
      phone: '+1 555 0100',
      email: 'ada@example.com',
      password: 'difference-engine',
      password2: 'difference-engine',
      agreement: true,
    });
    expect(router.state.location.pathname).toBe('/confirmation');
    expect(router.state.location.search).toEqual({ email: 'ada@example.com' });
    expect(screen.getByText('ada@example.com')).toBeInTheDocument();
  });

  it('shows the server message when the address is taken', async () => {
    const { user, router } = await openRegister({
      'POST /api/frontend/register/register': () => ({ status: 409, body: { code: 409, message: CONFLICT } }),
    });
    await fillValid(user);
    await user.click(screen.getByRole('button', { name: 'Create account' }));

    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText(CONFLICT)).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/register/');
  });

  it('links to the terms and to sign-in', async () => {
    await openRegister();
    expect(screen.getByRole('link', { name: 'Terms & Conditions' })).toHaveAttribute('href', '/terms');
    expect(screen.getByRole('link', { name: 'Sign in' })).toHaveAttribute('href', '/login');
  });
});
