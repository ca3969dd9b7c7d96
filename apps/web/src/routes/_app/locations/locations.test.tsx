import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderApp } from '../../../test/render-app.tsx';
import type { RestHandler } from '../../../test/rest-stub.ts';
import type { WireLocation } from './-components/location-api.ts';

function wire(overrides: Partial<WireLocation> & Pick<WireLocation, 'id' | 'name' | 'store_id'>): WireLocation {
  return {
    enabled: true,
    ships: true,
    pickup: false,
    priority: 0,
    address: {},
    created_at: '2026-11-01T09:00:00.000Z',
    updated_at: '2026-11-01T09:00:00.000Z',
    ...overrides,
  };
}

const MAIN = wire({ id: 'loc_main', name: 'Main Street', store_id: 'SQ_MAIN', address: { city: 'Portland' } });
const PIER = wire({
  id: 'loc_pier',
  name: 'Pier 39',
  store_id: 'SQ_PIER',
  pickup: true,
  ships: false,
  priority: 3,
  address: { city: 'San Francisco' },
});
const WAREHOUSE = wire({ id: 'loc_wh', name: 'Warehouse', store_id: 'WH-1', enabled: false, priority: 9 });

/** GET locations over a fixed set, searching and paging as the server does. */
function listServer(all: WireLocation[]): RestHandler {
  return (data) => {
    const query = data as { search?: string; limit?: number; offset?: number };
    const term = query.search?.toLowerCase();
    const matched = term
      ? all.filter((l) => `${l.name} ${l.store_id} ${l.address.city ?? ''}`.toLowerCase().includes(term))
      : all;
    const offset = Number(query.offset ?? 0);
    return { body: { results: matched.slice(offset, offset + Number(query.limit ?? 25)), total: matched.length } };
  };
}

const rowOf = (name: string) => {
  const cell = within(screen.getByRole('table', { name: 'Locations' })).getByText(name);
  const row = cell.closest('tr');
  if (!row) throw new Error(`no row for ${name}`);
  return row;
};

