/**
 * Migration 0001: the initial schema, in both dialects with the same tables, columns and constraints:
 * TEXT ids, epoch seconds (SQLite INTEGER, PostgreSQL BIGINT), flags (SQLite 0/1, PostgreSQL BOOLEAN),
 * JSON documents in TEXT columns, and `consumed_at` for atomic single use.
 *
 * @module
 */
export const version = '0001_init';

/** SQLite. */
export const sqlite = `
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

/** PostgreSQL: the same schema. */
export const postgres = `
CREATE TABLE users (
  id TEXT PRIMARY KEY,
  username TEXT NOT NULL,
  username_key TEXT NOT NULL UNIQUE,
  email TEXT,
  email_key TEXT UNIQUE,
  password_hash TEXT,
  suspended BOOLEAN NOT NULL DEFAULT FALSE,
  custom_data TEXT NOT NULL DEFAULT '{}',
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);

CREATE TABLE applications (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  type TEXT NOT NULL CHECK (type IN ('SPA', 'Native', 'Traditional', 'MachineToMachine')),
  redirect_uris TEXT NOT NULL DEFAULT '[]',
  post_logout_redirect_uris TEXT NOT NULL DEFAULT '[]',
  secret_hash TEXT,
  token_endpoint_auth_method TEXT NOT NULL,
  first_party BOOLEAN NOT NULL DEFAULT TRUE,
  token_exchange_enabled BOOLEAN NOT NULL DEFAULT FALSE,
  custom_data TEXT NOT NULL DEFAULT '{}',
  secret_updated_at BIGINT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);

CREATE TABLE resources (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  indicator TEXT NOT NULL UNIQUE,
  access_token_ttl BIGINT NOT NULL,
  system BOOLEAN NOT NULL DEFAULT FALSE,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);

CREATE TABLE scopes (
  id TEXT PRIMARY KEY,
  resource_id TEXT NOT NULL REFERENCES resources (id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  created_at BIGINT NOT NULL,
  UNIQUE (resource_id, name)
);

CREATE TABLE roles (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  description TEXT NOT NULL DEFAULT '',
  type TEXT NOT NULL CHECK (type IN ('User', 'MachineToMachine')),
  system BOOLEAN NOT NULL DEFAULT FALSE,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);

CREATE TABLE role_scopes (
  role_id TEXT NOT NULL REFERENCES roles (id) ON DELETE CASCADE,
  scope_id TEXT NOT NULL REFERENCES scopes (id) ON DELETE CASCADE,
  PRIMARY KEY (role_id, scope_id)
);
CREATE INDEX role_scopes_scope_id ON role_scopes (scope_id);

CREATE TABLE user_roles (
  user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  role_id TEXT NOT NULL REFERENCES roles (id) ON DELETE CASCADE,
  PRIMARY KEY (user_id, role_id)
);
CREATE INDEX user_roles_role_id ON user_roles (role_id);

CREATE TABLE application_roles (
  application_id TEXT NOT NULL REFERENCES applications (id) ON DELETE CASCADE,
  role_id TEXT NOT NULL REFERENCES roles (id) ON DELETE CASCADE,
  PRIMARY KEY (application_id, role_id)
);
CREATE INDEX application_roles_role_id ON application_roles (role_id);

CREATE TABLE signing_keys (
  kid TEXT PRIMARY KEY,
  alg TEXT NOT NULL,
  private_jwk TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('active', 'retired')),
  created_at BIGINT NOT NULL,
  retired_at BIGINT,
  expires_at BIGINT
);

CREATE TABLE oidc_payloads (
  model TEXT NOT NULL,
  id TEXT NOT NULL,
  payload TEXT NOT NULL,
  grant_id TEXT,
  uid TEXT,
  user_code TEXT,
  expires_at BIGINT,
  consumed_at BIGINT,
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
