import type { Location, ProviderStore } from '@switchyard/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderApp } from '../../../test/render-app.tsx';
import type { RestHandler } from '../../../test/rest-stub.ts';
import { ProcedureError } from '../../../test/trpc-stub.ts';

const STORES: ProviderStore[] = [
  { id: 'SQ_MAIN', name: 'Main Street', active: true, address: '1 Main St, Portland' },
  { id: 'SQ_PIER', name: 'Pier 39', active: false, address: null },
];

const emptyList: RestHandler = () => ({ body: { results: [], total: 0 } });

function saved(overrides: Partial<Location> = {}): Location {
  return {
    id: 'loc_main',
    name: 'Main Street',
    store_id: 'SQ_MAIN',
    enabled: true,
    ships: true,
    pickup: false,
    priority: 2,
    address: { address1: '1 Main St', city: 'Portland', country: 'US', address2: null, zip: '97201' },
    created_at: new Date('2026-11-01T09:00:00Z'),
    updated_at: new Date('2026-11-02T09:00:00Z'),
    ...overrides,
  };
}

/** Types by pasting: one change per field keeps these form tests quick. */
async function fill(user: Awaited<ReturnType<typeof renderApp>>['user'], input: HTMLElement, text: string) {
  await user.click(input);
  await user.paste(text);
}

const asWire = (l: Location) => ({
  ...l,
  created_at: l.created_at.toISOString(),
  updated_at: l.updated_at.toISOString(),
});

describe('adding a location', { timeout: 60_000 }, () => {
  it('checks the form, takes any store id without Square, and saves', async () => {
    const posted: unknown[] = [];
    const { user, router } = await renderApp('/locations/create', {
      signedIn: true,
      rest: {
        'GET /api/v1/wrappers/square/stores': () => ({ body: { stores: [] } }),
        'GET /api/v1/locations': emptyList,
        'POST /api/v1/locations': (data) => {
          posted.push(data);
          return { status: 201, body: asWire(saved({ name: 'Reno warehouse', store_id: 'WH-1' })) };
        },
      },
    });
    const form = await screen.findByRole('form', { name: 'New location' });
    const storeId = await within(form).findByRole('textbox', { name: /Store id/ });
    expect(
      within(form).getByText(/No Square point of sale is connected, so any store id is accepted/),
    ).toBeInTheDocument();
    expect(within(form).getByRole('link', { name: 'Connect Square POS' })).toHaveAttribute('href', '/channels/square');

    await user.click(within(form).getByRole('button', { name: 'Add location' }));
    expect(within(form).getAllByText('* Required')).toHaveLength(2);
    expect(posted).toEqual([]);

    await fill(user, within(form).getByRole('textbox', { name: /Name/ }), 'Reno warehouse');
    await fill(user, storeId, 'WH-1');
    await fill(user, within(form).getByRole('textbox', { name: 'City' }), 'Reno');
    await user.click(within(form).getByRole('switch', { name: /Serves pickup/ }));
    await user.click(within(form).getByRole('switch', { name: /Ships orders/ }));
    const priority = within(form).getByRole('textbox', { name: /Routing priority/ });
    await user.clear(priority);
    await fill(user, priority, '7');
    await user.click(within(form).getByRole('button', { name: 'Add location' }));

    await waitFor(() => expect(router.state.location.pathname).toBe('/locations'));
    expect(posted).toEqual([
      {
        name: 'Reno warehouse',
        store_id: 'WH-1',
        enabled: true,
        ships: false,
        pickup: true,
        priority: 7,
        address: {
          address1: null,
          address2: null,
          city: 'Reno',
          province: null,
          zip: null,
          country: null,
          phone: null,
        },
        latitude: null,
        longitude: null,
      },
    ]);
    expect(await screen.findByText('Reno warehouse was added.')).toBeInTheDocument();
  });

  it('chooses the store from Square, and shows a refusal at the store field and the plan limit with the upgrade', async () => {
    let answer: { status: number; body: unknown } = {
      status: 409,
      body: {
        code: 409,
        message: 'Another location already has store id “SQ_MAIN”. Each location needs its own store.',
      },
    };
    const posted: unknown[] = [];
    const { user } = await renderApp('/locations/create', {
      signedIn: true,
      rest: {
        'GET /api/v1/wrappers/square/stores': () => ({ body: { stores: STORES } }),
        'POST /api/v1/locations': (data) => {
          posted.push(data);
          return answer;
        },
      },
    });
    const form = await screen.findByRole('form', { name: 'New location' });
    const store = await within(form).findByRole('combobox', { name: /Store/ });
    await fill(user, within(form).getByRole('textbox', { name: /Name/ }), 'Main');
    await user.click(store);
    expect(await screen.findByRole('option', { name: 'Pier 39 (inactive) · SQ_PIER' })).toBeInTheDocument();
    await user.click(screen.getByRole('option', { name: 'Main Street · SQ_MAIN' }));
    await user.click(within(form).getByRole('button', { name: 'Add location' }));

    const alert = await within(form).findByRole('alert');
    expect(alert).toHaveTextContent('Another location already has store id “SQ_MAIN”.');
    expect((posted[0] as { store_id: string }).store_id).toBe('SQ_MAIN');
    // The same message at the field, until another store is chosen.
    expect(store).toHaveAttribute('aria-invalid', 'true');
    await user.click(store);
    await user.click(await screen.findByRole('option', { name: 'Pier 39 (inactive) · SQ_PIER' }));
    expect(store).not.toHaveAttribute('aria-invalid');

    answer = {
      status: 402,
      body: {
        code: 402,
        message: 'Your Starter plan includes 1 location. Upgrade your plan (/settings/account) to add more.',
      },
    };
    await user.click(within(form).getByRole('button', { name: 'Add location' }));
    await waitFor(() =>
      expect(within(form).getByRole('alert')).toHaveTextContent('Your Starter plan includes 1 location.'),
    );
    expect(within(form).getByRole('link', { name: 'Upgrade your plan' })).toHaveAttribute(
      'href',
      '/settings/account?upgrade=true',
    );
  });
});

