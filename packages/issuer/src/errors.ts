/**
 * Errors of `@gatehouse/issuer`: configuration errors (thrown by `createIssuer()` and the CLI before
 * anything starts) and Management API errors (each carrying its HTTP status and the stable `code` sent
 * in the `{ "code", "message" }` body). OAuth protocol errors are oidc-provider's error classes; the
 * few the issuer adds (token exchange, custom claims) extend them so oidc-provider renders them.
 * Authentication errors of the Management API are `@gatehouse/core`'s `AuthError`s.
 *
 * @module
 */
import { errors } from 'oidc-provider';
import { MAX_ROLES_CLAIM } from './config/constants.js';

/**
 * A setting is missing or invalid. The message and {@link ConfigError.option} name the setting.
 *
 * @example
 * ```ts
 * import { createIssuer, ConfigError } from '@gatehouse/issuer';
 * try {
 *   await createIssuer({ baseUrl: 'localhost:3001' });
 * } catch (err) {
 *   if (err instanceof ConfigError) console.error(err.option); // "baseUrl"
 * }
 * ```
 */
export class ConfigError extends TypeError {
  /**
   * What the user wrote: the dotted path of the setting (`keys.gracePeriod`), or, from the CLI, the
   * flag (`--port`) or environment variable (`GATEHOUSE_PORT`) that set it.
   */
  readonly option: string;
  /** What is wrong, without the name: `must be an integer between 0 and 65535`. */
  readonly requirement: string;
  constructor(option: string, must: string) {
    super(`"${option}" ${must}`);
    this.name = 'ConfigError';
    this.option = option;
    this.requirement = must;
  }
}

/**
 * The issuer cannot listen on its address: the port is taken (`EADDRINUSE`), needs privileges
 * (`EACCES`), or the host is not an address of this machine (`EADDRNOTAVAIL`). The message is one
 * line that says what to change; {@link ListenError.code} is Node's error code.
 *
 * @example
 * ```ts
 * import { ListenError } from '@gatehouse/issuer';
 * try {
 *   await issuer.listen(3001);
 * } catch (err) {
 *   if (err instanceof ListenError && err.code === 'EADDRINUSE') await issuer.listen(0);
 * }
 * ```
 */
export class ListenError extends Error {
  readonly port: number;
  readonly host: string;
  /** Node's error code, e.g. `EADDRINUSE`. */
  readonly code: string;
  /**
   * @param change - How to pick another port or host, e.g. `--port N or GATEHOUSE_PORT=N` (the CLI);
   *   by default the `port` / `host` options.
   */
  constructor(port: number, host: string, code: string, change?: { port: string; host: string }) {
    const how = change ?? { port: 'the "port" option', host: 'the "host" option' };
    super(
      code === 'EADDRINUSE'
        ? `port ${port} on ${host} is already in use: stop what uses it, or pick another port with ${how.port}`
        : code === 'EACCES'
          ? `cannot listen on ${host}:${port}: permission denied (ports below 1024 need privileges); pick another port with ${how.port}`
          : code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND'
            ? `cannot listen on ${host}:${port}: ${host} is not an address of this machine; pick another host with ${how.host}`
            : `cannot listen on ${host}:${port} (${code}); pick another port with ${how.port}`,
    );
    this.name = 'ListenError';
    this.port = port;
    this.host = host;
    this.code = code;
  }
}

/**
 * `resetAdminSecret()` (`gatehouse-issuer admin reset-secret`) found no administrator application: the
 * issuer has never started on this database, or it is not the database the issuer uses.
 *
 * @example
 * ```ts
 * import { NoAdministratorError } from '@gatehouse/issuer';
 * if (err instanceof NoAdministratorError) console.error('start the issuer once first');
 * ```
 */
export class NoAdministratorError extends Error {
  /**
   * @param database - The database as it may be printed (a path, or a URL without its password).
   * @param exists - `false` when the SQLite file is not there at all.
   */
  constructor(database: string, exists = true) {
    super(
      exists
        ? `${database} has no administrator application yet: start the issuer on it once (gatehouse-issuer start), or point --data-dir or --database at the issuer's data`
        : `${database} does not exist: point --data-dir or --database at the issuer's data, or start the issuer once (gatehouse-issuer start)`,
    );
    this.name = 'NoAdministratorError';
  }
}

