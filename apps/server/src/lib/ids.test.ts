import { describe, expect, it } from 'vitest';
import { newId } from './ids.ts';

describe('newId', () => {
  it('makes distinct prefixed ids of one shape, across many pools of random bytes', () => {
    const ids = Array.from({ length: 20_000 }, () => newId('ord'));
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^ord_[0-9a-v]{10}[0-9a-hjkmnp-tv-z]{12}$/);
  });
});
