import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      'packages/*/vitest.config.ts',
      'packages/core/vitest.web.config.ts',
      'examples/*/vitest.config.ts',
      { test: { name: 'repo', include: ['test/**/*.test.ts'], testTimeout: 60_000 } },
    ],
  },
});
