import {
  type ChannelDetail,
  type ChannelSettingKey,
  DEFAULT_CHANNEL_SETTINGS,
  DEFAULT_FEATURES,
  type ProviderStore,
} from '@switchyard/contracts';
import { act, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { renderApp } from '../../../test/render-app.tsx';
import type { RestHandler } from '../../../test/rest-stub.ts';
import { ProcedureError } from '../../../test/trpc-stub.ts';

const STORES: ProviderStore[] = [
  { id: 'SQ_MAIN', name: 'Main Street', active: true, address: '1 Main St, Portland' },
  { id: 'SQ_PIER', name: 'Pier 39', active: true, address: null },
];

const LOCATIONS: ProviderStore[] = [
  { id: 'gid://shopify/Location/1', name: 'Warehouse', active: true, address: null },
  { id: 'gid://shopify/Location/2', name: 'Harbor Front', active: true, address: null },
];

function shopChannel(): ChannelDetail {
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
    settings: structuredClone({
      ...DEFAULT_CHANNEL_SETTINGS,
      channel: {
        ...DEFAULT_CHANNEL_SETTINGS.channel,
        locationMap: LOCATIONS.map((l) => ({
          externalLocationId: l.id,
          externalName: l.name,
          storeId: null,
          feeds: true,
        })),
      },
    }),
  };
}

/** A server that keeps what is saved: tRPC reads and the REST writes see one channel. */
function channelServer(
  options: { locations?: ProviderStore[]; stores?: ProviderStore[]; settingsError?: RestHandler } = {},
) {
  const channel = shopChannel();
  const saved: { key: string; body: unknown }[] = [];
  const handlers = { 'channels.get': () => structuredClone(channel), 'channels.list': () => [channel] };
  const rest: Record<string, RestHandler> = {
    'GET /api/v1/wrappers/square/stores': () => ({ body: { stores: options.stores ?? STORES } }),
    'GET /api/v1/wrappers/shopify/locations': () => ({ body: { locations: options.locations ?? LOCATIONS } }),
    'PATCH /api/v1/channels/chn_shop': (data) => {
      channel.name = (data as { name: string }).name;
      return { body: channel };
    },
    'PUT /api/v1/channels/chn_shop/actions/features': (data) => {
      Object.assign(channel.features, data);
      return { body: channel };
    },
  };
  for (const key of ['shipping', 'product', 'channel', 'advanced'] as ChannelSettingKey[]) {
    rest[`PUT /api/v1/channels/chn_shop/settings/${key}`] = async (data, call) => {
      if (options.settingsError) {
        const answer = await options.settingsError(data, call);
        if (answer.status && answer.status >= 400) return answer;
      }
      saved.push({ key, body: data });
      Object.assign(channel.settings, { [key]: data });
      return { body: channel };
    };
  }
  return { channel, saved, handlers, rest };
}

async function chooseOption(
  user: ReturnType<typeof import('@testing-library/user-event').default.setup>,
  input: HTMLElement,
  option: string,
) {
  await user.click(input);
  await user.click(await screen.findByRole('option', { name: option }));
}

