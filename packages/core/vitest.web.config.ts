import { fileURLToPath } from 'node:url';
import { defineProject } from 'vitest/config';
import { shared } from '../../vitest.shared.js';

/**
 * The core suite again, on the WebCrypto platform (src/internal/platform-web.ts) instead of
 * node:crypto: every import of the platform module is redirected, exactly as the non-Node build does.
 * Only internal/platform.test.ts (the Node-only DER helper) is left out.
 */
const web = fileURLToPath(new URL('./src/internal/platform-web.ts', import.meta.url));

export default defineProject({
  ...shared,
  resolve: {
    alias: [
      ...shared.resolve.alias,
      { find: /^(?:\.{1,2}\/)+(?:src\/)?(?:internal\/)?platform\.js$/, replacement: web },
    ],
  },
  test: {
    ...shared.test,
    name: 'core-web',
    env: { GATEHOUSE_PLATFORM: 'web' },
    exclude: ['test/internal/platform.test.ts', '**/node_modules/**'],
  },
});
