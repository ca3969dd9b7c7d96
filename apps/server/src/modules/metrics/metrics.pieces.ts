// A window of days as the fewest rollup rows: the top SKUs of [from, to] are read from the daily, monthly and yearly
// SKU rollups, each part added or taken away. The last 12 months in November are December's month and this year
// (2 periods, not 12); the last 30 days from October 27th are 5 days and November (6, not 30). Days after today
// hold no sales (unless a channel's clock runs ahead), so taking them away costs nothing and keeps the sum exact.
import { addDays } from './metrics.dates.ts';

export type Level = 'day' | 'month' | 'year';

/** Rows of `level` whose period starts in [from, to] (YYYY-MM-DD), added (1) or taken away (−1). */
export interface Piece {
  level: Level;
  from: string;
  to: string;
  sign: 1 | -1;
}

const LOWER: Record<Level, Level | null> = { year: 'month', month: 'day', day: null };

function startOf(day: string, level: Level): string {
  if (level === 'year') return `${day.slice(0, 4)}-01-01`;
  if (level === 'month') return `${day.slice(0, 7)}-01`;
  return day;
}

function nextStart(start: string, level: Level): string {
  if (level === 'day') return addDays(start, 1);
  const y = Number(start.slice(0, 4));
  if (level === 'year') return `${y + 1}-01-01`;
  const m = Number(start.slice(5, 7));
  return m === 12 ? `${y + 1}-01-01` : `${y}-${String(m + 1).padStart(2, '0')}-01`;
}

const endOf = (day: string, level: Level) => addDays(nextStart(startOf(day, level), level), -1);

interface Plan {
  pieces: Piece[];
  /** Periods read that can hold sales (those starting after today cost nothing). */
  cost: number;
}

const EMPTY: Plan = { pieces: [], cost: 0 };
const join = (...plans: Plan[]): Plan => ({
  pieces: plans.flatMap((p) => p.pieces),
  cost: plans.reduce((s, p) => s + p.cost, 0),
});
const negate = (p: Plan): Plan => ({
  pieces: p.pieces.map((x) => ({ ...x, sign: (x.sign === 1 ? -1 : 1) as 1 | -1 })),
  cost: p.cost,
});
const cheaper = (a: Plan, b: Plan) => (b.cost < a.cost ? b : a);

/** A period start's number: days since 1970, months since year 0, or the year. */
function ordinal(start: string, level: Level): number {
  const y = Number(start.slice(0, 4));
  if (level === 'year') return y;
  const m = Number(start.slice(5, 7));
  if (level === 'month') return y * 12 + m;
  return Date.UTC(y, m - 1, Number(start.slice(8, 10))) / 86_400_000;
}

/** Periods of `level` starting in [from, to] (period starts), as one piece. */
function whole(from: string, to: string, level: Level, today: string): Plan {
  const last = to < today ? to : startOf(today, level);
  const cost = Math.max(0, ordinal(last, level) - ordinal(from, level) + 1);
  return { pieces: [{ level, from, to, sign: 1 }], cost };
}

function cover(from: string, to: string, level: Level, today: string): Plan {
  if (from > to) return EMPTY;
  const lower = LOWER[level];
  if (!lower) return whole(from, to, 'day', today);
  const first = startOf(from, level);
  const last = startOf(to, level);
  // One period's part: read below, or the period less what lies outside the part.
  const part = (a: string, b: string) => {
    const start = startOf(a, level);
    const below = cover(a, b, lower, today);
    if (a === start && b === endOf(a, level)) return whole(start, start, level, today);
    const around = join(
      whole(start, start, level, today),
      negate(cover(start, addDays(a, -1), lower, today)),
      negate(cover(addDays(b, 1), endOf(a, level), lower, today)),
    );
    return cheaper(below, around);
  };
  if (first === last) return part(from, to);
  const middleFrom = nextStart(first, level);
  const middle = middleFrom < last ? whole(middleFrom, startOf(addDays(last, -1), level), level, today) : EMPTY;
  return join(part(from, endOf(from, level)), middle, part(last, to));
}

/** Adjacent pieces of one level and sign become one range. */
function merge(pieces: Piece[]): Piece[] {
  const sorted = [...pieces].sort(
    (a, b) => a.level.localeCompare(b.level) || a.sign - b.sign || (a.from < b.from ? -1 : a.from > b.from ? 1 : 0),
  );
  const out: Piece[] = [];
  for (const p of sorted) {
    const prev = out[out.length - 1];
    if (prev && prev.level === p.level && prev.sign === p.sign && nextStart(prev.to, p.level) === p.from) {
      prev.to = p.to;
    } else {
      out.push({ ...p });
    }
  }
  return out;
}

/** The pieces whose signed sum is exactly the days [from, to], reading the fewest periods up to `today`. */
export function piecesOf(from: string, to: string, today: string): Piece[] {
  return merge(cover(from, to, 'year', today).pieces);
}
