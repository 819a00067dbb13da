import { defineProject } from 'vitest/config';
import { shared } from '../../vitest.shared.js';

// The console's own code in Node (test/*.test.ts), and its pages in Chromium against the CLI-started
// issuer of the workspace (test/e2e/*.browser.test.ts).
export default defineProject({ ...shared, test: { ...shared.test, name: 'console' } });
