import { describe, expect, it } from 'vitest';
import { LocationInput, LocationPatch, LocationsQuery } from './inventory.ts';
import { EMPTY_LOCATION_FORM, formToLocationInput, LocationForm, locationToForm } from './locations.ts';

describe('location shapes', () => {
  it('reads enabled sent as an empty string as false (SPEC §5), and "true"/"false" as booleans', () => {
    expect(LocationPatch.parse({ enabled: '' })).toEqual({ enabled: false });
    expect(LocationPatch.parse({ enabled: 'true' })).toEqual({ enabled: true });
    expect(LocationInput.parse({ name: 'A', store_id: 'S', enabled: '' }).enabled).toBe(false);
    expect(LocationInput.parse({ name: 'A', store_id: 'S' }).enabled).toBe(true);
    expect(LocationPatch.safeParse({ enabled: 'yes' }).success).toBe(false);
  });

  it('reads the SPEC’s list query (order=ASC) and falls back to store id ascending', () => {
    expect(LocationsQuery.parse({ sort: 'store_id', order: 'ASC', search: ' pier ' })).toMatchObject({
      sort: 'store_id',
      order: 'asc',
      search: 'pier',
    });
    expect(LocationsQuery.parse({ sort: 'city', order: 'sideways' })).toMatchObject({ sort: 'store_id', order: 'asc' });
  });

  it('checks the form with field messages and turns it into the API input', () => {
    const empty = LocationForm.safeParse({ ...EMPTY_LOCATION_FORM, priority: '' });
    expect(empty.success).toBe(false);
    const messages = Object.fromEntries(empty.error?.issues.map((i) => [i.path[0], i.message]) ?? []);
    expect(messages).toEqual({ name: '* Required', store_id: '* Required', priority: '* Required' });
    expect(
      LocationForm.safeParse({ ...EMPTY_LOCATION_FORM, name: 'A', store_id: 'S', priority: 1001 }).error?.issues[0]
        ?.message,
    ).toBe('Should be 1000 or less');

    const form = locationToForm({
      name: 'Pier',
      store_id: 'SQ_PIER',
      enabled: false,
      ships: false,
      pickup: true,
      priority: 4,
      address: { city: 'San Francisco', zip: null },
    });
    expect(form).toMatchObject({ city: 'San Francisco', zip: '', address1: '', enabled: false });
    expect(formToLocationInput(LocationForm.parse({ ...form, city: ' Oakland ' }))).toEqual({
      name: 'Pier',
      store_id: 'SQ_PIER',
      enabled: false,
      ships: false,
      pickup: true,
      priority: 4,
      address: {
        address1: null,
        address2: null,
        city: 'Oakland',
        province: null,
        zip: null,
        country: null,
        phone: null,
      },
    });
  });
});
