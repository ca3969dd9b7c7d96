import { describe, expect, it } from 'vitest';
import { pathForRouteId } from './route-id-path.ts';

describe('pathForRouteId', () => {
  it('drops pathless layout segments from a route id', () => {
    expect(pathForRouteId('/_app/dashboard/')).toBe('/dashboard/');
    expect(pathForRouteId('/_app/settings/_layout/profile')).toBe('/settings/profile');
  });

  it('leaves real addresses alone', () => {
    expect(pathForRouteId('/dashboard/')).toBeUndefined();
    expect(pathForRouteId('/orders/ord_1')).toBeUndefined();
  });
});
