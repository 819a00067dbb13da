/**
 * Row mapping shared by the storage drivers: both return rows keyed by column name, with the same
 * logical columns. Flags come back as 0/1 (SQLite) or booleans (PostgreSQL), epoch seconds as numbers
 * or BIGINT strings, JSON documents as TEXT; every mapper accepts either form.
 *
 * @module
 */
import type {
  ApplicationRecord,
  ApplicationType,
  AuditEventRecord,
  AuditEventType,
  ClientAuthMethod,
  PersonalAccessTokenRecord,
  ResourceRecord,
  RoleRecord,
  RoleType,
  ScopeRecord,
  SigningKeyRecord,
  StoredPayload,
  SubjectTokenRecord,
  UserRecord,
} from './store.js';

/** A result row, column name to value, as either driver returns it. */
export type Row = Record<string, unknown>;

export const json = (value: unknown): string => JSON.stringify(value);
export const parse = <T>(value: unknown): T => JSON.parse(String(value)) as T;
/** A flag: SQLite's 0/1 or PostgreSQL's boolean. */
export const bool = (value: unknown): boolean => value === true || Number(value) === 1;
export const num = (value: unknown): number => Number(value);
export const numOrNull = (value: unknown): number | null =>
  value === null || value === undefined ? null : Number(value);
export const strOrNull = (value: unknown): string | null =>
  value === null || value === undefined ? null : String(value);
export const lower = (value: string): string => value.toLowerCase();

export function toUser(row: Row): UserRecord {
  return {
    id: String(row.id),
    username: String(row.username),
    email: strOrNull(row.email),
    passwordHash: strOrNull(row.password_hash),
    suspended: bool(row.suspended),
    customData: parse(row.custom_data),
    createdAt: num(row.created_at),
    updatedAt: num(row.updated_at),
  };
}

export function toApplication(row: Row): ApplicationRecord {
  return {
    id: String(row.id),
    name: String(row.name),
    type: String(row.type) as ApplicationType,
    redirectUris: parse(row.redirect_uris),
    postLogoutRedirectUris: parse(row.post_logout_redirect_uris),
    secretHash: strOrNull(row.secret_hash),
    tokenEndpointAuthMethod: String(row.token_endpoint_auth_method) as ClientAuthMethod,
    firstParty: bool(row.first_party),
    tokenExchangeEnabled: bool(row.token_exchange_enabled),
    dpopBoundAccessTokens: bool(row.dpop_bound_access_tokens),
    customData: parse(row.custom_data),
    secretUpdatedAt: numOrNull(row.secret_updated_at),
    createdAt: num(row.created_at),
    updatedAt: num(row.updated_at),
  };
}

export function toResource(row: Row): ResourceRecord {
  return {
    id: String(row.id),
    name: String(row.name),
    indicator: String(row.indicator),
    accessTokenTtl: num(row.access_token_ttl),
    system: bool(row.system),
    createdAt: num(row.created_at),
    updatedAt: num(row.updated_at),
  };
}

export function toScope(row: Row): ScopeRecord {
  return {
    id: String(row.id),
    resourceId: String(row.resource_id),
    name: String(row.name),
    description: String(row.description),
    createdAt: num(row.created_at),
  };
}

export function toRole(row: Row): RoleRecord {
  return {
    id: String(row.id),
    name: String(row.name),
    description: String(row.description),
    type: String(row.type) as RoleType,
    system: bool(row.system),
    createdAt: num(row.created_at),
    updatedAt: num(row.updated_at),
  };
}

export function toKey(row: Row): SigningKeyRecord {
  return {
    kid: String(row.kid),
    alg: String(row.alg),
    privateJwk: parse(row.private_jwk),
    status: String(row.status) as 'active' | 'retired',
    createdAt: num(row.created_at),
    retiredAt: numOrNull(row.retired_at),
    expiresAt: numOrNull(row.expires_at),
  };
}

export function toPayload(row: Row): StoredPayload {
  return {
    payload: parse(row.payload),
    grantId: strOrNull(row.grant_id),
    expiresAt: numOrNull(row.expires_at),
    consumedAt: numOrNull(row.consumed_at),
  };
}

export function toSubjectToken(row: Row): SubjectTokenRecord {
  return {
    id: String(row.id),
    tokenHash: String(row.token_hash),
    userId: String(row.user_id),
    context: parse(row.context),
    applicationId: strOrNull(row.application_id),
    actorId: strOrNull(row.actor_id),
    createdBy: String(row.created_by),
    createdAt: num(row.created_at),
    expiresAt: num(row.expires_at),
    consumedAt: numOrNull(row.consumed_at),
  };
}

export function toPersonalAccessToken(row: Row): PersonalAccessTokenRecord {
  return {
    id: String(row.id),
    tokenHash: String(row.token_hash),
    userId: String(row.user_id),
    name: String(row.name),
    scopes: row.scopes === null || row.scopes === undefined ? null : parse(row.scopes),
    expiresAt: numOrNull(row.expires_at),
    createdAt: num(row.created_at),
    lastUsedAt: numOrNull(row.last_used_at),
  };
}

export function toAuditEvent(row: Row): AuditEventRecord {
  return {
    id: String(row.id),
    type: String(row.type) as AuditEventType,
    createdAt: num(row.created_at),
    applicationId: strOrNull(row.application_id),
    userId: strOrNull(row.user_id),
    actorId: strOrNull(row.actor_id),
    reason: strOrNull(row.reason),
    details: parse(row.details),
  };
}
