import { ACCOUNT_MESSAGES, type PublicUser } from '@switchyard/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { getAuthState } from '../../../lib/auth.ts';
import { renderApp } from '../../../test/render-app.tsx';
import { TEST_USER } from '../../../test/session.ts';
import { ProcedureError } from '../../../test/trpc-stub.ts';

function inputsOf(fetch: Awaited<ReturnType<typeof renderApp>>['fetch'], path: string): unknown[] {
  return fetch.calls.flatMap((call) => call.paths.flatMap((p, i) => (p === path ? [call.inputs[i]] : [])));
}

describe('settings', () => {
  it('sends /settings/ to the profile page, whose route id is /_app/settings/_layout/profile', async () => {
    const { router } = await renderApp('/settings/', { signedIn: true });
    expect(await screen.findByRole('heading', { level: 1, name: 'Settings' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/settings/profile');
    expect(router.state.matches.map((match) => match.routeId)).toContain('/_app/settings/_layout/profile');
    const nav = screen.getByRole('navigation', { name: 'Settings pages' });
    expect(
      within(nav)
        .getAllByRole('link')
        .map((link) => link.textContent),
    ).toEqual(['Profile', 'Account', 'App management', 'Exports', 'Fulfillment']);
    expect(within(nav).getByRole('link', { name: 'Profile' })).toHaveAttribute('aria-current', 'page');
  });

  it('opens the profile from its route id address', async () => {
    const { router } = await renderApp('/_app/settings/_layout/profile', { signedIn: true });
    expect(await screen.findByRole('form', { name: 'Your details' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/settings/profile');
  });
});

describe('profile', () => {
  it('saves name and phone and keeps the changed user locally', async () => {
    const updated: PublicUser = { ...TEST_USER, firstname: 'Augusta', phone: '+44 20 7946 0000' };
    const { user, fetch } = await renderApp('/settings/profile', {
      signedIn: true,
      handlers: { 'users.updateProfile': () => updated },
    });
    const form = await screen.findByRole('form', { name: 'Your details' });
    const first = within(form).getByLabelText(/First name/);
    expect(first).toHaveValue('Ada');
    await user.clear(first);
    await user.click(within(form).getByRole('button', { name: 'Save details' }));
    expect(within(form).getByText('* Required')).toBeInTheDocument();
    expect(inputsOf(fetch, 'users.updateProfile')).toHaveLength(0);

    await user.type(first, 'Augusta');
    const phone = within(form).getByLabelText(/Phone/);
    await user.clear(phone);
    await user.type(phone, '+44 20 7946 0000');
    await user.click(within(form).getByRole('button', { name: 'Save details' }));
    await waitFor(() =>
      expect(inputsOf(fetch, 'users.updateProfile')).toEqual([
        { firstname: 'Augusta', lastname: 'Lovelace', phone: '+44 20 7946 0000' },
      ]),
    );
    expect(await screen.findByText('Your profile was saved.')).toBeInTheDocument();
    expect(JSON.parse(window.localStorage.getItem('user') ?? '{}')).toMatchObject({ firstname: 'Augusta' });
    expect(getAuthState().user?.firstname).toBe('Augusta');
    // The header follows.
    expect(await within(screen.getByRole('banner')).findByText('Augusta Lovelace')).toBeInTheDocument();
  });

  it('checks the password change and shows a wrong current password at its field', async () => {
    const { user, fetch } = await renderApp('/settings/profile', {
      signedIn: true,
      handlers: {
        'users.changePassword': () => {
          throw new ProcedureError('BAD_REQUEST', ACCOUNT_MESSAGES.wrongCurrentPassword);
        },
      },
    });
    const form = await screen.findByRole('form', { name: 'Change password' });
    await user.type(within(form).getByLabelText(/Current password/), 'old-secret-1');
    await user.type(within(form).getByLabelText(/^New password/), 'short');
    await user.type(within(form).getByLabelText(/Repeat new password/), 'other');
    await user.click(within(form).getByRole('button', { name: 'Change password' }));
    expect(within(form).getByText('Should be at least 10 characters long')).toBeInTheDocument();
    expect(within(form).getByText('Passwords do not match')).toBeInTheDocument();
    expect(inputsOf(fetch, 'users.changePassword')).toHaveLength(0);

    await user.clear(within(form).getByLabelText(/^New password/));
    await user.type(within(form).getByLabelText(/^New password/), 'a-long-new-secret');
    await user.clear(within(form).getByLabelText(/Repeat new password/));
    await user.type(within(form).getByLabelText(/Repeat new password/), 'a-long-new-secret');
    await user.click(within(form).getByRole('button', { name: 'Change password' }));
    expect(await within(form).findByText(ACCOUNT_MESSAGES.wrongCurrentPassword)).toBeInTheDocument();
    expect(within(form).getByLabelText(/Current password/)).toHaveAttribute('aria-invalid', 'true');
    expect(inputsOf(fetch, 'users.changePassword')).toEqual([
      { currentPassword: 'old-secret-1', newPassword: 'a-long-new-secret' },
    ]);
  });

  it('changes the password and says the other sessions were signed out', async () => {
    const { user } = await renderApp('/settings/profile', {
      signedIn: true,
      handlers: { 'users.changePassword': () => ({ ok: true }) },
    });
    const form = await screen.findByRole('form', { name: 'Change password' });
    await user.type(within(form).getByLabelText(/Current password/), 'old-secret-1');
    await user.type(within(form).getByLabelText(/^New password/), 'a-long-new-secret');
    await user.type(within(form).getByLabelText(/Repeat new password/), 'a-long-new-secret');
    await user.click(within(form).getByRole('button', { name: 'Change password' }));
    expect(await screen.findByText(/signed out on your other devices/)).toBeInTheDocument();
    // A fresh, empty form.
    const fresh = screen.getByRole('form', { name: 'Change password' });
    expect(within(fresh).getByLabelText(/Current password/)).toHaveValue('');
  });

  it('asks for an e-mail change with the current password and explains the link', async () => {
    const { user, fetch } = await renderApp('/settings/profile', {
      signedIn: true,
      handlers: {
        'users.requestEmailChange': (input) => ({ ok: true, newEmail: (input as { newEmail: string }).newEmail }),
      },
    });
    const form = await screen.findByRole('form', { name: 'Change e-mail address' });
    await user.click(within(form).getByRole('button', { name: 'Send confirmation link' }));
    expect(within(form).getAllByText('* Required')).toHaveLength(2);
    await user.type(within(form).getByLabelText(/New e-mail address/), 'Ada@Engines.example');
    await user.type(within(form).getByLabelText(/Current password/), 'old-secret-1');
    await user.click(within(form).getByRole('button', { name: 'Send confirmation link' }));
    expect(await screen.findByText(/We sent a confirmation link to ada@engines.example/)).toBeInTheDocument();
    expect(inputsOf(fetch, 'users.requestEmailChange')).toEqual([
      { newEmail: 'ada@engines.example', password: 'old-secret-1' },
    ]);
  });

  it('confirms an e-mail change from the link and forgets the code', async () => {
    const changed = { ...TEST_USER, email: 'ada@engines.example' };
    const { fetch, router } = await renderApp('/settings/profile?emailChange=abc123', {
      signedIn: true,
      handlers: { 'users.confirmEmailChange': () => changed },
    });
    expect(await screen.findByText('You now sign in with ada@engines.example.')).toBeInTheDocument();
    expect(inputsOf(fetch, 'users.confirmEmailChange')).toEqual([{ code: 'abc123' }]);
    expect(router.state.location.search).toEqual({});
    expect(getAuthState().user?.email).toBe('ada@engines.example');
    expect(screen.getByText(/You sign in with/)).toHaveTextContent('ada@engines.example');
  });

  it('says so when an e-mail change link is invalid', async () => {
    await renderApp('/settings/profile?emailChange=expired', {
      signedIn: true,
      handlers: {
        'users.confirmEmailChange': () => {
          throw new ProcedureError('NOT_FOUND', ACCOUNT_MESSAGES.invalidEmailChange);
        },
      },
    });
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Your e-mail address was not changed');
    expect(alert).toHaveTextContent(ACCOUNT_MESSAGES.invalidEmailChange);
  });
});
