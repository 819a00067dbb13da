import { defineProject } from 'vitest/config';
import { shared } from '../../vitest.shared.js';

export default defineProject({
  ...shared,
  test: {
    ...shared.test,
    name: 'hono',
    typecheck: { enabled: true, include: ['test/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
  },
});
