import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: ['packages/contracts', 'packages/sandbox', 'apps/server', 'apps/web'],
  },
});
