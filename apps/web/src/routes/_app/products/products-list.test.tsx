import type { ProductsListInput } from '@switchyard/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { renderApp } from '../../../test/render-app.tsx';
import { TEST_USER } from '../../../test/session.ts';
import { ProcedureError } from '../../../test/trpc-stub.ts';
import { CATALOGS, channel, LOCATIONS, POS, page, row, SHOP } from './-components/test-fixtures.ts';

const ROWS = [
  row({ id: 'var_1', productId: 'prod_1', sku: 'LIN-S', variantTitle: 'Small', variantCount: 2 }),
  row({ id: 'var_2', productId: 'prod_1', sku: 'LIN-M', variantTitle: 'Medium', variantCount: 2 }),
  row({
    id: 'var_3',
    productId: 'prod_2',
    sku: 'CAP-1',
    title: 'Canvas cap',
    syncStatusCode: 3,
    listing: {
      id: 'lst_3',
      channelId: 'chn_shop',
      externalProductId: '9',
      externalVariantId: '91',
      inventoryItemId: '911',
      syncStatusCode: 3,
      lastError: 'Shopify refused the price',
      lastSyncedAt: null,
    },
  }),
];

function handlers(overrides: Record<string, (input: unknown) => unknown> = {}) {
  const listInputs: ProductsListInput[] = [];
  return {
    listInputs,
    handlers: {
      'channels.list': () => [
        SHOP,
        POS,
        channel({ id: 'chn_new', type: 'shopify', name: 'Pending', status: 'pending' }),
      ],
      'account.catalogs': () => CATALOGS,
      'locations.list': () => ({ results: LOCATIONS, total: LOCATIONS.length }),
      'products.brands': () => ['Harbor', 'Tidewater'],
      'products.list': (input: unknown) => {
        listInputs.push(input as ProductsListInput);
        return page(ROWS, 60);
      },
      ...overrides,
    },
  };
}

const table = () => screen.findByRole('table', { name: 'Products' }, { timeout: 10_000 });
const rowOf = (sku: string) => {
  const cell = within(screen.getByRole('table', { name: 'Products' })).getByText(sku);
  const tr = cell.closest('tr');
  if (!tr) throw new Error(`no row for ${sku}`);
  return tr;
};

