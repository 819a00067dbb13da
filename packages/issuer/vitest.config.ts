import { defineProject } from 'vitest/config';
import { shared } from '../../vitest.shared.js';

export default defineProject({
  ...shared,
  test: {
    ...shared.test,
    name: 'issuer',
    // A throwaway PostgreSQL cluster: the storage and issuer suites run on SQLite and on PostgreSQL.
    globalSetup: ['./test/setup/postgres.ts'],
  },
});
