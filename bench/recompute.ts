// Recompute benchmark (issue 6): computeAvailable (apps/server/src/modules/inventory/available.ts), the one
// computation the push, reconciliation and product view share, over synthetic in-memory data:
// BENCH_RECOMPUTE_VARIANTS (100,000) variants × BENCH_RECOMPUTE_LOCATIONS (20) locations × BENCH_RECOMPUTE_CHANNELS
// (5) channels, every channel pushing to every location, with dynamic buffers on 1 % of the cells and a
// disabled location. Runs it BENCH_RECOMPUTE_RUNS (7) times after one warm-up and prints one JSON line:
// { variants, locations, channels, cells, runs, medianMs, minMs, maxMs, checksum }.
// Run by bench/sync.mjs (`node --import tsx bench/recompute.ts`); it measures and never asserts a time.
import { type AvailableChannel, computeAvailable } from '../apps/server/src/modules/inventory/available.ts';

const int = (name: string, fallback: number) => {
  const raw = process.env[name];
  const value = raw ? Number(raw) : fallback;
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive whole number, got "${raw}"`);
  return value;
};

const variants = int('BENCH_RECOMPUTE_VARIANTS', 100_000);
const locations = int('BENCH_RECOMPUTE_LOCATIONS', 20);
const channelCount = int('BENCH_RECOMPUTE_CHANNELS', 5);
const runs = int('BENCH_RECOMPUTE_RUNS', 7);

// A small deterministic generator, so every run computes the same numbers.
let state = 0x9e3779b9;
const next = () => {
  state ^= state << 13;
  state ^= state >>> 17;
  state ^= state << 5;
  return (state >>> 0) / 0x1_0000_0000;
};

const cells = variants * locations;
const onHand = new Int32Array(cells);
const reserved = new Int32Array(cells);
for (let i = 0; i < cells; i++) {
  onHand[i] = Math.floor(next() * 60) - 5; // a few negative levels (oversold), as real ledgers have
  reserved[i] = next() < 0.1 ? Math.floor(next() * 4) : 0;
}

const channels: AvailableChannel[] = [];
for (let c = 0; c < channelCount; c++) {
  const locationIndex = new Int32Array(locations);
  for (let l = 0; l < locations; l++) locationIndex[l] = l;
  if (c === 0) locationIndex[locations - 1] = -1; // a disabled location pushes 0
  const buffered = Math.floor(cells / 100);
  const bufferVariant = new Int32Array(buffered);
  const bufferLocation = new Int32Array(buffered);
  const bufferQty = new Int32Array(buffered);
  for (let b = 0; b < buffered; b++) {
    bufferVariant[b] = Math.floor(next() * variants);
    bufferLocation[b] = Math.floor(next() * locations);
    bufferQty[b] = 1 + Math.floor(next() * 5);
  }
  channels.push({ safetyStock: c, locationIndex, bufferVariant, bufferLocation, bufferQty });
}

const input = { variantCount: variants, locationCount: locations, onHand, reserved, channels };

// One warm-up so the JIT has compiled the loops, as in a long-running server.
let checksum = 0;
const sum = (out: Int32Array[]) => {
  let s = 0;
  for (const a of out) for (let i = 0; i < a.length; i += 997) s += a[i] as number;
  return s;
};
checksum = sum(computeAvailable(input));

const times: number[] = [];
for (let r = 0; r < runs; r++) {
  const started = performance.now();
  const out = computeAvailable(input);
  times.push(performance.now() - started);
  if (sum(out) !== checksum) throw new Error('computeAvailable answered differently on the same input');
}
times.sort((a, b) => a - b);
const round = (v: number) => Math.round(v * 10) / 10;
process.stdout.write(
  `${JSON.stringify({
    variants,
    locations,
    channels: channelCount,
    cells: cells * channelCount,
    runs,
    medianMs: round(times[Math.floor(times.length / 2)] as number),
    minMs: round(times[0] as number),
    maxMs: round(times[times.length - 1] as number),
    checksum,
  })}\n`,
);