describe('a location', { timeout: 60_000 }, () => {
  function server(options: { deleteAnswer?: () => { status: number; body: unknown } } = {}) {
    let location = saved();
    const patches: unknown[] = [];
    const deletes: string[] = [];
    return {
      patches,
      deletes,
      handlers: { 'locations.get': () => location },
      rest: {
        'GET /api/v1/wrappers/square/stores': () => ({ body: { stores: STORES } }),
        'GET /api/v1/locations': emptyList,
        'PATCH /api/v1/locations/loc_main': (data: unknown) => {
          patches.push(data);
          location = { ...location, ...(data as Partial<Location>), updated_at: new Date('2026-11-03T09:00:00Z') };
          return { body: asWire(location) };
        },
        'DELETE /api/v1/locations/loc_main': (_data: unknown, call: { url: string }) => {
          deletes.push(call.url);
          return options.deleteAnswer?.() ?? { body: { id: 'loc_main' } };
        },
      } satisfies Record<string, RestHandler>,
    };
  }

  it('shows the saved location in the form and saves a change (disabling sends enabled false, coordinates both or neither)', async () => {
    const s = server();
    const { user } = await renderApp('/locations/loc_main', { signedIn: true, handlers: s.handlers, rest: s.rest });
    const form = await screen.findByRole('form', { name: 'Main Street' });
    expect(within(form).getByRole('textbox', { name: /Name/ })).toHaveValue('Main Street');
    expect(await within(form).findByRole('combobox', { name: /Store/ })).toHaveValue('Main Street · SQ_MAIN');
    expect(within(form).getByRole('textbox', { name: 'City' })).toHaveValue('Portland');
    expect(within(form).getByRole('textbox', { name: 'Postal code' })).toHaveValue('97201');
    expect(within(form).getByRole('textbox', { name: /Routing priority/ })).toHaveValue('2');
    const enabled = within(form).getByRole('switch', { name: /Enabled/ });
    expect(enabled).toBeChecked();

    await user.click(enabled);
    await fill(user, within(form).getByRole('textbox', { name: /Latitude/ }), '45.5202');
    await user.click(within(form).getByRole('button', { name: 'Save location' }));
    expect(within(form).getByText('Enter both the latitude and the longitude, or neither')).toBeInTheDocument();
    expect(s.patches).toEqual([]);
    await fill(user, within(form).getByRole('textbox', { name: /Longitude/ }), '-122.6742');
    await user.click(within(form).getByRole('button', { name: 'Save location' }));
    expect(await screen.findByText('Main Street was saved.')).toBeInTheDocument();
    expect(s.patches).toEqual([
      {
        name: 'Main Street',
        store_id: 'SQ_MAIN',
        enabled: false,
        ships: true,
        pickup: false,
        priority: 2,
        address: {
          address1: '1 Main St',
          address2: null,
          city: 'Portland',
          province: null,
          zip: '97201',
          country: 'US',
          phone: null,
        },
        latitude: 45.5202,
        longitude: -122.6742,
      },
    ]);
    await waitFor(() => expect(screen.getByText('Disabled')).toBeInTheDocument());
    expect(
      within(screen.getByRole('form', { name: 'Main Street' })).getByRole('switch', { name: /Enabled/ }),
    ).not.toBeChecked();
  });

  it('refuses a priority out of range before sending', async () => {
    const s = server();
    const { user } = await renderApp('/locations/loc_main', { signedIn: true, handlers: s.handlers, rest: s.rest });
    const form = await screen.findByRole('form', { name: 'Main Street' });
    const priority = within(form).getByRole('textbox', { name: /Routing priority/ });
    await user.clear(priority);
    await user.click(within(form).getByRole('button', { name: 'Save location' }));
    expect(within(form).getByText('* Required')).toBeInTheDocument();
    expect(s.patches).toEqual([]);
  });

  it('deletes after confirming, and shows the server’s refusal while stock is held', async () => {
    let refuse = true;
    const s = server({
      deleteAnswer: () =>
        refuse
          ? {
              status: 409,
              body: {
                code: 409,
                message:
                  'Main Street still holds stock of 2 variants (4 on hand). Move or count it to zero before deleting the location, or disable the location instead.',
              },
            }
          : { status: 200, body: { id: 'loc_main' } },
    });
    const { user, router } = await renderApp('/locations/loc_main', {
      signedIn: true,
      handlers: s.handlers,
      rest: s.rest,
    });
    await screen.findByRole('form', { name: 'Main Street' });
    await user.click(screen.getByRole('button', { name: 'Delete location' }));
    const dialog = await screen.findByRole('dialog', { name: 'Delete Main Street?' });
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('Main Street still holds stock of 2 variants');
    expect(router.state.location.pathname).toBe('/locations/loc_main');

    refuse = false;
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/locations'));
    expect(await screen.findByText('Main Street was deleted.')).toBeInTheDocument();
    expect(s.deletes).toEqual(['/api/v1/locations/loc_main', '/api/v1/locations/loc_main']);
  });

  it('says a location that is not there is not found', async () => {
    let reads = 0;
    await renderApp('/locations/loc_gone', {
      signedIn: true,
      handlers: {
        'locations.get': () => {
          reads += 1;
          throw new ProcedureError('NOT_FOUND', 'Location not found');
        },
      },
    });
    expect(await screen.findByRole('alert')).toHaveTextContent('Location not found');
    expect(reads).toBe(1);
  });
});
