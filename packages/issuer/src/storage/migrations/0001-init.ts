/**
 * Migration 0001: the initial schema, written once for both dialects (`bothDialects`) with the same tables, columns and constraints:
 * TEXT ids, epoch seconds (SQLite INTEGER, PostgreSQL BIGINT), flags (SQLite 0/1, PostgreSQL BOOLEAN),
 * JSON documents in TEXT columns, and `consumed_at` for atomic single use.
 *
 * @module
 */
import { type DialectTerms, defineMigration } from './dialect.js';

/**
 * A many-to-many table: two cascading references forming the primary key; PostgreSQL also indexes
 * the second (SQLite's planner does without).
 */
function joinTable(
  d: DialectTerms,
  table: string,
  [first, firstTable]: readonly [string, string],
  [second, secondTable]: readonly [string, string],
): string {
  return `CREATE TABLE ${table} (
  ${first} TEXT NOT NULL REFERENCES ${firstTable} (id) ON DELETE CASCADE,
  ${second} TEXT NOT NULL REFERENCES ${secondTable} (id) ON DELETE CASCADE,
  PRIMARY KEY (${first}, ${second})
);
${d.pg(`CREATE INDEX ${table}_${second} ON ${table} (${second});\n`)}`;
}

export default defineMigration(
  '0001_init',
  (d) => `
CREATE TABLE users (
  id TEXT PRIMARY KEY,
  username TEXT NOT NULL,
  username_key TEXT NOT NULL UNIQUE,
  email TEXT,
  email_key TEXT UNIQUE,
  password_hash TEXT,
  suspended ${d.flag} NOT NULL DEFAULT ${d.no},
  custom_data TEXT NOT NULL DEFAULT '{}',
  created_at ${d.time} NOT NULL,
  updated_at ${d.time} NOT NULL
);

CREATE TABLE applications (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  type TEXT NOT NULL CHECK (type IN ('SPA', 'Native', 'Traditional', 'MachineToMachine')),
  redirect_uris TEXT NOT NULL DEFAULT '[]',
  post_logout_redirect_uris TEXT NOT NULL DEFAULT '[]',
  secret_hash TEXT,
  token_endpoint_auth_method TEXT NOT NULL,
  first_party ${d.flag} NOT NULL DEFAULT ${d.yes},
  token_exchange_enabled ${d.flag} NOT NULL DEFAULT ${d.no},
  custom_data TEXT NOT NULL DEFAULT '{}',
  secret_updated_at ${d.time},
  created_at ${d.time} NOT NULL,
  updated_at ${d.time} NOT NULL
);

CREATE TABLE resources (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  indicator TEXT NOT NULL UNIQUE,
  access_token_ttl ${d.time} NOT NULL,
  system ${d.flag} NOT NULL DEFAULT ${d.no},
  created_at ${d.time} NOT NULL,
  updated_at ${d.time} NOT NULL
);

CREATE TABLE scopes (
  id TEXT PRIMARY KEY,
  resource_id TEXT NOT NULL REFERENCES resources (id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  created_at ${d.time} NOT NULL,
  UNIQUE (resource_id, name)
);

CREATE TABLE roles (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  description TEXT NOT NULL DEFAULT '',
  type TEXT NOT NULL CHECK (type IN ('User', 'MachineToMachine')),
  system ${d.flag} NOT NULL DEFAULT ${d.no},
  created_at ${d.time} NOT NULL,
  updated_at ${d.time} NOT NULL
);

${joinTable(d, 'role_scopes', ['role_id', 'roles'], ['scope_id', 'scopes'])}
${joinTable(d, 'user_roles', ['user_id', 'users'], ['role_id', 'roles'])}
${joinTable(d, 'application_roles', ['application_id', 'applications'], ['role_id', 'roles'])}
CREATE TABLE signing_keys (
  kid TEXT PRIMARY KEY,
  alg TEXT NOT NULL,
  private_jwk TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('active', 'retired')),
  created_at ${d.time} NOT NULL,
  retired_at ${d.time},
  expires_at ${d.time}
);

CREATE TABLE oidc_payloads (
  model TEXT NOT NULL,
  id TEXT NOT NULL,
  payload TEXT NOT NULL,
  grant_id TEXT,
  uid TEXT,
  user_code TEXT,
  expires_at ${d.time},
  consumed_at ${d.time},
  PRIMARY KEY (model, id)
);
CREATE INDEX oidc_payloads_grant_id ON oidc_payloads (grant_id);
CREATE INDEX oidc_payloads_uid ON oidc_payloads (model, uid);
CREATE INDEX oidc_payloads_user_code ON oidc_payloads (model, user_code);
CREATE INDEX oidc_payloads_expires_at ON oidc_payloads (expires_at);

CREATE TABLE settings (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
`,
);
