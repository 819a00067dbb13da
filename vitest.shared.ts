import { fileURLToPath } from 'node:url';

/** Test settings shared by every workspace project: run packages from their TypeScript sources. */
export const shared = {
  resolve: {
    alias: [
      {
        find: /^@gatehouse\/([a-z-]+)$/,
        replacement: `${fileURLToPath(new URL('./packages/', import.meta.url))}$1/src/index.ts`,
      },
    ],
  },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
};
