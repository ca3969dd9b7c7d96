import type { AccountCatalogs, AuditList } from '@switchyard/contracts';
import { act, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { renderApp } from '../../../test/render-app.tsx';
import { status } from '../../subscription/-components/fixtures.ts';

const CATALOGS: AccountCatalogs = {
  account: {
    id: 'a-1',
    business: 'Analytical Engines Ltd',
    status: 'past_due',
    phone: null,
    addressLine1: '12 Marylebone St',
    city: 'London',
    postcode: 'W1',
    country: 'GB',
    timezone: 'Europe/London',
    currency: 'GBP',
  },
  accountSettings: [],
};

/** An account without a subscription yet: the billing section only offers the plans. */
const NO_BILLING = {
  'billing.getOverview': () => ({
    status: status(),
    plan: null,
    invoices: [],
    paymentMethod: null,
    usage: { channels: 0, locations: 0, ordersThisMonth: 0, users: 1 },
  }),
};

function auditPage(offset: number, total: number): AuditList {
  const count = Math.min(25, total - offset);
  return {
    results: Array.from({ length: count }, (_, i) => ({
      id: `au-${offset + i}`,
      action: offset + i === 0 ? 'superuser.act_as' : 'account.update',
      actor: { id: 'u-9', email: 'ops@switchyard.example', firstname: 'Grace', lastname: 'Hopper' },
      detail: offset + i === 0 ? { reason: 'Support ticket 42', sessionId: 's-1' } : { field: `f${offset + i}` },
      createdAt: '2026-01-02T03:04:05.000Z',
    })),
    total,
    limit: 25,
    offset,
  };
}

describe('account settings', () => {
  it('shows the status with an explanation and saves the business details', async () => {
    let saved: unknown;
    const { user, fetch } = await renderApp('/settings/account', {
      signedIn: true,
      handlers: {
        ...NO_BILLING,
        'account.catalogs': () => CATALOGS,
        'account.update': (input) => {
          saved = input;
          return { ...CATALOGS.account, business: 'Engines & Co' };
        },
        'audit.list': () => auditPage(0, 0),
      },
    });
    expect(await screen.findByText('Past due')).toBeInTheDocument();
    expect(screen.getByText(/A payment has failed/)).toBeInTheDocument();
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();

    const form = screen.getByRole('form', { name: 'Business details' });
    const business = within(form).getByLabelText(/Business name/);
    expect(business).toHaveValue('Analytical Engines Ltd');
    await user.clear(business);
    const country = within(form).getByLabelText(/Country/);
    await user.clear(country);
    await user.type(country, 'x');
    await user.click(within(form).getByRole('button', { name: 'Save business details' }));
    expect(within(form).getByText('* Required')).toBeInTheDocument();
    expect(within(form).getByText('Use a two-letter country code')).toBeInTheDocument();
    expect(fetch.calls.some((call) => call.paths.includes('account.update'))).toBe(false);

    await user.type(business, 'Engines & Co');
    await user.clear(country);
    await user.type(country, 'us');
    await user.click(within(form).getByRole('button', { name: 'Save business details' }));
    await waitFor(() =>
      expect(saved).toEqual({
        business: 'Engines & Co',
        phone: null,
        addressLine1: '12 Marylebone St',
        city: 'London',
        postcode: 'W1',
        country: 'US',
        timezone: 'Europe/London',
        currency: 'GBP',
      }),
    );
    expect(await screen.findByText('Your business details were saved.')).toBeInTheDocument();
  }, 15_000);

  it('saves the low-stock threshold the dashboard and the notifications use, and says why a value is refused', async () => {
    const saved: unknown[] = [];
    const { user } = await renderApp('/settings/account', {
      signedIn: true,
      handlers: {
        ...NO_BILLING,
        'account.catalogs': () => ({ ...CATALOGS, accountSettings: [{ key: 'lowStockThreshold', value: 8 }] }),
        'account.updateStockSettings': (input) => {
          saved.push(input);
          return input;
        },
        'audit.list': () => auditPage(0, 0),
      },
    });
    const form = await screen.findByRole('form', { name: 'Stock settings' });
    const field = within(form).getByRole('textbox', { name: /Low-stock threshold/ });
    expect(field).toHaveValue('8');
    await user.clear(field);
    await user.click(within(form).getByRole('button', { name: 'Save stock settings' }));
    expect(await within(form).findByText('Enter a whole number of units')).toBeInTheDocument();
    await user.type(field, '100001');
    await user.click(within(form).getByRole('button', { name: 'Save stock settings' }));
    expect(await within(form).findByText('At most 100,000')).toBeInTheDocument();
    expect(saved).toEqual([]);
    await user.clear(field);
    await user.type(field, '3');
    await user.click(within(form).getByRole('button', { name: 'Save stock settings' }));
    await waitFor(() => expect(saved).toEqual([{ lowStockThreshold: 3 }]));
    expect(await screen.findByText('Your stock settings were saved.')).toBeInTheDocument();
  }, 15_000);

  it('with upgrade=true and no subscription yet points to the plans', async () => {
    const { router } = await renderApp('/settings/account?upgrade=true', {
      signedIn: true,
      handlers: { ...NO_BILLING, 'account.catalogs': () => CATALOGS, 'audit.list': () => auditPage(0, 0) },
    });
    expect(
      await screen.findByText('Your account has no subscription yet. Choose a plan to unlock everything.'),
    ).toBeInTheDocument();
    expect(router.state.location.search).toEqual({ upgrade: true });
    expect(screen.getByRole('link', { name: 'Choose a plan' })).toHaveAttribute('href', '/subscription/plans');
  });

  it('lists the audit log with superuser acts, page by page', async () => {
    const { user, fetch } = await renderApp('/settings/account', {
      signedIn: true,
      handlers: {
        ...NO_BILLING,
        'account.catalogs': () => CATALOGS,
        'audit.list': (input) => auditPage((input as { offset: number }).offset, 30),
      },
    });
    const table = await screen.findByRole('table', { name: 'Activity log' });
    const rows = within(table).getAllByRole('row');
    expect(rows).toHaveLength(26);
    expect(rows[1]).toHaveTextContent('Grace Hopper (ops@switchyard.example)');
    expect(rows[1]).toHaveTextContent('A superuser started working in this account');
    expect(rows[1]).toHaveTextContent('Reason: Support ticket 42');
    expect(screen.getByRole('button', { name: 'Previous' })).toBeDisabled();

    await user.click(screen.getByRole('button', { name: 'Next' }));
    await waitFor(() => expect(within(table).getAllByRole('row')).toHaveLength(6));
    expect(screen.getByText('26–30 of 30')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Next' })).toBeDisabled();
    const offsets = fetch.calls.flatMap((call) =>
      call.paths.flatMap((p, i) => (p === 'audit.list' ? [(call.inputs[i] as { offset: number }).offset] : [])),
    );
    expect(offsets).toEqual([0, 25]);
  });

  it('shows an empty log and a failed account load with a retry', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    let fail = true;
    const { user } = await renderApp('/settings/account', {
      signedIn: true,
      handlers: {
        ...NO_BILLING,
        'account.catalogs': () => {
          if (fail) throw new Error('Database is down');
          return CATALOGS;
        },
        'audit.list': () => auditPage(0, 0),
      },
    });
    expect(await screen.findByText('Nothing has been recorded yet.')).toBeInTheDocument();
    // The page queries again (3 retries with back-off) before it shows the failure.
    await act(() => vi.advanceTimersByTimeAsync(8_000));
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Could not load your account');
    fail = false;
    await user.click(within(alert).getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('form', { name: 'Business details' })).toBeInTheDocument();
  });
});
