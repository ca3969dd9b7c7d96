// Issue 19: a merchant without a point of sale is offered locations made from the shop's (channel page and
// dashboard), and the products screen says when a channel's stock was left out for want of a mapping.
import {
  type ChannelDetail,
  type ChannelLocationDrafts,
  type ChannelMappingStatus,
  type CreateLocationsFromChannelInput,
  DEFAULT_CHANNEL_SETTINGS,
  DEFAULT_FEATURES,
} from '@switchyard/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderApp } from '../../../test/render-app.tsx';
import { CATALOGS, location, page, SHOP } from '../products/-components/test-fixtures.ts';

const WAIT = { timeout: 10_000 };

const DRAFTS: ChannelLocationDrafts = {
  channelId: 'chn_shop',
  drafts: [
    {
      externalLocationId: 'gid://shopify/Location/1',
      name: 'Downtown Store',
      store_id: 'downtown-store',
      ships: true,
      pickup: true,
      address: { address1: '12 Market St', city: 'Portland', province: 'OR', zip: '97204', country: 'US' },
    },
    {
      externalLocationId: 'gid://shopify/Location/2',
      name: 'Warehouse',
      store_id: 'warehouse',
      ships: true,
      pickup: false,
      address: { address1: '400 Industrial Way', city: 'Portland', country: 'US' },
    },
  ],
};

const unmapped = (overrides: Partial<ChannelMappingStatus> = {}): ChannelMappingStatus => ({
  channelId: 'chn_shop',
  type: 'shopify',
  name: 'Harbor Shop',
  mapped: 0,
  unmapped: 2,
  offer: true,
  ...overrides,
});

function shopDetail(): ChannelDetail {
  return {
    ...SHOP,
    settings: structuredClone({
      ...DEFAULT_CHANNEL_SETTINGS,
      channel: {
        ...DEFAULT_CHANNEL_SETTINGS.channel,
        locationMap: DRAFTS.drafts.map((d) => ({
          externalLocationId: d.externalLocationId,
          externalName: d.name,
          storeId: null,
          feeds: true,
        })),
      },
    }),
    features: { ...DEFAULT_FEATURES },
  };
}

/** A server with no location yet; creating from the channel records what was sent and maps the channel. */
function server() {
  const sent: CreateLocationsFromChannelInput[] = [];
  let status = unmapped();
  return {
    sent,
    handlers: {
      'channels.get': () => shopDetail(),
      'channels.list': () => [SHOP],
      'locations.list': () => ({ results: [], total: 0 }),
      'locations.mappingStatus': () => [status],
      'locations.channelDrafts': () => DRAFTS,
      'locations.createFromChannel': (input: unknown) => {
        const body = input as CreateLocationsFromChannelInput;
        sent.push(body);
        status = unmapped({ mapped: body.locations.length, unmapped: 0, offer: false });
        return {
          locations: body.locations.map((l, i) => location(`loc_${i}`, l.name, l.store_id)),
          syncId: 41,
        };
      },
    },
    rest: {
      'GET /api/v1/wrappers/square/stores': () => ({ body: { stores: [] } }),
      'GET /api/v1/wrappers/shopify/locations': () => ({
        body: { locations: DRAFTS.drafts.map((d) => ({ id: d.externalLocationId, name: d.name, active: true })) },
      }),
    },
  };
}

