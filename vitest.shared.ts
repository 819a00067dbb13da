import { fileURLToPath } from 'node:url';

/** Test settings shared by every workspace project: run packages from their TypeScript sources. */
export const shared = {
  resolve: {
    alias: [
      // The Node-only entry of core (node.ts): the shared API plus what only Node adapters use.
      {
        find: /^@gatehouse\/core\/node$/,
        replacement: fileURLToPath(new URL('./packages/core/src/node.ts', import.meta.url)),
      },
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
    // expect.poll() waits up to 1 s by default: on a loaded machine a sign-in, an exchange or a delivery
    // can take longer (the demo's console test failed so in .ci/run). Tests that wait on purpose for
    // something that must not happen set their own, shorter timeout.
    expect: { poll: { timeout: 10_000 } },
  },
};