describe('channel settings', { timeout: 30_000 }, () => {
  it('maps a channel location to a Square store, saves it with the save bar, and keeps it', async () => {
    const server = channelServer();
    const { user, rest } = await renderApp('/channels/chn_shop/channel-settings', {
      signedIn: true,
      handlers: server.handlers,
      rest: server.rest,
    });
    const table = await screen.findByRole('table', { name: 'Location mapping' });
    expect(within(table).getAllByRole('row')).toHaveLength(3);
    expect(screen.queryByRole('region', { name: 'Unsaved changes' })).not.toBeInTheDocument();
    expect(rest.calls.find((call) => call.url === '/api/v1/wrappers/shopify/locations')?.data).toEqual({
      channel_id: 'chn_shop',
    });

    await chooseOption(user, screen.getByRole('combobox', { name: 'Square store for Warehouse' }), 'Main Street');
    await chooseOption(user, screen.getByRole('combobox', { name: 'Square store for Harbor Front' }), 'Pier 39');
    await user.click(screen.getByRole('button', { name: 'Unmap Harbor Front' }));
    expect(screen.getByRole('combobox', { name: 'Square store for Harbor Front' })).toHaveValue('');
    await user.click(screen.getByRole('switch', { name: 'Harbor Front feeds this channel' }));
    const bar = screen.getByRole('region', { name: 'Unsaved changes' });
    await user.click(within(bar).getByRole('button', { name: 'Save' }));

    expect(await screen.findByText('Channel settings saved.')).toBeInTheDocument();
    expect(server.saved).toEqual([
      {
        key: 'channel',
        body: {
          locationMap: [
            {
              externalLocationId: 'gid://shopify/Location/1',
              externalName: 'Warehouse',
              storeId: 'SQ_MAIN',
              feeds: true,
            },
            {
              externalLocationId: 'gid://shopify/Location/2',
              externalName: 'Harbor Front',
              storeId: null,
              feeds: false,
            },
          ],
          orderImportFrom: null,
        },
      },
    ]);
    await waitFor(() => expect(screen.queryByRole('region', { name: 'Unsaved changes' })).not.toBeInTheDocument());
    expect(screen.getByRole('combobox', { name: 'Square store for Warehouse' })).toHaveValue('Main Street');
    expect(screen.getByRole('switch', { name: 'Harbor Front feeds this channel' })).not.toBeChecked();
  });

  it('asks Shopify for its locations again after a failure, up to three times, as every read does', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const server = channelServer();
    let reads = 0;
    server.rest['GET /api/v1/wrappers/shopify/locations'] = () => {
      reads++;
      return reads <= 2
        ? { status: 502, body: { code: 502, message: 'Shopify did not answer.' } }
        : { body: { locations: LOCATIONS } };
    };
    await renderApp('/channels/chn_shop/channel-settings', {
      signedIn: true,
      handlers: server.handlers,
      rest: server.rest,
    });
    // Back-off 1 s, then 2 s: the third read answers.
    await act(() => vi.advanceTimersByTimeAsync(3_500));
    const table = await screen.findByRole('table', { name: 'Location mapping' });
    expect(within(table).getAllByRole('row')).toHaveLength(3);
    expect(reads).toBe(3);
    expect(screen.queryByText('Shopify did not answer.')).not.toBeInTheDocument();
    vi.useRealTimers();
  });

  it('lists a location new at the provider, unmapped, and says the list changed', async () => {
    const server = channelServer({
      locations: [...LOCATIONS, { id: 'gid://shopify/Location/3', name: 'Pop-up', active: false, address: null }],
    });
    await renderApp('/channels/chn_shop/channel-settings', {
      signedIn: true,
      handlers: server.handlers,
      rest: server.rest,
    });
    const table = await screen.findByRole('table', { name: 'Location mapping' });
    expect(within(table).getAllByRole('row')).toHaveLength(4);
    expect(screen.getByRole('switch', { name: 'Pop-up feeds this channel' })).not.toBeChecked();
    expect(screen.getByText(/The locations at Shopify changed since these settings were saved/)).toBeInTheDocument();
    expect(screen.getByRole('region', { name: 'Unsaved changes' })).toBeInTheDocument();
  });

  it('says to connect Square when there are no stores to map to', async () => {
    const server = channelServer({ stores: [] });
    await renderApp('/channels/chn_shop/channel-settings', {
      signedIn: true,
      handlers: server.handlers,
      rest: server.rest,
    });
    expect(await screen.findByText('No Square stores to map to')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Connect Square POS' })).toHaveAttribute('href', '/channels/square');
    // Without Square stores (and no location of ours) the mapping's column is the merchant's locations.
    expect(screen.getByRole('combobox', { name: 'Location for Warehouse' })).toBeDisabled();
  });

  it('imports orders from a chosen day', async () => {
    const server = channelServer();
    const { user } = await renderApp('/channels/chn_shop/channel-settings', {
      signedIn: true,
      handlers: server.handlers,
      rest: server.rest,
    });
    const from = await screen.findByRole('textbox', { name: /Import orders placed on or after/ });
    await user.type(from, '2026-10-15');
    await user.tab();
    await user.click(
      within(screen.getByRole('region', { name: 'Unsaved changes' })).getByRole('button', { name: 'Save' }),
    );
    await waitFor(() => expect(server.saved).toHaveLength(1));
    expect(server.saved[0]?.body).toMatchObject({ orderImportFrom: '2026-10-15' });

    // Whether orders come in at all is the Orders switch; with it off there is no start day to choose.
    await user.click(screen.getByRole('switch', { name: /Orders/ }));
    await waitFor(() =>
      expect(screen.getByRole('textbox', { name: /Import orders placed on or after/ })).toBeDisabled(),
    );
    expect(screen.getByText(/Orders are not imported from Shopify/)).toBeInTheDocument();
  });

  it('renames the channel and switches what syncs, each at once', async () => {
    const server = channelServer();
    const { user, rest } = await renderApp('/channels/chn_shop/channel-settings', {
      signedIn: true,
      handlers: server.handlers,
      rest: server.rest,
    });
    const nameForm = await screen.findByRole('form', { name: 'Channel name' });
    const name = within(nameForm).getByRole('textbox', { name: /Channel name/ });
    await user.clear(name);
    await user.click(within(nameForm).getByRole('button', { name: 'Rename' }));
    expect(within(nameForm).getByText('* Required')).toBeInTheDocument();
    await user.type(name, 'Harbor Online');
    await user.click(within(nameForm).getByRole('button', { name: 'Rename' }));
    expect(await screen.findByText('The channel is now called Harbor Online.')).toBeInTheDocument();
    expect(await screen.findByRole('heading', { name: 'Harbor Online', level: 1 })).toBeInTheDocument();

    await user.click(screen.getByRole('switch', { name: /Orders/ }));
    expect(await screen.findByText('Orders sync is off for Harbor Online.')).toBeInTheDocument();
    const writes = rest.calls.filter((call) => call.method !== 'GET').map((call) => [call.method, call.url, call.data]);
    expect(writes).toEqual([
      ['PATCH', '/api/v1/channels/chn_shop', { name: 'Harbor Online' }],
      ['PUT', '/api/v1/channels/chn_shop/actions/features', { orders: false }],
    ]);
    await waitFor(() => expect(screen.getByRole('switch', { name: /Orders/ })).not.toBeChecked());
  });
});

