import { describe, expect, it } from 'vitest';
import { CatalogIntegrationUpdate, CatalogSyncHourInput, CatalogSyncInput } from './catalog.ts';

describe('catalog contracts', () => {
  it('sync_from is an ISO date or date-time', () => {
    for (const ok of ['2026-11-01', '2026-11-01T08:00:00Z', '2026-11-01T08:00:00.123+01:00', '2026-11-01T08:00']) {
      expect(CatalogSyncInput.safeParse({ sync_from: ok }).success, ok).toBe(true);
    }
    for (const bad of ['yesterday', '2026-13-01', '01/11/2026', '2026-11-01Tnoon']) {
      const parsed = CatalogSyncInput.safeParse({ sync_from: bad });
      expect(parsed.success, bad).toBe(false);
      expect(parsed.error?.issues[0]?.message).toContain('ISO date');
    }
    expect(CatalogSyncInput.parse({})).toEqual({});
  });

  it('the daily hour is a whole hour from 0 to 23, or null to switch it off', () => {
    expect(CatalogSyncHourInput.parse({ hour: '7' })).toEqual({ hour: 7 });
    expect(CatalogSyncHourInput.parse({ hour: 0 })).toEqual({ hour: 0 });
    expect(CatalogSyncHourInput.parse({ hour: null })).toEqual({ hour: null });
    for (const bad of [24, -1, 1.5, 'noon']) {
      expect(CatalogSyncHourInput.safeParse({ hour: bad }).success, String(bad)).toBe(false);
    }
  });

  it('an integration update is a partial of the product settings, validated like the settings page', () => {
    expect(CatalogIntegrationUpdate.safeParse({ settings: { product: { publishMissing: true } } }).success).toBe(true);
    const blank = CatalogIntegrationUpdate.safeParse({ settings: { product: { titleTemplate: '  ' } } });
    expect(blank.error?.issues[0]?.message).toBe('* Required');
  });
});
