/**
 * Migration 0005: one TOTP factor (RFC 6238) per user, for the second sign-in level (step-up, RFC
 * 9470). `secret` is the shared secret encrypted with AES-256-GCM under a key derived from the cookie
 * keys (see `interactions/totp-secret.ts`), never in the clear; `confirmed` turns true at the first
 * valid code; `last_step` is the last accepted time step, so a code is never accepted twice.
 *
 * @module
 */
import { defineMigration } from './dialect.js';

export default defineMigration(
  '0005_totp',
  (d) => `
CREATE TABLE totp_factors (
  user_id TEXT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  secret TEXT NOT NULL,
  confirmed ${d.flag} NOT NULL DEFAULT ${d.no},
  last_step ${d.time} NOT NULL DEFAULT 0,
  created_at ${d.time} NOT NULL,
  updated_at ${d.time} NOT NULL
);
`,
);