describe('a channel settings page', { timeout: 30_000 }, () => {
  it('says a channel that is not there is not found, without asking again', async () => {
    let reads = 0;
    await renderApp('/channels/chn_gone', {
      signedIn: true,
      handlers: {
        'channels.get': () => {
          reads += 1;
          throw new ProcedureError('NOT_FOUND', 'Channel not found');
        },
      },
    });
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Could not load this channel');
    expect(alert).toHaveTextContent('Channel not found');
    expect(reads).toBe(1);
  });

  it('opens the channel section at the bare address, and offers to re-authorise a channel in error', async () => {
    const server = channelServer();
    server.channel.status = 'error';
    server.channel.statusMessage = 'Shopify refused our access to Harbor Shop. Re-authorise the channel.';
    const { router } = await renderApp('/channels/chn_shop', {
      signedIn: true,
      handlers: server.handlers,
      rest: server.rest,
    });
    await waitFor(() => expect(router.state.location.pathname).toBe('/channels/chn_shop/channel-settings'));
    expect(await screen.findByText(/Shopify refused our access to Harbor Shop/)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Re-authorise' })).toHaveAttribute(
      'href',
      '/oauth/initiate/shopify?shop=harbor.myshopify.com&channelId=chn_shop',
    );
    expect(screen.getByRole('link', { name: 'Channel' })).toHaveAttribute('aria-current', 'page');
  });
});

