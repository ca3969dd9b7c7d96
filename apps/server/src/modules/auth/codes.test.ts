import { describe, expect, it } from 'vitest';
import { hashCode, newCode } from './codes.ts';

describe('link codes', () => {
  it('are 43 base64url characters, distinct, hashed, and never start with _ or - (the router drops such a segment)', () => {
    const codes = Array.from({ length: 5000 }, () => newCode());
    for (const { code, codeHash } of codes) {
      expect(code).toMatch(/^[A-Za-z0-9][A-Za-z0-9_-]{42}$/);
      expect(codeHash).toBe(hashCode(code));
    }
    expect(new Set(codes.map((c) => c.code)).size).toBe(codes.length);
    // Still random in their first character: about 62 seen out of 62 allowed.
    expect(new Set(codes.map((c) => c.code[0])).size).toBeGreaterThan(55);
  });
});
