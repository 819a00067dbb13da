/**
 * Migration 0005: one TOTP factor (RFC 6238) per user, for the second sign-in level (step-up, RFC
 * 9470). `secret` is the shared secret encrypted with AES-256-GCM under a key derived from the cookie
 * keys (see `interactions/totp-secret.ts`), never in the clear; `confirmed` turns true at the first
 * valid code; `last_step` is the last accepted time step, so a code is never accepted twice.
 *
 * @module
 */
export const version = '0005_totp';

/** SQLite. */
export const sqlite = `
CREATE TABLE totp_factors (
  user_id TEXT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  secret TEXT NOT NULL,
  confirmed INTEGER NOT NULL DEFAULT 0,
  last_step INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
`;

/** PostgreSQL. */
export const postgres = `
CREATE TABLE totp_factors (
  user_id TEXT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  secret TEXT NOT NULL,
  confirmed BOOLEAN NOT NULL DEFAULT FALSE,
  last_step BIGINT NOT NULL DEFAULT 0,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
`;
