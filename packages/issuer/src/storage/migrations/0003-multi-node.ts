/**
 * Migration 0003: what several issuer processes on one database share beyond the tables they already
 * had. Failure counters of the token-exchange limiter (catalogue B6) move from memory into the
 * database, and at most one signing key can be active (a partial unique index), so two instances
 * that start or rotate at the same moment cannot both install a key.
 *
 * @module
 */
import { defineMigration } from './dialect.js';

export default defineMigration(
  '0003_multi_node',
  (d) => `
CREATE TABLE failure_counters (
  key TEXT PRIMARY KEY,
  count INTEGER NOT NULL,
  ends_at ${d.time} NOT NULL
);
CREATE INDEX failure_counters_ends_at ON failure_counters (ends_at);
CREATE UNIQUE INDEX signing_keys_one_active ON signing_keys (status) WHERE status = 'active';
`,
);
