import { describe, expect, it } from 'vitest';
import { colorModeFromParam, DashboardSearch, retryDelayMs } from './index.ts';

describe('contracts', () => {
  it('reads only letters, digits and spaces from the theme parameter', () => {
    expect(colorModeFromParam('dark')).toBe('dark');
    expect(colorModeFromParam(' Light ')).toBe('light');
    expect(colorModeFromParam('auto')).toBe('auto');
    expect(colorModeFromParam('dark;')).toBeUndefined();
    expect(colorModeFromParam('<b>dark</b>')).toBeUndefined();
    expect(colorModeFromParam('sepia')).toBeUndefined();
    expect(colorModeFromParam(undefined)).toBeUndefined();
  });

  it('backs off failed queries from 1 s, doubling, up to 30 s', () => {
    expect([0, 1, 2, 3, 4, 5, 6].map(retryDelayMs)).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000]);
  });

  it('gives the dashboard its defaults and drops bad values', () => {
    expect(DashboardSearch.parse({})).toEqual({ timeframe: '30d', granularity: 'day' });
    expect(DashboardSearch.parse({ timeframe: '6m', granularity: 'fortnight' })).toEqual({
      timeframe: '6m',
      granularity: 'day',
    });
  });
});
