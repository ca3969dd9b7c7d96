import type { ChannelSummary } from '@switchyard/contracts';
import { DEFAULT_FEATURES } from '@switchyard/contracts';
import { act, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { browserLocation } from '../../../lib/browser-location.ts';
import { renderApp } from '../../../test/render-app.tsx';
import { ProcedureError } from '../../../test/trpc-stub.ts';
import { awaitingFirstSync, FIRST_SYNC_POLL_MS } from './-components/channel-api.ts';

function summary(overrides: Partial<ChannelSummary> & Pick<ChannelSummary, 'id' | 'type' | 'name'>): ChannelSummary {
  return {
    status: 'connected',
    externalId: null,
    statusMessage: null,
    features: DEFAULT_FEATURES,
    connectedAt: new Date('2026-11-01T10:00:00Z'),
    lastSyncAt: null,
    errorCount: 0,
    createdAt: new Date('2026-11-01T09:00:00Z'),
    ...overrides,
  };
}

const SHOP = summary({
  id: 'chn_shop',
  type: 'shopify',
  name: 'Harbor Shop',
  externalId: 'harbor.myshopify.com',
  lastSyncAt: new Date('2026-11-20T08:30:00Z'),
  errorCount: 3,
});
const BC = summary({
  id: 'chn_bc',
  type: 'bigcommerce',
  name: 'Harbor Wholesale',
  externalId: 'abc123',
  status: 'error',
  statusMessage: 'BigCommerce refused our access to Harbor Wholesale. Re-authorise the channel.',
});
const POS = summary({ id: 'chn_pos', type: 'square', name: 'Harbor Stores', externalId: 'MERCHANT1' });
const PENDING = summary({ id: 'chn_new', type: 'shopify', name: 'Shopify 2', status: 'pending', connectedAt: null });

const rowOf = (name: string) => {
  const cell = within(screen.getByRole('table', { name: 'Channels' })).getByText(name);
  const row = cell.closest('tr');
  if (!row) throw new Error(`no row for ${name}`);
  return row;
};

describe('the channel list', { timeout: 30_000 }, () => {
  it('lists each channel with its provider, status, last sync and recent errors, cached for an hour', async () => {
    let reads = 0;
    const { user, router } = await renderApp('/channels', {
      signedIn: true,
      handlers: {
        'channels.list': () => {
          reads += 1;
          return [SHOP, BC, POS, PENDING];
        },
      },
    });
    const shop = await waitFor(() => rowOf('Harbor Shop'));
    expect(shop).toHaveTextContent('Shopify');
    expect(shop).toHaveTextContent('harbor.myshopify.com');
    expect(shop).toHaveTextContent('Connected');
    expect(within(shop).getByLabelText('3 errors in the last 24 hours')).toHaveTextContent('3');
    expect(within(shop).getByRole('time')).toHaveAttribute('datetime', '2026-11-20T08:30:00.000Z');

    const bc = rowOf('Harbor Wholesale');
    expect(bc).toHaveTextContent('Needs attention');
    expect(bc).toHaveTextContent('BigCommerce refused our access');
    expect(bc).toHaveTextContent('Not yet');
    expect(within(bc).getByRole('link', { name: 'Re-authorise Harbor Wholesale' })).toHaveAttribute(
      'href',
      '/oauth/initiate/bigcommerce?hash=abc123&channelId=chn_bc',
    );
    expect(within(shop).getByRole('link', { name: 'Re-authorise Harbor Shop' })).toHaveAttribute(
      'href',
      '/oauth/initiate/shopify?shop=harbor.myshopify.com&channelId=chn_shop',
    );
    expect(within(rowOf('Harbor Stores')).getByRole('link', { name: 'Re-authorise Harbor Stores' })).toHaveAttribute(
      'href',
      '/channels/square?channelId=chn_pos',
    );
    // A channel that never finished connecting asks for its shop again and has no settings yet.
    const pending = rowOf('Shopify 2');
    expect(within(pending).getByRole('link', { name: 'Finish connecting Shopify 2' })).toHaveAttribute(
      'href',
      '/channels/create/chn_new',
    );
    expect(within(pending).queryByRole('button', { name: /Disconnect/ })).not.toBeInTheDocument();
    expect(within(pending).getByRole('button', { name: 'Discard Shopify 2' })).toBeInTheDocument();
    expect(within(shop).getByRole('link', { name: 'Settings of Harbor Shop' })).toHaveAttribute(
      'href',
      '/channels/chn_shop/channel-settings',
    );

    // SPEC §9: coming back within the hour reads the list from the cache.
    await user.click(screen.getByRole('link', { name: 'Dashboard' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'));
    await user.click(screen.getByRole('link', { name: 'Channels' }));
    await waitFor(() => rowOf('Harbor Shop'));
    expect(reads).toBe(1);
    await user.click(screen.getByRole('button', { name: 'Refresh' }));
    await waitFor(() => expect(reads).toBe(2));
  });

  it('reads the list again while a channel connected within the hour awaits its first sync, and then stops', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const connectedAt = new Date(Date.now() - 60_000);
    const syncedAt = new Date(Date.now() - 1_000);
    let reads = 0;
    await renderApp('/channels', {
      signedIn: true,
      handlers: {
        'channels.list': () => {
          reads += 1;
          // The first import ends between the second and the third read.
          return [SHOP, { ...POS, connectedAt, lastSyncAt: reads >= 3 ? syncedAt : null }];
        },
      },
    });
    await waitFor(() => expect(rowOf('Harbor Stores')).toHaveTextContent('Not yet'));
    await act(() => vi.advanceTimersByTimeAsync(FIRST_SYNC_POLL_MS));
    await waitFor(() => expect(reads).toBe(2));
    await act(() => vi.advanceTimersByTimeAsync(FIRST_SYNC_POLL_MS));
    await waitFor(() =>
      expect(within(rowOf('Harbor Stores')).getByRole('time')).toHaveAttribute('datetime', syncedAt.toISOString()),
    );
    // Synced: the hour's cache holds again.
    await act(() => vi.advanceTimersByTimeAsync(FIRST_SYNC_POLL_MS * 3));
    expect(reads).toBe(3);
  });

  it('does not wait on a channel connected long ago that never synced', () => {
    const now = Date.parse('2026-11-28T12:00:00Z');
    const pos = (connectedAt: Date | null) => [{ ...POS, connectedAt, lastSyncAt: null }];
    expect(awaitingFirstSync(pos(new Date(now - 10 * 60_000)), now)).toBe(true);
    expect(awaitingFirstSync(pos(new Date(now - 2 * 60 * 60_000)), now)).toBe(false);
    expect(awaitingFirstSync(pos(null), now)).toBe(false);
    expect(awaitingFirstSync([{ ...BC, connectedAt: new Date(now - 60_000) }], now)).toBe(false);
  });

  it('says how to begin when there are no channels, and offers the three connections', async () => {
    await renderApp('/channels', { signedIn: true, handlers: { 'channels.list': () => [] } });
    expect(await screen.findByText('No channels yet')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Connect Shopify' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Connect BigCommerce' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Connect Square POS' })).toHaveAttribute('href', '/channels/square');
  });

  it('shows a failed load with a retry', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    let fail = true;
    const { user } = await renderApp('/channels', {
      signedIn: true,
      advanceTimers: (ms) => vi.advanceTimersByTime(ms),
      handlers: {
        'channels.list': () => {
          if (fail) throw new ProcedureError('INTERNAL_SERVER_ERROR', 'The database is resting');
          return [SHOP];
        },
      },
    });
    await vi.advanceTimersByTimeAsync(8_000);
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Could not load your channels');
    expect(alert).toHaveTextContent('The database is resting');
    fail = false;
    await user.click(within(alert).getByRole('button', { name: 'Try again' }));
    await waitFor(() => rowOf('Harbor Shop'));
  });

  it('disconnects a channel only after confirming, and reads the list again', async () => {
    let channels = [SHOP, POS];
    const disconnected: unknown[] = [];
    const { user } = await renderApp('/channels', {
      signedIn: true,
      handlers: {
        'channels.list': () => channels,
        'channels.disconnect': (input) => {
          disconnected.push(input);
          channels = [{ ...SHOP, status: 'disconnected', statusMessage: 'Disconnected in Switchyard.' }, POS];
          return channels[0];
        },
      },
    });
    await waitFor(() => rowOf('Harbor Shop'));
    await user.click(within(rowOf('Harbor Shop')).getByRole('button', { name: 'Disconnect Harbor Shop' }));
    const dialog = await screen.findByRole('dialog', { name: 'Disconnect Harbor Shop?' });
    expect(dialog).toHaveTextContent('Its settings are kept');
    // The safe choice has the focus; Escape closes without disconnecting.
    await waitFor(() => expect(within(dialog).getByRole('button', { name: 'Cancel' })).toHaveFocus());
    await user.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(disconnected).toEqual([]);

    await user.click(within(rowOf('Harbor Shop')).getByRole('button', { name: 'Disconnect Harbor Shop' }));
    await user.click(
      within(await screen.findByRole('dialog', { name: 'Disconnect Harbor Shop?' })).getByRole('button', {
        name: 'Disconnect',
      }),
    );
    expect(await screen.findByText('Harbor Shop was disconnected.')).toBeInTheDocument();
    expect(disconnected).toEqual([{ id: 'chn_shop' }]);
    await waitFor(() => expect(rowOf('Harbor Shop')).toHaveTextContent('Disconnected'));
    expect(within(rowOf('Harbor Shop')).queryByRole('button', { name: /Disconnect/ })).not.toBeInTheDocument();
  });
});

describe('connecting a platform', { timeout: 30_000 }, () => {
  it('creates a pending channel, asks for the shop and goes to Shopify through the consent URL', async () => {
    const assign = vi.spyOn(browserLocation, 'assign').mockImplementation(() => {});
    const pending = { ...PENDING, id: 'chn_9' };
    const oauthInputs: unknown[] = [];
    const { user, rest, router, fetch } = await renderApp('/channels', {
      signedIn: true,
      handlers: {
        'channels.list': () => [],
        'channels.get': () => ({ ...pending, settings: undefined }),
        'channels.getOauthUrl': (input) => {
          oauthInputs.push(input);
          return { url: 'https://shopify.example/admin/oauth/authorize?state=s1' };
        },
      },
      rest: {
        'POST /api/frontend/integration/create': () => ({
          body: { ...pending, connectedAt: null, createdAt: '2026-11-22T07:00:00.000Z' },
        }),
      },
    });
    await user.click(await screen.findByRole('button', { name: 'Connect Shopify' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/channels/create/chn_9'));
    expect(rest.calls.map((call) => [call.method, call.url, call.data])).toEqual([
      ['POST', '/api/frontend/integration/create', { type: 'shopify' }],
    ]);
    // The list is read again, so the new pending channel shows there.
    expect(fetch.calls.filter((call) => call.paths.includes('channels.list'))).toHaveLength(2);

    const form = await screen.findByRole('form', { name: 'Your Shopify shop' });
    await user.click(within(form).getByRole('button', { name: 'Continue to Shopify' }));
    expect(within(form).getByText('* Required')).toBeInTheDocument();
    await user.type(within(form).getByLabelText(/Shop address/), 'not a shop!');
    expect(within(form).getByText(/Enter the address of your shop/)).toBeInTheDocument();
    await user.clear(within(form).getByLabelText(/Shop address/));
    await user.type(within(form).getByLabelText(/Shop address/), 'harbor-goods.myshopify.com');
    await user.click(within(form).getByRole('button', { name: 'Continue to Shopify' }));

    await waitFor(() => expect(router.state.location.pathname).toBe('/oauth/initiate/shopify'));
    expect(router.state.location.search).toEqual({ shop: 'harbor-goods.myshopify.com', channelId: 'chn_9' });
    await waitFor(() => expect(assign).toHaveBeenCalledWith('https://shopify.example/admin/oauth/authorize?state=s1'));
    // SPEC §2: the shop is the part before the first dot.
    expect(oauthInputs).toEqual([{ provider: 'shopify', properties: { shop: 'harbor-goods', channelId: 'chn_9' } }]);
    expect(screen.getByRole('status')).toHaveTextContent('Taking you to Shopify…');
  });

  it('picks up a connection started before instead of adding another channel', async () => {
    const { user, rest, router } = await renderApp('/channels', {
      signedIn: true,
      handlers: {
        'channels.list': () => [SHOP, PENDING],
        'channels.get': () => ({ ...PENDING, settings: undefined }),
      },
    });
    await user.click(await screen.findByRole('button', { name: 'Connect Shopify' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/channels/create/chn_new'));
    // No channel was created (the screen's only REST read is the daily import schedule).
    expect(rest.calls.filter((call) => call.method !== 'GET')).toEqual([]);
  });

  it('asks BigCommerce for its store hash', async () => {
    const { user, router } = await renderApp('/channels/create/chn_b', {
      signedIn: true,
      handlers: {
        'channels.get': () => summary({ id: 'chn_b', type: 'bigcommerce', name: 'BigCommerce', status: 'pending' }),
        'channels.getOauthUrl': () => new Promise(() => {}),
      },
    });
    const form = await screen.findByRole('form', { name: 'Your BigCommerce store' });
    await user.type(within(form).getByLabelText(/Store hash/), 'abc123');
    await user.click(within(form).getByRole('button', { name: 'Continue to BigCommerce' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/oauth/initiate/bigcommerce'));
    expect(router.state.location.search).toEqual({ hash: 'abc123', channelId: 'chn_b' });
  });

  it('shows the plan limit with a way to upgrade when a channel cannot be added', async () => {
    const { user } = await renderApp('/channels', {
      signedIn: true,
      handlers: { 'channels.list': () => [SHOP] },
      rest: {
        'POST /api/frontend/integration/create': () => ({
          status: 402,
          body: { code: 402, message: 'Your Starter plan includes 1 sales channel. Upgrade to add more.' },
        }),
      },
    });
    await user.click(await screen.findByRole('button', { name: 'Connect BigCommerce' }));
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Your Starter plan includes 1 sales channel. Upgrade to add more.');
    expect(within(alert).getByRole('link', { name: 'Upgrade your plan' })).toHaveAttribute(
      'href',
      '/settings/account?upgrade=true',
    );
  });

  it('shows why the consent URL could not be made, with the server message, and tries again', async () => {
    const assign = vi.spyOn(browserLocation, 'assign').mockImplementation(() => {});
    let fail = true;
    const { user } = await renderApp('/oauth/initiate/shopify?shop=%22bad%20shop%22&channelId=%22chn_1%22', {
      signedIn: true,
      handlers: {
        'channels.getOauthUrl': () => {
          if (fail)
            throw new ProcedureError('BAD_REQUEST', 'Enter your Shopify shop address, e.g. your-store.myshopify.com.');
          return { url: 'https://shopify.example/consent' };
        },
      },
    });
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Enter your Shopify shop address, e.g. your-store.myshopify.com.');
    expect(screen.getByRole('heading', { name: 'Could not connect Shopify' })).toBeInTheDocument();
    expect(assign).not.toHaveBeenCalled();
    fail = false;
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    await waitFor(() => expect(assign).toHaveBeenCalledWith('https://shopify.example/consent'));
  });

  it('passes any other search keys on and reads a numeric hash as text', async () => {
    vi.spyOn(browserLocation, 'assign').mockImplementation(() => {});
    const inputs: unknown[] = [];
    await renderApp('/oauth/initiate/bigcommerce?hash=12345&channelId=chn_2&context=stores%2F12345', {
      signedIn: true,
      handlers: {
        'channels.getOauthUrl': (input) => {
          inputs.push(input);
          return { url: 'https://bc.example/login' };
        },
      },
    });
    await waitFor(() =>
      expect(inputs).toEqual([
        {
          provider: 'bigcommerce',
          properties: { hash: '12345', shop: '12345', channelId: 'chn_2', context: 'stores/12345' },
        },
      ]),
    );
  });

  it('does not know providers it does not integrate', async () => {
    await renderApp('/oauth/initiate/etsy?shop=x', { signedIn: true });
    expect(await screen.findByText(/You're lost/)).toBeInTheDocument();
  });
});
