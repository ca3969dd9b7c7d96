import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderApp } from '../../../test/render-app.tsx';
import { CATALOGS, LOCATIONS, POS, page, product, SHOP } from './-components/test-fixtures.ts';

const base = {
  'channels.list': () => [SHOP, POS],
  'account.catalogs': () => CATALOGS,
  'locations.list': () => ({ results: LOCATIONS, total: LOCATIONS.length }),
  'products.brands': () => [],
  'products.list': () => page([]),
};

const section = (name: string) => screen.getByRole('region', { name });

describe('the product view', { timeout: 60_000 }, () => {
  it('explains stock per location and what each channel is told, with listings, movements and syncs', async () => {
    await renderApp('/products/chn_shop/prod_1', {
      signedIn: true,
      handlers: { ...base, 'products.get': () => product() },
    });
    expect(await screen.findByRole('heading', { name: 'Linen shirt' }, { timeout: 10_000 })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Edit' })).toHaveAttribute('href', '/products/chn_shop/edit?id=prod_1');

    const stock = within(section('Stock per location')).getByRole('table');
    const main = within(stock).getByText('Main Street').closest('tr');
    expect(main).toHaveTextContent('Store SQ_MAIN');
    expect(main).toHaveTextContent(/12\s*2\s*10/);

    const available = section('Available per channel');
    expect(available).toHaveTextContent('12 on hand − 2 reserved − 3 buffer − 1 safety stock = 6');
    expect(available).toHaveTextContent('Shop warehouse → Main Street');
    // The quantity and the time apart ("Pushed 6 Nov 28, …" read as a date), the time once when the channel
    // acknowledged within the same minute.
    expect(available).toHaveTextContent(/Pushed 6 on [A-Z][a-z]{2} \d{1,2}, \d{4}, [\d:]+\s[AP]M, acknowledged(?! on)/);
    expect(available).toHaveTextContent(/The channel last reported 6 on [A-Z][a-z]{2} \d{1,2}, \d{4}/);
    expect(within(available).getByText('In sync')).toBeInTheDocument();

    const listings = section('Listings');
    expect(listings).toHaveTextContent('gid://shopify/Product/9');
    expect(listings).toHaveTextContent('Shopify refused the price');
    expect(within(listings).getByText('Error')).toBeInTheDocument();

    expect(section('Recent stock movements')).toHaveTextContent(/-1.*12.*Channel.*order 77.*square/);
    const syncs = section('Sync history');
    expect(within(syncs).getByRole('link', { name: 'Stock push #42' })).toHaveAttribute('href', '/syncs/42');
    expect(syncs).toHaveTextContent('Partly failed');
    expect(syncs).toHaveTextContent('(1 failed)');
  });

  it('adjusts stock once however often the button is pressed, checking the amount first', async () => {
    const adjusts: { requestId: string; delta: number }[] = [];
    let reads = 0;
    const { user } = await renderApp('/products/chn_shop/prod_1', {
      signedIn: true,
      handlers: {
        ...base,
        'products.get': () => {
          reads += 1;
          return product();
        },
        'inventory.adjust': (input) => {
          const change = input as { requestId: string; delta: number; variantId: string; locationId: string };
          adjusts.push(change);
          // The server applies a request id once; a repeat answers applied: false.
          const first = adjusts.filter((a) => a.requestId === change.requestId).length === 1;
          return {
            variantId: change.variantId,
            locationId: change.locationId,
            onHand: 9,
            reserved: 2,
            delta: first ? change.delta : 0,
            applied: first,
          };
        },
      },
    });
    await user.click(await screen.findByRole('button', { name: 'Adjust LIN-S at Main Street' }, { timeout: 10_000 }));
    const dialog = await screen.findByRole('dialog', { name: 'Adjust LIN-S at Main Street' });
    expect(dialog).toHaveTextContent('Now 12 on hand, 2 reserved.');
    const amount = within(dialog).getByRole('textbox', { name: /Units to add or remove/ });
    await user.click(within(dialog).getByRole('button', { name: 'Adjust' }));
    expect(within(dialog).getByText('* Required')).toBeInTheDocument();
    await user.type(amount, '0');
    expect(within(dialog).getByText('Should not be 0')).toBeInTheDocument();
    await user.clear(amount);
    await user.type(amount, '-3');
    expect(dialog).toHaveTextContent('On hand goes from 12 to 9.');
    await user.type(within(dialog).getByRole('textbox', { name: 'Note' }), 'damaged');

    const readsBefore = reads;
    await user.dblClick(within(dialog).getByRole('button', { name: 'Adjust' }));
    expect(await screen.findByText('LIN-S at Main Street: -3 units, 9 on hand.')).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(adjusts.length).toBeGreaterThanOrEqual(1);
    expect(adjusts[0]).toMatchObject({ variantId: 'var_1', locationId: 'loc_main', delta: -3, note: 'damaged' });
    expect(new Set(adjusts.map((a) => a.requestId)).size).toBe(1);
    expect(adjusts[0]?.requestId.length).toBeGreaterThanOrEqual(8);
    // The product is read again, so the new levels show.
    await waitFor(() => expect(reads).toBeGreaterThan(readsBefore));

    // Opening the dialog again is a new change with its own request id.
    await user.click(screen.getByRole('button', { name: 'Adjust LIN-S at Main Street' }));
    const again = await screen.findByRole('dialog', { name: 'Adjust LIN-S at Main Street' });
    await user.type(within(again).getByRole('textbox', { name: /Units to add or remove/ }), '1');
    await user.click(within(again).getByRole('button', { name: 'Adjust' }));
    await waitFor(() => expect(new Set(adjusts.map((a) => a.requestId)).size).toBe(2));
  });

  it('sets a counted quantity', async () => {
    const counts: unknown[] = [];
    const { user } = await renderApp('/products/chn_shop/prod_1', {
      signedIn: true,
      handlers: {
        ...base,
        'products.get': () => product(),
        'inventory.count': (input) => {
          counts.push(input);
          return { variantId: 'var_1', locationId: 'loc_pier', onHand: 5, reserved: 0, delta: 5, applied: true };
        },
      },
    });
    await user.click(await screen.findByRole('button', { name: 'Count LIN-S at Pier 39' }, { timeout: 10_000 }));
    const dialog = await screen.findByRole('dialog', { name: 'Count LIN-S at Pier 39' });
    await user.type(within(dialog).getByRole('textbox', { name: /Counted on hand/ }), '5');
    await user.click(within(dialog).getByRole('button', { name: 'Save count' }));
    expect(await screen.findByText('LIN-S at Pier 39: +5 units, 5 on hand.')).toBeInTheDocument();
    expect(counts).toEqual([expect.objectContaining({ variantId: 'var_1', locationId: 'loc_pier', count: 5 })]);
  });

  it('syncs the product to this channel, and deletes it only after confirming', async () => {
    const synced: unknown[] = [];
    const deleted: unknown[] = [];
    const { user, router } = await renderApp('/products/chn_shop/prod_1', {
      signedIn: true,
      handlers: {
        ...base,
        'products.get': () => product(),
        'products.sync': (input) => {
          synced.push(input);
          return product();
        },
        'products.delete': (input) => {
          deleted.push(input);
          return { id: 'prod_1' };
        },
      },
    });
    await user.click(await screen.findByRole('button', { name: 'Sync' }, { timeout: 10_000 }));
    expect(await screen.findByText('Linen shirt is queued to sync.')).toBeInTheDocument();
    expect(synced).toEqual([{ id: 'prod_1', channelId: 'chn_shop' }]);

    await user.click(screen.getByRole('button', { name: 'Delete' }));
    const dialog = await screen.findByRole('dialog', { name: 'Delete Linen shirt?' });
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(deleted).toEqual([]);
    await user.click(screen.getByRole('button', { name: 'Delete' }));
    await user.click(
      within(await screen.findByRole('dialog', { name: 'Delete Linen shirt?' })).getByRole('button', {
        name: 'Delete',
      }),
    );
    await waitFor(() => expect(router.state.location.pathname).toBe('/products/chn_shop'));
    expect(deleted).toEqual([{ id: 'prod_1' }]);
    expect(await screen.findByText('Linen shirt was deleted.')).toBeInTheDocument();
  });
});
