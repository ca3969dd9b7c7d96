import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addDays, windowOf } from './metrics.dates.ts';
import { type Piece, piecesOf } from './metrics.pieces.ts';

/** How many times each day is counted by the pieces' signed sum. */
function counted(pieces: Piece[]): Map<string, number> {
  const times = new Map<string, number>();
  for (const p of pieces) {
    const last = p.level === 'day' ? p.to : p.level === 'month' ? endOfMonth(p.to) : `${p.to.slice(0, 4)}-12-31`;
    for (let d = p.from; d <= last; d = addDays(d, 1)) times.set(d, (times.get(d) ?? 0) + p.sign);
  }
  return times;
}

function endOfMonth(first: string): string {
  const y = Number(first.slice(0, 4));
  const m = Number(first.slice(5, 7));
  return addDays(m === 12 ? `${y + 1}-01-01` : `${y}-${String(m + 1).padStart(2, '0')}-01`, -1);
}

/** Periods read that start by `today` (those after it hold no sales). */
function periodsRead(pieces: Piece[], today: string): number {
  let n = 0;
  for (const p of pieces) {
    for (let d = p.from; d <= p.to && d <= today; ) {
      n += 1;
      d =
        p.level === 'day'
          ? addDays(d, 1)
          : p.level === 'month'
            ? addDays(endOfMonth(d), 1)
            : `${Number(d.slice(0, 4)) + 1}-01-01`;
    }
  }
  return n;
}

const day = fc.integer({ min: 0, max: 4 * 366 }).map((n) => addDays('2024-01-01', n));

describe('a window as rollup pieces', () => {
  it('counts every day of the window once and no other day, whatever the window', () => {
    fc.assert(
      fc.property(day, fc.integer({ min: 0, max: 800 }), fc.integer({ min: 0, max: 40 }), (from, length, ahead) => {
        const to = addDays(from, length);
        const today = addDays(to, ahead);
        const times = counted(piecesOf(from, to, today));
        for (const [d, n] of times) expect(n, d).toBe(d >= from && d <= to ? 1 : 0);
        for (let d = from; d <= to; d = addDays(d, 1)) expect(times.get(d), d).toBe(1);
      }),
      { numRuns: 150, seed: 17 },
    );
  });

  it('reads a year as a month or so and a year, and 30 days as a few days and a month or two', () => {
    const year = windowOf('1y', '2026-11-25');
    expect(piecesOf(year.from, year.to, '2026-11-25')).toEqual(
      expect.arrayContaining([
        { level: 'month', from: '2025-12-01', to: '2025-12-01', sign: 1 },
        { level: 'year', from: '2026-01-01', to: '2026-01-01', sign: 1 },
      ]),
    );
    expect(periodsRead(piecesOf(year.from, year.to, year.to), year.to)).toBe(2);
    // Whatever today is: at most 7 periods for a year, 6 for six months, 17 for 30 days (instead of 12, 6, 30).
    for (let n = 0; n < 366; n += 1) {
      const today = addDays('2026-01-01', n);
      for (const [timeframe, most] of [
        ['1y', 7],
        ['6m', 6],
        ['30d', 17],
      ] as const) {
        const w = windowOf(timeframe, today);
        expect(periodsRead(piecesOf(w.from, w.to, today), today), `${timeframe} ${today}`).toBeLessThanOrEqual(most);
      }
    }
  });
});
