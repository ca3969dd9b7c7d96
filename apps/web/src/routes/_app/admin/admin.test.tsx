import type { ActAsOutput, AdminAccount, AdminAccountList } from '@switchyard/contracts';
import { MESSAGES } from '@switchyard/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { ACTING_ENDED_MESSAGE, getAuthState } from '../../../lib/auth.ts';
import { renderApp } from '../../../test/render-app.tsx';
import { basicData, fakeToken, SUPER_ADMIN_META, SUPERUSER_META } from '../../../test/session.ts';

const OTHER: AdminAccount = {
  id: 'a-2',
  business: 'Difference Works',
  status: 'active',
  createdAt: '2026-01-02T03:04:05.000Z',
  users: [
    {
      id: 'u-2',
      email: 'charles@works.example',
      firstname: 'Charles',
      lastname: 'Babbage',
      authorizationLevel: 'user',
      superUserRole: null,
    },
  ],
};

function accountsPage(input: unknown): AdminAccountList {
  const { offset = 0, search } = (input ?? {}) as { offset?: number; search?: string };
  const all = Array.from({ length: 30 }, (_, i) => ({
    ...OTHER,
    id: `a-${i + 2}`,
    business: i === 0 ? OTHER.business : `Business ${i}`,
    status: i === 1 ? ('past_due' as const) : ('active' as const),
  }));
  const matching = search ? all.filter((account) => account.business.toLowerCase().includes(search)) : all;
  return { results: matching.slice(offset, offset + 25), total: matching.length, limit: 25, offset };
}

function calls(fetch: Awaited<ReturnType<typeof renderApp>>['fetch'], path: string): unknown[] {
  return fetch.calls.flatMap((call) => call.paths.flatMap((p, i) => (p === path ? [call.inputs[i]] : [])));
}