describe('shipping settings', { timeout: 30_000 }, () => {
  it('adds and removes method rows, checks them with the contract, and shows the server message', async () => {
    let refuse = true;
    const server = channelServer({
      settingsError: () =>
        refuse
          ? { status: 400, body: { code: 400, message: 'methodMap.0.channelMethod: “Express” is mapped twice' } }
          : {},
    });
    const { user } = await renderApp('/channels/chn_shop/shipping-settings', {
      signedIn: true,
      handlers: server.handlers,
      rest: server.rest,
    });
    expect(await screen.findByText(/No shipping methods are mapped/)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Add shipping method' }));
    await user.click(screen.getByRole('button', { name: 'Add shipping method' }));
    await user.type(screen.getByRole('textbox', { name: 'Method 1' }), 'Express');
    await user.type(screen.getByRole('textbox', { name: 'Carrier 1' }), 'UPS');
    await user.type(screen.getByRole('textbox', { name: 'Service 1' }), 'Next Day Air');
    const bar = screen.getByRole('region', { name: 'Unsaved changes' });
    await user.click(within(bar).getByRole('button', { name: 'Save' }));
    expect(screen.getAllByText('* Required')).toHaveLength(3);
    expect(within(bar).getByText('Some fields need attention.')).toBeInTheDocument();
    expect(server.saved).toEqual([]);

    await user.click(screen.getByRole('button', { name: 'Remove method 2' }));
    expect(screen.queryByText('* Required')).not.toBeInTheDocument();
    await chooseOption(user, screen.getByRole('combobox', { name: 'Default store' }), 'Pier 39');
    await user.click(within(bar).getByRole('button', { name: 'Save' }));
    expect(await within(bar).findByRole('alert')).toHaveTextContent(
      'methodMap.0.channelMethod: “Express” is mapped twice',
    );

    refuse = false;
    await user.click(within(bar).getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Shipping settings saved.')).toBeInTheDocument();
    expect(server.saved).toEqual([
      {
        key: 'shipping',
        body: {
          methodMap: [{ channelMethod: 'Express', carrier: 'UPS', service: 'Next Day Air' }],
          defaultShipFromStoreId: 'SQ_PIER',
        },
      },
    ]);
  });
});

describe('product settings', { timeout: 30_000 }, () => {
  it('keeps an amount price rule in minor units and the chosen sync fields', async () => {
    const server = channelServer();
    const { user } = await renderApp('/channels/chn_shop/product-settings', {
      signedIn: true,
      handlers: server.handlers,
      rest: server.rest,
    });
    await chooseOption(
      user,
      await screen.findByRole('combobox', { name: 'Price on this channel' }),
      'Adjust by a percentage',
    );
    await user.clear(screen.getByRole('textbox', { name: /Percentage/ }));
    await user.type(screen.getByRole('textbox', { name: /Percentage/ }), '-15');
    // Another kind is another unit: it starts from no change.
    await chooseOption(user, screen.getByRole('combobox', { name: 'Price on this channel' }), 'Adjust by an amount');
    expect(screen.getByRole('textbox', { name: /Amount/ })).toHaveValue('0');
    await user.clear(screen.getByRole('textbox', { name: /Amount/ }));
    await user.type(screen.getByRole('textbox', { name: /Amount/ }), '2.5');
    await user.click(screen.getByRole('checkbox', { name: 'Barcode' }));
    await user.click(screen.getByRole('switch', { name: /Publish missing products/ }));
    await user.clear(screen.getByRole('textbox', { name: /Title on this channel/ }));
    await user.type(screen.getByRole('textbox', { name: /Title on this channel/ }), '{{brand} {{title}');
    await user.click(
      within(screen.getByRole('region', { name: 'Unsaved changes' })).getByRole('button', { name: 'Save' }),
    );
    await waitFor(() => expect(server.saved).toHaveLength(1));
    expect(server.saved[0]?.body).toEqual({
      priceRule: { kind: 'amount', value: 250 },
      titleTemplate: '{brand} {title}',
      publishMissing: true,
      syncFields: { title: true, description: true, price: true, images: true, barcode: false },
    });
  });
});

describe('advanced settings', { timeout: 30_000 }, () => {
  it('asks before leaving with unsaved changes, and discards them on request', async () => {
    const server = channelServer();
    const { user, router } = await renderApp('/channels/chn_shop/advanced', {
      signedIn: true,
      handlers: server.handlers,
      rest: server.rest,
    });
    const safety = await screen.findByRole('textbox', { name: /Safety stock/ });
    await user.clear(safety);
    await user.type(safety, '4');
    await user.click(
      within(screen.getByRole('navigation', { name: 'Channel settings pages' })).getByRole('link', {
        name: 'Products',
      }),
    );
    const dialog = await screen.findByRole('dialog', { name: 'Leave without saving?' });
    await user.click(within(dialog).getByRole('button', { name: 'Stay' }));
    expect(router.state.location.pathname).toBe('/channels/chn_shop/advanced');
    expect(screen.getByRole('textbox', { name: /Safety stock/ })).toHaveValue('4');

    await user.click(
      within(screen.getByRole('region', { name: 'Unsaved changes' })).getByRole('button', { name: 'Discard' }),
    );
    expect(screen.getByRole('textbox', { name: /Safety stock/ })).toHaveValue('0');
    await user.type(screen.getByRole('textbox', { name: /Safety stock/ }), '7');
    await user.click(
      within(screen.getByRole('navigation', { name: 'Channel settings pages' })).getByRole('link', {
        name: 'Products',
      }),
    );
    await user.click(
      within(await screen.findByRole('dialog', { name: 'Leave without saving?' })).getByRole('button', {
        name: 'Leave without saving',
      }),
    );
    await waitFor(() => expect(router.state.location.pathname).toBe('/channels/chn_shop/product-settings'));
    expect(server.saved).toEqual([]);
  });

  it('requires a reconcile interval and saves the section', async () => {
    const server = channelServer();
    const { user } = await renderApp('/channels/chn_shop/advanced', {
      signedIn: true,
      handlers: server.handlers,
      rest: server.rest,
    });
    const every = await screen.findByRole('textbox', { name: /Reconcile every/ });
    await user.clear(every);
    const bar = screen.getByRole('region', { name: 'Unsaved changes' });
    await user.click(within(bar).getByRole('button', { name: 'Save' }));
    expect(screen.getByText('* Required')).toBeInTheDocument();
    await user.type(every, '30');
    await user.click(screen.getByRole('switch', { name: /Compare before setting/ }));
    await user.click(within(bar).getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Advanced settings saved.')).toBeInTheDocument();
    expect(server.saved).toEqual([
      {
        key: 'advanced',
        body: { compareAndSet: false, reconcileEveryMinutes: 30, safetyStock: 0, autoRetryFailed: true },
      },
    ]);
  });
});
