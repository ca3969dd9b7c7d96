import { type ChannelDetail, DEFAULT_CHANNEL_SETTINGS, DEFAULT_FEATURES } from '@switchyard/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderApp } from '../../../test/render-app.tsx';
import { ProcedureError } from '../../../test/trpc-stub.ts';

function channel(overrides: Partial<ChannelDetail> = {}): ChannelDetail {
  return {
    id: 'chn_shop',
    type: 'shopify',
    name: 'Harbor Shop',
    status: 'connected',
    externalId: 'harbor.myshopify.com',
    statusMessage: null,
    features: { ...DEFAULT_FEATURES },
    connectedAt: new Date('2026-11-01T10:00:00Z'),
    lastSyncAt: null,
    errorCount: 0,
    createdAt: new Date('2026-11-01T09:00:00Z'),
    settings: structuredClone(DEFAULT_CHANNEL_SETTINGS),
    ...overrides,
  };
}

const base = {
  'GET /api/v1/wrappers/square/stores': () => ({ body: { stores: [] } }),
  'GET /api/v1/wrappers/shopify/locations': () => ({ body: { locations: [] } }),
};

describe('channel sync actions', { timeout: 30_000 }, () => {
  it('imports the whole catalog, pushes stock, and says where to follow each', async () => {
    const pushed: unknown[] = [];
    const { user, rest } = await renderApp('/channels/chn_shop/channel-settings', {
      signedIn: true,
      handlers: {
        'channels.get': () => channel(),
        'channels.list': () => [channel()],
        'channels.pushInventory': (input) => {
          pushed.push(input);
          return { channelId: 'chn_shop', variants: 42 };
        },
      },
      rest: {
        ...base,
        'POST /api/v1/channels/chn_shop/actions/catalog-sync': () => ({ status: 202, body: { sync_id: 7 } }),
      },
    });
    const actions = await screen.findByRole('group', { name: 'Sync actions' }, { timeout: 10_000 });
    await user.click(within(actions).getByRole('button', { name: 'Import catalog' }));
    const dialog = await screen.findByRole('dialog', { name: 'Import the Shopify catalog' });
    expect(within(dialog).getByLabelText('Only products changed since')).toHaveValue('');
    await user.click(within(dialog).getByRole('button', { name: 'Start import' }));
    expect(await screen.findByText('Importing the Shopify catalog')).toBeInTheDocument();
    const call = rest.calls.find((c) => c.url === '/api/v1/channels/chn_shop/actions/catalog-sync');
    expect(call?.data).toEqual({ sync_from: null });

    await user.click(within(actions).getByRole('button', { name: 'Push stock' }));
    expect(await screen.findByText('Pushing stock to Shopify')).toBeInTheDocument();
    expect(screen.getByText('42 variants will be compared and sent where they differ.')).toBeInTheDocument();
    expect(pushed).toEqual([{ id: 'chn_shop' }]);
  });

  it('imports orders now, says when it cannot, and is off while the channel does not import orders', async () => {
    const asked: unknown[] = [];
    let refuse = false;
    const { user, unmount } = await renderApp('/channels/chn_shop/channel-settings', {
      signedIn: true,
      handlers: {
        'channels.get': () => channel(),
        'channels.list': () => [channel()],
        'orders.importNow': (input) => {
          asked.push(input);
          if (refuse) throw new ProcedureError('CONFLICT', 'Harbor Shop is not connected. Re-authorise it first.');
          return { queued: true };
        },
      },
      rest: base,
    });
    const actions = await screen.findByRole('group', { name: 'Sync actions' }, { timeout: 10_000 });
    await user.click(within(actions).getByRole('button', { name: 'Import orders now' }));
    expect(await screen.findByText('Importing Shopify orders')).toBeInTheDocument();
    expect(asked).toEqual([{ channelId: 'chn_shop' }]);
    refuse = true;
    await user.click(within(actions).getByRole('button', { name: 'Import orders now' }));
    expect(await screen.findByText('Could not start the order import')).toBeInTheDocument();
    expect(screen.getByText('Harbor Shop is not connected. Re-authorise it first.')).toBeInTheDocument();
    unmount();

    await renderApp('/channels/chn_shop/channel-settings', {
      signedIn: true,
      handlers: {
        'channels.get': () => channel({ features: { ...DEFAULT_FEATURES, orders: false } }),
        'channels.list': () => [channel()],
      },
      rest: base,
    });
    const off = await screen.findByRole('group', { name: 'Sync actions' }, { timeout: 10_000 });
    expect(within(off).getByRole('button', { name: 'Import orders now' })).toBeDisabled();
  });

  it('offers no sync actions for a channel that is not connected', async () => {
    await renderApp('/channels/chn_shop/channel-settings', {
      signedIn: true,
      handlers: {
        'channels.get': () => channel({ status: 'error', statusMessage: 'Access was revoked.' }),
        'channels.list': () => [channel()],
      },
      rest: base,
    });
    await screen.findByText('Access was revoked.');
    expect(screen.queryByRole('group', { name: 'Sync actions' })).not.toBeInTheDocument();
  });

  it('sets the daily catalog import hour on the channels screen', async () => {
    let hour: number | null = null;
    const { user } = await renderApp('/channels', {
      signedIn: true,
      handlers: { 'channels.list': () => [channel()] },
      rest: {
        'GET /api/frontend/catalogSync': () => ({ body: { hour, timezone: 'Europe/Lisbon', nextRunAt: null } }),
        'POST /api/frontend/catalogSync': (data) => {
          hour = (data as { hour: number | null }).hour;
          return { body: { hour, timezone: 'Europe/Lisbon', nextRunAt: '2026-11-24T05:00:00.000Z' } };
        },
      },
    });
    const select = await screen.findByRole('combobox', { name: 'Import at' }, { timeout: 10_000 });
    expect(screen.getByRole('button', { name: 'Save' })).toBeDisabled();
    await user.click(select);
    await user.click(await screen.findByRole('option', { name: '05:00' }));
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Daily catalog import saved.')).toBeInTheDocument();
    await waitFor(() => expect(hour).toBe(5));
    expect(screen.getByText(/^Next run /)).toBeInTheDocument();
  });
});
