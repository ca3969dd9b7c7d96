import { describe, expect, it } from 'vitest';
import { addressLines } from './address.ts';

describe('addressLines', () => {
  it('writes the city line as the country does, and names the country', () => {
    const street = { name: 'Grace Hopper', address1: '790 Elm St' };
    expect(addressLines({ ...street, city: 'Portland', province: 'OR', zip: '97205', country: 'US' })).toEqual([
      'Grace Hopper',
      '790 Elm St',
      'Portland, OR 97205',
      'United States',
    ]);
    expect(addressLines({ ...street, city: 'Berlin', zip: '10115', country: 'de', phone: '+49 30 1234' })).toEqual([
      'Grace Hopper',
      '790 Elm St',
      '10115 Berlin',
      'Germany',
      '+49 30 1234',
    ]);
    expect(addressLines({ ...street, company: 'Engines Ltd', city: 'London', zip: 'N1 9GU', country: 'GB' })).toEqual([
      'Grace Hopper',
      'Engines Ltd',
      '790 Elm St',
      'London',
      'N1 9GU',
      'United Kingdom',
    ]);
  });

  it('never leaves out what the channel gave: an unknown country, or a format without the city, reads plainly', () => {
    expect(
      addressLines({ address1: '1 Main St', city: 'Springfield', province: 'XY', zip: '12345', country: 'Narnia' }),
    ).toEqual(['1 Main St', 'Springfield, XY 12345', 'Narnia']);
    // Japan's Latin format has no city line: the city stays.
    expect(
      addressLines({ address1: '1-1 Chiyoda', city: 'Chiyoda-ku', province: 'Tokyo', zip: '100-0001', country: 'JP' }),
    ).toEqual(['1-1 Chiyoda', 'Chiyoda-ku, Tokyo 100-0001', 'Japan']);
    expect(addressLines({ city: 'Portland' })).toEqual(['Portland']);
    // Hong Kong's format has no postal code: the code "HK" inside "HKTOWN" is not it shown, so the plain line.
    expect(addressLines({ address1: '1 Queen St', city: 'HKTOWN', zip: 'HK', country: 'HK' })).toEqual([
      '1 Queen St',
      'HKTOWN HK',
      'Hong Kong SAR China',
    ]);
  });
});