/** Stable machine codes of Management API errors (the `code` of the error body). */
export type ManagementErrorCode =
  | 'invalid_request'
  | 'access_denied'
  | 'not_found'
  | 'conflict'
  | 'method_not_allowed'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'user_suspended'
  | 'too_many_requests'
  | 'internal_error';

/** One problem found while validating a request. */
export interface ValidationIssue {
  /** Where: `body.redirectUris.0`, `query.page`, `params.id`. */
  readonly path: string;
  /** What is wrong (never echoes the submitted value). */
  readonly message: string;
}

/**
 * Base class of Management API errors: an HTTP status, a stable {@link ManagementErrorCode} and a
 * message that is safe to send.
 *
 * @example
 * ```ts
 * import { ManagementError } from '@gatehouse/issuer';
 * if (err instanceof ManagementError) res.writeHead(err.status).end(JSON.stringify(err.toJSON()));
 * ```
 */
export abstract class ManagementError extends Error {
  abstract readonly status: number;
  abstract readonly code: ManagementErrorCode;
  /** Messages are written by the issuer and never contain submitted values, so they may be sent. */
  readonly expose = true;
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
  /** The response body. */
  toJSON(): { code: ManagementErrorCode; message: string } {
    return { code: this.code, message: this.message };
  }
}

/** 400: the body, query or path failed its schema (unknown fields included), or JSON was malformed or too deep. */
export class ValidationError extends ManagementError {
  readonly status = 400;
  readonly code = 'invalid_request' as const;
  /** Every problem found. */
  readonly issues: readonly ValidationIssue[];
  constructor(message: string, issues: readonly ValidationIssue[] = []) {
    super(message);
    this.issues = Object.freeze([...issues]);
  }
  override toJSON(): { code: 'invalid_request'; message: string; issues?: ValidationIssue[] } {
    return this.issues.length > 0
      ? { code: this.code, message: this.message, issues: [...this.issues] }
      : { code: this.code, message: this.message };
  }
}

/** 403: the token is valid but may not use the Management API (a user token instead of a machine-to-machine one). */
export class AccessDeniedError extends ManagementError {
  readonly status = 403;
  readonly code = 'access_denied' as const;
}

/**
 * Why a Management API change was refused by the scope ceiling (`management/ceiling.ts`):
 * - `scope_not_held`: the caller no longer holds a scope the route needs (its roles changed since its
 *   token was issued);
 * - `role_exceeds_caller`: a role to grant (or to change) grants a scope the caller does not hold;
 * - `scope_exceeds_caller`: a scope to add to a role is one the caller does not hold;
 * - `principal_exceeds_caller`: the user or application acted on holds a scope the caller does not;
 * - `built_in`: a built-in entity (the console's application, the administrator application, the
 *   Management API resource and its scopes, the built-in roles), changed only with `all`;
 * - `configuration_only`: a setting of the console's application that only configuration changes.
 */
export type PrivilegeReason =
  | 'scope_not_held'
  | 'role_exceeds_caller'
  | 'scope_exceeds_caller'
  | 'principal_exceeds_caller'
  | 'built_in'
  | 'configuration_only';

/**
 * 403: the caller may use the route, but not for this: what it would grant, or whom it would act on,
 * holds more than the caller does (the scope ceiling). Nothing was changed. The body carries the
 * stable {@link PrivilegeReason}.
 *
 * @example
 * ```ts
 * throw new PrivilegeError('role_exceeds_caller', 'The role grants a scope you do not hold: all');
 * // 403 {"code":"access_denied","reason":"role_exceeds_caller","message":"…"}
 * ```
 */
export class PrivilegeError extends ManagementError {
  readonly status = 403;
  readonly code = 'access_denied' as const;
  readonly reason: PrivilegeReason;
  constructor(reason: PrivilegeReason, message: string) {
    super(message);
    this.reason = reason;
  }
  override toJSON(): { code: 'access_denied'; reason: PrivilegeReason; message: string } {
    return { code: this.code, reason: this.reason, message: this.message };
  }
}

