/**
 * Migration 0001: the initial schema. SQL that a PostgreSQL driver can mirror: TEXT ids, INTEGER epoch
 * seconds, JSON documents in TEXT columns, and `consumed_at` for atomic single use.
 *
 * @module
 */
export const version = '0001_init';

export const sql = `
CREATE TABLE users (
  id TEXT PRIMARY KEY,
  username TEXT NOT NULL,
  username_key TEXT NOT NULL UNIQUE,
  email TEXT,
  email_key TEXT UNIQUE,
  password_hash TEXT,
  suspended INTEGER NOT NULL DEFAULT 0,
  custom_data TEXT NOT NULL DEFAULT '{}',
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);

CREATE TABLE applications (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  type TEXT NOT NULL CHECK (type IN ('SPA', 'Native', 'Traditional', 'MachineToMachine')),
  redirect_uris TEXT NOT NULL DEFAULT '[]',
  post_logout_redirect_uris TEXT NOT NULL DEFAULT '[]',
  secret_hash TEXT,
  token_endpoint_auth_method TEXT NOT NULL,
  first_party INTEGER NOT NULL DEFAULT 1,
  token_exchange_enabled INTEGER NOT NULL DEFAULT 0,
  custom_data TEXT NOT NULL DEFAULT '{}',
  secret_updated_at INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);

CREATE TABLE resources (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  indicator TEXT NOT NULL UNIQUE,
  access_token_ttl INTEGER NOT NULL,
  system INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);

CREATE TABLE scopes (
  id TEXT PRIMARY KEY,
  resource_id TEXT NOT NULL REFERENCES resources (id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  created_at INTEGER NOT NULL,
  UNIQUE (resource_id, name)
);

CREATE TABLE roles (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  description TEXT NOT NULL DEFAULT '',
  type TEXT NOT NULL CHECK (type IN ('User', 'MachineToMachine')),
  system INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);

CREATE TABLE role_scopes (
  role_id TEXT NOT NULL REFERENCES roles (id) ON DELETE CASCADE,
  scope_id TEXT NOT NULL REFERENCES scopes (id) ON DELETE CASCADE,
  PRIMARY KEY (role_id, scope_id)
);

CREATE TABLE user_roles (
  user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  role_id TEXT NOT NULL REFERENCES roles (id) ON DELETE CASCADE,
  PRIMARY KEY (user_id, role_id)
);

CREATE TABLE application_roles (
  application_id TEXT NOT NULL REFERENCES applications (id) ON DELETE CASCADE,
  role_id TEXT NOT NULL REFERENCES roles (id) ON DELETE CASCADE,
  PRIMARY KEY (application_id, role_id)
);

CREATE TABLE signing_keys (
  kid TEXT PRIMARY KEY,
  alg TEXT NOT NULL,
  private_jwk TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('active', 'retired')),
  created_at INTEGER NOT NULL,
  retired_at INTEGER,
  expires_at INTEGER
);

CREATE TABLE oidc_payloads (
  model TEXT NOT NULL,
  id TEXT NOT NULL,
  payload TEXT NOT NULL,
  grant_id TEXT,
  uid TEXT,
  user_code TEXT,
  expires_at INTEGER,
  consumed_at INTEGER,
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
`;