describe('locations from a channel', { timeout: 30_000 }, () => {
  it('offers on the channel page to create the shop’s locations, with store ids to edit, in one click', async () => {
    const s = server();
    const { user } = await renderApp('/channels/chn_shop/channel-settings', {
      signedIn: true,
      handlers: s.handlers,
      rest: s.rest,
    });
    const offer = await screen.findByRole('region', { name: 'Create your locations from Shopify' }, WAIT);
    const form = await within(offer).findByRole('form', { name: 'Locations to create from Shopify' }, WAIT);
    expect(within(form).getByText('12 Market St, Portland, OR, 97204, US')).toBeInTheDocument();
    expect(within(form).getByRole('switch', { name: 'Downtown Store serves pickup' })).toBeChecked();
    expect(within(form).getByRole('switch', { name: 'Warehouse serves pickup' })).not.toBeChecked();

    // Two locations may not share a store id: the button waits until they differ.
    const storeId = within(form).getByRole('textbox', { name: 'Store id of Warehouse' });
    await user.clear(storeId);
    await user.type(storeId, 'downtown-store');
    expect(within(form).getAllByText('Each location needs its own store id')).toHaveLength(2);
    const create = within(form).getByRole('button', { name: 'Create 2 locations and import stock' });
    expect(create).toBeDisabled();
    await user.clear(storeId);
    await user.type(storeId, 'WH-1');
    await user.click(create);

    await waitFor(() => expect(s.sent).toHaveLength(1));
    expect(s.sent[0]?.channelId).toBe('chn_shop');
    expect(s.sent[0]?.locations.map((l) => [l.name, l.store_id, l.pickup])).toEqual([
      ['Downtown Store', 'downtown-store', true],
      ['Warehouse', 'WH-1', false],
    ]);
    expect(await within(offer).findByText('Locations created', {}, WAIT)).toBeInTheDocument();
    expect(within(offer).getByRole('link', { name: 'Follow the import' })).toHaveAttribute('href', '/syncs/41');
    expect(within(offer).getByRole('link', { name: 'See the products' })).toHaveAttribute('href', '/products/chn_shop');
  });

  it('leaves out a location the merchant unticks', async () => {
    const s = server();
    const { user } = await renderApp('/channels/chn_shop/channel-settings', {
      signedIn: true,
      handlers: s.handlers,
      rest: s.rest,
    });
    const form = await screen.findByRole('form', { name: 'Locations to create from Shopify' }, WAIT);
    await user.click(within(form).getByRole('checkbox', { name: 'Create Warehouse' }));
    await user.click(within(form).getByRole('button', { name: 'Create 1 location and import stock' }));
    await waitFor(() => expect(s.sent).toHaveLength(1));
    expect(s.sent[0]?.locations.map((l) => l.name)).toEqual(['Downtown Store']);
  });

  it('offers the same in the dashboard’s checklist, whose steps follow the channels', async () => {
    const s = server();
    const { user } = await renderApp('/dashboard', { signedIn: { status: 'active' }, handlers: s.handlers });
    const card = await screen.findByRole('region', { name: 'Get started' });
    const list = await within(card).findByRole('list', { name: 'Setup steps' });
    const step = (label: string) =>
      within(list)
        .getAllByRole('listitem')
        .find((li) => li.textContent?.includes(label));
    await waitFor(() => expect(step('Connect a sales channel')).toHaveAttribute('data-done', 'true'));
    expect(step('Map your locations')).toHaveAttribute('data-done', 'false');
    expect(within(list).getByRole('link', { name: 'Map your locations' })).toHaveAttribute('href', '/locations');

    const form = await within(card).findByRole('form', { name: 'Locations to create from Shopify' }, WAIT);
    await user.click(within(form).getByRole('button', { name: 'Create 2 locations and import stock' }));
    await waitFor(() => expect(s.sent).toHaveLength(1));
    await waitFor(() => expect(step('Map your locations')).toHaveAttribute('data-done', 'true'));
  });

  it('says on the products screen that stock at unmapped locations was not imported, with a link to map them', async () => {
    await renderApp('/products/chn_shop', {
      signedIn: true,
      handlers: {
        'channels.list': () => [SHOP],
        'account.catalogs': () => CATALOGS,
        'locations.list': () => ({ results: [], total: 0 }),
        'products.brands': () => [],
        'products.list': () => page([], 0),
        'locations.mappingStatus': () => [unmapped({ unmapped: 3, mapped: 1, offer: false })],
      },
    });
    const note = await screen.findByText(/Stock at 3 Shopify locations was not imported:/, {}, WAIT);
    expect(note).toHaveTextContent('Stock at 3 Shopify locations was not imported: map them');
    expect(within(note).getByRole('link', { name: 'map them' })).toHaveAttribute(
      'href',
      '/channels/chn_shop/channel-settings',
    );
  });
});
