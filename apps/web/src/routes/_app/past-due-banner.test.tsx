import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { browserLocation } from '../../lib/browser-location.ts';
import { renderApp } from '../../test/render-app.tsx';
import { activeStatus } from '../subscription/-components/fixtures.ts';

function pastDue(readOnly: boolean) {
  const status = activeStatus({ accountStatus: 'past_due', readOnly, lastPaymentError: 'Your card was declined.' });
  if (status.subscription) {
    status.subscription.status = 'past_due';
    status.subscription.graceEndsAt = new Date('2026-03-11T12:00:00Z');
  }
  return status;
}

describe('past-due banner', () => {
  it('tells a past_due account until when it keeps full use and opens the portal to update the card', async () => {
    const assign = vi.spyOn(browserLocation, 'assign').mockImplementation(() => {});
    let portalInput: unknown;
    const { user } = await renderApp('/dashboard', {
      signedIn: { status: 'past_due' },
      handlers: {
        'billing.getSubscriptionStatus': () => pastDue(false),
        'billing.openPortal': (input) => {
          portalInput = input;
          return { url: 'https://pay.example/portal/bps_2' };
        },
      },
    });
    const banner = await screen.findByRole('region', { name: 'Your payment failed' });
    await waitFor(() =>
      expect(banner).toHaveTextContent(
        'Update your payment method by March 11, 2026 to keep full use of Switchyard. After that the account becomes read-only. (Your card was declined.)',
      ),
    );
    expect(screen.getByRole('heading', { name: 'Dashboard' })).toBeInTheDocument();
    await user.click(within(banner).getByRole('button', { name: 'Update payment method' }));
    await waitFor(() => expect(assign).toHaveBeenCalledWith('https://pay.example/portal/bps_2'));
    expect(portalInput).toEqual({ returnPath: '/dashboard' });
  });

  it('says the account is read-only once the grace period is over', async () => {
    await renderApp('/dashboard', {
      signedIn: { status: 'past_due' },
      handlers: { 'billing.getSubscriptionStatus': () => pastDue(true) },
    });
    const banner = await screen.findByRole('region', { name: 'Your account is read-only' });
    expect(banner).toHaveTextContent('changes are paused until the payment goes through');
    expect(within(banner).getByRole('button', { name: 'Update payment method' })).toBeInTheDocument();
  });

  it('is not there for an account in good standing, which is not asked about its subscription', async () => {
    const { fetch } = await renderApp('/dashboard', { signedIn: { status: 'active' } });
    expect(await screen.findByRole('heading', { name: 'Dashboard' })).toBeInTheDocument();
    expect(screen.queryByRole('region', { name: /payment failed|read-only/ })).not.toBeInTheDocument();
    expect(fetch.calls.flatMap((call) => call.paths)).not.toContain('billing.getSubscriptionStatus');
  });
});
