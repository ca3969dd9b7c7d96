import { defineConfig } from 'vitest/config';

// Browser journeys against the built app, served by the real server on a free port (see global-setup.ts).
export default defineConfig({
  test: {
    name: 'e2e',
    root: import.meta.dirname,
    include: ['**/*.e2e.test.ts'],
    globalSetup: ['./global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two journeys at a time (CI's machine has two cores): each is its own merchant with its own sandbox shops, and
    // most of a journey is waiting on the server's jobs and the simulators' webhooks, so two side by side take
    // little more than one. Nothing in them asserts a time.
    fileParallelism: true,
    maxWorkers: 2,
  },
});
