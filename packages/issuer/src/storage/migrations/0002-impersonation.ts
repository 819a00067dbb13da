/**
 * Migration 0002: impersonation. Subject tokens (single use: `consumed_at` set by one conditional
 * update), personal access tokens, and the audit trail. Token values are never stored, only their
 * SHA-256 digests. Subject tokens keep no foreign key to users: a token whose user was deleted stays
 * (and is refused at exchange) so its audit trail keeps its meaning.
 *
 * @module
 */
export const version = '0002_impersonation';

/** SQLite. */
export const sqlite = `
CREATE TABLE subject_tokens (
  id TEXT PRIMARY KEY,
  token_hash TEXT NOT NULL UNIQUE,
  user_id TEXT NOT NULL,
  context TEXT NOT NULL DEFAULT '{}',
  application_id TEXT,
  actor_id TEXT,
  created_by TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  consumed_at INTEGER
);
CREATE INDEX subject_tokens_expires_at ON subject_tokens (expires_at);

CREATE TABLE personal_access_tokens (
  id TEXT PRIMARY KEY,
  token_hash TEXT NOT NULL UNIQUE,
  user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  scopes TEXT,
  expires_at INTEGER,
  created_at INTEGER NOT NULL,
  last_used_at INTEGER,
  UNIQUE (user_id, name)
);

CREATE TABLE audit_events (
  id TEXT PRIMARY KEY,
  type TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  application_id TEXT,
  user_id TEXT,
  actor_id TEXT,
  reason TEXT,
  details TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX audit_events_created_at ON audit_events (created_at);
CREATE INDEX audit_events_user_id ON audit_events (user_id, created_at);
CREATE INDEX audit_events_actor_id ON audit_events (actor_id, created_at);
CREATE INDEX audit_events_application_id ON audit_events (application_id, created_at);
`;

/**
 * PostgreSQL: the same tables. `audit_events.seq` (an identity column) orders events recorded in the
 * same second, as SQLite's `rowid` does.
 */
export const postgres = `
CREATE TABLE subject_tokens (
  id TEXT PRIMARY KEY,
  token_hash TEXT NOT NULL UNIQUE,
  user_id TEXT NOT NULL,
  context TEXT NOT NULL DEFAULT '{}',
  application_id TEXT,
  actor_id TEXT,
  created_by TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  consumed_at BIGINT
);
CREATE INDEX subject_tokens_expires_at ON subject_tokens (expires_at);

CREATE TABLE personal_access_tokens (
  id TEXT PRIMARY KEY,
  token_hash TEXT NOT NULL UNIQUE,
  user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  scopes TEXT,
  expires_at BIGINT,
  created_at BIGINT NOT NULL,
  last_used_at BIGINT,
  UNIQUE (user_id, name)
);

CREATE TABLE audit_events (
  seq BIGINT GENERATED ALWAYS AS IDENTITY,
  id TEXT PRIMARY KEY,
  type TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  application_id TEXT,
  user_id TEXT,
  actor_id TEXT,
  reason TEXT,
  details TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX audit_events_created_at ON audit_events (created_at, seq);
CREATE INDEX audit_events_user_id ON audit_events (user_id, created_at);
CREATE INDEX audit_events_actor_id ON audit_events (actor_id, created_at);
CREATE INDEX audit_events_application_id ON audit_events (application_id, created_at);
`;
