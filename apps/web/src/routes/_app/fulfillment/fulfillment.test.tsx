import type {
  FulfillmentCounts,
  FulfillmentList,
  FulfillmentOrder,
  FulfillmentQueueItem,
  FulfillmentStores,
  ScanResult,
} from '@switchyard/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderApp } from '../../../test/render-app.tsx';
import { ProcedureError, type RecordedCall } from '../../../test/trpc-stub.ts';

const SLOW = { timeout: 5000 };
const T0 = new Date('2026-11-20T10:00:00.000Z');

const STORES: FulfillmentStores = {
  stores: [
    { id: 'loc_1', storeId: 'S1', name: 'Downtown', enabled: true, ships: true, pickup: true },
    { id: 'loc_2', storeId: 'S2', name: 'Harbour', enabled: true, ships: true, pickup: true },
  ],
  defaultStoreId: 'S1',
};

const item = (n: number, overrides: Partial<FulfillmentQueueItem> = {}): FulfillmentQueueItem => ({
  id: `ord_${n}`,
  number: `#${1000 + n}`,
  externalId: `ext-${n}`,
  channel: { id: 'chn_1', name: 'Main Shopify', type: 'shopify' },
  status: 1,
  fulfillmentType: 'ship',
  customerName: `Customer ${n}`,
  flagged: false,
  units: 2,
  pickedUnits: 0,
  skus: ['TEE-1'],
  packed: false,
  placedAt: new Date(T0.getTime() - n * 60_000),
  createdAt: T0,
  ...overrides,
});

type ListInput = { limit?: number; offset?: number; filter?: { scope?: string; store_id?: string } };

const queueHandlers = {
  'fulfillment.stores': () => STORES,
  'fulfillment.list': (input: unknown): FulfillmentList => {
    const i = input as ListInput;
    const store = STORES.stores.find((s) => s.storeId === (i.filter?.store_id ?? 'S1')) ?? null;
    const scope = i.filter?.scope ?? 'toShip';
    const rows =
      scope === 'pickup'
        ? [item(3, { fulfillmentType: 'curbside_pickup' }), item(4, { fulfillmentType: 'pickup' })]
        : Array.from({ length: 30 }, (_, k) => item(k + 10));
    const offset = i.offset ?? 0;
    const limit = i.limit ?? 25;
    return {
      results: rows.slice(offset, offset + limit),
      total: rows.length,
      totalCapped: false,
      limit,
      offset,
      store,
    };
  },
  'fulfillment.count': (): FulfillmentCounts => ({
    store: STORES.stores[0] ?? null,
    counts: { toShip: 30, pickup: 2, shipped: 1000, cancelled: 1, flagged: 3, all: 1000 },
    capped: ['shipped', 'all'],
  }),
};

const listCalls = (calls: RecordedCall[]) =>
  calls.flatMap((call) =>
    call.paths.flatMap((path, i) => (path === 'fulfillment.list' ? [call.inputs[i] as ListInput] : [])),
  );

