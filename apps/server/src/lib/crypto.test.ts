import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decryptJson, encryptJson, parseKey } from './crypto.ts';

describe('credentials at rest', () => {
  const key = randomBytes(32);

  it('round-trips a value and never stores it in the clear', () => {
    const sealed = encryptJson(key, { accessToken: 'shpat_secret' }, 'chn_1');
    expect(sealed).not.toContain('shpat_secret');
    expect(decryptJson(key, sealed, 'chn_1')).toEqual({ accessToken: 'shpat_secret' });
  });

  it('refuses a value moved to another row, a tampered value and the wrong key', () => {
    const sealed = encryptJson(key, { accessToken: 'a' }, 'chn_1');
    expect(() => decryptJson(key, sealed, 'chn_2')).toThrow();
    const parts = sealed.split('.');
    parts[3] = Buffer.from('{"accessToken":"b"}').toString('base64url');
    expect(() => decryptJson(key, parts.join('.'), 'chn_1')).toThrow();
    expect(() => decryptJson(randomBytes(32), sealed, 'chn_1')).toThrow();
  });

  it('reads keys as hex or base64 and rejects short ones', () => {
    const raw = randomBytes(32);
    expect(parseKey(raw.toString('hex'))).toEqual(raw);
    expect(parseKey(raw.toString('base64url'))).toEqual(raw);
    expect(() => parseKey('c2hvcnQ')).toThrow(/32 bytes/);
  });
});
