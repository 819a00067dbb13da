import { defineProject } from 'vitest/config';
import { shared } from '../../vitest.shared.js';

export default defineProject({
  ...shared,
  test: {
    ...shared.test,
    name: 'interop',
    // Each file starts a CLI issuer, loopback servers and a Chromium of its own; whole flows take time.
    testTimeout: 60_000,
    hookTimeout: 90_000,
  },
});
