import { type ChannelSummary, DEFAULT_FEATURES } from '@switchyard/contracts';
import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderApp } from '../../../test/render-app.tsx';

const CONNECTED: ChannelSummary = {
  id: 'chn_7',
  type: 'shopify',
  name: 'Harbor Goods',
  status: 'connected',
  externalId: 'harbor-goods.myshopify.com',
  statusMessage: null,
  features: DEFAULT_FEATURES,
  connectedAt: new Date('2026-11-22T07:00:00Z'),
  lastSyncAt: null,
  errorCount: 0,
  createdAt: new Date('2026-11-22T06:59:00Z'),
};

describe('coming back from a provider', { timeout: 30_000 }, () => {
  it('hands the whole query to process-oauth once, then shows the connected outcome with the next step', async () => {
    const { rest, router } = await renderApp(
      '/oauth/callback/shopify?code=c0de&hmac=abc&shop=harbor-goods.myshopify.com&state=s-1&timestamp=1763795000',
      {
        signedIn: true,
        handlers: { 'channels.list': () => [CONNECTED] },
        rest: {
          'POST /api/v1/oauth/shopify/process-oauth': () => ({
            body: { channelId: 'chn_7', type: 'shopify', name: 'Harbor Goods', status: 'connected' },
          }),
        },
      },
    );
    await waitFor(() => expect(router.state.location.pathname).toBe('/channels/shopify/connected'));
    expect(rest.calls.map((call) => [call.method, call.url, call.data])).toEqual([
      [
        'POST',
        '/api/v1/oauth/shopify/process-oauth',
        {
          code: 'c0de',
          hmac: 'abc',
          shop: 'harbor-goods.myshopify.com',
          state: 's-1',
          timestamp: '1763795000',
        },
      ],
    ]);
    expect(await screen.findByRole('heading', { name: 'Shopify is connected' })).toBeInTheDocument();
    expect(await screen.findByRole('link', { name: 'Map locations' })).toHaveAttribute(
      'href',
      '/channels/chn_7/channel-settings',
    );
    // No Square yet: connecting it comes first.
    expect(screen.getByRole('link', { name: 'Connect Square POS' })).toHaveAttribute('href', '/channels/square');
  });

  it('shows the server message on the error outcome when the authorization fails', async () => {
    const { router } = await renderApp(
      '/oauth/callback/bigcommerce?code=x&scope=store_v2&context=stores%2Fabc&state=old',
      {
        signedIn: true,
        rest: {
          'POST /api/v1/oauth/bigcommerce/process-oauth': () => ({
            status: 409,
            body: { code: 409, message: 'This authorization was already used. Start connecting again.' },
          }),
        },
      },
    );
    await waitFor(() => expect(router.state.location.pathname).toBe('/channels/bigcommerce/error'));
    expect(router.state.location.search).toEqual({
      message: 'This authorization was already used. Start connecting again.',
    });
    expect(await screen.findByRole('heading', { name: 'BigCommerce was not connected' })).toBeInTheDocument();
    expect(screen.getByRole('alert')).toHaveTextContent('This authorization was already used. Start connecting again.');
    expect(screen.getByRole('link', { name: 'Back to channels' })).toHaveAttribute('href', '/channels');
  });

  it('takes a connected Square on to its settings with a toast', async () => {
    const square = { ...CONNECTED, id: 'chn_sq', type: 'square' as const, name: 'Harbor Stores', externalId: 'M1' };
    const { router } = await renderApp('/oauth/callback/square?code=sq0&state=s-2', {
      signedIn: true,
      handlers: { 'channels.get': () => ({ ...square, settings: SQUARE_SETTINGS }) },
      rest: {
        'POST /api/v1/oauth/square/process-oauth': () => ({
          body: { channelId: 'chn_sq', type: 'square', name: 'Harbor Stores', status: 'connected' },
        }),
      },
    });
    await waitFor(() => expect(router.state.location.pathname).toBe('/channels/chn_sq/channel-settings'));
    expect(await screen.findByText('Harbor Stores is connected. Map its locations next.')).toBeInTheDocument();
    expect(await screen.findByRole('heading', { name: 'Harbor Stores' })).toBeInTheDocument();
  });

  it('takes a refused Square back to the channel list, saying why', async () => {
    const { router } = await renderApp('/oauth/callback/square?error=access_denied&state=s-3', {
      signedIn: true,
      handlers: { 'channels.list': () => [] },
      rest: {
        'POST /api/v1/oauth/square/process-oauth': () => ({
          status: 400,
          body: { code: 400, message: 'Square POS did not grant access (access denied).' },
        }),
      },
    });
    await waitFor(() => expect(router.state.location.pathname).toBe('/channels'));
    expect(
      await screen.findByText('Square POS was not connected: Square POS did not grant access (access denied).'),
    ).toBeInTheDocument();
  });
});

const SQUARE_SETTINGS = {
  shipping: { methodMap: [], defaultShipFromStoreId: null },
  product: {
    priceRule: { kind: 'none', value: 0 },
    titleTemplate: '{title}',
    publishMissing: false,
    syncFields: { title: true, description: true, price: true, images: true, barcode: true },
  },
  channel: {
    locationMap: [{ externalLocationId: 'L1', externalName: 'Main Street', storeId: 'L1', feeds: true }],
    orderImportFrom: null,
  },
  advanced: { compareAndSet: true, reconcileEveryMinutes: 15, safetyStock: 0, autoRetryFailed: true },
};