/**
 * 400: the user is suspended, so the operation (e.g. minting a subject token for them) is refused.
 *
 * @example
 * ```ts
 * throw new UserSuspendedError('The user is suspended and cannot be impersonated'); // {"code":"user_suspended",…}
 * ```
 */
export class UserSuspendedError extends ManagementError {
  readonly status = 400;
  readonly code = 'user_suspended' as const;
  constructor(message = 'The user is suspended') {
    super(message);
  }
}

/** 404: no such entity (or route). */
export class NotFoundError extends ManagementError {
  readonly status = 404;
  readonly code = 'not_found' as const;
}

/** 409: a unique name, username, email, indicator or client id is taken, or the entity is protected. */
export class ConflictError extends ManagementError {
  readonly status = 409;
  readonly code = 'conflict' as const;
}

/** 405: the path exists but not with this method. */
export class MethodNotAllowedError extends ManagementError {
  readonly status = 405;
  readonly code = 'method_not_allowed' as const;
  /** Methods the path accepts, for the `Allow` header. */
  readonly allow: readonly string[];
  constructor(allow: readonly string[]) {
    super('Method not allowed');
    this.allow = Object.freeze([...allow]);
  }
}

/** 413: the body is larger than `http.maxBodyBytes`. */
export class PayloadTooLargeError extends ManagementError {
  readonly status = 413;
  readonly code = 'payload_too_large' as const;
  constructor() {
    super('Request body is too large');
  }
}

/** 415: a body that is not `application/json`. */
export class UnsupportedMediaTypeError extends ManagementError {
  readonly status = 415;
  readonly code = 'unsupported_media_type' as const;
  constructor() {
    super('Request body must be application/json');
  }
}

/**
 * 429: the client made more Management API requests than `rateLimits.managementPerClient` in the
 * current window. `retryAfter` (seconds) is sent as `Retry-After`; the body carries the OAuth error
 * fields (`error`, `error_description`) next to `code` and `message`.
 *
 * @example
 * ```ts
 * if (err instanceof RateLimitedError) console.log(`retry in ${err.retryAfter} s`);
 * ```
 */
export class RateLimitedError extends ManagementError {
  readonly status = 429;
  readonly code = 'too_many_requests' as const;
  /** Seconds until the window ends. */
  readonly retryAfter: number;
  constructor(retryAfter: number) {
    super('Too many requests; retry later');
    this.retryAfter = retryAfter;
  }
  override toJSON(): {
    code: 'too_many_requests';
    message: string;
    error: 'too_many_requests';
    error_description: string;
  } {
    return { code: this.code, message: this.message, error: this.code, error_description: this.message };
  }
}

/** Every concrete Management API error class. */
export type AnyManagementError =
  | ValidationError
  | AccessDeniedError
  | PrivilegeError
  | NotFoundError
  | ConflictError
  | MethodNotAllowedError
  | PayloadTooLargeError
  | UnsupportedMediaTypeError
  | UserSuspendedError
  | RateLimitedError;

/**
 * Thrown by a {@link Store} when a write would break a uniqueness rule. The management layer turns it
 * into a 409 {@link ConflictError}.
 *
 * @example
 * ```ts
 * import { StoreConflictError } from '@gatehouse/issuer';
 * try { await store.users.create(input); } catch (err) { if (err instanceof StoreConflictError) console.log(err.field); }
 * ```
 */
export class StoreConflictError extends Error {
  /** The entity and field that clashed, e.g. `user.username`. */
  readonly field: string;
  constructor(field: string) {
    super(`${field} is already taken`);
    this.name = 'StoreConflictError';
    this.field = field;
  }
}

/**
 * Why `gatehouse-issuer copy` stopped without changing the target: `target_not_empty` (the target
 * holds data and `--force` was not given), `count_mismatch` (a table's row count differs after the
 * copy; the transaction was rolled back), or `source_missing` (no SQLite file at the path).
 *
 * @example
 * ```ts
 * const reason: CopyErrorReason = 'target_not_empty';
 * ```
 */
export type CopyErrorReason = 'target_not_empty' | 'count_mismatch' | 'source_missing';

/**
 * A copy of one store into another was refused or undone; nothing was written to the target.
 *
 * @example
 * ```ts
 * import { CopyError } from '@gatehouse/issuer';
 * try { await copyStore(source, target); } catch (err) { if (err instanceof CopyError) console.error(err.reason); }
 * ```
 */