describe('the products list', { timeout: 120_000 }, () => {
  it('shows each variant with its stock, price and sync status, and links to the product', async () => {
    const { handlers: h, listInputs } = handlers();
    await renderApp('/products/chn_shop', { signedIn: true, handlers: h });
    await table();
    const cap = rowOf('CAP-1');
    expect(cap).toHaveTextContent('Canvas cap');
    expect(cap).toHaveTextContent('$25.00');
    expect(cap).toHaveTextContent('7');
    expect(within(cap).getByLabelText('Error: Shopify refused the price')).toHaveTextContent('Error');
    expect(within(rowOf('LIN-M')).getByRole('link', { name: 'Linen shirt' })).toHaveAttribute(
      'href',
      '/products/chn_shop/prod_1',
    );
    expect(rowOf('LIN-M')).toHaveTextContent('Medium');
    expect(screen.getByText('60 variants')).toBeInTheDocument();
    // SPEC §2 defaults.
    expect(listInputs[0]).toMatchObject({
      channelId: 'chn_shop',
      currentPage: 1,
      sizePerPage: 25,
      filter: { skuOrAlu: 'sku', qtyOperation: '=', type: 'both' },
    });
    expect(screen.getByRole('link', { name: 'Add product' })).toHaveAttribute('href', '/products/chn_shop/create');
  });

  it('puts every filter in the search params, debouncing the search box, and starts again at page 1', async () => {
    const { handlers: h, listInputs } = handlers();
    const { user, router } = await renderApp('/products/chn_shop?currentPage=2', { signedIn: true, handlers: h });
    await table();
    const filter = () => (router.state.location.search as { filter?: Record<string, unknown> }).filter ?? {};
    const filters = screen.getByRole('region', { name: 'Filters' });

    // The debounce itself is timed in src/lib/use-debounced-text.test.ts.
    await user.type(within(filters).getByRole('searchbox', { name: 'Search' }), 'linen');
    await waitFor(() => expect(filter().search).toBe('linen'), { timeout: 2000 });
    // Page 1 is the default, so it leaves the address.
    expect(router.state.location.search).not.toHaveProperty('currentPage');
    await waitFor(() => expect(listInputs.at(-1)?.filter?.search).toBe('linen'));

    await user.click(within(filters).getByRole('radio', { name: 'Simple' }));
    expect(filter().type).toBe('simple');

    await user.click(within(filters).getByRole('combobox', { name: 'Sync status' }));
    await user.click(await screen.findByRole('option', { name: 'Error' }));
    expect(filter().syncStatusCode).toBe(3);

    await user.click(within(filters).getByRole('combobox', { name: /Location/ }));
    await user.click(await screen.findByRole('option', { name: 'Pier 39 (SQ_PIER)' }));
    expect(filter().location).toBe('SQ_PIER');
  });

  it('puts the quantity, code, brand, sync and sale filters in the search params, and clears them all', async () => {
    const { handlers: h, listInputs } = handlers();
    const start = encodeURIComponent(
      JSON.stringify({ search: 'linen', type: 'simple', syncStatusCode: 3, location: 'SQ_PIER' }),
    );
    const { user, router } = await renderApp(`/products/chn_shop?filter=${start}`, { signedIn: true, handlers: h });
    await table();
    const filter = () => (router.state.location.search as { filter?: Record<string, unknown> }).filter ?? {};
    const filters = screen.getByRole('region', { name: 'Filters' });
    expect(within(filters).getByRole('searchbox', { name: 'Search' })).toHaveValue('linen');
    // With a location chosen, stock is that location's.
    expect(within(await table()).getByRole('columnheader', { name: 'On hand at SQ_PIER' })).toBeInTheDocument();

    await user.click(within(filters).getByRole('combobox', { name: 'Quantity comparison' }));
    await user.click(await screen.findByRole('option', { name: '≥ at least' }));
    await user.type(within(filters).getByRole('textbox', { name: 'Quantity on hand' }), '5');
    await waitFor(() => expect(filter()).toMatchObject({ qtyOperation: '>=', qty: 5 }), { timeout: 2000 });

    await user.click(within(filters).getByRole('radio', { name: 'ALU' }));
    await user.type(within(filters).getByRole('combobox', { name: 'ALUs' }), 'A-1,A-2,');
    expect(filter()).toMatchObject({ skuOrAlu: 'alu', skus: 'A-1,A-2' });

    await user.click(within(filters).getByRole('combobox', { name: 'Brands' }));
    await user.click(await screen.findByRole('option', { name: 'Tidewater' }));
    expect(filter().brands).toBe('Tidewater');

    await user.click(within(filters).getByRole('combobox', { name: 'Sync' }));
    await user.click(await screen.findByRole('option', { name: 'Sync off' }));
    await user.click(within(filters).getByRole('combobox', { name: 'On sale' }));
    await user.click(await screen.findByRole('option', { name: 'On sale' }));
    expect(filter()).toMatchObject({ sync: 'false', sale: 'true' });

    await waitFor(() =>
      expect(listInputs.at(-1)).toEqual({
        channelId: 'chn_shop',
        currentPage: 1,
        sizePerPage: 25,
        filter: {
          search: 'linen',
          type: 'simple',
          syncStatusCode: 3,
          location: 'SQ_PIER',
          qtyOperation: '>=',
          qty: 5,
          skuOrAlu: 'alu',
          skus: 'A-1,A-2',
          brands: 'Tidewater',
          sync: 'false',
          sale: 'true',
        },
      }),
    );

    // Clearing empties every filter, the search box too.
    await user.click(within(filters).getByRole('button', { name: 'Clear filters' }));
    expect(router.state.location.search).toEqual({});
    expect(within(filters).getByRole('searchbox', { name: 'Search' })).toHaveValue('');
  });

  it('pages with Previous and Next and a page size of 25, 50, 100 or 200', async () => {
    const { handlers: h, listInputs } = handlers();
    const { user, router } = await renderApp('/products/chn_shop', { signedIn: true, handlers: h });
    await table();
    const pager = screen.getByRole('navigation', { name: 'Products pages' });
    expect(within(pager).getByRole('button', { name: 'Previous' })).toBeDisabled();
    expect(pager).toHaveTextContent('1–25 of 60');
    await user.click(within(pager).getByRole('button', { name: 'Next' }));
    await waitFor(() => expect(router.state.location.search).toEqual({ currentPage: 2 }));
    await waitFor(() => expect(listInputs.at(-1)?.currentPage).toBe(2));

    await user.click(screen.getByRole('combobox', { name: 'Rows per page' }));
    expect(screen.getAllByRole('option').map((option) => option.textContent)).toEqual(['25', '50', '100', '200']);
    await user.click(screen.getByRole('option', { name: '100' }));
    await waitFor(() => expect(router.state.location.search).toEqual({ sizePerPage: 100 }));
    await waitFor(() => expect(listInputs.at(-1)).toMatchObject({ currentPage: 1, sizePerPage: 100 }));
  });

  it('syncs and deletes the selected products, deleting only after confirming', async () => {
    const bulkInputs: unknown[] = [];
    const { handlers: h, listInputs } = handlers({
      'products.bulk': (input) => {
        bulkInputs.push(input);
        const { action, ids } = input as { action: string; ids: string[] };
        return { action, count: ids.length, ids };
      },
    });
    const { user } = await renderApp('/products/chn_shop', { signedIn: true, handlers: h });
    await table();
    // Rows are variants; selecting one selects its product.
    await user.click(within(rowOf('LIN-S')).getByRole('checkbox'));
    expect(within(rowOf('LIN-M')).getByRole('checkbox')).toBeChecked();
    await user.click(within(rowOf('CAP-1')).getByRole('checkbox'));
    const toolbar = screen.getByRole('toolbar', { name: 'Bulk actions' });
    expect(toolbar).toHaveTextContent('2 products selected');
    expect(screen.getByRole('checkbox', { name: 'Select every product on this page' })).toBeChecked();

    const reads = listInputs.length;
    await user.click(within(toolbar).getByRole('button', { name: 'Sync selected' }));
    expect(await screen.findByText('2 products queued to sync to Harbor Shop.')).toBeInTheDocument();
    expect(bulkInputs).toEqual([{ action: 'sync', ids: ['prod_1', 'prod_2'], channelId: 'chn_shop' }]);
    await waitFor(() => expect(listInputs.length).toBeGreaterThan(reads));

    await user.click(within(toolbar).getByRole('button', { name: 'Delete selected' }));
    let dialog = await screen.findByRole('dialog', { name: 'Delete 2 products?' });
    await waitFor(() => expect(within(dialog).getByRole('button', { name: 'Cancel' })).toHaveFocus());
    await user.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(bulkInputs).toHaveLength(1);

    await user.click(within(toolbar).getByRole('button', { name: 'Delete selected' }));
    dialog = await screen.findByRole('dialog', { name: 'Delete 2 products?' });
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    expect(await screen.findByText('2 products were deleted.')).toBeInTheDocument();
    expect(bulkInputs[1]).toEqual({ action: 'delete', ids: ['prod_1', 'prod_2'] });
    await waitFor(() => expect(screen.queryByRole('toolbar', { name: 'Bulk actions' })).not.toBeInTheDocument());
  });

  it('keeps the chosen columns in the user settings for this channel', async () => {
    const saved: unknown[] = [];
    const { handlers: h } = handlers({
      'users.setColumnsFilter': (input) => {
        saved.push(input);
        return { columnsFilter: [input] };
      },
    });
    const { user } = await renderApp('/products/chn_shop', {
      signedIn: {
        user: {
          ...TEST_USER,
          settings: { columnsFilter: [{ catalog_integration_id: 'chn_shop', columns: ['sku', 'barcode'] }] },
        },
      },
      handlers: h,
    });
    const products = await table();
    const headers = () =>
      within(products)
        .getAllByRole('columnheader')
        .map((th) => th.textContent);
    // Title and SKU always show; the stored choice adds Barcode, and nothing else.
    expect(headers()).toEqual(['', 'Product', 'SKU', 'Barcode']);

    await user.click(screen.getByRole('button', { name: 'Columns' }));
    const group = await screen.findByRole('group', { name: 'Columns to show' });
    expect(within(group).getByRole('checkbox', { name: 'SKU' })).toBeDisabled();
    await user.click(within(group).getByRole('checkbox', { name: 'On hand' }));
    await waitFor(() =>
      expect(saved).toEqual([{ catalog_integration_id: 'chn_shop', columns: ['title', 'sku', 'barcode', 'onHand'] }]),
    );
    await waitFor(() => expect(headers()).toEqual(['', 'Product', 'SKU', 'Barcode', 'On hand']));
  });

  it('switches channel, keeping the filters', async () => {
    const { handlers: h, listInputs } = handlers();
    const { user, router } = await renderApp('/products/chn_shop?filter=%7B%22brands%22%3A%22Harbor%22%7D', {
      signedIn: true,
      handlers: h,
    });
    await table();
    const switcher = screen.getByRole('combobox', { name: 'Channel' });
    expect(switcher).toHaveValue('Harbor Shop · Shopify');
    await user.click(switcher);
    // A channel that never finished connecting has no catalog to show.
    expect(screen.queryByRole('option', { name: /Pending/ })).not.toBeInTheDocument();
    await user.click(screen.getByRole('option', { name: 'Harbor Stores · Square POS' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/products/chn_pos'));
    await waitFor(() =>
      expect(listInputs.at(-1)).toMatchObject({ channelId: 'chn_pos', filter: { brands: 'Harbor' } }),
    );
  });

  it('says when nothing matches, when there are no products, and when the list cannot load', async () => {
    const { handlers: h } = handlers({ 'products.list': () => page([], 0) });
    const first = await renderApp('/products/chn_shop?filter=%7B%22search%22%3A%22zzz%22%7D', {
      signedIn: true,
      handlers: h,
    });
    expect(await screen.findByText('No products match these filters', {}, { timeout: 10_000 })).toBeInTheDocument();
    first.unmount();

    await renderApp('/products/chn_shop', { signedIn: true, handlers: h });
    expect(await screen.findByText('No products yet', {}, { timeout: 10_000 })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Product settings' })).toHaveAttribute(
      'href',
      '/channels/chn_shop/product-settings',
    );
  });

  it('shows a failed load with a retry', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    let fail = true;
    const { handlers: h } = handlers({
      'products.list': () => {
        if (fail) throw new ProcedureError('NOT_FOUND', 'Channel not found');
        return page(ROWS);
      },
    });
    const { user } = await renderApp('/products/chn_shop', {
      signedIn: true,
      handlers: h,
      advanceTimers: (ms) => vi.advanceTimersByTime(ms),
    });
    // Three retries, 1 s doubling (SPEC §9), before the failure shows.
    await vi.advanceTimersByTimeAsync(8_000);
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Could not load the products');
    expect(alert).toHaveTextContent('Channel not found');
    fail = false;
    await user.click(within(alert).getByRole('button', { name: 'Try again' }));
    await table();
  });
});

describe('the Products entry', { timeout: 30_000 }, () => {
  it('goes to the first connected channel', async () => {
    const { handlers: h } = handlers({
      'channels.list': () => [
        channel({ id: 'chn_old', type: 'bigcommerce', name: 'Old', status: 'disconnected' }),
        POS,
      ],
    });
    const { router } = await renderApp('/products', { signedIn: true, handlers: h });
    await waitFor(() => expect(router.state.location.pathname).toBe('/products/chn_pos'));
  });

  it('points to Channels when none is connected', async () => {
    await renderApp('/products', {
      signedIn: true,
      handlers: {
        'channels.list': () => [channel({ id: 'chn_old', type: 'bigcommerce', name: 'Old', status: 'disconnected' })],
      },
    });
    expect(await screen.findByText('No connected channel')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Go to Channels' })).toHaveAttribute('href', '/channels');
    expect(screen.getByRole('link', { name: 'Old' })).toHaveAttribute('href', '/products/chn_old');
  });
});
