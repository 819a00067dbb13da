/**
 * The other direction of `rows.ts`: the columns of a new record, and of a patch (where `undefined`
 * means "leave as it is"). Flags are booleans and JSON documents are serialized here; `created_at` and
 * `updated_at` are stamped by the table helper (`sql/table.ts`).
 *
 * @module
 */
import { json, lower } from './rows.js';
import type {
  ApplicationPatch,
  NewApplication,
  NewPersonalAccessToken,
  NewResource,
  NewRole,
  NewSubjectToken,
  NewUser,
  UserPatch,
} from './store.js';

/**
 * Column name to value; `undefined` values are left out of the statement.
 *
 * @example
 * ```ts
 * const columns: Columns = { name: 'Orders', access_token_ttl: undefined };
 * ```
 */
export type Columns = Readonly<Record<string, unknown>>;

/** A JSON document, or `undefined` (unchanged) for `undefined`. */
const jsonIf = (value: unknown) => (value === undefined ? undefined : json(value));

/**
 * The columns of a new user (usernames and emails are also stored lower-cased, for unique lookups).
 *
 * @example
 * ```ts
 * newUserColumns({ id: 'usr_1', username: 'Alice' }).username_key; // 'alice'
 * ```
 */
export const newUserColumns = (user: NewUser): Columns => ({
  id: user.id,
  username: user.username,
  username_key: lower(user.username),
  email: user.email ?? null,
  email_key: user.email == null ? null : lower(user.email),
  password_hash: user.passwordHash ?? null,
  suspended: user.suspended === true,
  custom_data: json(user.customData ?? {}),
});

/**
 * The columns a user patch changes.
 *
 * @example
 * ```ts
 * userPatchColumns({ email: null }); // { email: null, email_key: null, … undefined }
 * ```
 */
export const userPatchColumns = (patch: UserPatch): Columns => ({
  username: patch.username,
  username_key: patch.username === undefined ? undefined : lower(patch.username),
  email: patch.email,
  email_key: patch.email == null ? patch.email : lower(patch.email),
  password_hash: patch.passwordHash,
  suspended: patch.suspended,
  custom_data: jsonIf(patch.customData),
});

/**
 * The columns of a new application (`secret_updated_at` is set when it has a secret).
 *
 * @example
 * ```ts
 * newApplicationColumns(app, now).first_party; // true unless app.firstParty === false
 * ```
 */
export const newApplicationColumns = (app: NewApplication, now: number): Columns => ({
  id: app.id,
  name: app.name,
  type: app.type,
  redirect_uris: json(app.redirectUris ?? []),
  post_logout_redirect_uris: json(app.postLogoutRedirectUris ?? []),
  secret_hash: app.secretHash,
  token_endpoint_auth_method: app.tokenEndpointAuthMethod,
  first_party: app.firstParty !== false,
  token_exchange_enabled: app.tokenExchangeEnabled === true,
  dpop_bound_access_tokens: app.dpopBoundAccessTokens === true,
  require_actor_token: app.requireActorToken === true,
  impersonation_token_ttl: app.impersonationTokenTtl ?? null,
  custom_data: json(app.customData ?? {}),
  secret_updated_at: app.secretHash === null ? null : now,
});

/**
 * The columns an application patch changes (a new secret also records `secret_updated_at`).
 *
 * @example
 * ```ts
 * applicationPatchColumns({ secretHash: digest }, now).secret_updated_at; // now
 * ```
 */
export const applicationPatchColumns = (patch: ApplicationPatch, now: number): Columns => ({
  name: patch.name,
  redirect_uris: jsonIf(patch.redirectUris),
  post_logout_redirect_uris: jsonIf(patch.postLogoutRedirectUris),
  secret_hash: patch.secretHash,
  secret_updated_at: patch.secretHash === undefined ? undefined : now,
  token_endpoint_auth_method: patch.tokenEndpointAuthMethod,
  first_party: patch.firstParty,
  token_exchange_enabled: patch.tokenExchangeEnabled,
  dpop_bound_access_tokens: patch.dpopBoundAccessTokens,
  require_actor_token: patch.requireActorToken,
  impersonation_token_ttl: patch.impersonationTokenTtl,
  custom_data: jsonIf(patch.customData),
});

/**
 * The columns of a new API resource.
 *
 * @example
 * ```ts
 * newResourceColumns({ id: 'res_1', name: 'Orders', indicator: 'https://orders', accessTokenTtl: 3600 });
 * ```
 */
export const newResourceColumns = (resource: NewResource): Columns => ({
  id: resource.id,
  name: resource.name,
  indicator: resource.indicator,
  access_token_ttl: resource.accessTokenTtl,
  system: resource.system === true,
  roles_claim: resource.rolesClaim === true,
});

/**
 * The columns of a new role.
 *
 * @example
 * ```ts
 * newRoleColumns({ id: 'rol_1', name: 'reader', type: 'User' }).description; // ''
 * ```
 */
export const newRoleColumns = (role: NewRole): Columns => ({
  id: role.id,
  name: role.name,
  description: role.description ?? '',
  type: role.type,
  system: role.system === true,
});

/**
 * The columns of a new subject token (only its digest is stored).
 *
 * @example
 * ```ts
 * newSubjectTokenColumns({ id, tokenHash, userId, createdBy, expiresAt }).context; // '{}'
 * ```
 */
export const newSubjectTokenColumns = (token: NewSubjectToken): Columns => ({
  id: token.id,
  token_hash: token.tokenHash,
  user_id: token.userId,
  context: json(token.context ?? {}),
  application_id: token.applicationId ?? null,
  actor_id: token.actorId ?? null,
  created_by: token.createdBy,
  expires_at: token.expiresAt,
});

/**
 * The columns of a new personal access token (only its digest is stored).
 *
 * @example
 * ```ts
 * newPersonalAccessTokenColumns({ id, tokenHash, userId, name: 'ci' }).scopes; // null: the roles limit it
 * ```
 */
export const newPersonalAccessTokenColumns = (token: NewPersonalAccessToken): Columns => ({
  id: token.id,
  token_hash: token.tokenHash,
  user_id: token.userId,
  name: token.name,
  scopes: token.scopes == null ? null : json(token.scopes),
  expires_at: token.expiresAt ?? null,
});
