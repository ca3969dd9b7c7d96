import type { AccountCatalogs, BillingOverview, Invoice, SubscriptionStatus } from '@switchyard/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { browserLocation } from '../../../lib/browser-location.ts';
import { renderApp } from '../../../test/render-app.tsx';
import { ProcedureError } from '../../../test/trpc-stub.ts';
import { activeStatus, GROWTH, STARTER } from '../../subscription/-components/fixtures.ts';

const CATALOGS: AccountCatalogs = {
  account: {
    id: 'a-1',
    business: 'Analytical Engines Ltd',
    status: 'active',
    phone: null,
    addressLine1: null,
    city: null,
    postcode: null,
    country: 'GB',
    timezone: 'Europe/London',
    currency: 'GBP',
  },
  accountSettings: [],
} as AccountCatalogs;

const PAID: Invoice = {
  id: 'in_1',
  number: 'SW-0001',
  status: 'paid',
  amountDue: 2900,
  amountPaid: 2900,
  currency: 'usd',
  createdAt: new Date('2026-03-04T12:00:00Z'),
  periodStart: new Date('2026-03-04T12:00:00Z'),
  periodEnd: new Date('2026-04-04T12:00:00Z'),
  hostedInvoiceUrl: 'https://pay.example/invoice/in_1',
  pdfUrl: 'https://pay.example/invoice/in_1.pdf',
};

const EURO_OPEN: Invoice = {
  ...PAID,
  id: 'in_2',
  number: 'SW-0002',
  status: 'open',
  amountDue: 123456,
  amountPaid: 0,
  currency: 'eur',
  hostedInvoiceUrl: null,
  pdfUrl: null,
};

function overview(status: SubscriptionStatus = activeStatus(), extra: Partial<BillingOverview> = {}): BillingOverview {
  return {
    status,
    plan: STARTER,
    invoices: [PAID],
    paymentMethod: { brand: 'visa', last4: '4242', expMonth: 4, expYear: 2030 },
    usage: { channels: 2, locations: 0, ordersThisMonth: 120, users: 1 },
    ...extra,
  };
}

function handlers(billing: Record<string, (input: unknown) => unknown>) {
  return {
    'account.catalogs': () => CATALOGS,
    'audit.list': () => ({ results: [], total: 0, limit: 25, offset: 0 }),
    'plans.listPlans': () => [STARTER, GROWTH],
    ...billing,
  };
}

function section(name: string): HTMLElement {
  return screen.getByRole('region', { name });
}