describe('fulfillment queue', { timeout: 60_000 }, () => {
  it('opens on the default store with counts per scope; tabs, store and page live in the address', async () => {
    const { user, router, fetch } = await renderApp('/fulfillment', { signedIn: true, handlers: queueHandlers });
    const table = await screen.findByRole('table', { name: 'Fulfillment queue' }, SLOW);
    expect(within(table).getAllByRole('row')).toHaveLength(26);
    const tabs = screen.getByRole('tablist', { name: 'Fulfillment scope' });
    await waitFor(() => expect(within(tabs).getByRole('tab', { name: /^To ship/ })).toHaveTextContent('30'), SLOW);
    expect(within(tabs).getByRole('tab', { name: /^To ship/ })).toHaveAttribute('aria-selected', 'true');
    expect(within(tabs).getByRole('tab', { name: /^Flagged/ })).toHaveTextContent('3');
    expect(within(tabs).getByRole('tab', { name: /^Done/ })).toHaveTextContent('1,000+');
    // "All" has its count as the other tabs do (capped like the done ones).
    expect(within(tabs).getByRole('tab', { name: /^All/ })).toHaveTextContent('1,000+');
    await waitFor(() => expect(screen.getByRole('combobox', { name: 'Store' })).toHaveValue('Downtown (S1)'), SLOW);
    // The picker is as wide as the chosen store's name, and the whole name is in its title.
    expect(screen.getByRole('combobox', { name: 'Store' })).toHaveAttribute('title', 'Downtown (S1)');

    await user.click(screen.getByRole('button', { name: 'Next' }));
    await waitFor(() => expect(router.state.location.search).toEqual({ offset: 25 }), SLOW);

    await user.click(within(tabs).getByRole('tab', { name: /^Pickup/ }));
    await waitFor(() => expect(router.state.location.search).toEqual({ filter: { scope: 'pickup' } }), SLOW);
    expect(listCalls(fetch.calls).at(-1)).toMatchObject({ filter: { scope: 'pickup' }, offset: 0, limit: 25 });
    // Curbside stands out from an in-store pickup.
    await waitFor(() => expect(within(table).getAllByRole('row')).toHaveLength(3), SLOW);
    const [curbside, inStore] = within(table).getAllByRole('row').slice(1) as HTMLElement[];
    expect(curbside).toHaveAttribute('data-curbside', 'true');
    expect(within(curbside as HTMLElement).getByText('Curbside pickup')).toBeInTheDocument();
    expect(inStore).not.toHaveAttribute('data-curbside');
    expect(router.state.location.href).toContain('filter=');
  });
});

const ORDER: FulfillmentOrder = {
  id: 'ord_9',
  number: '#1009',
  channel: { id: 'chn_1', name: 'Main Shopify', type: 'shopify' },
  status: 1,
  fulfillmentType: 'ship',
  customerName: 'Ada Lovelace',
  customerEmail: 'ada@example.com',
  customerPhone: null,
  note: null,
  flagged: false,
  store: STORES.stores[0] ?? null,
  lines: [
    {
      allocationId: 'oal_1',
      lineId: 'oli_1',
      sku: 'TEE-1',
      barcode: '0123456789012',
      title: 'Trail Tee',
      quantity: 2,
      toShip: 2,
      scanned: 0,
      status: 1,
      reason: null,
    },
  ],
  step: 'pick',
  packed: false,
  canReadyForPickup: false,
  canPickUp: false,
};

describe('one order at the store', { timeout: 30_000 }, () => {
  it('focuses the scan field; Enter confirms a unit, a wrong item says so', async () => {
    let scanned = 0;
    const handlers = {
      ...queueHandlers,
      'fulfillment.get': () => ({
        ...ORDER,
        lines: ORDER.lines.map((l) => ({ ...l, scanned })),
      }),
      'fulfillment.scan': (input: unknown): ScanResult => {
        const { code } = input as { code: string };
        if (code !== 'TEE-1' && code !== '0123456789012')
          return { ok: false, message: `Wrong item: ${code} is not on this order.`, allocationId: null, order: ORDER };
        scanned += 1;
        const order = { ...ORDER, lines: ORDER.lines.map((l) => ({ ...l, scanned })) };
        return { ok: true, message: `TEE-1: ${scanned} of 2 picked.`, allocationId: 'oal_1', order };
      },
    };
    const { user } = await renderApp('/fulfillment/ord_9?store_id=S1', { signedIn: true, handlers });
    const field = await screen.findByRole('textbox', { name: /Scan an item/ }, SLOW);
    await waitFor(() => expect(field).toHaveFocus(), SLOW);

    // A keyboard-wedge scanner types the code and presses Enter.
    await user.keyboard('HAT-9{Enter}');
    expect(await screen.findByText('Wrong item: HAT-9 is not on this order.', {}, SLOW)).toBeInTheDocument();
    expect(field).toHaveValue('');
    expect(field).toHaveFocus();

    await user.keyboard('0123456789012{Enter}');
    expect(await screen.findByText('TEE-1: 1 of 2 picked.', {}, SLOW)).toBeInTheDocument();
    await waitFor(() => expect(screen.getByLabelText('1 of 2 picked')).toBeInTheDocument(), SLOW);
    expect(field).toHaveFocus();
  });
});

