import { describe, expect, it } from 'vitest';
import { reportedBefore } from './inbound.ts';

describe('reportedBefore', () => {
  const pushedAt = new Date('2026-11-23T10:00:05.400Z');

  it('takes a whole-second provider stamp as its whole second', () => {
    // 10:00:05 may be any moment of that second, after the push too: not surely before.
    expect(reportedBefore(new Date('2026-11-23T10:00:05Z'), pushedAt)).toBe(false);
    expect(reportedBefore(new Date('2026-11-23T10:00:04Z'), pushedAt)).toBe(true);
  });

  it('compares millisecond stamps exactly', () => {
    expect(reportedBefore(new Date('2026-11-23T10:00:05.399Z'), pushedAt)).toBe(true);
    expect(reportedBefore(new Date('2026-11-23T10:00:05.401Z'), pushedAt)).toBe(false);
  });
});
