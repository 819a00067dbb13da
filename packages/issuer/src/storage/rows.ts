/**
 * Row mapping shared by the storage drivers: both return rows keyed by column name, with the same
 * logical columns. Flags come back as 0/1 (SQLite) or booleans (PostgreSQL), epoch seconds as numbers
 * or BIGINT strings, JSON documents as TEXT; every mapper accepts either form. {@link COLUMNS} lists
 * what each mapper reads, for statements that select from several tables at once.
 *
 * @module
 */
import type { AuditEventRecord, AuditEventType } from './audit-records.js';
import type {
  ApplicationRecord,
  ApplicationType,
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
} from './records.js';

/**
 * A result row, column name to value, as either driver returns it.
 *
 * @example
 * ```ts
 * const row: Row = { id: 'usr_1', suspended: 0, created_at: '1700000000' };
 * ```
 */
export type Row = Record<string, unknown>;

/**
 * A JSON document as stored (TEXT).
 *
 * @example
 * ```ts
 * json({ a: 1 }); // '{"a":1}'
 * ```
 */
export const json = (value: unknown): string => JSON.stringify(value);
/**
 * A stored JSON document.
 *
 * @example
 * ```ts
 * parse<string[]>('["read"]'); // ['read']
 * ```
 */
export const parse = <T>(value: unknown): T => JSON.parse(String(value)) as T;
/**
 * A flag: SQLite's 0/1 or PostgreSQL's boolean.
 *
 * @example
 * ```ts
 * bool(1) === bool(true); // true
 * ```
 */
export const bool = (value: unknown): boolean => value === true || Number(value) === 1;
/**
 * A number: SQLite's integer or PostgreSQL's BIGINT string.
 *
 * @example
 * ```ts
 * num('1700000000'); // 1700000000
 * ```
 */
export const num = (value: unknown): number => Number(value);
/**
 * A nullable number.
 *
 * @example
 * ```ts
 * numOrNull(null); // null
 * ```
 */
export const numOrNull = (value: unknown): number | null =>
  value === null || value === undefined ? null : Number(value);
/**
 * A nullable string.
 *
 * @example
 * ```ts
 * strOrNull(undefined); // null
 * ```
 */
export const strOrNull = (value: unknown): string | null =>
  value === null || value === undefined ? null : String(value);
/**
 * The case-insensitive key of a username or email.
 *
 * @example
 * ```ts
 * lower('Alice@Example.com'); // 'alice@example.com'
 * ```
 */
export const lower = (value: string): string => value.toLowerCase();

/**
 * The columns each mapper reads, per table.
 *
 * @example
 * ```ts
 * const list = COLUMNS.users.map((column) => `u.${column} AS u_${column}`).join(', ');
 * ```
 */
export const COLUMNS = Object.freeze({
  users: ['id', 'username', 'email', 'password_hash', 'suspended', 'custom_data', 'created_at', 'updated_at'],
  applications: [
    'id',
    'name',
    'type',
    'redirect_uris',
    'post_logout_redirect_uris',
    'secret_hash',
    'token_endpoint_auth_method',
    'first_party',
    'token_exchange_enabled',
    'custom_data',
    'secret_updated_at',
    'created_at',
    'updated_at',
    'dpop_bound_access_tokens',
    'require_actor_token',
    'impersonation_token_ttl',
  ],
  resources: [
    'id',
    'name',
    'indicator',
    'access_token_ttl',
    'system',
    'created_at',
    'updated_at',
    'roles_claim',
  ],
  subject_tokens: [
    'id',
    'token_hash',
    'user_id',
    'context',
    'application_id',
    'actor_id',
    'created_by',
    'created_at',
    'expires_at',
    'consumed_at',
  ],
  personal_access_tokens: [
    'id',
    'token_hash',
    'user_id',
    'name',
    'scopes',
    'expires_at',
    'created_at',
    'last_used_at',
  ],
} as const);

/**
 * The row of a user as its record.
 *
 * @example
 * ```ts
 * toUser(row).suspended; // false
 * ```
 */
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

/**
 * The row of an application as its record.
 *
 * @example
 * ```ts
 * toApplication(row).redirectUris; // ['https://app.example.com/cb']
 * ```
 */
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
    requireActorToken: bool(row.require_actor_token),
    impersonationTokenTtl: numOrNull(row.impersonation_token_ttl),
    customData: parse(row.custom_data),
    secretUpdatedAt: numOrNull(row.secret_updated_at),
    createdAt: num(row.created_at),
    updatedAt: num(row.updated_at),
  };
}

/**
 * The row of an API resource as its record.
 *
 * @example
 * ```ts
 * toResource(row).accessTokenTtl; // 3600
 * ```
 */
export function toResource(row: Row): ResourceRecord {
  return {
    id: String(row.id),
    name: String(row.name),
    indicator: String(row.indicator),
    accessTokenTtl: num(row.access_token_ttl),
    system: bool(row.system),
    rolesClaim: bool(row.roles_claim),
    createdAt: num(row.created_at),
    updatedAt: num(row.updated_at),
  };
}

/**
 * The row of a scope as its record.
 *
 * @example
 * ```ts
 * toScope(row).name; // 'read:orders'
 * ```
 */
export function toScope(row: Row): ScopeRecord {
  return {
    id: String(row.id),
    resourceId: String(row.resource_id),
    name: String(row.name),
    description: String(row.description),
    createdAt: num(row.created_at),
  };
}

/**
 * The row of a role as its record.
 *
 * @example
 * ```ts
 * toRole(row).type; // 'User'
 * ```
 */
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

/**
 * The row of a signing key as its record.
 *
 * @example
 * ```ts
 * toKey(row).status; // 'active'
 * ```
 */
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

/**
 * The row of an oidc-provider artifact as its record.
 *
 * @example
 * ```ts
 * toPayload(row).consumedAt; // null
 * ```
 */
export function toPayload(row: Row): StoredPayload {
  return {
    payload: parse(row.payload),
    grantId: strOrNull(row.grant_id),
    expiresAt: numOrNull(row.expires_at),
    consumedAt: numOrNull(row.consumed_at),
  };
}

/**
 * The row of a subject token as its record.
 *
 * @example
 * ```ts
 * toSubjectToken(row).context; // { ticketId: 'T-1' }
 * ```
 */
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

/**
 * The row of a personal access token as its record.
 *
 * @example
 * ```ts
 * toPersonalAccessToken(row).scopes; // ['read:orders'] or null
 * ```
 */
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

/**
 * The row of an audit event as its record.
 *
 * @example
 * ```ts
 * toAuditEvent(row).details; // { resource: 'https://orders.example.com' }
 * ```
 */
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
    traceId: strOrNull(row.trace_id),
  };
}
