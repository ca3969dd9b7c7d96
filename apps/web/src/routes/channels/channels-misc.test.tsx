import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { browserLocation } from '../../lib/browser-location.ts';
import { renderApp } from '../../test/render-app.tsx';

describe('the Square POS route', { timeout: 30_000 }, () => {
  it('asks for the authorization URL with store empty and environment api, then goes there', async () => {
    const assign = vi.spyOn(browserLocation, 'assign').mockImplementation(() => {});
    const { rest } = await renderApp('/channels/square', {
      signedIn: true,
      rest: {
        'POST /api/v1/oauth/square/generate-redirect-url': () => ({
          body: { url: 'https://square.example/oauth2/authorize?state=q' },
        }),
      },
    });
    await waitFor(() => expect(assign).toHaveBeenCalledWith('https://square.example/oauth2/authorize?state=q'));
    expect(rest.calls.map((call) => [call.method, call.url, call.data])).toEqual([
      ['POST', '/api/v1/oauth/square/generate-redirect-url', { store: '', environment: 'api' }],
    ]);
    expect(screen.getByRole('status')).toHaveTextContent('Taking you to Square POS…');
  });

  it('re-authorises the channel it is given', async () => {
    vi.spyOn(browserLocation, 'assign').mockImplementation(() => {});
    const { rest } = await renderApp('/channels/square?channelId=chn_pos', {
      signedIn: true,
      rest: { 'POST /api/v1/oauth/square/generate-redirect-url': () => ({ body: { url: 'https://sq.example/' } }) },
    });
    await waitFor(() => expect(rest.calls[0]?.data).toEqual({ store: '', environment: 'api', channelId: 'chn_pos' }));
  });

  it('shows why Square cannot be reached', async () => {
    const assign = vi.spyOn(browserLocation, 'assign').mockImplementation(() => {});
    await renderApp('/channels/square', {
      signedIn: true,
      rest: {
        'POST /api/v1/oauth/square/generate-redirect-url': () => ({
          status: 404,
          body: { code: 404, message: 'Channel not found' },
        }),
      },
    });
    expect(await screen.findByRole('alert')).toHaveTextContent('Channel not found');
    expect(screen.getByRole('link', { name: 'Back to channels' })).toHaveAttribute('href', '/channels');
    expect(assign).not.toHaveBeenCalled();
  });

  it('offers the upgrade when the plan has no room for another channel', async () => {
    await renderApp('/channels/square', {
      signedIn: true,
      rest: {
        'POST /api/v1/oauth/square/generate-redirect-url': () => ({
          status: 402,
          body: { code: 402, message: 'Your Starter plan includes 1 sales channel.' },
        }),
      },
    });
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Your Starter plan includes 1 sales channel.');
    expect(screen.getByRole('link', { name: 'Upgrade your plan' })).toHaveAttribute(
      'href',
      '/settings/account?upgrade=true',
    );
  });

  it('opens signed out and asks to sign in first, without calling the server', async () => {
    const { rest } = await renderApp('/channels/square');
    expect(await screen.findByRole('heading', { name: 'Connect Square POS' })).toBeInTheDocument();
    expect(screen.getAllByRole('link', { name: 'Sign in' })[0]).toHaveAttribute(
      'href',
      '/login?redirect=%2Fchannels%2Fsquare',
    );
    expect(rest.calls).toEqual([]);
  });
});

describe('the outcome route', { timeout: 30_000 }, () => {
  it('is open signed out and says to sign in to go on', async () => {
    await renderApp('/channels/shopify/connected');
    expect(await screen.findByRole('heading', { name: 'Shopify is connected' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Sign in to continue' })).toBeInTheDocument();
  });

  it('shows a default explanation when the error has no message', async () => {
    await renderApp('/channels/bigcommerce/error');
    expect(await screen.findByRole('alert')).toHaveTextContent('BigCommerce did not complete the connection.');
  });

  it('knows only the platforms and the two outcomes', async () => {
    await renderApp('/channels/shopify/maybe');
    expect(await screen.findByText(/You're lost/)).toBeInTheDocument();
  });
});
