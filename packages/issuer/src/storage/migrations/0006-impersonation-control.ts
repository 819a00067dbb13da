/**
 * Migration 0006: impersonation under control. Per application, whether every impersonation must
 * carry an actor token (`require_actor_token`, off for every existing application) and the lifetime
 * of its impersonation access tokens (`impersonation_token_ttl`; `NULL` means the issuer's default).
 * `impersonation_tokens` records each access token a subject token was exchanged for — its digest,
 * the subject token, the user, the actor — so introspection can answer for it and an administrator
 * can end it (`ended_at`) before it expires. Never the token itself: only its SHA-256 digest.
 *
 * @module
 */
import { defineMigration } from './dialect.js';

export default defineMigration(
  '0006_impersonation_control',
  (d) => `
ALTER TABLE applications ADD COLUMN require_actor_token ${d.flag} NOT NULL DEFAULT ${d.no};
ALTER TABLE applications ADD COLUMN impersonation_token_ttl ${d.time};
CREATE TABLE impersonation_tokens (
  jti TEXT PRIMARY KEY,
  token_hash TEXT NOT NULL UNIQUE,
  subject_token_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  actor_id TEXT,
  application_id TEXT NOT NULL,
  payload TEXT NOT NULL,
  created_at ${d.time} NOT NULL,
  expires_at ${d.time} NOT NULL,
  ended_at ${d.time}
);
CREATE INDEX impersonation_tokens_subject_token_id ON impersonation_tokens (subject_token_id);
CREATE INDEX impersonation_tokens_actor_id ON impersonation_tokens (actor_id, expires_at);
CREATE INDEX impersonation_tokens_expires_at ON impersonation_tokens (expires_at);
CREATE INDEX subject_tokens_actor_id ON subject_tokens (actor_id, expires_at);
`,
);
