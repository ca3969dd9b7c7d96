import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: ['packages/contracts', 'packages/sandbox', 'apps/server', 'apps/web'],
    // Both cores (CI's machine has two): Vitest's default is one worker fewer than the cores, so one. Most test
    // files wait on a database, a simulator or a timer, so two run side by side in about half the time.
    maxWorkers: 2,
  },
});
