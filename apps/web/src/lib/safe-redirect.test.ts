import { describe, expect, it } from 'vitest';
import { safeRedirect } from './safe-redirect.ts';

describe('safeRedirect', () => {
  it('keeps paths inside the app', () => {
    expect(safeRedirect('/orders?status=2')).toBe('/orders?status=2');
    expect(safeRedirect('/')).toBe('/');
  });

  it('refuses other hosts and anything that is not a path', () => {
    for (const value of [
      '//evil.com',
      'https://evil.com',
      '/\\evil.com',
      'evil.com',
      '/\t/evil.com',
      '',
      undefined,
      7,
    ]) {
      expect(safeRedirect(value)).toBe('/dashboard');
    }
  });
});