describe('settings → account: billing', () => {
  it('shows the plan, renewal date, usage, payment method and invoices in their currency', async () => {
    await renderApp('/settings/account', {
      signedIn: true,
      handlers: handlers({ 'billing.getOverview': () => overview(activeStatus(), { invoices: [PAID, EURO_OPEN] }) }),
    });
    await screen.findByRole('heading', { name: 'Plan' });
    const plan = section('Plan');
    expect(plan).toHaveTextContent('Starter');
    expect(within(plan).getByText('Active')).toBeInTheDocument();
    expect(plan).toHaveTextContent('$29.00 / month');
    expect(plan).toHaveTextContent('Renews on April 4, 2026.');
    const usage = within(plan).getByRole('table', { name: 'Usage' });
    expect(within(usage).getByRole('row', { name: /Sales channels/ })).toHaveTextContent('2 of 2');
    expect(within(usage).getByRole('row', { name: /Orders a month/ })).toHaveTextContent('120 of 500');

    expect(section('Payment method')).toHaveTextContent('Visa ending in 4242, expires 04/2030');

    const invoices = within(section('Invoices')).getByRole('table', { name: 'Invoices' });
    const rows = within(invoices).getAllByRole('row');
    expect(rows[1]).toHaveTextContent('SW-0001');
    expect(rows[1]).toHaveTextContent('$29.00');
    expect(rows[1]).toHaveTextContent('Paid');
    expect(rows[1]).toHaveTextContent('March 4, 2026 – April 4, 2026');
    expect(within(rows[1] as HTMLElement).getByRole('link', { name: 'View invoice SW-0001' })).toHaveAttribute(
      'href',
      PAID.hostedInvoiceUrl,
    );
    expect(
      within(rows[1] as HTMLElement).getByRole('link', { name: 'Download invoice SW-0001 as PDF' }),
    ).toHaveAttribute('href', PAID.pdfUrl);
    expect(rows[2]).toHaveTextContent('€1,234.56');
    expect(rows[2]).toHaveTextContent('Open');
  }, 20_000);

  it('opens the billing portal to update the payment method', async () => {
    const assign = vi.spyOn(browserLocation, 'assign').mockImplementation(() => {});
    let portalInput: unknown;
    const { user } = await renderApp('/settings/account', {
      signedIn: true,
      handlers: handlers({
        'billing.getOverview': () => overview(),
        'billing.openPortal': (input) => {
          portalInput = input;
          return { url: 'https://pay.example/portal/bps_1' };
        },
      }),
    });
    await screen.findByRole('heading', { name: 'Payment method' });
    await user.click(within(section('Payment method')).getByRole('button', { name: 'Update' }));
    await waitFor(() => expect(assign).toHaveBeenCalledWith('https://pay.example/portal/bps_1'));
    expect(portalInput).toEqual({ returnPath: '/settings/account' });
  }, 20_000);

  it('changes the plan after a confirmation that shows the change', async () => {
    let current = overview();
    let changeInput: unknown;
    const { user } = await renderApp('/settings/account', {
      signedIn: true,
      handlers: handlers({
        'billing.getOverview': () => current,
        'billing.changePlan': (input) => {
          changeInput = input;
          const next = activeStatus({
            subscription: { ...(activeStatus().subscription as NonNullable<SubscriptionStatus['subscription']>) },
          });
          if (next.subscription) {
            next.subscription.planId = GROWTH.id;
            next.subscription.planName = GROWTH.name;
            next.subscription.interval = 'year';
          }
          current = overview(next, { plan: GROWTH });
          return next;
        },
      }),
    });
    await screen.findByRole('heading', { name: 'Plan' });
    await user.click(within(section('Plan')).getByRole('button', { name: 'Change plan' }));
    const dialog = await screen.findByRole('dialog', { name: 'Change plan' });
    await user.click(await within(dialog).findByRole('radio', { name: 'Yearly' }));
    const review = within(dialog).getByRole('button', { name: 'Review the change' });
    expect(review).toBeDisabled();
    await user.click(within(dialog).getByRole('radio', { name: 'Growth' }));
    await user.click(review);
    const confirm = await screen.findByRole('dialog', { name: 'Confirm the plan change' });
    expect(confirm).toHaveTextContent('From Starter ($29.00 / month) to Growth ($990.00 / year).');
    expect(confirm).toHaveTextContent('the rest of the current period is prorated');
    expect(confirm).toHaveTextContent('charged to your payment method right away');
    await user.click(within(confirm).getByRole('button', { name: 'Change to Growth' }));
    expect(await screen.findByText('Your plan is now Growth.')).toBeInTheDocument();
    expect(changeInput).toEqual({ planId: GROWTH.id, interval: 'year' });
    await waitFor(() => expect(section('Plan')).toHaveTextContent('$990.00 / year'));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  }, 20_000);

  it('opens the plan change at once with upgrade=true and drops the param when closed', async () => {
    const { user, router } = await renderApp('/settings/account?upgrade=true', {
      signedIn: true,
      handlers: handlers({ 'billing.getOverview': () => overview() }),
    });
    const dialog = await screen.findByRole('dialog', { name: 'Change plan' });
    expect(await within(dialog).findByRole('radio', { name: 'Growth' })).toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: 'Keep my plan' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(router.state.location.search).toEqual({});
  }, 20_000);

  it('shows why a plan change was refused and keeps the dialog open', async () => {
    const { user } = await renderApp('/settings/account', {
      signedIn: true,
      handlers: handlers({
        'billing.getOverview': () => overview(),
        'billing.changePlan': () => {
          throw new ProcedureError('FORBIDDEN', 'You use 2 sales channels; Basic allows 1. Disconnect one first.');
        },
      }),
    });
    await screen.findByRole('heading', { name: 'Plan' });
    await user.click(within(section('Plan')).getByRole('button', { name: 'Change plan' }));
    const dialog = await screen.findByRole('dialog', { name: 'Change plan' });
    await user.click(await within(dialog).findByRole('radio', { name: 'Growth' }));
    await user.click(within(dialog).getByRole('button', { name: 'Review the change' }));
    const confirm = await screen.findByRole('dialog', { name: 'Confirm the plan change' });
    await user.click(within(confirm).getByRole('button', { name: 'Change to Growth' }));
    expect(await within(confirm).findByRole('alert')).toHaveTextContent('Disconnect one first.');
  }, 20_000);

  it('cancels at period end after a confirmation, then resumes', async () => {
    let current = overview();
    const calls: string[] = [];
    const withCancel = (cancelAtPeriodEnd: boolean) => {
      const next = activeStatus();
      if (next.subscription) next.subscription.cancelAtPeriodEnd = cancelAtPeriodEnd;
      current = overview(next);
      return next;
    };
    const { user } = await renderApp('/settings/account', {
      signedIn: true,
      handlers: handlers({
        'billing.getOverview': () => current,
        'billing.cancel': () => {
          calls.push('cancel');
          return withCancel(true);
        },
        'billing.resume': () => {
          calls.push('resume');
          return withCancel(false);
        },
      }),
    });
    await screen.findByRole('heading', { name: 'Plan' });
    await user.click(within(section('Plan')).getByRole('button', { name: 'Cancel subscription' }));
    const dialog = await screen.findByRole('dialog', { name: 'Cancel your subscription?' });
    expect(dialog).toHaveTextContent('ends on April 4, 2026');
    await user.click(within(dialog).getByRole('button', { name: 'Keep my subscription' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(calls).toEqual([]);

    await user.click(within(section('Plan')).getByRole('button', { name: 'Cancel subscription' }));
    await user.click(
      within(await screen.findByRole('dialog', { name: 'Cancel your subscription?' })).getByRole('button', {
        name: 'Cancel at period end',
      }),
    );
    expect(await screen.findByText('Your subscription ends on April 4, 2026.')).toBeInTheDocument();
    const notice = await within(section('Plan')).findByText(/It was canceled and ends on April 4, 2026/);
    expect(within(section('Plan')).queryByRole('button', { name: 'Cancel subscription' })).not.toBeInTheDocument();
    expect(notice).toBeInTheDocument();

    await user.click(within(section('Plan')).getByRole('button', { name: 'Resume subscription' }));
    expect(await screen.findByText('Your subscription will renew as usual.')).toBeInTheDocument();
    await waitFor(() => expect(section('Plan')).toHaveTextContent('Renews on April 4, 2026.'));
    expect(calls).toEqual(['cancel', 'resume']);
  }, 20_000);

  it('says when there are no invoices and no plan', async () => {
    await renderApp('/settings/account', {
      signedIn: true,
      handlers: handlers({
        'billing.getOverview': () =>
          overview(
            { ...activeStatus(), accountStatus: 'requires_payment_method', subscription: null, checkout: null },
            { plan: null, invoices: [], paymentMethod: null },
          ),
      }),
    });
    expect(await screen.findByText('Your account has no subscription yet.')).toBeInTheDocument();
    expect(screen.getByText('No invoices yet.')).toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: 'Payment method' })).not.toBeInTheDocument();
  }, 20_000);
});
