import react from '@vitejs/plugin-react';
import { defineProject } from 'vitest/config';

export default defineProject({
  plugins: [react()],
  test: {
    name: 'web',
    environment: 'jsdom',
    setupFiles: ['./src/test/setup.ts'],
    include: ['src/**/*.test.{ts,tsx}'],
    restoreMocks: true,
    // Screens render in jsdom on a shared 2-core machine: a test of several steps can pass 5 s (vitest's default)
    // under load without anything being wrong. A hang still ends here.
    testTimeout: 20_000,
    // Each worker keeps one module graph and one jsdom window for all the files it runs, instead of loading
    // React, Mantine, the router and jsdom afresh (and cold, unoptimised) for every file: that was over half of
    // this project's CPU time. Tests already share the window within a file; setup.ts's afterEach puts back what
    // a test changes (DOM, storage, timers, the API adapter, toasts) and restoreMocks the spies. A test that leaves
    // anything else behind (a global, vi.mock, a listener) must undo it itself.
    isolate: false,
  },
});
