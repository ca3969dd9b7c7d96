import { afterEach, vi } from 'vitest';

// An unexpected console.error or console.warn fails the test that caused it (STYLE.md §8).
const fail =
  (kind: string) =>
  (...args: unknown[]) => {
    throw new Error(`Unexpected console.${kind}: ${args.map(String).join(' ')}`);
  };
vi.spyOn(console, 'error').mockImplementation(fail('error'));
vi.spyOn(console, 'warn').mockImplementation(fail('warn'));
afterEach(() => {
  vi.useRealTimers();
});
