import { describe, expect, it } from 'vitest';
import { LocationInput, LocationPatch, LocationsQuery } from './inventory.ts';
import {
  EMPTY_LOCATION_FORM,
  formToLocationInput,
  LOCATION_COORDINATE_MESSAGES,
  LocationForm,
  locationToForm,
} from './locations.ts';

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
      latitude: null,
      longitude: null,
    });
  });

  it('takes coordinates as decimal degrees, both or neither', () => {
    const base = { ...EMPTY_LOCATION_FORM, name: 'A', store_id: 'S' };
    const messages = (form: Partial<typeof base>) =>
      Object.fromEntries(
        LocationForm.safeParse({ ...base, ...form }).error?.issues.map((i) => [i.path[0], i.message]) ?? [],
      );
    expect(messages({ latitude: '91', longitude: '0' })).toEqual({ latitude: 'Should be between -90 and 90' });
    expect(messages({ latitude: '45', longitude: '-181' })).toEqual({ longitude: 'Should be between -180 and 180' });
    expect(messages({ latitude: 'north', longitude: '1' })).toEqual({
      latitude: 'Enter decimal degrees, such as 45.52',
    });
    expect(messages({ latitude: '45.52' })).toEqual({ longitude: LOCATION_COORDINATE_MESSAGES.both });
    expect(messages({ longitude: '-122.68' })).toEqual({ latitude: LOCATION_COORDINATE_MESSAGES.both });
    const input = formToLocationInput(LocationForm.parse({ ...base, latitude: ' 45.52 ', longitude: '-122.68' }));
    expect(input).toMatchObject({ latitude: 45.52, longitude: -122.68 });
    expect(locationToForm({ ...input, name: 'A', address: {} })).toMatchObject({
      latitude: '45.52',
      longitude: '-122.68',
    });
  });
});
