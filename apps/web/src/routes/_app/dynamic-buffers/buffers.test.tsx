import type { Buffer, BufferList, BuffersSearch, ChannelSummary, Location } from '@switchyard/contracts';
import { DEFAULT_FEATURES } from '@switchyard/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { renderApp } from '../../../test/render-app.tsx';
import { ProcedureError } from '../../../test/trpc-stub.ts';

type User = Awaited<ReturnType<typeof renderApp>>['user'];
type Fetch = Awaited<ReturnType<typeof renderApp>>['fetch'];

function channel(id: string, name: string, status: ChannelSummary['status'] = 'connected'): ChannelSummary {
  return {
    id,
    type: 'shopify',
    name,
    status,
    externalId: null,
    statusMessage: null,
    features: DEFAULT_FEATURES,
    connectedAt: new Date('2026-11-01T10:00:00Z'),
    lastSyncAt: null,
    errorCount: 0,
    createdAt: new Date('2026-11-01T09:00:00Z'),
  };
}

function location(store_id: string, name: string, enabled = true): Location {
  return {
    id: `loc_${store_id}`,
    name,
    store_id,
    enabled,
    ships: true,
    pickup: false,
    priority: 0,
    address: {},
    created_at: new Date('2026-11-01T09:00:00Z'),
    updated_at: new Date('2026-11-01T09:00:00Z'),
  };
}

const CHANNELS = [
  channel('chn_north', 'North Shop'),
  channel('chn_south', 'South Wholesale'),
  channel('chn_new', 'Shopify 3', 'pending'),
];
const LOCATIONS = [location('MAIN-1', 'Main Street'), location('PIER-2', 'Pier 39', false)];

const ALL: Buffer[] = Array.from({ length: 30 }, (_, i) => ({
  id: i + 1,
  sku: i === 0 ? 'TEE-RED' : `SKU-${String(i).padStart(2, '0')}`,
  location_external_id: i % 2 === 0 ? 'MAIN-1' : 'PIER-2',
  channel_id: i % 3 === 0 ? 'chn_south' : 'chn_north',
  qty: i,
}));

/** A small buffers.list over ALL: the filters, sort and paging the server applies. */
function listOf(rows: Buffer[]) {
  return (input: unknown): BufferList => {
    const s = input as BuffersSearch;
    let out = rows.filter(
      (b) =>
        (!s.sku || b.sku === s.sku) &&
        (!s.channel_id || b.channel_id === s.channel_id) &&
        (!s.search || `${b.sku} ${b.location_external_id}`.toLowerCase().includes(s.search.toLowerCase())),
    );
    const key = s.sort_by;
    out = [...out].sort((a, b) => (a[key] < b[key] ? -1 : a[key] > b[key] ? 1 : a.id - b.id));
    if (s.sort === 'desc') out.reverse();
    return { results: out.slice(s.offset, s.offset + s.limit), total: out.length };
  };
}

function handlers(overrides: Record<string, (input: unknown) => unknown> = {}) {
  return {
    'buffers.list': listOf(ALL),
    'channels.list': () => CHANNELS,
    'locations.list': () => ({ results: LOCATIONS, total: LOCATIONS.length }),
    'buffers.skus': (input: unknown) => {
      const { search } = input as { search: string };
      return [
        { sku: 'TEE-RED', title: 'Classic tee – Red' },
        { sku: 'TEE-BLUE', title: 'Classic tee – Blue' },
      ].filter((x) => x.sku.toLowerCase().includes(search.toLowerCase()));
    },
    ...overrides,
  };
}

function calls(fetch: Fetch, path: string): unknown[] {
  return fetch.calls.flatMap((call) => call.paths.flatMap((p, i) => (p === path ? [call.inputs[i]] : [])));
}

async function choose(user: User, input: HTMLElement, option: string) {
  await user.click(input);
  await user.click(await screen.findByRole('option', { name: option }));
}

const DEFAULTS = { limit: 25, offset: 0, sort: 'desc', sort_by: 'id' };