describe('superuser screens', () => {
  it('shows the Admin entry to superusers only', async () => {
    const first = await renderApp('/dashboard', { signedIn: true });
    await screen.findByRole('heading', { name: 'Dashboard' });
    let nav = screen.getByRole('navigation', { name: 'Main navigation' });
    expect(within(nav).queryByRole('link', { name: 'Admin' })).not.toBeInTheDocument();
    first.unmount();
    window.localStorage.clear();

    await renderApp('/dashboard', { signedIn: { meta: SUPERUSER_META } });
    await screen.findByRole('heading', { name: 'Dashboard' });
    nav = screen.getByRole('navigation', { name: 'Main navigation' });
    expect(within(nav).getByRole('link', { name: 'Admin' })).toHaveAttribute('href', '/admin/accounts');
  });

  it('answers /admin/* with the not-found page for everyone else', async () => {
    await renderApp('/admin/accounts', { signedIn: true, handlers: { 'admin.accounts.list': accountsPage } });
    expect(await screen.findByText(MESSAGES.notFound)).toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: 'Accounts' })).not.toBeInTheDocument();
    // Its search does not offer the admin screens either.
    const results = screen.getByRole('region', { name: 'Matching pages' });
    expect(within(results).queryByRole('link', { name: 'Admin' })).not.toBeInTheDocument();
  });

  it('lists accounts with status badges, searches after a 500 ms pause and pages', async () => {
    const { user, fetch } = await renderApp('/admin/accounts', {
      signedIn: { meta: SUPERUSER_META },
      handlers: { 'admin.accounts.list': accountsPage },
    });
    const table = await screen.findByRole('table', { name: 'Accounts' });
    expect(within(table).getAllByRole('row')).toHaveLength(26);
    expect(within(table).getByText('Past due')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Next' }));
    await waitFor(() => expect(screen.getByText('26–30 of 30')).toBeInTheDocument());

    await user.type(screen.getByLabelText('Search accounts'), 'diff');
    await waitFor(() => expect(within(table).getAllByRole('row')).toHaveLength(2));
    expect(within(table).getByRole('link', { name: 'Difference Works' })).toHaveAttribute(
      'href',
      '/admin/accounts/a-2',
    );
    // One call for the whole word (typed faster than the pause), from the first page.
    expect(calls(fetch, 'admin.accounts.list')).toEqual([
      { limit: 25, offset: 0 },
      { limit: 25, offset: 25 },
      { limit: 25, offset: 0, search: 'diff' },
    ]);
  });

  it('acts as an account with a reason, shows a banner everywhere, and stopping restores the superuser', async () => {
    const ownToken = fakeToken({ authorizationLevel: 'superuser', sid: 'own' });
    const actingToken = fakeToken({ authorizationLevel: 'superuser', sid: 'act_1', accountId: 'a-2' });
    let acting = false;
    const output: ActAsOutput = {
      token: actingToken,
      expiresAt: '2026-01-02T04:04:05.000Z',
      account: { id: 'a-2', business: 'Difference Works', status: 'active' },
    };
    const { user, fetch, router } = await renderApp('/admin/accounts/a-2', {
      signedIn: { meta: SUPERUSER_META },
      handlers: {
        'hydration.getBasicData': () => {
          const data = basicData({ meta: SUPERUSER_META });
          return acting ? { ...data, account: output.account } : data;
        },
        'admin.accounts.get': () => OTHER,
        'admin.accounts.list': accountsPage,
        'admin.actAs': () => {
          acting = true;
          return output;
        },
        'admin.endActing': () => {
          acting = false;
          return { ended: true };
        },
      },
    });
    window.localStorage.setItem('token', ownToken);
    expect(await screen.findByRole('heading', { name: 'Difference Works' })).toBeInTheDocument();
    expect(screen.getByText('charles@works.example')).toBeInTheDocument();

    const form = screen.getByRole('form', { name: 'Act as this account' });
    await user.type(within(form).getByLabelText(/Reason/), 'help');
    await user.click(within(form).getByRole('button', { name: 'Act as this account' }));
    expect(within(form).getByText('Say why, in at least 5 characters')).toBeInTheDocument();
    expect(calls(fetch, 'admin.actAs')).toHaveLength(0);

    await user.type(within(form).getByLabelText(/Reason/), ' with ticket 42');
    await user.click(within(form).getByRole('button', { name: 'Act as this account' }));
    expect(await screen.findByRole('heading', { name: 'Dashboard' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/dashboard');
    expect(calls(fetch, 'admin.actAs')).toEqual([{ accountId: 'a-2', reason: 'help with ticket 42' }]);
    expect(window.localStorage.getItem('superuser_token')).toBe(ownToken);
    expect(window.localStorage.getItem('token')).toBe(actingToken);
    expect(getAuthState().token).toBe(actingToken);

    const banner = screen.getByRole('region', { name: 'Acting as another account' });
    expect(banner).toHaveTextContent('Acting as Difference Works');
    // The basic data was loaded again, with the acting token.
    const lastBasic = fetch.calls.filter((call) => call.paths.includes('hydration.getBasicData')).at(-1);
    expect(lastBasic?.headers.get('Authorization')).toBe(`Bearer ${actingToken}`);

    // The banner stays on every screen.
    await user.click(
      within(screen.getByRole('navigation', { name: 'Main navigation' })).getByRole('link', { name: 'Settings' }),
    );
    expect(await screen.findByRole('heading', { name: 'Settings' })).toBeInTheDocument();
    expect(screen.getByRole('region', { name: 'Acting as another account' })).toBeInTheDocument();

    await user.click(
      within(screen.getByRole('region', { name: 'Acting as another account' })).getByRole('button', {
        name: 'Stop acting',
      }),
    );
    expect(await screen.findByRole('heading', { name: 'Accounts' })).toBeInTheDocument();
    const end = fetch.calls.find((call) => call.paths.includes('admin.endActing'));
    expect(end?.headers.get('Authorization')).toBe(`Bearer ${actingToken}`);
    expect(window.localStorage.getItem('token')).toBe(ownToken);
    expect(window.localStorage.getItem('superuser_token')).toBeNull();
    expect(getAuthState().token).toBe(ownToken);
    expect(screen.queryByRole('region', { name: 'Acting as another account' })).not.toBeInTheDocument();
  });
});

describe('system page', () => {
  it('does not exist for a superuser who is not a super admin', async () => {
    await renderApp('/admin/system', { signedIn: { meta: SUPERUSER_META } });
    expect(await screen.findByText(MESSAGES.notFound)).toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: 'System' })).not.toBeInTheDocument();
  });

  it('lets a super admin set system settings, modules and roles', async () => {
    const { user, fetch } = await renderApp('/admin/system', {
      signedIn: { meta: SUPER_ADMIN_META },
      handlers: {
        'hydration.getBasicData': () =>
          basicData({
            meta: SUPER_ADMIN_META,
            systemSettings: [{ key: 'maintenance', value: false }],
            modules: [{ dev_name: 'order_routing', name: 'Order routing', enabled: false }],
          }),
        'admin.systemSettings.set': (input) => input,
        'admin.modules.set': (input) => input,
        'admin.users.setSuperuser': (input) => ({
          ...(input as object),
          email: 'grace@switchyard.example',
          firstname: 'Grace',
          lastname: 'Hopper',
          id: 'u-9',
        }),
      },
    });
    expect(await screen.findByRole('heading', { name: 'System' })).toBeInTheDocument();
    expect(within(screen.getByRole('table', { name: 'System settings' })).getByText('maintenance')).toBeInTheDocument();

    const settingForm = screen.getByRole('form', { name: 'Set a system setting' });
    await user.type(within(settingForm).getByLabelText(/^Key/), 'maintenance');
    await user.type(within(settingForm).getByLabelText(/Value/), '{{"on": tru');
    await user.click(within(settingForm).getByRole('button', { name: 'Save setting' }));
    expect(within(settingForm).getByText(/Enter a valid JSON value/)).toBeInTheDocument();
    await user.type(within(settingForm).getByLabelText(/Value/), 'e}');
    await user.click(within(settingForm).getByRole('button', { name: 'Save setting' }));
    await waitFor(() =>
      expect(calls(fetch, 'admin.systemSettings.set')).toEqual([{ key: 'maintenance', value: { on: true } }]),
    );

    await user.click(screen.getByRole('switch', { name: /Order routing/ }));
    await waitFor(() =>
      expect(calls(fetch, 'admin.modules.set')).toEqual([
        { dev_name: 'order_routing', name: 'Order routing', enabled: true },
      ]),
    );

    const roleForm = screen.getByRole('form', { name: "Set a user's role" });
    await user.type(within(roleForm).getByLabelText(/User id/), 'u-9');
    await user.click(within(roleForm).getByLabelText(/Super admin/));
    await user.click(within(roleForm).getByRole('button', { name: 'Save role' }));
    expect(within(roleForm).getByText('A super admin must also be a superuser.')).toBeInTheDocument();
    await user.click(within(roleForm).getByRole('radio', { name: 'Superuser' }));
    await user.click(within(roleForm).getByRole('button', { name: 'Save role' }));
    expect(await within(roleForm).findByText(/grace@switchyard.example is now a super admin/)).toBeInTheDocument();
    expect(calls(fetch, 'admin.users.setSuperuser')).toEqual([
      { userId: 'u-9', authorizationLevel: 'superuser', superUserRole: 'admin' },
    ]);
  });

  it('returns a superuser whose acting session ran out to their own session, not to sign-in', async () => {
    const own = fakeToken({ ...SUPERUSER_META, sid: 'ses_own' });
    window.localStorage.setItem('superuser_token', own);
    window.localStorage.setItem(
      'token',
      fakeToken({ ...SUPERUSER_META, sid: 'act_1', exp: Math.floor(Date.now() / 1000) - 5 }),
    );
    window.localStorage.setItem('user', JSON.stringify(basicData({ meta: SUPERUSER_META }).user));

    const { router } = await renderApp('/dashboard', {
      handlers: {
        'hydration.getBasicData': () => basicData({ meta: SUPERUSER_META }),
        'admin.accounts.list': accountsPage,
      },
    });
    await waitFor(() => expect(router.state.location.pathname).toBe('/admin/accounts'));
    expect(await screen.findByText(ACTING_ENDED_MESSAGE)).toBeInTheDocument();
    expect(window.localStorage.getItem('token')).toBe(own);
    expect(window.localStorage.getItem('superuser_token')).toBeNull();
    expect(getAuthState().token).toBe(own);
  });
});