export class CopyError extends Error {
  /** Stable machine reason. */
  readonly reason: CopyErrorReason;
  constructor(reason: CopyErrorReason, message: string) {
    super(message);
    this.name = 'CopyError';
    this.reason = reason;
  }
}

/**
 * The SQLite database file or its directory cannot be created, opened or written (permissions, a file
 * where a directory should be, a full disk …). The message names the path as it was given, and the
 * operating system's or SQLite's reason.
 *
 * @example
 * ```ts
 * import { DatabaseFileError, openSqliteStore } from '@gatehouse/issuer';
 * try { openSqliteStore('/readonly/issuer.sqlite'); } catch (err) { if (err instanceof DatabaseFileError) console.error(err.message); }
 * ```
 */
export class DatabaseFileError extends Error {
  /** The database path as it was given. */
  readonly path: string;
  constructor(path: string, reason: string, options?: { cause?: unknown }) {
    super(`SQLite database ${path}: ${reason}`, options);
    this.name = 'DatabaseFileError';
    this.path = path;
  }
}

/**
 * Why the PostgreSQL database could not be reached: `refused` (nothing listens at the host and port),
 * `host_not_found`, `timeout`, `database_missing`, `authentication` (a wrong user or password, or
 * `pg_hba.conf` refuses the client), `tls`, or `other`.
 */
export type DatabaseConnectionReason =
  | 'refused'
  | 'host_not_found'
  | 'timeout'
  | 'database_missing'
  | 'authentication'
  | 'tls'
  | 'other';

/**
 * The PostgreSQL database cannot be reached or entered at start. The message names the database (its
 * URL without the password), what went wrong and what to check; `detail` is that last part alone, for a
 * caller that names the setting itself (the CLI says `DATABASE_URL`).
 *
 * @example
 * ```ts
 * import { createIssuer, DatabaseConnectionError } from '@gatehouse/issuer';
 * try { await createIssuer(config); } catch (err) { if (err instanceof DatabaseConnectionError) console.error(err.message); }
 * // cannot connect to the PostgreSQL database postgres://gatehouse@127.0.0.1:5432/gatehouse: connection refused at 127.0.0.1:5432 — is PostgreSQL running there? …
 * ```
 */
export class DatabaseConnectionError extends Error {
  /** The database URL, without its password. */
  readonly database: string;
  readonly reason: DatabaseConnectionReason;
  /** What went wrong and what to check, without the database. */
  readonly detail: string;
  constructor(
    database: string,
    reason: DatabaseConnectionReason,
    detail: string,
    options?: { cause?: unknown },
  ) {
    super(`cannot connect to the PostgreSQL database ${database}: ${detail}`, options);
    this.name = 'DatabaseConnectionError';
    this.database = database;
    this.reason = reason;
    this.detail = detail;
  }
}

/**
 * Stable causes of a refused token exchange, recorded in audit events (`reason`). Errors raised by
 * oidc-provider before the grant runs are recorded by their OAuth code (`invalid_client`,
 * `unauthorized_client`, `invalid_request`).
 */
export type TokenExchangeFailureReason =
  | 'missing_parameter'
  | 'unsupported_parameter'
  | 'unsupported_token_type'
  | 'subject_token_unknown'
  | 'subject_token_expired'
  | 'subject_token_consumed'
  | 'subject_token_wrong_type'
  | 'application_mismatch'
  | 'actor_token_required'
  | 'actor_token_required_by_application'
  | 'actor_mismatch'
  | 'actor_token_invalid'
  | 'actor_not_allowed'
  | 'actor_chain_too_deep'
  | 'actor_token_key_mismatch'
  | 'dpop_required'
  | 'user_missing'
  | 'user_suspended'
  | 'personal_access_token_unknown'
  | 'personal_access_token_expired'
  | 'invalid_target'
  | 'invalid_scope'
  | 'rate_limited'
  | 'custom_claims_denied'
  | 'custom_claims_failed';