describe('back from an order to the queue', { timeout: 60_000 }, () => {
  it('returns to the tab and page the order was opened from; the default sort is named for what it does', async () => {
    const handlers = { ...queueHandlers, 'fulfillment.get': () => ({ ...ORDER, id: 'ord_4', number: '#1004' }) };
    const { user, router } = await renderApp('/fulfillment', { signedIn: true, handlers });
    const table = await screen.findByRole('table', { name: 'Fulfillment queue' }, SLOW);
    // Sorting by id is by arrival, which Direction (Descending/Ascending) turns round: not "Newest first". The
    // direction is not called "Order" beside the Orders filter.
    expect(screen.getByRole('combobox', { name: 'Sort by' })).toHaveValue('Arrival');
    expect(screen.getByRole('combobox', { name: 'Direction' })).toHaveValue('Descending');
    const tabs = screen.getByRole('tablist', { name: 'Fulfillment scope' });
    await user.click(within(tabs).getByRole('tab', { name: /^Pickup/ }));
    await waitFor(() => expect(router.state.location.search).toEqual({ filter: { scope: 'pickup' } }), SLOW);
    await waitFor(() => expect(within(table).getAllByRole('row')).toHaveLength(3), SLOW);

    await user.click(within(table).getByRole('link', { name: '#1004' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/fulfillment/ord_4'), SLOW);
    await user.click(await screen.findByRole('link', { name: '← Fulfillment' }, SLOW));
    await waitFor(() => expect(router.state.location.pathname).toBe('/fulfillment'), SLOW);
    expect(router.state.location.search).toEqual({ filter: { scope: 'pickup' } });
  });
});

describe('picking list', { timeout: 30_000 }, () => {
  it('counts its units and orders in words that agree with them', async () => {
    const store = { id: 'loc_1', storeId: 'N1', name: 'North store', enabled: true, ships: true, pickup: true };
    const row = {
      sku: 'TEE-1',
      barcode: null,
      title: 'Tee',
      units: 1,
      orders: [{ id: 'ord_1', number: '#1001', units: 1 }],
    };
    let list = { store, rows: [row], orders: 1, units: 1 };
    const { unmount } = await renderApp('/fulfillment/picking-list?store_id=N1', {
      signedIn: true,
      handlers: { ...queueHandlers, 'fulfillment.pickingList': () => list },
    });
    // "2 units for 1 orders".
    expect(await screen.findByText('1 unit for 1 order', {}, SLOW)).toBeInTheDocument();
    unmount();
    list = { store, rows: [{ ...row, units: 3 }], orders: 2, units: 3 };
    await renderApp('/fulfillment/picking-list?store_id=N1', {
      signedIn: true,
      handlers: { ...queueHandlers, 'fulfillment.pickingList': () => list },
    });
    expect(await screen.findByText('3 units for 2 orders', {}, SLOW)).toBeInTheDocument();
  });
});

describe('picking list of an unknown store', { timeout: 30_000 }, () => {
  it('says so at once instead of retrying a NOT_FOUND', async () => {
    let calls = 0;
    const handlers = {
      ...queueHandlers,
      'fulfillment.pickingList': () => {
        calls += 1;
        throw new ProcedureError('NOT_FOUND', 'No location has store id NOPE.');
      },
    };
    await renderApp('/fulfillment/picking-list?store_id=NOPE', { signedIn: true, handlers });
    // Three retries (1 + 2 + 4 s) kept a bare skeleton on screen for seven seconds.
    expect(await screen.findByText('Could not load the picking list', {}, { timeout: 2500 })).toBeInTheDocument();
    expect(screen.getByText('No location has store id NOPE.')).toBeInTheDocument();
    expect(calls).toBe(1);
  });
});
