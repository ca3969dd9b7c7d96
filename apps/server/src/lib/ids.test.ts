import { afterEach, describe, expect, it, vi } from 'vitest';
import { idTime, newId } from './ids.ts';

afterEach(() => vi.useRealTimers());

describe('newId', () => {
  it('makes distinct prefixed ids of one shape, across many pools of random bytes', () => {
    const ids = Array.from({ length: 20_000 }, () => newId('ord'));
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^ord_[0-9a-v]{10}[0-9a-hjkmnp-tv-z]{12}$/);
  });

  it('says when an id was made, to the millisecond, and nothing for a string it did not make', () => {
    vi.useFakeTimers({ now: new Date('2026-11-27T15:04:05.678Z') });
    const id = newId('snd');
    expect(idTime(id)?.toISOString()).toBe('2026-11-27T15:04:05.678Z');
    expect(idTime(`${id}.1.0`)?.toISOString()).toBe('2026-11-27T15:04:05.678Z');
    expect(idTime('snd_lost.0.0')).toBeNull();
    expect(idTime('')).toBeNull();
  });
});