/**
 * A refused token exchange: `400 invalid_request` (RFC 8693 §2.2.2) with a description that says
 * what was wrong, never a token value.
 *
 * @example
 * ```ts
 * throw new TokenExchangeError('subject_token_consumed', 'the subject token has already been used');
 * ```
 */
export class TokenExchangeError extends errors.InvalidRequest {
  /** Why, for the audit trail. */
  readonly reason: TokenExchangeFailureReason;
  constructor(reason: TokenExchangeFailureReason, description: string) {
    super(description);
    this.name = 'TokenExchangeError';
    this.reason = reason;
  }
}

/**
 * `429`: too many failed redemptions of unknown subject tokens or PATs from one client and address
 * (catalogue B6). `retryAfter` (seconds) is sent as `Retry-After`.
 *
 * @example
 * ```ts
 * if (err instanceof TooManyExchangeFailuresError) console.log(`retry in ${err.retryAfter} s`);
 * ```
 */
export class TooManyExchangeFailuresError extends errors.OIDCProviderError {
  readonly reason = 'rate_limited' as const;
  /** Seconds until the window ends. */
  readonly retryAfter: number;
  constructor(retryAfter: number) {
    super(429, 'too_many_requests');
    this.name = 'TooManyExchangeFailuresError';
    this.error_description = 'too many failed token exchanges; retry later';
    this.expose = true;
    this.retryAfter = retryAfter;
  }
}

/**
 * `429` at the token endpoint: more requests (client authentications) than `rateLimits.tokenPerClient`
 * for this client id, or `rateLimits.tokenPerAddress` from this client address, in the current window.
 * `retryAfter` (seconds) is sent as `Retry-After`.
 *
 * @example
 * ```ts
 * if (err instanceof TokenRateLimitedError) console.log(err.scope, err.retryAfter); // 'client', 42
 * ```
 */
export class TokenRateLimitedError extends errors.OIDCProviderError {
  readonly reason = 'rate_limited' as const;
  /** Which limit: per client id or per client address. */
  readonly scope: 'client' | 'address';
  /** Seconds until the window ends. */
  readonly retryAfter: number;
  constructor(scope: 'client' | 'address', retryAfter: number) {
    super(429, 'too_many_requests');
    this.name = 'TokenRateLimitedError';
    this.error_description = 'too many token requests; retry later';
    this.expose = true;
    this.scope = scope;
    this.retryAfter = retryAfter;
  }
}

/** Why a custom-claims call produced no claims. */
export type CustomClaimsFailure =
  | 'threw'
  | 'timeout'
  | 'crashed'
  | 'out_of_memory'
  | 'not_an_object'
  | 'not_serializable'
  | 'too_large'
  | 'load_failed';

/**
 * The custom claims function failed and the policy is `deny`: `500 server_error` with a fixed
 * description. Nothing from the function (message, stack, values) is sent or logged.
 *
 * @example
 * ```ts
 * if (err instanceof CustomClaimsError) log.warn({ failure: err.failure }); // e.g. 'timeout'
 * ```
 */
export class CustomClaimsError extends errors.OIDCProviderError {
  /** What went wrong, as a category. */
  readonly failure: CustomClaimsFailure;
  constructor(failure: CustomClaimsFailure) {
    super(500, 'server_error');
    this.name = 'CustomClaimsError';
    this.error_description = 'the custom claims function failed; no token was issued';
    this.expose = true;
    this.failure = failure;
  }
}

/**
 * A `roles` claim would list more roles than {@link MAX_ROLES_CLAIM} (the subject holds too many roles
 * that grant scopes of an API resource that opted in to the claim): no token is issued, `400
 * access_denied` with a fixed description naming the limit. Refusing rather than truncating: an API that
 * authorizes by role never receives a silently shortened list. The role names are never sent or logged.
 *
 * @example
 * ```ts
 * if (err instanceof TooManyRolesError) log.warn({ event: 'roles_claim.too_many', count: err.count });
 * ```
 */
export class TooManyRolesError extends errors.AccessDenied {
  /** How many roles the claim would have listed. */
  readonly count: number;
  constructor(count: number) {
    super(
      `the subject holds more roles for this API resource than an access token may carry (at most ${MAX_ROLES_CLAIM}); no token was issued`,
    );
    this.name = 'TooManyRolesError';
    this.count = count;
  }
}
