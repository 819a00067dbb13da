/**
 * Migration 0002: impersonation. Subject tokens (single use: `consumed_at` set by one conditional
 * update), personal access tokens, and the audit trail. Token values are never stored, only their
 * SHA-256 digests. Subject tokens keep no foreign key to users: a token whose user was deleted stays
 * (and is refused at exchange) so its audit trail keeps its meaning. On PostgreSQL `audit_events.seq` (an
 * identity column) orders events recorded in the same second, as SQLite's `rowid` does.
 *
 * @module
 */
import { defineMigration } from './dialect.js';

export default defineMigration(
  '0002_impersonation',
  (d) => `
CREATE TABLE subject_tokens (
  id TEXT PRIMARY KEY,
  token_hash TEXT NOT NULL UNIQUE,
  user_id TEXT NOT NULL,
  context TEXT NOT NULL DEFAULT '{}',
  application_id TEXT,
  actor_id TEXT,
  created_by TEXT NOT NULL,
  created_at ${d.time} NOT NULL,
  expires_at ${d.time} NOT NULL,
  consumed_at ${d.time}
);
CREATE INDEX subject_tokens_expires_at ON subject_tokens (expires_at);

CREATE TABLE personal_access_tokens (
  id TEXT PRIMARY KEY,
  token_hash TEXT NOT NULL UNIQUE,
  user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  scopes TEXT,
  expires_at ${d.time},
  created_at ${d.time} NOT NULL,
  last_used_at ${d.time},
  UNIQUE (user_id, name)
);

CREATE TABLE audit_events (
${d.pg('  seq BIGINT GENERATED ALWAYS AS IDENTITY,\n')}  id TEXT PRIMARY KEY,
  type TEXT NOT NULL,
  created_at ${d.time} NOT NULL,
  application_id TEXT,
  user_id TEXT,
  actor_id TEXT,
  reason TEXT,
  details TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX audit_events_created_at ON audit_events (created_at${d.pg(', seq')});
CREATE INDEX audit_events_user_id ON audit_events (user_id, created_at);
CREATE INDEX audit_events_actor_id ON audit_events (actor_id, created_at);
CREATE INDEX audit_events_application_id ON audit_events (application_id, created_at);
`,
);