describe('the locations list', { timeout: 60_000 }, () => {
  it('asks for the list by store id ascending and shows each location with its badges', async () => {
    const { rest } = await renderApp('/locations', {
      signedIn: true,
      rest: { 'GET /api/v1/locations': listServer([MAIN, PIER, WAREHOUSE]) },
    });
    await waitFor(() => rowOf('Main Street'));
    expect(rest.calls.find((c) => c.url === '/api/v1/locations')?.data).toEqual({
      sort: 'store_id',
      order: 'ASC',
      limit: 25,
      offset: 0,
    });
    const main = rowOf('Main Street');
    expect(main).toHaveTextContent('SQ_MAIN');
    expect(main).toHaveTextContent('Portland');
    expect(main).toHaveTextContent('Ships');
    expect(main).not.toHaveTextContent('Pickup');
    expect(main).toHaveTextContent('Enabled');
    const pier = rowOf('Pier 39');
    expect(pier).toHaveTextContent('Pickup');
    expect(pier).not.toHaveTextContent('Ships');
    expect(pier).toHaveTextContent('3');
    expect(rowOf('Warehouse')).toHaveTextContent('Disabled');
    expect(within(main).getByRole('link', { name: 'Main Street' })).toHaveAttribute('href', '/locations/loc_main');
    expect(screen.getByRole('link', { name: 'Add location' })).toHaveAttribute('href', '/locations/create');
    expect(
      within(screen.getByRole('navigation', { name: 'Main navigation' })).getByRole('link', { name: 'Locations' }),
    ).toHaveAttribute('aria-current', 'page');
  });

  it('searches once the typing pauses (500 ms), from the first page, and keeps the search in the address', async () => {
    const { rest, user, router } = await renderApp('/locations', {
      signedIn: true,
      rest: { 'GET /api/v1/locations': listServer([MAIN, PIER, WAREHOUSE]) },
    });
    await waitFor(() => rowOf('Warehouse'));
    await user.type(screen.getByRole('searchbox', { name: 'Search locations' }), 'portland');
    await waitFor(() => expect(screen.queryByText('Warehouse')).not.toBeInTheDocument(), { timeout: 5000 });
    expect(rowOf('Main Street')).toBeInTheDocument();
    const searches = rest.calls
      .filter((c) => c.url === '/api/v1/locations')
      .map((c) => (c.data as { search?: string }).search);
    // One read before typing and one for the whole word: no read per keystroke.
    expect(searches).toEqual([undefined, 'portland']);
    expect(router.state.location.search).toEqual({ search: 'portland' });

    await user.clear(screen.getByRole('searchbox', { name: 'Search locations' }));
    await user.type(screen.getByRole('searchbox', { name: 'Search locations' }), 'nowhere');
    expect(await screen.findByText('No location matches “nowhere”.', {}, { timeout: 5000 })).toBeInTheDocument();
  });

  it('pages with Previous and Next', async () => {
    const many = Array.from({ length: 30 }, (_, i) =>
      wire({ id: `loc_${i}`, name: `Store ${String(i).padStart(2, '0')}`, store_id: `S-${i}` }),
    );
    const { rest, user } = await renderApp('/locations', {
      signedIn: true,
      rest: { 'GET /api/v1/locations': listServer(many) },
    });
    await waitFor(() => rowOf('Store 00'));
    const pager = screen.getByRole('navigation', { name: 'Locations pages' });
    expect(pager).toHaveTextContent('1–25 of 30');
    expect(within(pager).getByRole('button', { name: 'Previous' })).toBeDisabled();
    await user.click(within(pager).getByRole('button', { name: 'Next' }));
    await waitFor(() => rowOf('Store 29'));
    expect(screen.getByRole('navigation', { name: 'Locations pages' })).toHaveTextContent('26–30 of 30');
    expect(rest.calls.at(-1)?.data).toMatchObject({ offset: 25 });
    expect(
      within(screen.getByRole('navigation', { name: 'Locations pages' })).getByRole('button', { name: 'Next' }),
    ).toBeDisabled();
  });

  it('opens a location when its row is clicked', async () => {
    const { user, router } = await renderApp('/locations', {
      signedIn: true,
      handlers: {
        'locations.get': () => ({
          ...MAIN,
          created_at: new Date(MAIN.created_at),
          updated_at: new Date(MAIN.updated_at),
        }),
      },
      rest: {
        'GET /api/v1/locations': listServer([MAIN]),
        'GET /api/v1/wrappers/square/stores': () => ({ body: { stores: [] } }),
      },
    });
    await waitFor(() => rowOf('Main Street'));
    await user.click(within(rowOf('Main Street')).getByText('Portland'));
    await waitFor(() => expect(router.state.location.pathname).toBe('/locations/loc_main'));
    expect(await screen.findByRole('heading', { name: 'Main Street', level: 1 })).toBeInTheDocument();
  });

  it('says when there are no locations yet', async () => {
    await renderApp('/locations', { signedIn: true, rest: { 'GET /api/v1/locations': listServer([]) } });
    expect(await screen.findByText(/No locations yet/)).toBeInTheDocument();
    expect(screen.queryByRole('table', { name: 'Locations' })).not.toBeInTheDocument();
  });

  it('shows the server’s message when the list fails, and tries again', async () => {
    let fail = true;
    const { user } = await renderApp('/locations', {
      signedIn: true,
      rest: {
        'GET /api/v1/locations': (data, call) =>
          fail
            ? { status: 400, body: { code: 400, message: 'The search is too long' } }
            : listServer([MAIN])(data, call),
      },
    });
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Could not load your locations');
    expect(alert).toHaveTextContent('The search is too long');
    fail = false;
    await user.click(within(alert).getByRole('button', { name: 'Try again' }));
    await waitFor(() => rowOf('Main Street'));
  });
});
