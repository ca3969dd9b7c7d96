import type { AccountStatus } from '@switchyard/contracts';
import { act, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { browserLocation } from '../../lib/browser-location.ts';
import { renderApp } from '../../test/render-app.tsx';
import { basicData } from '../../test/session.ts';
import { ProcedureError } from '../../test/trpc-stub.ts';
import { activeStatus, GROWTH, PARTNER, STARTER, status } from './-components/fixtures.ts';
import { ENTER_APP_DELAY_MS } from './-components/outcome.tsx';

const CHECKOUT_URL = 'https://pay.example/stripe/checkout/cs_test_1';

function paths(fetch: { calls: { paths: string[] }[] }): string[] {
  return fetch.calls.flatMap((call) => call.paths);
}

describe('plans page', () => {
  it('shows a signed-out visitor the public plans with both prices, limits and a way to sign up', async () => {
    let listInput: unknown = 'not called';
    const { fetch } = await renderApp('/subscription/plans', {
      handlers: {
        'plans.listPlans': (input) => {
          listInput = input;
          return [STARTER, GROWTH];
        },
      },
    });
    const starter = await screen.findByRole('article', { name: 'Starter' });
    expect(listInput).toBeUndefined();
    expect(starter).toHaveTextContent('$29.00 / month');
    expect(starter).toHaveTextContent('or $290.00 / year');
    expect(starter).toHaveTextContent('Save 17% yearly');
    const limits = within(starter).getByRole('list', { name: 'Starter limits' });
    expect(
      within(limits)
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual(['2 sales channels', '1 location', '500 orders a month', '2 users']);
    expect(within(starter).getByText('Catalog and stock sync')).toBeInTheDocument();
    expect(within(starter).getByRole('link', { name: 'Sign up' })).toHaveAttribute('href', '/register');
    expect(screen.getAllByRole('link', { name: 'Sign up' })).toHaveLength(2);
    expect(screen.queryByRole('button', { name: /Choose/ })).not.toBeInTheDocument();
    // Signed out: no session, so neither the basic data nor the status are asked for.
    expect(paths(fetch)).not.toContain('hydration.getBasicData');
    expect(paths(fetch)).not.toContain('billing.getSubscriptionStatus');
  });

  it('when the basic data fails, says why and still shows the plans', async () => {
    const { router } = await renderApp('/subscription/plans', {
      signedIn: true,
      handlers: {
        'hydration.getBasicData': () => {
          throw new ProcedureError('INTERNAL_SERVER_ERROR', 'Database unavailable');
        },
        'plans.listPlans': () => [STARTER, GROWTH],
      },
    });
    expect(await screen.findByRole('article', { name: 'Starter' })).toBeInTheDocument();
    const toast = (await screen.findAllByText('Database unavailable')).find((el) => el.closest('[data-sonner-toast]'));
    expect(toast?.closest('[data-sonner-toast]')).toHaveAttribute('data-type', 'error');
    expect(router.state.location.pathname).toBe('/subscription/plans');
  });

  it('when the server no longer accepts the session, says so and goes to sign in, then back', async () => {
    const { router } = await renderApp('/subscription/plans?all=true', {
      signedIn: true,
      handlers: {
        'hydration.getBasicData': () => {
          throw new ProcedureError('UNAUTHORIZED', 'Your session has expired. Please sign in again.');
        },
      },
    });
    const message = await screen.findByText('Your session has expired. Please sign in again.');
    expect(message.closest('[data-sonner-toast]')).toHaveAttribute('data-type', 'error');
    expect(router.state.location.pathname).toBe('/login');
    expect(router.state.location.search).toEqual({ redirect: '/subscription/plans?all=true' });
    expect(window.localStorage.getItem('token')).toBeNull();
  });

  it('with all=true asks for every plan and marks the unlisted ones', async () => {
    let listInput: unknown;
    await renderApp('/subscription/plans?all=true', {
      handlers: {
        'plans.listPlans': (input) => {
          listInput = input;
          return [STARTER, PARTNER];
        },
      },
    });
    const partner = await screen.findByRole('article', { name: 'Partner' });
    expect(listInput).toEqual({ all: true });
    expect(within(partner).getByText('Not listed')).toBeInTheDocument();
    expect(partner).toHaveTextContent('Unlimited sales channels');
  });

  it('starts checkout for the chosen plan and period and sends the browser to the payment page', async () => {
    const assign = vi.spyOn(browserLocation, 'assign').mockImplementation(() => {});
    let checkoutInput: unknown;
    const { user, fetch } = await renderApp('/subscription/plans', {
      signedIn: { status: 'requires_payment_method' },
      handlers: {
        'plans.listPlans': () => [STARTER, GROWTH],
        'billing.getSubscriptionStatus': () => status(),
        'billing.startCheckout': (input) => {
          checkoutInput = input;
          return { url: CHECKOUT_URL };
        },
      },
    });
    const growth = await screen.findByRole('article', { name: 'Growth' });
    expect(paths(fetch)).toContain('hydration.getBasicData');
    await user.click(screen.getByRole('radio', { name: 'Yearly' }));
    expect(growth).toHaveTextContent('$990.00 / year');
    const choose = within(growth).getByRole('button', { name: 'Choose Growth, yearly' });
    await waitFor(() => expect(choose).toBeEnabled());
    await user.click(choose);
    await waitFor(() => expect(assign).toHaveBeenCalledWith(CHECKOUT_URL));
    expect(checkoutInput).toEqual({ planId: GROWTH.id, interval: 'year' });
    // Leaving: the other plans cannot be started meanwhile.
    expect(within(screen.getByRole('article', { name: 'Starter' })).getByRole('button')).toBeDisabled();
  });

  it('says why checkout could not start', async () => {
    const assign = vi.spyOn(browserLocation, 'assign').mockImplementation(() => {});
    const { user } = await renderApp('/subscription/plans', {
      signedIn: { status: 'requires_payment_method' },
      handlers: {
        'plans.listPlans': () => [STARTER],
        'billing.getSubscriptionStatus': () => status(),
        'billing.startCheckout': () => {
          throw new ProcedureError('BAD_REQUEST', 'Confirm your e-mail address before choosing a plan.');
        },
      },
    });
    const choose = await screen.findByRole('button', { name: 'Choose Starter, monthly' });
    await waitFor(() => expect(choose).toBeEnabled());
    await user.click(choose);
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Could not start the checkout');
    expect(alert).toHaveTextContent('Confirm your e-mail address before choosing a plan.');
    expect(assign).not.toHaveBeenCalled();
  });

  it('back from the payment page with checkout=canceled says nothing was charged, with the card error', async () => {
    const { router, user } = await renderApp('/subscription/plans?checkout=canceled', {
      signedIn: { status: 'requires_payment_method' },
      handlers: {
        'plans.listPlans': () => [STARTER],
        'billing.getSubscriptionStatus': () => status({ lastPaymentError: 'Your card was declined.' }),
      },
    });
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Payment not completed');
    expect(alert).toHaveTextContent('nothing was charged');
    await waitFor(() => expect(alert).toHaveTextContent('The last attempt failed: Your card was declined.'));
    expect(screen.getByRole('button', { name: 'Choose Starter, monthly' })).toBeInTheDocument();
    await user.click(within(alert).getByRole('button', { name: 'Dismiss' }));
    expect(screen.queryByText('Payment not completed')).not.toBeInTheDocument();
    expect(router.state.location.search).toEqual({});
  });

  it('sends a subscribed merchant to settings to change plan instead of a new checkout', async () => {
    // An old "canceled" link says nothing once the account has subscribed.
    await renderApp('/subscription/plans?checkout=canceled', {
      signedIn: { status: 'active' },
      handlers: { 'plans.listPlans': () => [STARTER, GROWTH], 'billing.getSubscriptionStatus': () => activeStatus() },
    });
    const starter = await screen.findByRole('article', { name: 'Starter' });
    await waitFor(() => expect(within(starter).getByText('Current plan')).toBeInTheDocument());
    expect(within(starter).getByRole('link', { name: 'Manage your plan' })).toHaveAttribute(
      'href',
      '/settings/account?upgrade=true',
    );
    const growth = screen.getByRole('article', { name: 'Growth' });
    expect(within(growth).getByRole('link', { name: 'Change to Growth' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /Choose/ })).not.toBeInTheDocument();
    expect(screen.queryByText('Payment not completed')).not.toBeInTheDocument();
  });

  it('while a bank payment is on its way, points to it and starts no other checkout', async () => {
    const { user, router } = await renderApp('/subscription/plans', {
      signedIn: { status: 'awaiting_payment' },
      handlers: {
        'plans.listPlans': () => [STARTER],
        'billing.getSubscriptionStatus': () =>
          status({ accountStatus: 'awaiting_payment', checkout: { status: 'complete', paymentStatus: 'unpaid' } }),
      },
    });
    expect(await screen.findByText('Your payment is on its way')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Choose Starter, monthly' })).toBeDisabled();
    await user.click(screen.getByRole('link', { name: 'See the payment' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/subscription/awaiting-payment'));
  });

  it('sends /subscription to the plans', async () => {
    const { router } = await renderApp('/subscription', { handlers: { 'plans.listPlans': () => [STARTER] } });
    expect(await screen.findByRole('heading', { name: 'Choose your plan' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/subscription/plans');
  });

  it('is found from the not-found page by "pricing"', async () => {
    const { user } = await renderApp('/pricing');
    await user.type(await screen.findByRole('textbox', { name: 'Search' }), 'pricing');
    const results = screen.getByRole('region', { name: 'Matching pages' });
    expect(within(results).getByRole('link', { name: 'Plans and pricing' })).toHaveAttribute(
      'href',
      '/subscription/plans',
    );
  });

  it('shows a failed plan list with a retry', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    let fail = true;
    const { user } = await renderApp('/subscription/plans', {
      handlers: {
        'plans.listPlans': () => {
          if (fail) throw new Error('Database is down');
          return [STARTER];
        },
      },
      advanceTimers: vi.advanceTimersByTime,
    });
    await act(() => vi.advanceTimersByTimeAsync(8_000));
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Could not load the plans');
    fail = false;
    await user.click(within(alert).getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('article', { name: 'Starter' })).toBeInTheDocument();
  });
});

/** Basic data whose account status can change between reads, as the server's does after a payment. */
function changingAccount(initial: AccountStatus) {
  const account = { status: initial };
  return { account, handler: () => basicData({ status: account.status }) };
}

describe('back from checkout', () => {
  it('shows an active subscription and then goes into the app, reading the account again', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const { account, handler } = changingAccount('requires_payment_method');
    let statusInput: unknown;
    const { router } = await renderApp('/subscription/success?session_id=cs_test_1', {
      signedIn: true,
      handlers: {
        'hydration.getBasicData': handler,
        'billing.getSubscriptionStatus': (input) => {
          statusInput = input;
          account.status = 'active';
          return activeStatus();
        },
      },
      advanceTimers: vi.advanceTimersByTime,
    });
    expect(await screen.findByRole('heading', { name: "You're all set" })).toBeInTheDocument();
    expect(screen.getByText(/Your Starter subscription is active/)).toBeInTheDocument();
    expect(router.state.location.search).toEqual({ session_id: 'cs_test_1' });
    expect(statusInput).toEqual({ sessionId: 'cs_test_1' });
    await act(() => vi.advanceTimersByTimeAsync(ENTER_APP_DELAY_MS + 100));
    expect(await screen.findByRole('heading', { name: 'Dashboard' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/dashboard');
  });

  it('goes to the dashboard at once with the button', async () => {
    const { account, handler } = changingAccount('requires_payment_method');
    const { router, user } = await renderApp('/subscription/success', {
      signedIn: true,
      handlers: {
        'hydration.getBasicData': handler,
        'billing.getSubscriptionStatus': () => {
          account.status = 'active';
          return activeStatus();
        },
      },
    });
    await user.click(await screen.findByRole('button', { name: 'Go to the dashboard' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'));
  });

  it('says the payment was not completed, with the reason, and leads back to the plans', async () => {
    const { user, router } = await renderApp('/subscription/success', {
      signedIn: { status: 'requires_payment_method' },
      handlers: {
        'billing.getSubscriptionStatus': () =>
          status({
            checkout: { status: 'open', paymentStatus: 'unpaid' },
            lastPaymentError: 'Your card was declined.',
          }),
        'plans.listPlans': () => [STARTER],
      },
    });
    expect(await screen.findByRole('heading', { name: 'Payment not completed' })).toBeInTheDocument();
    expect(screen.getByRole('alert')).toHaveTextContent('Your card was declined.');
    await user.click(screen.getByRole('link', { name: 'Back to the plans' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/subscription/plans'));
  });

  it('moves an unsettled payment to the awaiting-payment page', async () => {
    const { router } = await renderApp('/subscription/success', {
      signedIn: { status: 'awaiting_payment' },
      handlers: {
        'billing.getSubscriptionStatus': () =>
          status({ accountStatus: 'awaiting_payment', checkout: { status: 'complete', paymentStatus: 'unpaid' } }),
      },
    });
    expect(await screen.findByRole('heading', { name: 'Waiting for your bank' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/subscription/awaiting-payment');
  });

  it('asks a signed-out visitor to sign in and come back', async () => {
    const { fetch } = await renderApp('/subscription/success?session_id=cs_1');
    expect(await screen.findByRole('heading', { name: 'Sign in to continue' })).toBeInTheDocument();
    // The card's link and the header's both come back here.
    for (const link of screen.getAllByRole('link', { name: 'Sign in' })) {
      expect(link).toHaveAttribute(
        'href',
        `/login?redirect=${encodeURIComponent('/subscription/success?session_id=cs_1')}`,
      );
    }
    expect(paths(fetch)).not.toContain('billing.getSubscriptionStatus');
  });
});

describe('awaiting payment', () => {
  it('waits for the bank, asking every few seconds, and goes into the app once it settles', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const { account, handler } = changingAccount('awaiting_payment');
    let asked = 0;
    const { router } = await renderApp('/subscription/awaiting-payment', {
      signedIn: true,
      handlers: {
        'hydration.getBasicData': handler,
        'billing.getSubscriptionStatus': () => {
          asked += 1;
          if (asked < 3) {
            return status({
              accountStatus: 'awaiting_payment',
              checkout: { status: 'complete', paymentStatus: 'unpaid' },
            });
          }
          account.status = 'active';
          return activeStatus();
        },
      },
      advanceTimers: vi.advanceTimersByTime,
    });
    expect(await screen.findByRole('heading', { name: 'Waiting for your bank' })).toBeInTheDocument();
    expect(screen.getByRole('status', { name: 'Waiting for your bank to confirm the payment' })).toBeInTheDocument();
    expect(screen.getByText(/Last checked at/)).toBeInTheDocument();
    expect(asked).toBe(1);
    await act(() => vi.advanceTimersByTimeAsync(3_100));
    expect(asked).toBe(2);
    expect(screen.getByRole('heading', { name: 'Waiting for your bank' })).toBeInTheDocument();
    await act(() => vi.advanceTimersByTimeAsync(3_100));
    expect(await screen.findByRole('heading', { name: "You're all set" })).toBeInTheDocument();
    await act(() => vi.advanceTimersByTimeAsync(ENTER_APP_DELAY_MS + 100));
    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'));
    // Settled: no more asking.
    const settled = asked;
    await act(() => vi.advanceTimersByTimeAsync(10_000));
    expect(asked).toBe(settled);
  });

  it('says so when the bank refuses the payment', async () => {
    await renderApp('/subscription/awaiting-payment', {
      signedIn: { status: 'requires_payment_method' },
      handlers: {
        'billing.getSubscriptionStatus': () =>
          status({ lastPaymentError: 'The bank account could not be debited.', checkout: null }),
      },
    });
    expect(await screen.findByRole('heading', { name: 'Payment not completed' })).toBeInTheDocument();
    expect(screen.getByRole('alert')).toHaveTextContent('The bank account could not be debited.');
  });
});
