import { describe, expect, it } from 'vitest';
import { believedQty, reportedBefore } from './inbound.ts';

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

describe('believedQty', () => {
  // Our push of 10 was acknowledged at 10:00:05.500; Shopify stamps its reports in whole seconds.
  const pushed = { pushedQty: 10, pushedAt: new Date('2026-11-23T10:00:05.500Z') };

  it('believes a report taken in after the acknowledgement, though stamped earlier in the same second', () => {
    const row = {
      ...pushed,
      channelQty: 9,
      channelQtyAt: new Date('2026-11-23T10:00:05Z'),
      channelQtySeenAt: new Date('2026-11-23T10:00:05.620Z'),
    };
    expect(believedQty(row)).toBe(9);
  });

  it('believes the acknowledgement of a push that came after the report was taken in', () => {
    const row = {
      ...pushed,
      channelQty: 9,
      channelQtyAt: new Date('2026-11-23T10:00:05Z'),
      channelQtySeenAt: new Date('2026-11-23T10:00:05.200Z'),
    };
    expect(believedQty(row)).toBe(10);
  });
});
