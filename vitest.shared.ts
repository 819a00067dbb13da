import { fileURLToPath } from 'node:url';

/** Test settings shared by every workspace project: run packages from their TypeScript sources. */
export const shared = {
  resolve: {
    alias: [
      {
        // The issuer's light subpath (webhook signatures), from its source like the packages themselves.
        find: /^@gatehouse\/issuer\/webhooks$/,
        replacement: fileURLToPath(new URL('./packages/issuer/src/webhooks/signature.ts', import.meta.url)),
      },
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