describe('the dynamic buffers list', { timeout: 30_000 }, () => {
  it('shows buffers newest first with channel and location names, the total, and a nav entry', async () => {
    const { fetch } = await renderApp('/dynamic-buffers', { signedIn: true, handlers: handlers() });
    const table = await screen.findByRole('table', { name: 'Buffers' });
    const rows = within(table).getAllByRole('row');
    expect(rows).toHaveLength(26);
    expect(rows[1]).toHaveTextContent('SKU-29');
    // Names come from the location and channel lists.
    await waitFor(() => expect(rows[1]).toHaveTextContent('Pier 39 (PIER-2)'));
    expect(rows[1]).toHaveTextContent('North Shop');
    expect(rows[1]).toHaveTextContent('29');
    expect(rows[3]).toHaveTextContent('SKU-27');
    expect(rows[3]).toHaveTextContent('South Wholesale');
    expect(screen.getByText('30 buffers')).toBeInTheDocument();
    expect(within(rows[1] as HTMLElement).getByRole('link', { name: 'SKU-29' })).toHaveAttribute(
      'href',
      '/dynamic-buffers/30',
    );
    expect(calls(fetch, 'buffers.list')).toEqual([DEFAULTS]);
    const nav = screen.getByRole('navigation', { name: 'Main navigation' });
    expect(within(nav).getByRole('link', { name: 'Dynamic buffers' })).toHaveAttribute('href', '/dynamic-buffers');
  });

  it('sorts by a column header, turns it round on a second click, and keeps the sort in the address', async () => {
    const { user, fetch, router } = await renderApp('/dynamic-buffers', { signedIn: true, handlers: handlers() });
    const table = await screen.findByRole('table', { name: 'Buffers' });
    const qty = within(table).getByRole('columnheader', { name: /Qty/ });
    expect(qty).toHaveAttribute('aria-sort', 'none');

    await user.click(within(qty).getByRole('button'));
    await waitFor(() => expect(within(table).getAllByRole('row')[1]).toHaveTextContent('TEE-RED'));
    expect(qty).toHaveAttribute('aria-sort', 'ascending');
    expect(router.state.location.search).toEqual({ sort: 'asc', sort_by: 'qty' });

    await user.click(within(qty).getByRole('button'));
    await waitFor(() => expect(within(table).getAllByRole('row')[1]).toHaveTextContent('SKU-29'));
    expect(qty).toHaveAttribute('aria-sort', 'descending');

    await user.click(within(within(table).getByRole('columnheader', { name: /SKU/ })).getByRole('button'));
    await waitFor(() => expect(within(table).getAllByRole('row')[1]).toHaveTextContent('SKU-01'));
    expect(calls(fetch, 'buffers.list')).toEqual([
      DEFAULTS,
      { ...DEFAULTS, sort: 'asc', sort_by: 'qty' },
      { ...DEFAULTS, sort: 'desc', sort_by: 'qty' },
      { ...DEFAULTS, sort: 'asc', sort_by: 'sku' },
    ]);
  });

  it('filters by channel, searches after a 500 ms pause, changes the page size and pages', async () => {
    const { user, fetch, router } = await renderApp('/dynamic-buffers', { signedIn: true, handlers: handlers() });
    const table = await screen.findByRole('table', { name: 'Buffers' });

    await user.click(screen.getByRole('button', { name: 'Next' }));
    await waitFor(() => expect(screen.getByText('26–30 of 30')).toBeInTheDocument());
    expect(screen.getByRole('button', { name: 'Next' })).toBeDisabled();

    await choose(user, screen.getByRole('combobox', { name: 'Rows per page' }), '50');
    await waitFor(() => expect(within(table).getAllByRole('row')).toHaveLength(31));
    expect(screen.queryByRole('navigation', { name: 'Buffers pages' })).not.toBeInTheDocument();

    await choose(user, screen.getByRole('combobox', { name: 'Channel' }), 'South Wholesale');
    await waitFor(() => expect(screen.getByText('10 buffers')).toBeInTheDocument());

    await user.type(screen.getByLabelText('Search buffers'), 'main');
    await waitFor(() => expect(screen.getByText('5 buffers')).toBeInTheDocument());
    expect(router.state.location.search).toEqual({ limit: 50, channel_id: 'chn_south', search: 'main' });
    // One call for the whole word (typed faster than the pause); every filter starts at the first page.
    expect(calls(fetch, 'buffers.list')).toEqual([
      DEFAULTS,
      { ...DEFAULTS, offset: 25 },
      { ...DEFAULTS, limit: 50 },
      { ...DEFAULTS, limit: 50, channel_id: 'chn_south' },
      { ...DEFAULTS, limit: 50, channel_id: 'chn_south', search: 'main' },
    ]);

    await user.click(screen.getByRole('combobox', { name: 'Channel' }));
    await user.clear(screen.getByLabelText('Search buffers'));
    await user.type(screen.getByLabelText('Search buffers'), 'nothing-like-this');
    expect(await screen.findByText(/No buffer matches these filters/)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Clear the filters' }));
    await waitFor(() => expect(screen.getByText('30 buffers')).toBeInTheDocument());
    expect(screen.getByLabelText('Search buffers')).toHaveValue('');
  });

  it('reads its state from the address, falls back on bad values, and drops an exact SKU filter', async () => {
    const { user, fetch } = await renderApp('/dynamic-buffers?sku=TEE-RED&sort_by=price&sort=up&limit=500&offset=-1', {
      signedIn: true,
      handlers: handlers(),
    });
    const table = await screen.findByRole('table', { name: 'Buffers' });
    expect(within(table).getAllByRole('row')).toHaveLength(2);
    expect(calls(fetch, 'buffers.list')).toEqual([{ ...DEFAULTS, sku: 'TEE-RED' }]);
    await user.click(screen.getByRole('button', { name: 'Stop showing only SKU TEE-RED' }));
    await waitFor(() => expect(screen.getByText('30 buffers')).toBeInTheDocument());
  });

  it('says when there are no buffers yet, and offers a retry when the list fails', async () => {
    const empty = await renderApp('/dynamic-buffers', {
      signedIn: true,
      handlers: handlers({ 'buffers.list': () => ({ results: [], total: 0 }) }),
    });
    expect(await screen.findByText(/No buffers yet/)).toBeInTheDocument();
    empty.unmount();
    window.localStorage.clear();

    vi.useFakeTimers({ shouldAdvanceTime: true });
    let fail = true;
    const rendering = renderApp('/dynamic-buffers', {
      signedIn: true,
      advanceTimers: (ms) => vi.advanceTimersByTime(ms),
      handlers: handlers({
        'buffers.list': (input) => {
          if (fail) throw new ProcedureError('BAD_REQUEST', 'The buffers are resting.');
          return listOf(ALL)(input);
        },
      }),
    });
    // The page renders at once, loading; three retries, 1 s doubling, before the failure shows.
    const { user } = await rendering;
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    await vi.advanceTimersByTimeAsync(8_000);
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Could not load your buffers');
    expect(alert).toHaveTextContent('The buffers are resting.');
    fail = false;
    await user.click(within(alert).getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('table', { name: 'Buffers' })).toBeInTheDocument();
  });
});

describe('the buffer forms', { timeout: 30_000 }, () => {
  it('checks the form, creates a buffer with the chosen channel and location, and goes back to the list', async () => {
    const created: unknown[] = [];
    const { user, router, fetch } = await renderApp('/dynamic-buffers/create', {
      signedIn: true,
      handlers: handlers({
        'buffers.create': (input) => {
          created.push(input);
          return { id: 31, ...(input as object) };
        },
      }),
    });
    const form = await screen.findByRole('form', { name: 'New buffer' });
    await user.click(within(form).getByRole('button', { name: 'Add buffer' }));
    expect(within(form).getByText('Choose a channel')).toBeInTheDocument();
    expect(within(form).getByText('Choose a location')).toBeInTheDocument();
    expect(within(form).getAllByText('* Required')).toHaveLength(2);
    expect(created).toEqual([]);

    // Only live channels are offered; disabled locations say so.
    await user.click(within(form).getByRole('combobox', { name: /Channel/ }));
    expect(await screen.findByRole('option', { name: 'North Shop' })).toBeInTheDocument();
    expect(screen.queryByRole('option', { name: /Shopify 3/ })).not.toBeInTheDocument();
    await user.click(screen.getByRole('option', { name: 'South Wholesale' }));
    await choose(user, within(form).getByRole('combobox', { name: /Location/ }), 'Pier 39 (PIER-2) – disabled');
    // The SKU field suggests catalog SKUs (with their product) once typing pauses.
    await user.type(within(form).getByRole('combobox', { name: /SKU/ }), 'red');
    const suggestion = await screen.findByRole('option', { name: /TEE-RED/ }, { timeout: 5000 });
    expect(suggestion).toHaveTextContent('Classic tee – Red');
    expect(screen.queryByRole('option', { name: /TEE-BLUE/ })).not.toBeInTheDocument();
    await user.click(suggestion);
    expect(within(form).getByRole('combobox', { name: /SKU/ })).toHaveValue('TEE-RED');
    expect(calls(fetch, 'buffers.skus')).toEqual([{ search: 'red', limit: 10 }]);
    await user.type(within(form).getByLabelText(/Quantity held back/), '4');
    await user.click(within(form).getByRole('button', { name: 'Add buffer' }));

    await waitFor(() => expect(router.state.location.pathname).toBe('/dynamic-buffers'));
    expect(created).toEqual([{ channel_id: 'chn_south', location_external_id: 'PIER-2', sku: 'TEE-RED', qty: 4 }]);
    expect(await screen.findByText('Buffer added for TEE-RED.')).toBeInTheDocument();
  });

  it('shows the server’s message when a save is refused and stays on the form', async () => {
    const { user, router } = await renderApp('/dynamic-buffers/create', {
      signedIn: true,
      handlers: handlers({
        'buffers.create': () => {
          throw new ProcedureError('BAD_REQUEST', 'No product in your catalog has the SKU “NOPE”.');
        },
      }),
    });
    const form = await screen.findByRole('form', { name: 'New buffer' });
    await choose(user, within(form).getByRole('combobox', { name: /Channel/ }), 'North Shop');
    await choose(user, within(form).getByRole('combobox', { name: /Location/ }), 'Main Street (MAIN-1)');
    await user.type(within(form).getByRole('combobox', { name: /SKU/ }), 'NOPE');
    await user.type(within(form).getByLabelText(/Quantity held back/), '0');
    await user.click(within(form).getByRole('button', { name: 'Add buffer' }));
    const alert = await within(form).findByRole('alert');
    expect(alert).toHaveTextContent('Could not save the buffer');
    expect(alert).toHaveTextContent('No product in your catalog has the SKU “NOPE”.');
    expect(router.state.location.pathname).toBe('/dynamic-buffers/create');
  });

  it('edits a buffer, and deletes it after confirming', async () => {
    let stored: Buffer = { id: 7, sku: 'TEE-RED', location_external_id: 'MAIN-1', channel_id: 'chn_north', qty: 2 };
    const updates: unknown[] = [];
    const deletes: unknown[] = [];
    const { user, router } = await renderApp('/dynamic-buffers/7', {
      signedIn: true,
      handlers: handlers({
        'buffers.get': () => stored,
        'buffers.update': (input) => {
          updates.push(input);
          stored = { ...stored, ...(input as Partial<Buffer>) };
          return stored;
        },
        'buffers.delete': (input) => {
          deletes.push(input);
          return { id: 7 };
        },
      }),
    });
    const form = await screen.findByRole('form', { name: 'Buffer for TEE-RED' });
    await waitFor(() => expect(within(form).getByRole('combobox', { name: /Channel/ })).toHaveValue('North Shop'));
    await waitFor(() =>
      expect(within(form).getByRole('combobox', { name: /Location/ })).toHaveValue('Main Street (MAIN-1)'),
    );
    const qty = within(form).getByLabelText(/Quantity held back/);
    expect(qty).toHaveValue('2');
    await user.clear(qty);
    await user.type(qty, '5');
    await user.click(within(form).getByRole('button', { name: 'Save buffer' }));
    expect(await screen.findByText('The buffer was saved.')).toBeInTheDocument();
    expect(updates).toEqual([
      { id: 7, channel_id: 'chn_north', location_external_id: 'MAIN-1', sku: 'TEE-RED', qty: 5 },
    ]);
    expect(screen.getByText('5 held back at MAIN-1')).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Delete buffer' }));
    const dialog = await screen.findByRole('dialog', { name: 'Delete the buffer for TEE-RED?' });
    expect(dialog).toHaveTextContent('The 5 units held back at MAIN-1 will be offered to the channel again');
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(deletes).toEqual([]);

    await user.click(screen.getByRole('button', { name: 'Delete buffer' }));
    await user.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/dynamic-buffers'));
    expect(deletes).toEqual([{ id: 7 }]);
  });

  it('says a buffer that is not there was not found, without asking again', async () => {
    let asked = 0;
    await renderApp('/dynamic-buffers/99', {
      signedIn: true,
      handlers: handlers({
        'buffers.get': () => {
          asked += 1;
          throw new ProcedureError('NOT_FOUND', 'Buffer not found');
        },
      }),
    });
    expect(await screen.findByText('Buffer not found')).toBeInTheDocument();
    expect(asked).toBe(1);
    await renderApp('/dynamic-buffers/abc', { signedIn: true, handlers: handlers() });
    expect((await screen.findAllByText('Buffer not found')).length).toBeGreaterThan(0);
  });
});
